# Sourced by the other scripts: installs the Debian packages neardup needs,
# when some are missing (as root, or through sudo). Nothing is downloaded
# at configure time; everything comes from these packages.
NEARDUP_PACKAGES=(
  build-essential cmake pkg-config
  libcli11-dev libspdlog-dev libxxhash-dev nlohmann-json3-dev
  libsimdjson-dev libutf8proc-dev zlib1g-dev libzstd-dev libsqlite3-dev libgumbo-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  xxhash time sqlite3 mandoc man-db jq python3 zstd
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
