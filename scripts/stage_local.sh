#!/usr/bin/env bash
# The three stages on one machine, without a scheduler: N sign tasks in
# parallel, then M bucket tasks in parallel, then the report, over WORK.
#   scripts/stage_local.sh [-n N] [-m M] WORK [OPTIONS...] -- PATH...
# OPTIONS are scan's (the same for every stage); the report's output goes to
# stdout (or -o FILE) and its exit status is the script's. NEARDUP_BIN picks
# the binary (default: neardup on PATH).
set -uo pipefail
bin=${NEARDUP_BIN:-neardup}
n=2
m=2
while getopts "n:m:" flag; do
  case "$flag" in
    n) n=$OPTARG ;;
    m) m=$OPTARG ;;
    *) echo "usage: stage_local.sh [-n N] [-m M] WORK [OPTIONS...] -- PATH..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: stage_local.sh [-n N] [-m M] WORK [OPTIONS...] -- PATH..." >&2; exit 2; }
work=$1
shift
options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do options+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
pids=()
for ((i = 0; i < n; i++)); do
  "$bin" stage sign --task "$i" --tasks "$n" "${options[@]+"${options[@]}"}" "$work" "$@" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || exit 2; done
pids=()
for ((j = 0; j < m; j++)); do
  "$bin" stage bucket --task "$j" --tasks "$m" "${options[@]+"${options[@]}"}" "$work" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || exit 2; done
exec "$bin" stage report "${options[@]+"${options[@]}"}" "$work"
