# tests/fastcopies.sh: sourced by tests/scantest.sh and tests/statsfast.sh,
# which hold a parallel path (greedy --fast, stats --fast) against the
# ordered one. Uses the caller's $gtr, $out, ok and bad.

# fast_copies TRACE...: the array `damaged`, the copies both read beside
# the traces given:
#  - damaged copies of the two largest Go 1.23+ traces: 12 bytes of 0xff
#    at seven places each;
#  - steals written late. sysmon writes a ProcSteal after it took the P,
#    and the M that lost the P may leave its syscall before that, with
#    another P or none; Go's reader then puts what that M does after the
#    steal, tens of us past its own times. Copies of the Go 1.22+ traces
#    of syscalls whose Ms that write only steals have every batch moved
#    1000 clock ticks later (64 us on amd64; tests/late_steal.py).
fast_copies() {
	damaged=()
	local f d at size ms
	for f in $(ls -S "$@" | grep 'go1\.2[3-9][^/]*\.trace$' | head -2); do
		size=$(stat -c %s "$f")
		for at in 2 3 4 5 6 7 8; do
			d="$out/damaged-$at-$(basename "$f")"
			cp "$f" "$d"
			head -c 12 /dev/zero | tr '\0' '\377' |
				dd of="$d" bs=1 seek=$((size * at / 10)) conv=notrunc status=none
			damaged+=("$d")
		done
	done
	for f in "$@"; do
		case $(basename "$f") in syscalls-go1.2[2-9].trace) ;; *) continue ;; esac
		ms=$("$gtr" dump "$f" 2>/dev/null | awk '{n[$3]++} $5 == "ProcSteal" {s[$3]++}
			END {for (m in s) if (s[m] == n[m]) {sub(/^M=/, "", m); print m}}')
		[ -n "$ms" ] || continue
		d="$out/late-steal-$(basename "$f")"
		python3 "$(dirname "${BASH_SOURCE[0]}")/late_steal.py" "$f" "$d" 1000 $ms
		[ -s "$d" ] && damaged+=("$d")
	done
}

# refused_alike NAME CMD...: for a trace the ordered path refused (why in
# $out/ordered.err), CMD must fail with the same words and offset.
refused_alike() {
	local name=$1
	shift
	if "$@" >/dev/null 2>"$out/err"; then
		bad "$name: succeeds where --ordered fails"
	elif cmp -s "$out/err" "$out/ordered.err"; then
		ok "$name (refused alike)"
	else
		bad "$name: a different error"
		diff "$out/ordered.err" "$out/err" | head -4
	fi
}
