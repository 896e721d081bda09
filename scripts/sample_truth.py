#!/usr/bin/env python3
"""Writes data/SAMPLE.md: the planted relationships in data/sample/ and their
true Jaccard similarity over word 5-shingle sets, computed here independently
of neardup.

    scripts/sample_truth.py           # rewrite data/SAMPLE.md
    scripts/sample_truth.py --check   # exit 1 if data/SAMPLE.md is stale

Word rules, as neardup's (see include/neardup/shingle.h): the text is NFKC
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if data/SAMPLE.md differs from what would be written")
    args = parser.parse_args()

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
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("data/SAMPLE.md is stale: run scripts/sample_truth.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
