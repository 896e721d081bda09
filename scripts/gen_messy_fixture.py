#!/usr/bin/env python3
"""Writes data/messy/: a small corpus of the input users really have.

Near copies at several edit rates, exact copies, and the same texts as UTF-16
with a BOM, Latin-1 (invalid UTF-8), CRLF line ends, a UTF-8 BOM, gzip and
zstd copies, a binary file, an empty file, a hidden file, a text of one long
word, and a file name that is not valid UTF-8. The same seed writes the same
bytes; the golden tests over it (tests/golden/messy_*) pin every mode, format
and verify setting of neardup on it.

  scripts/gen_messy_fixture.py [OUT_DIR]     default: data/messy
"""
import gzip
import os
import random
import shutil
import subprocess
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data", "messy")
shutil.rmtree(out, ignore_errors=True)
os.makedirs(os.path.join(out, "sub", ".hidden"), exist_ok=True)
rng = random.Random(20261123)
vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(800)]
accented = ["été", "garçon", "naïve", "Straße", "ﬁle", "ＦＵＬＬ", "東京", "天気"]


def text(n):
    return " ".join(rng.choice(vocab if rng.random() > 0.05 else accented) for _ in range(n))


def edit(words, rate):
    w = words.split(" ")
    for i in range(len(w)):
        if rng.random() < rate:
            w[i] = rng.choice(vocab)
    return " ".join(w)


def write(rel, data):
    path = os.path.join(out.encode() if isinstance(rel, bytes) else out, rel)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


bases = [text(rng.randint(120, 400)) for _ in range(12)]
for i, b in enumerate(bases):
    write(f"doc{i:02d}.txt", b)
for i, rate in enumerate([0.0, 0.02, 0.05, 0.1, 0.2]):
    write(f"sub/near{i}_of_doc{i:02d}.txt", edit(bases[i], rate))
write("copy_of_doc05.txt", bases[5])
write("sub/crlf_doc06.txt", bases[6].replace(" ", "\r\n", 40))
write("bom_doc07.txt", b"\xef\xbb\xbf" + bases[7].encode())
write("utf16_doc08.txt", b"\xff\xfe" + bases[8].encode("utf-16-le"))
write("latin1.txt", "café crème brûlée à la carte ".encode("latin-1") * 30)
write("doc09.txt.gz", gzip.compress(bases[9].encode(), mtime=0))
zst = subprocess.run(["zstd", "-q", "-c", "--no-check"], input=bases[10].encode(), stdout=subprocess.PIPE)
if zst.returncode == 0:
    write("doc10.txt.zst", zst.stdout)
write("binary.bin", bytes(range(256)) * 8)
write("empty.txt", "")
write("punctuation_only.txt", "... --- !!! ??? ,,,\n")
write("sub/.hidden/hidden_copy.txt", bases[11])
write("long_word.txt", "x" * 70000 + " " + bases[11])
write(b"name_\xff_doc11.txt", bases[11])
