#!/usr/bin/env bash
# The review page (-f html) in a real browser: headless Chromium loads the
# page from file://, runs its script, and the DOM it dumps is checked.
#  1. A small corpus in clusters mode, opened as PAGE#all: every cluster is
#     rendered, the word diffs hold <del> and <ins>, the script finished
#     (data-ok="1") and raised no error (no data-errors).
#  2. A generated report of 10,000 clusters, opened as PAGE#all, renders all
#     of them within the time budget; opened plainly, it renders the first
#     chunk only (lazy rendering).
#     An exact copy gets no word diff, only a note; each cluster has its
#     kept document tagged.
#  3. Pairs mode renders each pair, with no "kept" tag and no --keep.
#  4. The Content-Security-Policy allows the page's own script and style by
#     their hashes only: no violation as written; a one-space change to the
#     script keeps it from running, one to the style is refused.
#  5. --relation both: a document quoted inside another shows the span it
#     fills in its container marked (<mark>), the words around it grey, its
#     tag and its containment both ways; the script raises no error.
# Usage: html_review_test.sh NEARDUP_BINARY
set -u
bin="$1"
browser=""
for b in chromium-headless-shell chromium chromium-browser; do
  if command -v "$b" >/dev/null 2>&1; then browser="$(command -v "$b")"; break; fi
done
if [ -z "$browser" ] && [ -x /usr/lib/chromium/chromium-headless-shell ]; then
  browser=/usr/lib/chromium/chromium-headless-shell
fi
if [ -z "$browser" ]; then
  echo "SKIP: no headless Chromium (apt-get install chromium-headless-shell; scripts/test.sh installs it)"
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what="$1"
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
dump() {  # dump URL OUT
  "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --virtual-time-budget=20000 --dump-dom "$1" > "$2" 2> "$tmp/browser.log"
}
count() { grep -o "$1" "$2" | wc -l; }

# --- 1: a small corpus ---------------------------------------------------------
words() {  # words SEED N: N pseudo-words
  awk -v seed="$1" -v n="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "w%d ", int(rand() * 3000); print "" }'
}
mkdir -p "$tmp/docs"
for c in 1 2 3; do
  base="$(words "$c" 300)"
  printf '%s\n' "$base" > "$tmp/docs/c$c-kept.txt"
  printf '%s\n' "$base" | sed 's/ w1[0-9]* / changed /' > "$tmp/docs/c$c-near.txt"
  printf 'extra words first %s\n' "$base" > "$tmp/docs/c$c-more <&'>.txt"
done
printf '%s\n' "$(words 1 300)" > "$tmp/docs/c1-copy.txt"  # a copy of c1-kept: no word diff
(cd "$tmp" && "$bin" scan --mode clusters -f html -o small.html docs)
check "scan writes the page" test -s "$tmp/small.html"
dump "file://$tmp/small.html#all" "$tmp/small.dom"
check "script finished (data-ok)" grep -q 'data-ok="1"' "$tmp/small.dom"
check "no script errors" test "$(count 'data-errors' "$tmp/small.dom")" = 0
check "3 clusters rendered" test "$(count '<section class="group"' "$tmp/small.dom")" = 3
check "diffs have <del>" grep -q '<del>' "$tmp/small.dom"
check "diffs have <ins>" grep -q '<ins>' "$tmp/small.dom"
check "names escaped, shown as text" grep -q 'c1-more &lt;&amp;'"'"'&gt;.txt' "$tmp/small.dom"
check "histogram and S-curve" grep -q 'id="scurve"' "$tmp/small.dom"
check "6 word diffs: none for the copy" test "$(count '<details' "$tmp/small.dom")" = 6
check "the copy is said to be one" test "$(count '<span class="note">no diff: the same words (a copy)</span>' "$tmp/small.dom")" = 1
check "clusters mode: 3 kept tags" test "$(count 'class="tag">kept<' "$tmp/small.dom")" = 3

