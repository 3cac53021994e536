#!/usr/bin/env bash
# tests/scantest.sh GTR TRACE...
#
# The parallel greedy path against the ordered one. For every trace:
#  - `gtr greedy --json -n 20` with -j1, -j2 and -j3 prints the same
#    thing (the workers' share of the streams changes nothing);
#  - against `gtr greedy --ordered --json -n 20`: the same slice and
#    pause counts, events and GOMAXPROCS changes; the top slices matched
#    by goroutine and start (within 1 us; two slices whose durations are
#    within 2 us may swap ranks, and so leave or enter the top 20) with
#    the same P, end state, reason, function, stacks and events before,
#    the pauses matched by kind and start with the same waiters; and
#    every time within 1 us (10 us for a trace named *stress*, of Go's
#    stress mode, or GTR_FAST_BOUND_NS). The parallel path reports each thread's own
#    timestamps while Go's reader spaces events that share a nanosecond
#    on different threads 1 ns apart: see core/analysis/scan.h. The largest
#    difference seen is printed at the end;
#  - with GTR_SCAN_WALK=generic (pass 1's generic walk, which the fast
#    one falls back to) the same output;
#  - all of the above at -n 3 too: pass 2 then looks for the history of
#    a few goroutines only, so no other's window covers what theirs
#    must find by growing (corpora/programs/longwait);
#  - every trace read without loss (the ordered path says nothing on
#    stderr) takes the parallel path (`-v` says which ran), but those of
#    go 1.5, which Go orders by sequence numbers rather than time, and
#    those where what came first between threads depends on Go's global
#    order alone (`-v` says "only Go's order can tell"; README);
#  - under GTR_ISA=X, for every ISA the machine runs but its best, the
#    same output at -n 20, and the same refusal (the walks differ per ISA:
#    record lengths on AVX-512, a select on the bytes elsewhere);
#  - a trace the ordered path refuses is refused alike, with the same
#    words and byte offset. Beside the traces given, damaged copies of
#    the two largest Go 1.23+ ones are made here: a run of 12 bytes set
#    to 0xff (an overlong varint, inside an event batch for the most
#    part) at seven places.
set -uo pipefail
gtr=$1
shift
out=${TMPDIR:-/tmp}/gtr-scantest.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
pass=0 fail=0 parallel=0 eligible=0 worst=0
ok() { pass=$((pass + 1)); echo "ok   scan $1"; }
bad() { fail=$((fail + 1)); echo "FAIL scan $1"; }

