#!/usr/bin/env bash
# Fresh machine -> dependencies, the binary alone, and neardup on the sample
# corpus. It builds only `neardup` (not the tests), in build/, configured as
# scripts/test.sh configures it, so that test.sh goes on from what this built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
neardup_install_packages "${NEARDUP_PACKAGES[@]}"
neardup_fetch_duckdb
start=$SECONDS
echo "building build/neardup (the binary only; scripts/test.sh builds the tests)" >&2
cmake -S . -B build "${NEARDUP_CONFIGURE_RELEASE[@]}" >/dev/null
cmake --build build -j"$(nproc)" --target neardup neardup_docs >&2  # its progress, on stderr
echo "built build/neardup in $((SECONDS - start)) s" >&2
echo >&2
echo "\$ neardup scan data/sample" >&2
status=0
build/neardup scan data/sample || status=$?
echo >&2
echo "\$ neardup scan --mode clusters data/sample" >&2
build/neardup scan --mode clusters data/sample || true
echo >&2
echo "neardup is $PWD/build/neardup. To run it as \`neardup\`:" >&2
echo "  export PATH=\"$PWD/build:\$PATH\"     # this shell" >&2
echo "  cmake --install build                # or install it (bin/neardup, man page, completions)" >&2
# 0: pairs found, 1: none; both are a working demo.
[ "$status" -le 1 ]
