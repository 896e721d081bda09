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

# python3 (standard library only) runs scripts/sample_truth.py, a ctest test.
neardup_install_packages "${NEARDUP_PACKAGES[@]}" python3
neardup_fetch_duckdb
if [ "$sanitize" = ON ]; then
  echo "building the binary and the tests with -fsanitize=address,undefined in $build/" >&2
  configure=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNEARDUP_WERROR=ON -DNEARDUP_SANITIZE=ON
    -DNEARDUP_BUILD_BENCHMARKS=OFF)
else
  # The same configuration as scripts/demo.sh: what the demo built is reused.
  echo "building the binary, the tests and the microbenchmarks in $build/ (what scripts/demo.sh built is reused)" >&2
  configure=("${NEARDUP_CONFIGURE_RELEASE[@]}")
fi
cmake -S . -B "$build" "${configure[@]}"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
if [ "$sanitize" = OFF ]; then
  # The quick corpus (seed 42) has 37 planted pairs at Jaccard >= 0.8, and
  # --exact finds all 37. 0.97 allows one miss, which the S-curve permits
  # (0.77% of the pairs exactly at the threshold are missed), and fails on
  # any real loss of recall.
  NEARDUP_BIN="$PWD/$build/neardup" NEARDUP_BUILD_DIR="$PWD/$build" scripts/bench.sh --quick \
    --min-recall 0.97 --workdir "$PWD/$build/bench-quick" >/dev/null
  echo "bench.sh --quick: ok (recall of the planted pairs with --exact >= 0.97)"
fi

# The stages by the one-machine shell loop (N=3 sign tasks, M=2 bucket
# tasks, V in 1, 2, 5 verify tasks) give scan's bytes and exit status, in
# every mode.
stage_dir=$(mktemp -d)
trap 'rm -rf "$stage_dir"' EXIT
NEARDUP_BUILD_DIR="$PWD/$build" scripts/gen_corpus --docs 1500 --out "$stage_dir/corpus" --seed 42 -q
for mode in pairs clusters duplicates; do
  status=0
  "$build/neardup" scan -q --mode "$mode" --exact "$stage_dir/corpus" >"$stage_dir/scan.out" || status=$?
  for v in 1 2 5; do
    staged=0
    NEARDUP_BIN="$PWD/$build/neardup" scripts/stage_local.sh -n 3 -m 2 -v "$v" "$stage_dir/work-$mode-$v" -q \
      --mode "$mode" --exact -- "$stage_dir/corpus" >"$stage_dir/stage.out" || staged=$?
    cmp "$stage_dir/scan.out" "$stage_dir/stage.out"
    [ "$status" = "$staged" ] || { echo "stage_local.sh --mode $mode -v $v: exit $staged, scan $status" >&2; exit 1; }
  done
done
echo "stage_local.sh -n 3 -m 2 -v 1|2|5: ok (same output as scan in every mode)"

# The same stages under a real single-node Slurm (munged, slurmctld and
# slurmd from Debian's packages), chained by scripts/slurm/submit.sh with
# N=4, M=3. slurmd runs jobs as their users: root only.
if [ "$sanitize" = OFF ]; then
  if [ "$(id -u)" = 0 ]; then
    neardup_install_packages "${NEARDUP_SLURM_PACKAGES[@]}"
    scripts/slurm/e2e.sh "$build"
  else
    echo "scripts/slurm/e2e.sh: skipped (needs root to run slurmd)"
  fi
fi
