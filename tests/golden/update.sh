#!/usr/bin/env bash
# Rewrites the expected output of golden cases from the current binary:
# expected_stdout and expected_exit, and expected_stderr where the case has
# one (to start comparing a case's stderr, create an empty expected_stderr,
# then run this). Review the diff before committing it. Checking is
# tests/golden/run.sh, which never writes.
#   tests/golden/update.sh build/neardup            every case
#   tests/golden/update.sh build/neardup CASE...    only these (a new case: its
#                                                   folder with an args file)
# Run from the repository root.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: tests/golden/update.sh NEARDUP_BINARY [CASE...]" >&2
  exit 2
fi
bin="$1"
shift
here="$(cd "$(dirname "$0")" && pwd)"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for dir in "$here"/*/; do cases+=("$(basename "$dir")"); done
fi
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
for case in "${cases[@]}"; do
  dir="$here/$case"
  if [ ! -f "$dir/args" ]; then
    echo "update.sh: $dir/args is missing" >&2
    exit 2
  fi
  mapfile -t args < "$dir/args"
  code=0
  "$bin" "${args[@]}" > "$dir/expected_stdout" 2> "$tmp" < /dev/null || code=$?
  echo "$code" > "$dir/expected_exit"
  if [ -f "$dir/expected_stderr" ]; then
    cp "$tmp" "$dir/expected_stderr"
  fi
  echo "updated $case (exit $code)"
done
