#!/usr/bin/env bash
# Golden tests: runs the real binary for each case under tests/golden/<case>/
# and compares stdout and the exit status exactly.
#   args             the arguments, one per line (paths relative to the repository)
#   expected_stdout  the exact bytes expected on stdout
#   expected_exit    the exit status
# Run from the repository root: tests/golden/run.sh build/neardup
# With UPDATE=1 the expected files are rewritten from the current binary.
set -u
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
failed=0
passed=0
for dir in "$here"/*/; do
  case="$(basename "$dir")"
  mapfile -t args < "$dir/args"
  actual="$(mktemp)"
  "$bin" "${args[@]}" > "$actual" 2>/dev/null
  code=$?
  if [ "${UPDATE:-0}" = 1 ]; then
    cp "$actual" "$dir/expected_stdout"
    echo "$code" > "$dir/expected_exit"
  fi
  if ! cmp -s "$actual" "$dir/expected_stdout"; then
    echo "FAIL $case: stdout differs"
    diff "$dir/expected_stdout" "$actual" | head -20
    failed=$((failed + 1))
  elif [ "$code" != "$(cat "$dir/expected_exit")" ]; then
    echo "FAIL $case: exit $code, expected $(cat "$dir/expected_exit")"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
  rm -f "$actual"
done
echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
