#!/usr/bin/env python3
"""Writes data/SAMPLE.md: the planted relationships in data/sample/ and their
true Jaccard similarity over word 5-shingle sets, computed here independently
of neardup.

    scripts/sample_truth.py           # rewrite data/SAMPLE.md
    scripts/sample_truth.py --check   # exit 1 if data/SAMPLE.md is stale
    scripts/sample_truth.py --check --neardup build/neardup
                                      # also exit 1 if neardup's exact Jaccard
                                      # of any pair differs from this script's

With --neardup (as ctest runs it), the binary scans data/sample with --exact
twice: at the default threshold, where it must report exactly the pairs this
script expects, and with one row per band and a tiny threshold, where every
pair that shares a shingle is a candidate; each reported Jaccard must equal
this script's to the 4 decimals neardup prints, and every pair with
Jaccard >= 0.01 here must be reported. Two tokenizers written apart (Python's
unicodedata against utf8proc and neardup's word rules) must agree.

Word rules, as neardup's (see src/text/shingle.h): the text is NFKC
normalized and case folded; a word is a maximal run of characters in the
Unicode categories L*, M*, N* or '_'; everything else separates words. (The
sample has no Han/Kana/Thai text, so neardup's one-word-per-character rule for
those scripts is not implemented here.) A shingle is 5 consecutive words; a
document with 1 to 4 words has one shingle, all of them. Jaccard is taken over
shingle sets. Standard library only.
"""

import argparse
import itertools
import pathlib
import subprocess
import sys
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
OUT = ROOT / "data" / "SAMPLE.md"
K = 5
THRESHOLD = 0.8

# (a, b, what was done to b). Paths are relative to data/sample.
PLANTED = [
    ("news_harbor_closure.txt", "news_harbor_closure_repost.txt",
     "exact copy (byte-identical)"),
    ("notice_water_outage.txt", "notice_water_outage_reformatted.txt",
     "same words in upper case, rewrapped to 58 columns with CRLF line ends, "
     "double spaces, ':' and ';' changed, curly apostrophes: identical after normalization"),
    ("recipe_lentil_soup.txt", "recipe_lentil_soup_edited.txt",
     "light edit: typo fixed (completly), 'twenty five' hyphenated, two quantities "
     "changed, one word added"),
    ("tech_note_backup_rotation.txt", "tech_note_backup_rotation_v2.txt",
     "light edit: one number changed, two sentences added"),
    ("news_library_reopening.txt", "news_library_reopening_syndicated.txt",
     "wire copy: byline and dateline added, a few words changed, a credit line added"),
    ("essay_urban_gardens.txt", "essay_urban_gardens_reordered.txt",
     "the four body paragraphs reordered"),
    ("email_offsite_planning.txt", "email_offsite_planning_fwd.txt",
     "re-sent mail: new headers and a note on top, the original quoted with '> '"),
    ("news_city_budget.txt", "news_city_budget_update.txt",
     "moderate rewrite: new headline and lead, a quote cut, a closing paragraph "
     "rewritten"),
    ("story_lighthouse_keeper.txt", "story_lighthouse_keeper_revised.txt",
     "moderate rewrite: a second draft with six sentences reworded"),
]

# Pages that share a long header and footer (about 170 words) but have
# different bodies: they must NOT be reported at the default threshold.
BOILERPLATE = ["shop_page_about.txt", "shop_page_care_guide.txt",
               "shop_page_returns.txt", "shop_page_shipping.txt"]


def is_word_char(ch):
    return ch == "_" or unicodedata.category(ch)[0] in "LMN"


def words(text):
    text = unicodedata.normalize("NFKC", text).casefold()
    out, cur = [], []
    for ch in text:
        if is_word_char(ch):
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def shingles(path):
    w = words(path.read_text(encoding="utf-8"))
    if not w:
        return set()
    if len(w) < K:
        return {tuple(w)}
    return {tuple(w[i:i + K]) for i in range(len(w) - K + 1)}


