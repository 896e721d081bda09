#!/usr/bin/env bash
# Fresh machine -> dependencies, build, the whole test suite (ctest).
#   scripts/test.sh              Release build in build/, all tests
#   scripts/test.sh --sanitize   the same with -fsanitize=address,undefined, in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

sanitize=OFF
build=build
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON; build=build-asan ;;
    *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
  esac
done

neardup_install_packages "${NEARDUP_PACKAGES[@]}"
type=Release
[ "$sanitize" = ON ] && type=RelWithDebInfo
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="$type" -DNEARDUP_WERROR=ON -DNEARDUP_SANITIZE="$sanitize"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
