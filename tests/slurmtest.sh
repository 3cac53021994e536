#!/usr/bin/env bash
# tests/slurmtest.sh GTR TRACE...
#
# `gtr check` as a Slurm job array on a real, single-node Slurm cluster:
# munged, slurmctld and slurmd from Debian's packages, started here on
# loopback with a generated slurm.conf (no cgroups: proctrack/linuxproc,
# task/none), each shard a task of `sbatch --array=0-2` that takes its
# shard from Slurm's variables (--shard env). The merge of the three parts
# must give what one unsharded check gives: the same exit status, text,
# JSON, JSON Lines and JUnit (byte for byte without the timings) and the
# same updated baseline. The daemons are stopped at the end.
#
# It needs root (slurmd starts the tasks) and the packages slurm-wlm and
# munge, which it installs when missing and it can. Where the daemons
# cannot run (no root, no packages, a sandbox that forbids them), it says
# why and counts as skipped: "slurmtest: skipped: REASON" (a failure
# under `make slurm-test`, which sets SLURMTEST_REQUIRED=1).
set -uo pipefail
gtr=$(realpath "$1")
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gtr-slurmtest.XXXXXX")
chmod 755 "$tmp"
pass=0 fail=0
pids=()

stop() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap 'stop; rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
skip() { # under `make slurm-test` (SLURMTEST_REQUIRED=1) a skip is a failure
	echo "slurmtest: skipped: $*"
	if [ "${SLURMTEST_REQUIRED:-0}" = 1 ]; then
		echo "slurmtest: 0 passed, 1 failed"
		exit 1
	fi
	echo "slurmtest: 0 passed, 0 failed"
	exit 0
}
untimed() { sed -E 's/"seconds":[0-9.]+/"seconds":T/g; s/ time="[0-9.]+"/ time="T"/g' "$1"; }
same() { # NAME A B: A and B equal once untimed
	if cmp -s <(untimed "$2") <(untimed "$3"); then
		ok "$1"
	else
		bad "$1: $(diff <(untimed "$2") <(untimed "$3") | head -5)"
	fi
}
logs() { # the daemons' last words, when something failed
	local f
	for f in "$tmp"/log/*.log; do
		[ -e "$f" ] && { echo "--- $(basename "$f")"; tail -n 15 "$f"; }
	done
}

[ "$(id -u)" -eq 0 ] || skip "not root: slurmd must run as root to start the tasks"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null ||
	! command -v sbatch >/dev/null; then
	echo "installing slurm-wlm and munge"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge \
		>"$tmp/apt.log" 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge \
				>"$tmp/apt.log" 2>&1; } ||
		skip "slurm-wlm and munge could not be installed: $(tail -n 1 "$tmp/apt.log")"
fi
# Debian starts the daemons it installs on the system's paths: those are
# left alone; this cluster has its own socket, ports, state and logs.

mkdir -p "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/corpus" "$tmp/parts" "$tmp/out" "$tmp/run"
chmod 700 "$tmp/run"
for f in "$@"; do cp "$f" "$tmp/corpus/"; done
n=$(ls "$tmp/corpus" | wc -l)
[ "$n" -ge 3 ] || skip "fewer than 3 traces given"

# munge: its own key and socket.
dd if=/dev/urandom of="$tmp/run/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/run/munge.key"
munged -F --force --key-file="$tmp/run/munge.key" --socket="$tmp/run/munge.sock" \
	--pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/run/munged.seed" \
	>"$tmp/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/run/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/run/munge.sock" ] || skip "munged did not start: $(tail -n 2 "$tmp/log/munged.out" "$tmp/log/munged.log" 2>/dev/null | tr '\n' ' ')"

# Ports of its own, so that two runs (or a system Slurm) do not meet.
base_port=$((20000 + ($$ % 2000) * 4))
host=$(hostname -s)
cpus=$(nproc)
cat >"$tmp/slurm.conf" <<EOF
ClusterName=gtrtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base_port
SlurmdPort=$((base_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/run/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=gtrnode NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=gtr Nodes=gtrnode Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N gtrnode -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 120); do
	state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1)
	case "$state" in idle*) up=1; break ;; esac
	sleep 0.5
done
if [ $up -eq 0 ]; then
	echo "node state: ${state:-none}"
	logs
	skip "the single-node cluster did not come up (see the logs above)"
fi
ok "a single-node Slurm cluster is up ($(sinfo -V), node gtrnode idle)"

# The reference: one unsharded run (one thread, as each task has).
base=$tmp/base.json
"$gtr" check --baseline "$base" --update-baseline -j 1 "$tmp/corpus" >/dev/null 2>&1
# A regression and an unreadable trace, so that the verdict has something to say.
cp "$tmp/corpus/greedy-coarse-go1.26.trace" "$tmp/corpus/greedy-fine-go1.26.trace" 2>/dev/null
echo "not a trace" >"$tmp/corpus/junk.trace"
n=$(ls "$tmp/corpus" | wc -l)
"$gtr" check --baseline "$base" -j 1 "$tmp/corpus" --report-json "$tmp/one.json" --junit "$tmp/one.xml" \
	--jsonl "$tmp/one.jsonl" >"$tmp/one.txt" 2>/dev/null
one_st=$?
cp "$base" "$tmp/base-one.json"
"$gtr" check --baseline "$tmp/base-one.json" --update-baseline -j 1 "$tmp/corpus" >/dev/null 2>&1

# The array: three tasks, each its shard by SLURM_ARRAY_TASK_ID/COUNT.
cd "$tmp" || exit 1
timeout 600 sbatch --wait --parsable --array=0-2 --cpus-per-task=1 --job-name=gtr-check \
	--output="$tmp/out/%A_%a.out" --error="$tmp/out/%A_%a.err" \
	--wrap "exec '$gtr' check --shard env --part '$tmp/parts/part-'\$SLURM_ARRAY_TASK_ID.json -j 1 '$tmp/corpus'" \
	>"$tmp/sbatch.out" 2>"$tmp/sbatch.err"
st=$?
job=$(head -1 "$tmp/sbatch.out")
if [ $st -eq 0 ] && [ -n "$job" ]; then
	ok "sbatch --wait --array=0-2: job $job done"
else
	bad "sbatch --array=0-2: exit $st: $(cat "$tmp/sbatch.err")"
	logs
fi
states=$(scontrol -o show job "$job" 2>/dev/null | grep -oE 'JobState=[A-Z]+' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
if [ "$(scontrol -o show job "$job" 2>/dev/null | grep -c 'JobState=COMPLETED')" -eq 3 ]; then
	ok "Slurm ran 3 array tasks, all COMPLETED"
else
	bad "array tasks: $states"
fi
for k in 0 1 2; do
	if grep -q "\"shard\":{\"index\":$k,\"count\":3" "$tmp/parts/part-$k.json" 2>/dev/null; then
		ok "task $k wrote the part of shard $k/3 ($(grep -oE '[0-9]+ of [0-9]+ traces' "$tmp/out/${job}_$k.out"))"
	else
		bad "task $k: no part of shard $k/3 ($(cat "$tmp/out/${job}_$k.err" 2>/dev/null | head -3))"
	fi
done

# The merge is the unsharded run.
"$gtr" check --merge "$tmp/parts/"part-*.json --baseline "$base" --report-json "$tmp/m.json" \
	--junit "$tmp/m.xml" --jsonl "$tmp/m.jsonl" >"$tmp/m.txt" 2>"$tmp/m.err"
m_st=$?
if [ $m_st -eq $one_st ] && [ $m_st -eq 3 ]; then ok "merge: exit $m_st, as the unsharded run"; else bad "merge: exit $m_st, unsharded $one_st, want 3 ($(head -c 300 "$tmp/m.err"))"; fi
same "merge: the same text" "$tmp/one.txt" "$tmp/m.txt"
same "merge: the same JSON report" "$tmp/one.json" "$tmp/m.json"
same "merge: the same JUnit report" "$tmp/one.xml" "$tmp/m.xml"
same "merge: the same JSON Lines" "$tmp/one.jsonl" "$tmp/m.jsonl"
cp "$base" "$tmp/base-merge.json"
"$gtr" check --merge "$tmp/parts/"part-*.json --baseline "$tmp/base-merge.json" --update-baseline >/dev/null 2>&1
if cmp -s "$tmp/base-one.json" "$tmp/base-merge.json"; then
	ok "merge --update-baseline: the same baseline, byte for byte"
else
	bad "merge --update-baseline: $(cmp "$tmp/base-one.json" "$tmp/base-merge.json")"
fi
grep -q "^$n traces: .* 1 regressed, 1 error," "$tmp/m.txt" && ok "the merged verdict: $(tail -n 1 "$tmp/m.txt")" ||
	bad "merged summary: $(tail -n 1 "$tmp/m.txt")"

cd / || exit 1
stop
for p in munged slurmctld slurmd; do
	f=$tmp/run/$p.pid
	if [ -e "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then bad "$p still runs"; fi
done
ok "the daemons are stopped"
echo "slurmtest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
