#!/usr/bin/env bash
# Submits the three stages as Slurm jobs chained with --dependency=afterok
# and prints their job ids, one line each: "sign ID", "bucket ID", "report ID".
#   scripts/slurm/submit.sh [-n N] [-m M] WORK [OPTIONS...] -- PATH...
# N sign tasks (default 4), M bucket tasks (default 3). OPTIONS are scan's,
# given to every stage. The report's output goes to WORK/report.out, its
# log to WORK/report.err. Extra sbatch arguments (partition, account,
# time limits) come from $SBATCH_ARGS; the binary from $NEARDUP_BIN (an
# absolute path, or neardup on the nodes' PATH).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { echo "usage: submit.sh [-n N] [-m M] WORK [OPTIONS...] -- PATH..." >&2; exit 2; }
n=4
m=3
while getopts "n:m:" flag; do
  case "$flag" in
    n) n=$OPTARG ;;
    m) m=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
work=$(realpath -m "$1")
shift
options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do options+=("$1"); shift; done
[ "${1:-}" = "--" ] || usage
shift
[ $# -ge 1 ] || usage
mkdir -p "$work/logs"
read -r -a extra <<<"${SBATCH_ARGS:-}"
submit() { sbatch --parsable --export=ALL "${extra[@]+"${extra[@]}"}" "$@" | cut -d';' -f1; }
sign=$(submit --array="0-$((n - 1))" --output="$work/logs/sign-%a.log" \
  "$here/sign.sbatch" "$work" "${options[@]+"${options[@]}"}" -- "$@")
bucket=$(submit --array="0-$((m - 1))" --dependency="afterok:$sign" --output="$work/logs/bucket-%a.log" \
  "$here/bucket.sbatch" "$work" "${options[@]+"${options[@]}"}")
report=$(submit --dependency="afterok:$bucket" --output="$work/report.out" --error="$work/report.err" \
  "$here/report.sbatch" "$work" "${options[@]+"${options[@]}"}")
echo "sign $sign"
echo "bucket $bucket"
echo "report $report"
