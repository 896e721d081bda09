#!/usr/bin/env bash
# The stages on one machine, without a scheduler: N sign tasks in parallel,
# then M bucket tasks in parallel, then V verify tasks in parallel, then the
# report, over WORK; with
# --kept-dir DIR or --annotate-dir DIR among the OPTIONS, then N filter tasks
# in parallel, which write the kept documents (or the corpus, marked) to DIR
# (new or empty) as scan --kept-dir (--annotate-dir) would.
#   scripts/stage_local.sh [-n N] [-m M] [-v V] WORK [OPTIONS...] -- PATH...
# (N and M 2 by default, V as M).
# OPTIONS are scan's (the same for every stage; --kept-dir, --kept-copy,
# --annotate-dir and --annotate-prefix go to the filter tasks only); the report's output goes to stdout (or -o FILE)
# and its exit status is the script's, or 2 when a filter task fails.
# NEARDUP_BIN picks the binary (default: neardup on PATH).
set -uo pipefail
bin=${NEARDUP_BIN:-neardup}
n=2
m=2
v=""
usage="usage: stage_local.sh [-n N] [-m M] [-v V] WORK [OPTIONS...] -- PATH..."
while getopts "n:m:v:" flag; do
  case "$flag" in
    n) n=$OPTARG ;;
    m) m=$OPTARG ;;
    v) v=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
v=${v:-$m}
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
work=$1
shift
options=()  # every stage's
kept=()     # the filter tasks' alone: --kept-dir DIR, --kept-copy, --annotate-dir DIR, --annotate-prefix P
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --kept-dir|--annotate-dir|--annotate-prefix) kept+=("$1" "${2:-}"); shift ;;
    --kept-dir=*|--kept-copy|--annotate-dir=*|--annotate-prefix=*) kept+=("$1") ;;
    *) options+=("$1") ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
# A non-empty DIR that no filter task over WORK began is refused now, not
# after the other stages (the filter tasks refuse it too).
for ((k = 0; k < ${#kept[@]}; k++)); do
  dir=""
  case "${kept[k]}" in
    --kept-dir|--annotate-dir) flag=${kept[k]}; dir=${kept[k + 1]} ;;
    --kept-dir=*|--annotate-dir=*) flag=${kept[k]%%=*}; dir=${kept[k]#*=} ;;
  esac
  if [ -n "$dir" ] && [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -d "$work/filter" ]; then
    echo "stage_local.sh: $flag $dir is not empty; name a new or empty folder" >&2
    exit 2
  fi
done
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
pids=()
for ((k = 0; k < v; k++)); do
  "$bin" stage verify --task "$k" --tasks "$v" "${options[@]+"${options[@]}"}" "$work" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || exit 2; done
[ ${#kept[@]} -eq 0 ] && exec "$bin" stage report "${options[@]+"${options[@]}"}" "$work"
"$bin" stage report "${options[@]+"${options[@]}"}" "$work"
status=$?
[ "$status" -le 2 ] || exit "$status"
pids=()
for ((i = 0; i < n; i++)); do
  "$bin" stage filter --task "$i" --tasks "$n" "${options[@]+"${options[@]}"}" "${kept[@]}" "$work" & pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=2; done
exit "$status"
