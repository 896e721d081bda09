#!/usr/bin/env python3
"""Runs the commands of README.md and docs/*.md as written, and checks their links.

    scripts/doc_commands.py --neardup build/neardup   # as ctest runs it
    scripts/doc_commands.py --self-test --neardup build/neardup

The rule for fenced code blocks (by the word after the opening fence):

  ```sh       Run. Each line (a line ending in a backslash goes on with the next)
              is one command, run by `bash -o pipefail -c` in a fresh temporary
              folder holding a copy of the repository's data/ (so `data/sample`
              is there), with the build's `neardup` first on PATH and stdin
              /dev/null. The commands of a block run in order in the same folder
              (what one writes, the next can read). Each must exit 0 or 1,
              neardup's "found" and "nothing found"; any other status (2, a usage
              error or a failure; 127, a command not found) fails the check.
  ```console  Run and compared. Lines starting with "$ " are commands, run as
              above; the lines after one, up to the next "$ " line or the end of
              the block, are its exact stdout (stderr is not compared: it holds
              the summary, with its time).

Each block runs twice in a row in the same folder, as a reader who tries the
examples again would, and must hold the second time too.
  anything    Not run: ```text for commands that need what the repository does
  else        not hold (your folders, a cluster, packages to install), ```json,
              plain ``` for output.

docs/cluster.md and docs/kept-dir.md are not run: their examples need a cluster
or JSONL shards. Their links are checked as everywhere.

Links: every Markdown link [text](target) outside code, in every page, must
name a file or folder that exists (relative to the page), and an #anchor must
be the GitHub anchor of a heading of the page it names. README.md must link to
every page of docs/, and hold the two set-up commands, scripts/demo.sh and
scripts/test.sh, in its first 10 lines.

--self-test checks that this checker fails where it must: a command with a
misspelt option, a shown output that differs, a broken link, a missing
anchor, a docs page the README does not link and a README without the set-up
commands at its top each give an error.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOT_RUN = {"docs/cluster.md", "docs/kept-dir.md"}
FENCE = re.compile(r"^(\s*)(```+)\s*([^\s`]*)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def pages(root):
    """README.md, then docs/*.md in name order, as paths relative to root."""
    found = [pathlib.Path("README.md")]
    docs = root / "docs"
    if docs.is_dir():
        found += sorted(p.relative_to(root) for p in docs.glob("*.md"))
    return found


def blocks(text):
    """Yields (info, first content line number, content lines) of each fence."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, info = len(m.group(1)), m.group(2), m.group(3)
        start = i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(ticks):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        yield info, start + 1, body
        i += 1


def commands(body, first_line):
    """The logical lines of a sh block: (line number, command)."""
    out = []
    pending, pending_line = "", 0
    for n, line in enumerate(body, first_line):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            pending_line = n
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((pending_line, pending + line))
        pending = ""
    if pending:
        out.append((pending_line, pending))
    return out


def session(body, first_line):
    """The commands of a console block: (line number, command, expected stdout)."""
    out = []
    for n, line in enumerate(body, first_line):
        if line.startswith("$ "):
            out.append([n, line[2:], []])
        elif out:
            out[-1][2].append(line)
    return [(n, cmd, "".join(l + "\n" for l in shown)) for n, cmd, shown in out]


class Sandbox:
    """A temporary folder with a copy of data/, and a PATH whose neardup is the build's."""

    def __init__(self, root, neardup, bindir):
        self.dir = tempfile.mkdtemp(prefix="neardup-doc-")
        shutil.copytree(root / "data", pathlib.Path(self.dir) / "data", symlinks=True)
        self.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        for name in ("NO_COLOR", "COLUMNS", "TMPDIR"):
            self.env.pop(name, None)

    def run(self, command):
        return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=self.dir, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=300)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def check_status(where, command, result, errors):
    if result.returncode not in (0, 1):
        tail = result.stderr.decode(errors="replace").strip().splitlines()[-3:]
        errors.append(f"{where}: exit status {result.returncode} (0 or 1 expected): {command}\n    "
                      + "\n    ".join(tail))
        return False
    return True


def run_page(root, page, neardup, bindir, errors):
    """Runs each block of the page twice in a row in the same folder, as a
    reader who tries the examples again would: the second pass must hold as
    the first (no folder left behind that makes a command fail)."""
    ran = 0
    text = (root / page).read_text(encoding="utf-8")
    for info, first, body in blocks(text):
        if info not in ("sh", "console"):
            continue
        box = Sandbox(root, neardup, bindir)
        try:
            for attempt in ("", " (run a second time)"):
                if attempt and len(errors) > first_errors:
                    break  # the first pass failed already: one report is enough
                first_errors = len(errors)
                if info == "sh":
                    for n, command in commands(body, first):
                        check_status(f"{page}:{n}{attempt}", command, box.run(command), errors)
                        ran += 1
                    continue
                for n, command, shown in session(body, first):
                    result = box.run(command)
                    ran += 1
                    if not check_status(f"{page}:{n}{attempt}", command, result, errors):
                        continue
                    real = result.stdout.decode(errors="replace")
                    if real != shown:
                        errors.append(f"{page}:{n}{attempt}: the output shown differs from the real one: {command}\n"
                                      f"--- shown\n{shown}--- real\n{real}---")
        finally:
            box.close()
    return ran


def slug(heading):
    """GitHub's anchor for a heading: lower case, only letters, digits, '-', '_' and
    spaces kept, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    out = set()
    for line in prose_lines(text, keep_code=True):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def prose_lines(text, keep_code=False):
    """The lines outside fenced code blocks (as empty lines), inline code removed unless keep_code."""
    inside = None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m and inside is None:
            inside = m.group(2)
            yield ""
            continue
        if inside is not None:
            if line.strip().startswith(inside):
                inside = None
            yield ""
            continue
        yield line if keep_code else re.sub(r"`[^`]*`", "", line)


def links(text):
    """(line number, target) of each link, by the line it starts on; its text may go on to the next line."""
    lines = list(prose_lines(text))
    for n, line in enumerate(lines, 1):
        joined = line + "\n" + (lines[n] if n < len(lines) else "")
        for m in LINK.finditer(joined):
            if m.start() < len(line):
                yield n, m.group(1)


def check_links(root, page, errors):
    text = (root / page).read_text(encoding="utf-8")
    checked = 0
    for n, target in links(text):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto: are not fetched
        checked += 1
        path, _, anchor = target.partition("#")
        file = (root / page).parent / path if path else root / page
        if not file.exists():
            errors.append(f"{page}:{n}: link to {target}: no such file")
            continue
        if anchor and file.suffix == ".md":
            if anchor not in anchors(file.read_text(encoding="utf-8")):
                errors.append(f"{page}:{n}: link to {target}: no heading with that anchor")
    return checked


def check_readme(root, errors):
    """The project's rules for the README: the set-up commands on top, a link to each docs page."""
    text = (root / "README.md").read_text(encoding="utf-8")
    top = "\n".join(text.split("\n")[:10])
    missing = [c for c in ("scripts/demo.sh", "scripts/test.sh") if c not in top]
    if missing:
        errors.append(f"README.md: {' and '.join(missing)} not in its first 10 lines")
    linked = set()
    for _, target in links(text):
        linked.add(target.partition("#")[0])
    for page in pages(root)[1:]:
        if str(page) not in linked:
            errors.append(f"README.md: no link to {page}")


def check(root, neardup):
    errors = []
    check_readme(root, errors)
    bindir = tempfile.mkdtemp(prefix="neardup-bin-")
    try:
        os.symlink(os.path.abspath(neardup), os.path.join(bindir, "neardup"))
        ran = links = 0
        for page in pages(root):
            links += check_links(root, page, errors)
            if str(page) not in NOT_RUN:
                ran += run_page(root, page, neardup, bindir, errors)
    finally:
        shutil.rmtree(bindir, ignore_errors=True)
    return errors, ran, links


# A sound README (the set-up commands on top, a link to its one docs page)
# with one fault each: the checker must report exactly one error.
SOUND_TOP = "scripts/demo.sh scripts/test.sh\n\n[a](docs/a.md)\n\n"
SELF_TESTS = {
    "a misspelt option": SOUND_TOP + "```sh\nneardup scan --treshold 0.7 data/sample\n```\n",
    "a failing stage of a pipeline": SOUND_TOP + "```sh\nneardup scan --mode duplicates -0 data/sample | xargs -0 false\n```\n",
    "an output that differs": SOUND_TOP + "```console\n$ neardup scan --mode clusters data/sample\n{\"cluster\":0}\n```\n",
    "a command that fails when run again": SOUND_TOP + "```sh\nneardup scan --kept-dir out/ data/sample\n```\n",
    "a link to no file": SOUND_TOP + "See [the options](docs/nothing.md).\n",
    "a link to no heading": SOUND_TOP + "# Title\n\nSee [usage](#usage).\n",
    "a docs page the README does not link": SOUND_TOP,
    "a README without the set-up commands on top": "# neardup\n" + "\n" * 10 + SOUND_TOP,
}


def check_fixture(readme, extra_page, neardup):
    """check() on a folder with data/sample, this README and docs/a.md (and docs/b.md)."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="neardup-doc-self-"))
    try:
        shutil.copytree(ROOT / "data" / "sample", root / "data" / "sample")
        (root / "README.md").write_text(readme, encoding="utf-8")
        (root / "docs").mkdir()
        (root / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
        if extra_page:
            (root / "docs" / "b.md").write_text("# B\n", encoding="utf-8")
        return check(root, neardup)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def self_test(neardup):
    failed = 0
    for name, readme in SELF_TESTS.items():
        errors, _, _ = check_fixture(readme, "docs page" in name, neardup)
        print(f"{'caught' if len(errors) == 1 else 'MISSED'}: {name}" + "".join("\n    " + e for e in errors))
        failed += len(errors) != 1
    sound = SOUND_TOP + ("# Usage\n\n[usage](#usage)\n\n```sh\nneardup params -t 0.7\n"
                         "neardup scan -t 0.99 data/sample/recipe_lentil_soup.txt\n```\n")
    errors, ran, _ = check_fixture(sound, False, neardup)
    print(f"{'MISREPORTED' if errors or ran != 4 else 'passed'}: a sound page (exit 0 and exit 1, run twice)")
    return 1 if failed or errors or ran != 4 else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--neardup", required=True, help="the binary the commands run as `neardup`")
    parser.add_argument("--root", default=str(ROOT), help="the repository (default: this script's)")
    parser.add_argument("--self-test", action="store_true", help="check that this checker fails where it must")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.neardup)
    errors, ran, links = check(pathlib.Path(args.root), args.neardup)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{ran} commands run, {links} links checked, {len(errors)} errors")
    return 1 if errors or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
