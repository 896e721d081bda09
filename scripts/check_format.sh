#!/usr/bin/env bash
# Checks that src/, include/ and tests/ are laid out as .clang-format says
# (clang-format 14, Debian bookworm's). Prints the places that differ and
# exits 1; `scripts/check_format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
neardup_install_packages clang-format-14
mapfile -t files < <(git ls-files 'src/*.cc' 'src/*.h' 'include/*.h' 'tests/*.cc' 'tests/*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format-14 -i "${files[@]}"
else
  clang-format-14 --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files as .clang-format says" >&2
fi