# [ordered, parallel] -> {bad: [what differs], max: largest time difference}
cat >"$out/cmp.jq" <<'JQ'
def abs: if . < 0 then -. else . end;
def near(a; b): ((a // 0) - (b // 0)) | abs;
def same($what; a; b): if a == b then empty else {bad: "\($what): \(a | tojson) vs \(b | tojson)"} end;
def time($what; a; b): near(a; b) as $d
	| if $d > $bound then {bad: "\($what): \(a) vs \(b)"} else {d: $d} end;
def slice($w; o; p):
	same("\($w) p"; o.p; p.p), same("\($w) end_state"; o.end_state; p.end_state),
	same("\($w) reason"; o.reason; p.reason), same("\($w) function"; o.function; p.function),
	same("\($w) truncated"; o.truncated; p.truncated),
	same("\($w) events"; [o.start_event, o.end_event]; [p.start_event, p.end_event]),
	same("\($w) stacks"; [o.start_stack, o.end_stack]; [p.start_stack, p.end_stack]),
	(if o.events_before == p.events_before then empty
	 else {bad: "\($w) events_before: \(o.events_before | tojson) vs \(p.events_before | tojson)"} end),
	time("\($w) start"; o.start_ns; p.start_ns), time("\($w) end"; o.end_ns; p.end_ns),
	time("\($w) duration"; o.duration_ns; p.duration_ns);
# Slices of list `ol` and `pl` matched by goroutine and start (the nearest
# start: one goroutine can start twice within the bound); one that has no
# match must be within 2 us of the other list's shortest.
def match($w; ol; pl):
	(pl | to_entries[]) as {key: $i, value: $p}
	| ([ol[] | select(.g == $p.g and near(.start_ns; $p.start_ns) <= $bound)]
	   | min_by(near(.start_ns; $p.start_ns))) as $o
	| if $o == null then
		(if (ol | length) == (pl | length) and near(ol[-1].duration_ns; $p.duration_ns) <= 2000 then empty
		 else {bad: "\($w) #\($i + 1) G\($p.g) at \($p.start_ns): not in --ordered"} end)
	  else {pair: [$o, $p]} end,
	((ol | to_entries[]) as {key: $i, value: $o}
	| if any(pl[]; .g == $o.g and near(.start_ns; $o.start_ns) <= $bound) then empty
	  elif (ol | length) == (pl | length) and near(pl[-1].duration_ns; $o.duration_ns) <= 2000 then empty
	  else {bad: "\($w) #\($i + 1) G\($o.g) at \($o.start_ns): not in the parallel path's"} end);
def pause(o; p):
	same("pause kind"; o.kind; p.kind), same("pause g, p"; [o.g, o.p]; [p.g, p.p]),
	same("pause truncated"; o.truncated; p.truncated),
	time("pause start"; o.start_ns; p.start_ns), time("pause end"; o.end_ns; p.end_ns),
	time("pause duration"; o.duration_ns; p.duration_ns),
	same("pause at \(o.start_ns) waiters"; [o.waited_for[].g] | sort; [p.waited_for[].g] | sort),
	((o.waited_for[]) as $ow | (p.waited_for[] | select(.g == $ow.g)) as $pw
	 | same("waiter G\($ow.g)"; $ow | del(.stopped_ns, .after_ns, .made_world_wait);
		$pw | del(.stopped_ns, .after_ns, .made_world_wait)),
	   time("waiter G\($ow.g) stopped"; $ow.stopped_ns; $pw.stopped_ns),
	   time("waiter G\($ow.g) after"; $ow.after_ns; $pw.after_ns));
.[0] as $o | .[1] as $p
| [same("slices_total"; $o.slices_total; $p.slices_total),
   same("events"; $o.trace.events; $p.trace.events),
   time("span"; $o.trace.span_ns; $p.trace.span_ns),
   same("gomaxprocs"; [$o.gomaxprocs.max, ($o.gomaxprocs.changes | length)];
	[$p.gomaxprocs.max, ($p.gomaxprocs.changes | length)]),
   ([$o.gomaxprocs.changes, $p.gomaxprocs.changes] | transpose[] | time("GOMAXPROCS change"; .[0].ts_ns; .[1].ts_ns)),
   same("tmax_stw n, exact"; [$o.tmax_stw.n, $o.tmax_stw.exact]; [$p.tmax_stw.n, $p.tmax_stw.exact]),
   time("tmax_stw"; $o.tmax_stw.ns; $p.tmax_stw.ns),
   (match("tmax_stw slice"; $o.tmax_stw.slices; $p.tmax_stw.slices)
    | if .pair then .pair as [$a, $b] | time("tmax_stw slice duration"; $a.duration_ns; $b.duration_ns)
      else . end),
   (match("slice"; $o.top; $p.top)
    | if .pair then .pair as [$a, $b] | slice("slice G\($a.g) at \($a.start_ns)"; $a; $b) else . end),
   same("pauses"; $o.stw.count; $p.stw.count),
   time("pause p50"; $o.stw.p50_ns; $p.stw.p50_ns), time("pause p99"; $o.stw.p99_ns; $p.stw.p99_ns),
   time("pause max"; $o.stw.max_ns; $p.stw.max_ns),
   (($p.stw.top[]) as $pp
    | ([$o.stw.top[] | select(.kind == $pp.kind and near(.start_ns; $pp.start_ns) <= $bound)]
       | min_by(near(.start_ns; $pp.start_ns))) as $op
    | if $op == null then
	(if near($o.stw.top[-1].duration_ns; $pp.duration_ns) <= 2000 then empty
	 else {bad: "pause at \($pp.start_ns): not in --ordered"} end)
      else pause($op; $pp) end)]
| {bad: [.[] | .bad // empty], max: ([.[] | .d // empty] | max // 0)}
JQ

# The ISAs this machine runs, its best aside.
best_isa=$("$gtr" -v footprint "$1" 2>&1 >/dev/null | sed -n 's/^gtr: simd: \([a-z0-9]*\) kernels/\1/p')
isas=()
for isa in scalar sse4 avx2 avx512 neon; do
	[ "$isa" != "$best_isa" ] && GTR_ISA=$isa "$gtr" footprint "$1" >/dev/null 2>&1 && isas+=("$isa")
done

# Damaged copies, and copies with steals written late: --fast must agree
# with --ordered or say that only Go's order can tell, as above.
. "$(dirname "$0")/fastcopies.sh"
fast_copies "$@"

for f in "$@" "${damaged[@]}"; do
	name=$(basename "$f")
	if ! "$gtr" greedy --ordered --json -n 20 "$f" >"$out/ordered" 2>"$out/ordered.err"; then
		for j in 1 2 3; do
			refused_alike "$name -j$j" "$gtr" greedy --fast -j"$j" --json -n 20 "$f"
		done
		for isa in "${isas[@]}"; do
			refused_alike "$name GTR_ISA=$isa" env GTR_ISA="$isa" "$gtr" greedy --fast -j2 --json -n 20 "$f"
		done
		continue
	fi
	for n in 20 3; do
		[ "$n" = 20 ] || "$gtr" greedy --ordered --json -n "$n" "$f" >"$out/ordered" 2>/dev/null
		for j in 1 2 3; do
			"$gtr" -v greedy --fast -j"$j" --json -n "$n" "$f" >"$out/par$j" 2>"$out/err$j"
		done
		path=$(sed -n 's/^gtr: greedy: \([a-z]* path\).*/\1/p' "$out/err2")
		if cmp -s "$out/par1" "$out/par2" && cmp -s "$out/par1" "$out/par3"; then
			ok "$name -n $n -j1 -j2 -j3 ($path)"
		else
			bad "$name -n $n: -j1, -j2 and -j3 differ ($path)"
			diff "$out/par1" "$out/par2" | head -4
			diff "$out/par1" "$out/par3" | head -4
		fi
		if [ "$n" = 20 ]; then
			for isa in "${isas[@]}"; do
				GTR_ISA=$isa "$gtr" greedy --fast -j2 --json -n "$n" "$f" >"$out/isa" 2>/dev/null
				if cmp -s "$out/par2" "$out/isa"; then
					ok "$name GTR_ISA=$isa agrees"
				else
					bad "$name GTR_ISA=$isa: differs from the best ISA's output"
					diff "$out/par2" "$out/isa" | head -4
				fi
			done
		fi
		# v2: pass 1's fast walk and the generic one it falls back to.
		GTR_SCAN_WALK=generic "$gtr" greedy --fast -j2 --json -n "$n" "$f" >"$out/generic" 2>/dev/null
		if cmp -s "$out/par2" "$out/generic"; then
			ok "$name -n $n: the generic walk agrees"
		else
			bad "$name -n $n: the generic walk and the fast one differ"
			diff "$out/par2" "$out/generic" | head -4
		fi
		# A trace of Go's stress mode (a generation every few us) has
		# larger piles: the bound there is 10 us (README, gtr greedy).
		bound=${GTR_FAST_BOUND_NS:-1000}
		case $name in *stress*) [ "$bound" -lt 10000 ] && bound=10000 ;; esac
		if ! r=$(jq -c -s --argjson bound "$bound" -f "$out/cmp.jq" "$out/ordered" "$out/par2"); then
			bad "$name -n $n: unreadable JSON"
			continue
		fi
		nbad=$(jq '.bad | length' <<<"$r")
		d=$(jq '.max' <<<"$r")
		[ "$d" -gt "$worst" ] && worst=$d
		if [ "$nbad" -eq 0 ]; then
			ok "$name -n $n against --ordered (times within $d ns)"
		else
			# All on FAIL lines, which the suites that run this one
			# pass on: what differs, how far Go's order moved times,
			# and (a small trace of Go's test programs, made anew on
			# each run) the trace itself, to replay the case.
			pushed=$("$gtr" -v greedy --ordered -n 1 "$f" 2>&1 >/dev/null | sed -n 's/.*: order: //p')
			bad "$name -n $n against --ordered ($path): $nbad differences; $pushed"
			jq -r '.bad[]' <<<"$r" | head -6 | sed 's/^/FAIL   /'
			if [ "$(stat -c %s "$f")" -le 65536 ]; then
				echo "FAIL   $name, gzip | base64 -w0: $(gzip -9nc "$f" | base64 -w0)"
			fi
		fi
	done
	# Every trace read without loss takes the parallel path (go 1.5 aside).
	if [ "$(jq -r .trace.version "$out/ordered")" != 1.5 ] && [ ! -s "$out/ordered.err" ]; then
		eligible=$((eligible + 1))
		case $path in
		parallel*) parallel=$((parallel + 1)); ok "$name takes the parallel path" ;;
		*)
			# What only Go's global order can tell sends a trace to
			# the ordered path on purpose (README, gtr greedy).
			why=$(sed -n 's/^gtr: greedy: ordered path: //p' "$out/err2")
			case $why in
			*"only Go's order can tell") ok "$name takes the ordered path: $why" ;;
			*) bad "$name: the ordered path ran: $path" ;;
			esac
			;;
		esac
	fi
done
echo "scan: the parallel path answered $parallel of $eligible traces (go 1.5 aside); largest time difference against --ordered: $worst ns"
echo "scantest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
