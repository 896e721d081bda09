#!/usr/bin/env bash
# Fresh machine -> dependencies, build, the whole test suite (ctest).
#   scripts/test.sh              Release build in build/, all tests, the microbenchmarks
#                                run once each and scripts/bench.sh --quick (smoke checks:
#                                no timing is ever asserted)
#   scripts/test.sh --sanitize   the tests with -fsanitize=address,undefined, in build-asan/
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
benchmarks=ON
if [ "$sanitize" = ON ]; then
  type=RelWithDebInfo
  benchmarks=OFF
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="$type" -DNEARDUP_WERROR=ON -DNEARDUP_SANITIZE="$sanitize" \
  -DNEARDUP_BUILD_BENCHMARKS="$benchmarks"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
if [ "$sanitize" = OFF ]; then
  NEARDUP_BIN="$PWD/$build/neardup" NEARDUP_BUILD_DIR="$PWD/$build" scripts/bench.sh --quick \
    --workdir "$PWD/$build/bench-quick" >/dev/null
  echo "bench.sh --quick: ok"
fi
