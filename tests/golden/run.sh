#!/usr/bin/env bash
# Golden tests: runs the real binary for each case under tests/golden/<case>/
# and compares its output exactly. It only checks: it never writes an expected
# file (tests/golden/update.sh does that, as a separate command).
#   args             the arguments, one per line (paths relative to the repository)
#   expected_stdout  the exact bytes expected on stdout
#   expected_exit    the exit status
#   expected_stderr  (optional) the exact bytes expected on stderr; cases whose
#                    stderr holds timings (the summary line) have none
# Run from the repository root: tests/golden/run.sh build/neardup [CASE...]
set -u
if [ $# -lt 1 ]; then
  echo "usage: tests/golden/run.sh NEARDUP_BINARY [CASE...]" >&2
  exit 2
fi
if [ -n "${UPDATE:-}" ]; then
  echo "run.sh only checks; to rewrite the expected files run tests/golden/update.sh" >&2
  exit 2
fi
bin="$1"
shift
here="$(cd "$(dirname "$0")" && pwd)"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for dir in "$here"/*/; do cases+=("$(basename "$dir")"); done
fi
failed=0
passed=0
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for case in "${cases[@]}"; do
  dir="$here/$case"
  if [ ! -f "$dir/args" ] || [ ! -f "$dir/expected_stdout" ] || [ ! -f "$dir/expected_exit" ]; then
    echo "FAIL $case: args, expected_stdout or expected_exit missing"
    failed=$((failed + 1))
    continue
  fi
  mapfile -t args < "$dir/args"
  "$bin" "${args[@]}" > "$tmp/stdout" 2> "$tmp/stderr" < /dev/null
  code=$?
  ok=1
  if ! cmp -s "$tmp/stdout" "$dir/expected_stdout"; then
    echo "FAIL $case: stdout differs"
    diff "$dir/expected_stdout" "$tmp/stdout" | head -20
    ok=0
  fi
  if [ "$code" != "$(cat "$dir/expected_exit")" ]; then
    echo "FAIL $case: exit $code, expected $(cat "$dir/expected_exit")"
    ok=0
  fi
  if [ -f "$dir/expected_stderr" ] && ! cmp -s "$tmp/stderr" "$dir/expected_stderr"; then
    echo "FAIL $case: stderr differs"
    diff "$dir/expected_stderr" "$tmp/stderr" | head -20
    ok=0
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1))
  else
    echo "  stderr was:"
    sed 's/^/    /' "$tmp/stderr" | head -10
    failed=$((failed + 1))
  fi
done
echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
