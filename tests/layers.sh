#!/usr/bin/env bash
# tests/layers.sh [ROOT]
#
# The house rule of core/README.md, checked: every #include of the library
# points down the pipeline (a folder includes its own files and the
# folders below it, never one above or beside it), io/ and simd/ include
# nothing of core/, and the include graph of the files has no cycle.
# Prints one line per violation and "N passed, N failed".
set -uo pipefail
cd "${1:-.}"
rank() {
	case $1 in
	simd | io) echo 0 ;;
	core/base) echo 1 ;;
	core/trace) echo 2 ;;
	core/v1 | core/v2) echo 3 ;;
	core/analysis) echo 4 ;;
	core/report) echo 5 ;;
	core/gate) echo 6 ;;
	core/cli) echo 7 ;;
	*) echo -1 ;;
	esac
}
pass=0 fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in $(git ls-files 'core/*.[ch]' 'io/*.[ch]' 'simd/*.[ch]' 2>/dev/null || find core io simd -name '*.[ch]'); do
	dir=$(dirname "$f")
	r=$(rank "$dir")
	if [ "$r" -lt 0 ]; then
		bad "$f: folder $dir has no place in the pipeline (add it to tests/layers.sh and core/README.md)"
		continue
	fi
	while read -r inc; do
		case $inc in
		core/* | io/* | simd/*) ;;
		*) [ -e "$dir/$inc" ] || continue # a system header, or one made by the build
			inc=$dir/$inc ;;
		esac
		[ -e "$inc" ] || { bad "$f: includes $inc, which does not exist"; continue; }
		echo "$f $inc" >>"$edges"
		idir=$(dirname "$inc")
		[ "$idir" = "$dir" ] && continue
		ir=$(rank "$idir")
		if [ "$ir" -ge "$r" ]; then
			bad "$f ($dir) includes $inc ($idir): an upward or sideways dependency"
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	pass=$((pass + 1))
done
# A cycle among files (tsort names the loop on stderr).
if tsort "$edges" >/dev/null 2>"$edges.err"; then
	pass=$((pass + 1))
else
	bad "include cycle: $(grep -v '^tsort: -:' "$edges.err" | sed 's/^tsort: //' | tr '\n' ' ')"
fi
rm -f "$edges.err"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
