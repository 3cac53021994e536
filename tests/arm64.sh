#!/usr/bin/env bash
# tests/arm64.sh: the body of `make arm64-test`. Builds gtr and its unit
# tests for arm64 with Debian's cross compiler and runs the tests under
# qemu-user; on arm64 the kernels are NEON's (GTR_ISA=neon) and the
# scalar references, compared by the same differential tests as on x86.
#
# Installs, with apt-get, what is missing: gcc-aarch64-linux-gnu,
# qemu-user-static and the arm64 libraries of Debian's multiarch
# packages (liburing-dev, libxxhash-dev, zlib1g-dev, libzstd-dev, and libcriterion3's own
# dependencies). Criterion itself is not installed for arm64: its
# libnanomsg5 is not co-installable with the amd64 one that `make test`
# needs (installing it would remove Criterion for amd64), so its three
# arm64 packages are fetched with `apt-get download` and unpacked into
# $BUILD/sysroot, which the tests link with and run against.
#
# Environment: BUILD (build-arm64), ARM64_QUICK=1 (only the kernel tests,
# tests/test_uvarint.c: the form .ci/run uses). Exits 77 (skipped, not
# passed) when qemu-user cannot run an arm64 program here.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-arm64}
QUICK=${ARM64_QUICK:-0}
sysroot=$PWD/$BUILD/sysroot
libdir=$sysroot/usr/lib/aarch64-linux-gnu

say() { echo "arm64-test: $*" >&2; }

sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# ---- packages -------------------------------------------------------------
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	say "adding the arm64 architecture to dpkg"
	$sudo dpkg --add-architecture arm64
fi
need=()
for pkg in gcc-aarch64-linux-gnu qemu-user-static libc6:arm64 liburing-dev:arm64 libxxhash-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64 \
	libffi8:arm64 libgit2-1.5:arm64; do
	installed "$pkg" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ ! -e "$libdir/libcriterion.so" ]; then
	say "fetching Criterion for arm64 into $sysroot"
	dl=$PWD/$BUILD/debs
	mkdir -p "$dl" "$sysroot"
	(cd "$dl" && apt-get download -qq libcriterion3:arm64 libcriterion-dev:arm64 libnanomsg5:arm64 2>/dev/null) ||
		{ $sudo apt-get update -qq && (cd "$dl" && apt-get download -qq libcriterion3:arm64 libcriterion-dev:arm64 libnanomsg5:arm64); }
	for d in "$dl"/*.deb; do dpkg -x "$d" "$sysroot"; done
fi

# ---- can qemu run arm64 code here? ----------------------------------------
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
[ -n "$qemu" ] || { say "no qemu-aarch64: skipped"; exit 77; }
mkdir -p "$BUILD"
printf 'int main(void) { return 0; }\n' >"$BUILD/probe.c"
aarch64-linux-gnu-gcc -o "$BUILD/probe" "$BUILD/probe.c"
if ! probe_err=$("$qemu" "$BUILD/probe" 2>&1); then
	say "qemu-user cannot run an arm64 program here ($probe_err): skipped"
	exit 77
fi
# Criterion runs each test in a child that executes the test binary
# again: the kernel must hand arm64 programs to qemu itself (binfmt_misc,
# the handler Debian's qemu-user-static package describes).
binfmt=/proc/sys/fs/binfmt_misc
if ! "$BUILD/probe" 2>/dev/null; then
	if [ ! -e "$binfmt/register" ]; then
		$sudo mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null || true
	fi
	if [ -e "$binfmt/register" ] && [ ! -e "$binfmt/qemu-aarch64" ] &&
		[ -r /usr/lib/binfmt.d/qemu-aarch64.conf ]; then
		say "registering qemu-aarch64 with binfmt_misc"
		$sudo sh -c "cat /usr/lib/binfmt.d/qemu-aarch64.conf > $binfmt/register" 2>/dev/null || true
	fi
	if ! "$BUILD/probe" 2>/dev/null; then
		say "arm64 programs cannot be run through binfmt_misc here (Criterion needs it to start its tests): skipped"
		exit 77
	fi
fi

# ---- build ----------------------------------------------------------------
tests=(test_uvarint)
if [ "$QUICK" != 1 ]; then
	tests=()
	for t in tests/test_*.c; do
		t=$(basename "$t" .c)
		# qemu-user (7.2, Debian 12) emulates no io_uring and no SIGBUS
		# from a mapping, which test_io requires of the machine; and
		# test_malformed's thousands of prefixes outlast its per-test
		# timeouts under emulation. Both run natively in make test.
		case $t in
		test_io)
			say "test_io: not run (qemu-user has no io_uring)"
			continue
			;;
		test_malformed)
			say "test_malformed: not run (too slow under emulation for its timeouts)"
			continue
			;;
		esac
		tests+=("$t")
	done
fi
make --no-print-directory -j2 CC=aarch64-linux-gnu-gcc BUILD="$BUILD" \
	EXTRA_CFLAGS="-I$sysroot/usr/include -L$libdir -Wl,-rpath-link,$libdir" \
	"$BUILD/gtr" "${tests[@]/#/$BUILD/tests/}"

# ---- run ------------------------------------------------------------------
export LD_LIBRARY_PATH=$libdir
"$qemu" "$BUILD/gtr" greedy -v -n 1 corpora/traces/greedy-coarse-go1.26.trace >/dev/null 2>"$BUILD/gtr-v.txt" || {
	cat "$BUILD/gtr-v.txt" >&2
	say "gtr greedy failed under qemu"
	exit 1
}
grep -q '^gtr: simd: neon kernels$' "$BUILD/gtr-v.txt" || {
	cat "$BUILD/gtr-v.txt" >&2
	say "gtr -v does not name the neon kernels"
	exit 1
}
fail=0
for t in "${tests[@]}"; do
	log=$BUILD/tests/$t.log
	if "$qemu" "$BUILD/tests/$t" --jobs 2 >"$log" 2>&1; then
		say "$t: $(grep -o 'Tested: .*' "$log" | tail -1)"
	else
		cat "$log" >&2
		say "$t: FAILED"
		fail=1
	fi
done
[ "$fail" = 0 ] && say "passed (${#tests[@]} suite(s) under $(basename "$qemu"))"
exit "$fail"