def jaccard(a, b):
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def render(docs):
    sets = {name: shingles(SAMPLE / name) for name in docs}
    lines = [
        "# The sample corpus (data/sample/)",
        "",
        "Every document in `data/sample/` was written for this project; names, places,",
        "companies and addresses are invented (mail addresses use `example.*`",
        "domains). No text is copied from elsewhere. The directory holds only the `.txt`",
        "documents, so that `neardup scan data/sample` scans nothing else; this file",
        "describes them.",
        "",
        f"{len(docs)} documents: unrelated texts on varied topics (news, mail, recipes,",
        "technical notes, stories, an essay, a notice, minutes, a review, an FAQ, a",
        "report, a letter, a local history) and the planted relationships below.",
        "",
        "The Jaccard values are exact, over the sets of word 5-shingles, computed by",
        "`scripts/sample_truth.py` (which wrote this file; rerun it after editing the",
        "sample, and `--check` tells whether this file is stale). Word rules: NFKC and",
        "case folding; a word is a maximal run of letters, marks, digits and `_`.",
        "",
        "## Planted pairs",
        "",
        "| a | b | relationship | shingles a / b | Jaccard |",
        "|---|---|---|---:|---:|",
    ]
    planted_keys = set()
    for a, b, what in PLANTED:
        a, b = sorted((a, b), key=lambda s: s.encode())
        planted_keys.add((a, b))
        lines.append(f"| {a} | {b} | {what} | {len(sets[a])} / {len(sets[b])} | "
                     f"{jaccard(sets[a], sets[b]):.4f} |")
    lines += [
        "",
        "## Shared boilerplate (must not be pairs at 0.8)",
        "",
        "Four pages of an invented shop share the same header and footer (about 170",
        "words) around different bodies.",
        "",
        "| a | b | Jaccard |",
        "|---|---|---:|",
    ]
    for a, b in itertools.combinations(sorted(BOILERPLATE, key=str.encode), 2):
        planted_keys.add((a, b))
        lines.append(f"| {a} | {b} | {jaccard(sets[a], sets[b]):.4f} |")

    expected = []
    others = []
    names = sorted(docs, key=str.encode)
    for a, b in itertools.combinations(names, 2):
        j = jaccard(sets[a], sets[b])
        if j >= THRESHOLD:
            expected.append((a, b, j))
        if (a, b) not in planted_keys and j > 0:
            others.append((j, a, b))
    others.sort(key=lambda t: (-t[0], t[1].encode(), t[2].encode()))

    lines += [
        "",
        "## Other pairs",
        "",
        f"Of the {len(names) * (len(names) - 1) // 2} pairs of documents, {len(others)} "
        "others share any shingle at all;",
        f"the most similar has Jaccard {others[0][0]:.4f}." if others else
        "none do.",
        "",
        f"## Expected output at the default threshold ({THRESHOLD})",
        "",
        "The pairs whose exact Jaccard is at least the threshold, as `neardup scan",
        "--exact data/sample` should report them (`a < b` in byte order). Without",
        "`--exact`, MinHash estimates may move a pair near the threshold across it.",
        "",
        "```",
    ]
    for a, b, j in expected:
        lines.append(f"data/sample/{a}\tdata/sample/{b}\t{j:.4f}")
    lines += [
        "```",
        "",
        "## All documents",
        "",
        "| document | bytes | words | shingles |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        path = SAMPLE / name
        n_words = len(words(path.read_text(encoding="utf-8")))
        lines.append(f"| {name} | {path.stat().st_size} | {n_words} | {len(sets[name])} |")
    lines.append("")
    return "\n".join(lines)


def neardup_pairs(binary, extra):
    """Runs `binary scan --exact -f tsv EXTRA data/sample` from the repository
    root; returns {(a, b): jaccard} with names relative to data/sample."""
    cmd = [binary, "scan", "--exact", "-f", "tsv", "--no-progress", *extra, "data/sample"]
    run = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if run.returncode not in (0, 1):
        sys.exit(f"sample_truth.py: {' '.join(cmd)} exited with {run.returncode}:\n"
                 f"{run.stderr.decode(errors='replace')}")
    pairs = {}
    for line in run.stdout.decode().splitlines():
        a, b, _estimate, jac = line.split("\t")
        prefix = "data/sample/"
        if not (a.startswith(prefix) and b.startswith(prefix)):
            sys.exit(f"sample_truth.py: unexpected line from neardup: {line!r}")
        pairs[(a[len(prefix):], b[len(prefix):])] = float(jac)
    return pairs


def check_neardup(binary, docs):
    """Compares neardup's exact Jaccard with this script's; returns the
    number of disagreements (each printed)."""
    sets = {name: shingles(SAMPLE / name) for name in docs}
    names = sorted(docs, key=str.encode)
    truth = {(a, b): jaccard(sets[a], sets[b]) for a, b in itertools.combinations(names, 2)}
    problems = []

    def same(ours, theirs):  # neardup rounds to 4 decimals
        return abs(ours - theirs) <= 0.00005 + 1e-9

    default = neardup_pairs(binary, [])
    want = {k for k, j in truth.items() if j >= THRESHOLD}
    for k in sorted(want - default.keys()):
        problems.append(f"missed at the default threshold: {k[0]} {k[1]} (Jaccard {truth[k]:.4f})")
    for k in sorted(default.keys() - want):
        problems.append(f"reported at the default threshold: {k[0]} {k[1]} "
                        f"(neardup {default[k]}, here {truth[k]:.4f})")
    everything = neardup_pairs(binary, ["-t", "0.001", "--bands", "128", "--rows", "1"])
    for k, theirs in sorted({**default, **everything}.items()):
        if k not in truth:
            problems.append(f"unknown pair from neardup: {k}")
        elif not same(truth[k], theirs):
            problems.append(f"Jaccard differs: {k[0]} {k[1]}: neardup {theirs}, here {truth[k]:.4f}")
    for k, j in sorted(truth.items()):
        if j >= 0.01 and k not in everything:
            problems.append(f"not a candidate with one row per band: {k[0]} {k[1]} (Jaccard {j:.4f})")
    if len(everything) < len(PLANTED) + 6:
        problems.append(f"only {len(everything)} pairs compared; expected the planted pairs "
                        "and the boilerplate pages at least")
    for p in problems:
        print(f"sample_truth.py: {p}", file=sys.stderr)
    if not problems:
        print(f"sample_truth.py: neardup agrees on {len(everything)} pairs", file=sys.stderr)
    return len(problems)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if data/SAMPLE.md differs from what would be written")
    parser.add_argument("--neardup", metavar="BINARY",
                        help="with --check: also exit 1 if this neardup binary's exact Jaccard "
                             "on data/sample differs from this script's")
    args = parser.parse_args()
    if args.neardup and not args.check:
        parser.error("--neardup goes with --check")

    docs = [p.name for p in SAMPLE.iterdir()]
    strays = [d for d in docs if not d.endswith(".txt")]
    if strays:
        sys.exit(f"sample_truth.py: data/sample/ must hold only .txt files: {strays}")
    for a, b, _ in PLANTED:
        for name in (a, b):
            if name not in docs:
                sys.exit(f"sample_truth.py: missing data/sample/{name}")
    exact = PLANTED[0]
    if (SAMPLE / exact[0]).read_bytes() != (SAMPLE / exact[1]).read_bytes():
        sys.exit(f"sample_truth.py: {exact[0]} and {exact[1]} must be byte-identical")
    text = render(docs)
    if args.check:
        status = 0
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("data/SAMPLE.md is stale: run scripts/sample_truth.py", file=sys.stderr)
            status = 1
        if args.neardup and check_neardup(args.neardup, docs) > 0:
            status = 1
        return status
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
