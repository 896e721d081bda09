# Sourced by the other scripts: installs the Debian packages neardup needs,
# when some are missing (as root, or through sudo). Nothing is downloaded
# at configure time; everything comes from these packages.
NEARDUP_PACKAGES=(
  build-essential cmake pkg-config
  libcli11-dev libspdlog-dev libxxhash-dev nlohmann-json3-dev
  libsimdjson-dev libutf8proc-dev zlib1g-dev libzstd-dev libsqlite3-dev libgumbo-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  xxhash time sqlite3 mandoc man-db jq python3 zstd curl ca-certificates
  libdtl-dev chromium-headless-shell libjemalloc-dev
)
# How build/ is configured, by scripts/demo.sh (which builds the binary
# alone) and scripts/test.sh (which then builds the tests in the same folder,
# reusing what the demo built).
NEARDUP_CONFIGURE_RELEASE=(
  -DCMAKE_BUILD_TYPE=Release -DNEARDUP_WERROR=ON -DNEARDUP_SANITIZE=OFF -DNEARDUP_BUILD_BENCHMARKS=ON
)
# For scripts/slurm/e2e.sh: a real single-node Slurm cluster.
NEARDUP_SLURM_PACKAGES=(slurm-wlm munge)

neardup_install_packages() {
  local missing=()
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# DuckDB, for Parquet input (issue #45): Debian bookworm packages no Parquet
# library, so neardup loads DuckDB's shared library at run time (dlopen),
# only when it reads Parquet. Its header (for the C API's types, at build
# time) and the library come from the npm registry, pinned, checked against
# these checksums, and unpacked into .deps/duckdb-VERSION/{include,lib}
# (not in git), where CMake looks for them (NEARDUP_DUCKDB_DIR). A failed
# fetch is said on stderr and is not fatal: neardup builds and is tested
# without it (Parquet then says how to provide the library).
NEARDUP_DUCKDB_VERSION=1.4.4
NEARDUP_DUCKDB_BINDINGS=1.4.4-r.1  # @duckdb/node-bindings-linux-x64: DuckDB 1.4.4's libduckdb.so
NEARDUP_DUCKDB_HEADER_TGZ_SHA256=5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed
NEARDUP_DUCKDB_LIB_TGZ_SHA256=8ac460b152cd05a95065a414879bb09e40534b1fb7a80a7afe6969b6ce039029

# Fetches one registry tarball into $2: by curl, else by npm pack.
neardup_fetch_tgz() {
  local url=$1 out=$2 pkg=$3
  if command -v curl >/dev/null; then
    curl -sSfL --retry 2 -o "$out" "$url" && return 0
  fi
  if command -v npm >/dev/null; then
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack -q "$pkg" >/dev/null 2>&1) && mv "$tmp"/*.tgz "$out" && rm -rf "$tmp" && return 0
    rm -rf "$tmp"
  fi
  return 1
}

neardup_fetch_duckdb() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local dest="$root/.deps/duckdb-$NEARDUP_DUCKDB_VERSION"
  [ -f "$dest/include/duckdb.h" ] && [ -f "$dest/lib/libduckdb.so" ] && return 0
  local tmp
  tmp=$(mktemp -d)
  local reg=https://registry.npmjs.org
  if ! neardup_fetch_tgz "$reg/duckdb/-/duckdb-$NEARDUP_DUCKDB_VERSION.tgz" "$tmp/h.tgz" "duckdb@$NEARDUP_DUCKDB_VERSION" ||
    ! neardup_fetch_tgz "$reg/@duckdb/node-bindings-linux-x64/-/node-bindings-linux-x64-$NEARDUP_DUCKDB_BINDINGS.tgz" \
      "$tmp/l.tgz" "@duckdb/node-bindings-linux-x64@$NEARDUP_DUCKDB_BINDINGS"; then
    echo "deps.sh: could not fetch DuckDB $NEARDUP_DUCKDB_VERSION from the npm registry: building without Parquet input" >&2
    rm -rf "$tmp"
    return 0
  fi
  if ! echo "$NEARDUP_DUCKDB_HEADER_TGZ_SHA256  $tmp/h.tgz" | sha256sum -c --quiet - ||
    ! echo "$NEARDUP_DUCKDB_LIB_TGZ_SHA256  $tmp/l.tgz" | sha256sum -c --quiet -; then
    echo "deps.sh: DuckDB tarballs do not match their pinned sha256: not used; building without Parquet input" >&2
    rm -rf "$tmp"
    return 0
  fi
  mkdir -p "$dest.part/include" "$dest.part/lib"
  tar -xzf "$tmp/h.tgz" -C "$tmp" package/src/duckdb/src/include/duckdb.h &&
    tar -xzf "$tmp/l.tgz" -C "$tmp" package/libduckdb.so &&
    mv "$tmp/package/src/duckdb/src/include/duckdb.h" "$dest.part/include/" &&
    mv "$tmp/package/libduckdb.so" "$dest.part/lib/" &&
    rm -rf "$dest" && mv "$dest.part" "$dest" &&
    echo "deps.sh: DuckDB $NEARDUP_DUCKDB_VERSION in $dest" >&2 ||
    echo "deps.sh: could not unpack DuckDB $NEARDUP_DUCKDB_VERSION: building without Parquet input" >&2
  rm -rf "$tmp" "$dest.part"
  return 0
}
