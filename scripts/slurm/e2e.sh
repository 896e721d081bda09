#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for the stages: starts
# munged, slurmctld and slurmd (Debian's munge and slurm-wlm) from a
# slurm.conf generated in a temporary folder, runs submit.sh with N=4, M=3
# and V=3 and --kept-dir on a generated corpus, diffs the report against
# `neardup scan` and the folder the filter tasks wrote against scan
# --kept-dir's, and stops the daemons. Needs root (slurmd runs jobs as their users).
#   scripts/slurm/e2e.sh [BUILD_DIR]        (default: build)
# Exit 0 when the outputs and the folders are identical, 1 when they differ,
# 2 on a setup failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=$(realpath "${1:-$root/build}")
bin="$build/neardup"
[ -x "$bin" ] || { echo "e2e.sh: no $bin (build first)" >&2; exit 2; }
for tool in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null || { echo "e2e.sh: $tool missing: apt-get install slurm-wlm munge" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "e2e.sh: needs root" >&2; exit 2; }

tmp=$(mktemp -d /tmp/neardup-slurm-XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  for pid in "${pids[@]+"${pids[@]}"}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "e2e.sh: $*" >&2
  for log in "$tmp"/log/*.log; do echo "--- $log" >&2; tail -20 "$log" >&2; done
  exit 2
}

mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/run"
# munge: a fresh key, its own socket.
dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 status=none
chmod 711 "$tmp/munge"
chmod 400 "$tmp/munge/key"
socket="$tmp/munge/munge.sock"
munged --force --foreground --key-file="$tmp/munge/key" --socket="$socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" \
  >>"$tmp/log/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "munged did not start"

host=$(hostname -s)
cpus=$(nproc)
# Two free ports.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s=[socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=neardup-e2e
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/log/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$tmp/log/slurmd.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  state=$(sinfo -h -o '%T' 2>/dev/null | head -1 || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node did not come up (state: '${state:-none}')"

NEARDUP_BUILD_DIR="$build" "$root/scripts/gen_corpus" --docs 2000 --out "$tmp/corpus" --seed 42 -q
chmod -R a+rX "$tmp"
options=(--mode clusters --exact)
"$bin" scan -q "${options[@]}" --kept-dir "$tmp/scan.kept" "$tmp/corpus" >"$tmp/scan.out" || scan_status=$?
scan_status=${scan_status:-0}

start=$(date +%s%N)
ids=$(NEARDUP_BIN="$bin" "$root/scripts/slurm/submit.sh" -n 4 -m 3 -v 3 "$tmp/work" -q "${options[@]}" \
  --kept-dir "$tmp/stage.kept" -- "$tmp/corpus")
echo "$ids"
report=$(awk '$1 == "report" {print $2}' <<<"$ids")
all=$(awk '{print $2}' <<<"$ids" | paste -sd,)
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$all" 2>/dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -j "$all" 2>/dev/null)" ] || fail "jobs still queued after 120 s: $(squeue -h -j "$all")"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
report_exit=$(scontrol show job "$report" | sed -n 's/.*ExitCode=\([0-9]*\):.*/\1/p')
job_state=$(scontrol show job "$report" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
[ -f "$tmp/work/report.out" ] || fail "no report output (report job $job_state)"
if ! cmp -s "$tmp/scan.out" "$tmp/work/report.out"; then
  echo "e2e.sh: the stages under Slurm differ from scan:" >&2
  diff "$tmp/scan.out" "$tmp/work/report.out" | head -20 >&2
  exit 1
fi
[ "$report_exit" = "$scan_status" ] || { echo "e2e.sh: report exit $report_exit, scan $scan_status" >&2; exit 1; }
# The filter array: every task exit 0, and DIR as scan --kept-dir wrote it.
filter=$(awk '$1 == "filter" {print $2}' <<<"$ids")
[ -n "$filter" ] || fail "submit.sh printed no filter job"
filter_exits=$(scontrol show job "$filter" | sed -n 's/.*[^a-zA-Z]ExitCode=\([0-9]*\):.*/\1/p' | sort -u | paste -sd,)
[ "$filter_exits" = 0 ] || { echo "e2e.sh: filter tasks exit $filter_exits" >&2; cat "$tmp/work/logs"/filter-*.log >&2; exit 1; }
(cd "$tmp/scan.kept" && find . -type f | sort) >"$tmp/scan.files"
(cd "$tmp/stage.kept" && find . -type f | sort) >"$tmp/stage.files"
[ -s "$tmp/scan.files" ] || fail "scan --kept-dir wrote nothing"
if ! cmp -s "$tmp/scan.files" "$tmp/stage.files" || ! diff -r "$tmp/scan.kept" "$tmp/stage.kept" >/dev/null; then
  echo "e2e.sh: the filter tasks under Slurm wrote another folder than scan --kept-dir:" >&2
  diff "$tmp/scan.files" "$tmp/stage.files" | head -10 >&2
  diff -r "$tmp/scan.kept" "$tmp/stage.kept" | head -10 >&2
  exit 1
fi
echo "e2e.sh: ok: sign x4, bucket x3, verify x3 and report under Slurm give scan's output ($(wc -l <"$tmp/scan.out") lines," \
  "exit $scan_status), filter x4 scan --kept-dir's folder ($(wc -l <"$tmp/scan.files") files) in ${elapsed_ms} ms"
