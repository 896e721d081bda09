#!/usr/bin/env bash
# Submits the stages as Slurm jobs chained with dependencies and prints their
# job ids, one line each: "sign ID", "bucket ID", "verify ID", "report ID", and with
# --kept-dir or --annotate-dir "filter ID".
#   scripts/slurm/submit.sh [-n N] [-m M] [-v V] WORK [OPTIONS...] -- PATH...
# N sign tasks (default 4), M bucket tasks (default 3), V verify tasks
# (default M), each array after the last with afterok. OPTIONS are scan's,
# given to every stage; --kept-dir DIR, --kept-copy, --annotate-dir DIR and
# --annotate-prefix P go to the N filter tasks alone, which run after the
# report (whatever its exit status: 1 is "nothing found") and write the kept
# documents (the corpus, marked) to DIR (new or empty). The
# report's output goes to WORK/report.out, its log to WORK/report.err; the
# tasks' logs to WORK/logs. Extra sbatch arguments (partition, account,
# time limits) come from $SBATCH_ARGS; the binary from $NEARDUP_BIN (an
# absolute path, or neardup on the nodes' PATH).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { echo "usage: submit.sh [-n N] [-m M] [-v V] WORK [OPTIONS...] -- PATH..." >&2; exit 2; }
n=4
m=3
v=""
while getopts "n:m:v:" flag; do
  case "$flag" in
    n) n=$OPTARG ;;
    m) m=$OPTARG ;;
    v) v=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
v=${v:-$m}
[ $# -ge 1 ] || usage
work=$(realpath -m "$1")
shift
options=()  # every stage's
kept=()     # the filter tasks' alone: --kept-dir DIR, --annotate-dir DIR (made absolute), --kept-copy, --annotate-prefix P
dirs=()     # "FLAG DIR"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --kept-dir|--annotate-dir) [ $# -ge 2 ] || usage; dir=$(realpath -m "$2"); kept+=("$1" "$dir"); dirs+=("$1" "$dir"); shift ;;
    --kept-dir=*|--annotate-dir=*) dir=$(realpath -m "${1#*=}"); kept+=("${1%%=*}" "$dir"); dirs+=("${1%%=*}" "$dir") ;;
    --annotate-prefix) [ $# -ge 2 ] || usage; kept+=("$1" "$2"); shift ;;
    --kept-copy|--annotate-prefix=*) kept+=("$1") ;;
    *) options+=("$1") ;;
  esac
  shift
done
[ "${1:-}" = "--" ] || usage
shift
[ $# -ge 1 ] || usage
# A non-empty DIR that no filter task over WORK began is refused now, not
# once the other stages ran (the filter tasks refuse it too).
for ((k = 0; k < ${#dirs[@]}; k += 2)); do
  dir=${dirs[k + 1]}
  if [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -d "$work/filter" ]; then
    echo "submit.sh: ${dirs[k]} $dir is not empty; name a new or empty folder" >&2
    exit 2
  fi
done
mkdir -p "$work/logs"
read -r -a extra <<<"${SBATCH_ARGS:-}"
submit() { sbatch --parsable --export=ALL "${extra[@]+"${extra[@]}"}" "$@" | cut -d';' -f1; }
sign=$(submit --array="0-$((n - 1))" --output="$work/logs/sign-%a.log" \
  "$here/sign.sbatch" "$work" "${options[@]+"${options[@]}"}" -- "$@")
bucket=$(submit --array="0-$((m - 1))" --dependency="afterok:$sign" --output="$work/logs/bucket-%a.log" \
  "$here/bucket.sbatch" "$work" "${options[@]+"${options[@]}"}")
verify=$(submit --array="0-$((v - 1))" --dependency="afterok:$bucket" --output="$work/logs/verify-%a.log" \
  "$here/verify.sbatch" "$work" "${options[@]+"${options[@]}"}")
report=$(submit --dependency="afterok:$verify" --output="$work/report.out" --error="$work/report.err" \
  "$here/report.sbatch" "$work" "${options[@]+"${options[@]}"}")
echo "sign $sign"
echo "bucket $bucket"
echo "verify $verify"
echo "report $report"
if [ ${#kept[@]} -gt 0 ]; then
  filter=$(submit --array="0-$((n - 1))" --dependency="afterany:$report" --output="$work/logs/filter-%a.log" \
    "$here/filter.sbatch" "$work" "${options[@]+"${options[@]}"}" "${kept[@]}")
  echo "filter $filter"
fi