# --- 2: 10,000 clusters -------------------------------------------------------
mkdir -p "$tmp/big"
awk 'BEGIN { srand(7); for (c = 0; c < 10000; c++) { line = ""; for (i = 0; i < 12; i++) line = line " x" c "y" int(rand() * 1000000); print line > sprintf("'"$tmp"'/big/%05d-a.txt", c); print line " end" > sprintf("'"$tmp"'/big/%05d-b.txt", c); close(sprintf("'"$tmp"'/big/%05d-a.txt", c)); close(sprintf("'"$tmp"'/big/%05d-b.txt", c)) } }'
(cd "$tmp" && "$bin" scan --mode clusters -t 0.5 -f html -o big.html big)
start=$(date +%s)
dump "file://$tmp/big.html#all" "$tmp/big.dom"
end=$(date +%s)
echo "10,000 clusters: dump-dom took $((end - start)) s"
check "10,000 clusters: script finished" grep -q 'data-ok="1"' "$tmp/big.dom"
check "10,000 clusters: no script errors" test "$(count 'data-errors' "$tmp/big.dom")" = 0
check "10,000 clusters: all rendered" test "$(count '<section class="group"' "$tmp/big.dom")" = 10000
dump "file://$tmp/big.html" "$tmp/lazy.dom"
lazy=$(count '<section class="group"' "$tmp/lazy.dom")
echo "without #all: $lazy clusters rendered"
check "lazy: some but not all clusters rendered" test "$lazy" -gt 0 -a "$lazy" -lt 10000
check "lazy: script finished" grep -q 'data-ok="1"' "$tmp/lazy.dom"

# --- 3: pairs mode ------------------------------------------------------------
(cd "$tmp" && "$bin" scan -f html -o pairs.html docs)
dump "file://$tmp/pairs.html#all" "$tmp/pairs.dom"
pairs=$(cd "$tmp" && "$bin" scan docs | wc -l)
check "pairs mode: every pair rendered ($pairs)" test "$(count '<section class="group"' "$tmp/pairs.dom")" = "$pairs"
check "pairs mode: no script errors" test "$(count 'data-errors' "$tmp/pairs.dom")" = 0
check "pairs mode: no kept tag" test "$(count 'class="tag">kept<' "$tmp/pairs.dom")" = 0
check "pairs mode: no --keep" test "$(count '[-]-keep' "$tmp/pairs.dom")" = 0
check "pairs mode: diffs against the first document" grep -q 'word diff against the first document' "$tmp/pairs.dom"
# --- 4: the Content-Security-Policy ------------------------------------------
# The page allows its own script and style by their SHA-256 hashes, never
# 'unsafe-inline': the same script changed by one space does not run.
check "CSP without 'unsafe-inline'" test "$(count "unsafe-inline" "$tmp/small.html")" = 0
check "CSP names the script's hash" grep -q "script-src 'sha256-" "$tmp/small.html"
perl -0pe 's#<script>#<script> #' "$tmp/small.html" > "$tmp/tampered.html"
check "tampered page differs" test "$(cksum < "$tmp/small.html")" != "$(cksum < "$tmp/tampered.html")"
dump "file://$tmp/tampered.html#all" "$tmp/tampered.dom"
check "a changed script is blocked (no data-ok)" test "$(count 'data-ok="1"' "$tmp/tampered.dom")" = 0
check "the blocked page still loads" grep -q '<h1>neardup review' "$tmp/tampered.dom"
console() {  # console URL LOG: the page's console messages (CSP violations among them)
  "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" --enable-logging=stderr \
    --v=0 --virtual-time-budget=20000 --dump-dom "$1" > /dev/null 2> "$2"
}
console "file://$tmp/small.html#all" "$tmp/small.console"
check "no CSP violation: the style and script hashes hold" \
  test "$(count 'Content Security Policy' "$tmp/small.console")" = 0
perl -0pe 's#<style>#<style> #' "$tmp/small.html" > "$tmp/restyled.html"
console "file://$tmp/restyled.html#all" "$tmp/restyled.console"
check "a changed style is refused (a CSP violation)" grep -q "style-src 'sha256-" "$tmp/restyled.console"

# --- 5: a contained document --------------------------------------------------
mkdir -p "$tmp/quoted"
host="$(words 9 600)"
printf '%s\n' "$host" > "$tmp/quoted/host.txt"
printf '%s\n' "$host" | cut -d' ' -f101-400 > "$tmp/quoted/quote.txt"
(cd "$tmp" && "$bin" scan --relation both -f html -o quoted.html quoted)
dump "file://$tmp/quoted.html#all" "$tmp/quoted.dom"
check "containment: script finished" grep -q 'data-ok="1"' "$tmp/quoted.dom"
check "containment: no script errors" test "$(count 'data-errors' "$tmp/quoted.dom")" = 0
check "containment: the span is marked" grep -q '<mark>' "$tmp/quoted.dom"
check "containment: the words around it are grey" grep -q '<span class="outside">' "$tmp/quoted.dom"
check "containment: tagged" grep -q 'class="tag contains">contained in the first one<' "$tmp/quoted.dom"
check "containment: both ways" grep -q 'containment: 1.0000 of this document in the first one' "$tmp/quoted.dom"
check "containment: no word diff" test "$(count '<summary>word diff' "$tmp/quoted.dom")" = 0

if [ "$fail" != 0 ]; then
  echo "browser log:"; head -20 "$tmp/browser.log"
fi
exit "$fail"
