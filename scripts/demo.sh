#!/usr/bin/env bash
# Fresh machine -> dependencies, build, and neardup on the sample corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
neardup_install_packages "${NEARDUP_PACKAGES[@]}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
echo "\$ neardup scan data/sample" >&2
status=0
build/neardup scan data/sample || status=$?
echo >&2
echo "\$ neardup scan --mode clusters --exact data/sample" >&2
build/neardup scan --mode clusters --exact data/sample || true
# 0: pairs found, 1: none; both are a working demo.
[ "$status" -le 1 ]
