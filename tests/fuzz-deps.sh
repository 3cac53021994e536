#!/usr/bin/env bash
# Installs what `make fuzz` needs and `make test` does not: clang and its
# libFuzzer and sanitizer runtimes, from Debian, when missing.
set -euo pipefail
have_fuzzer() {
	command -v clang >/dev/null 2>&1 &&
		[ -n "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null | grep /)" ] &&
		[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]
}
have_fuzzer && exit 0
echo "installing clang and libclang-rt-dev (libFuzzer)"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq clang libclang-rt-dev >/dev/null
have_fuzzer || { echo "tests/fuzz-deps.sh: clang has no libFuzzer runtime after the install" >&2; exit 1; }
