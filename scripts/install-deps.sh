#!/bin/sh
# Install what dirigo needs on a Debian machine, if it is missing.
# --quiet: only check, and say what is missing (used before each compile).
# --fuzz: what make fuzz needs (clang with libFuzzer and the sanitizer
# runtimes: Debian's clang and libclang-rt-dev), installed if missing.
set -e
if [ "$1" = --fuzz ]; then
	cc=${FUZZ_CC:-clang}
	probe() {
		printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)n & 0; }\n' |
			"$cc" -fsanitize=fuzzer,address,undefined -x c - -o /dev/null >/dev/null 2>&1
	}
	probe && exit 0
	echo "dirigo: installing clang libclang-rt-dev (for make fuzz)" >&2
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		clang libclang-rt-dev >/dev/null
	probe || { echo "dirigo: $cc cannot build libFuzzer targets (-fsanitize=fuzzer)" >&2; exit 1; }
	exit 0
fi
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
have_pc msgpack    || need="$need libmsgpack-dev"
have_pc z3         || need="$need libz3-dev"
have_pc libzstd    || need="$need libzstd-dev"
have_pc libarchive || need="$need libarchive-dev"
have_pc jansson    || need="$need libjansson-dev"
command -v pkg-config >/dev/null || need="$need pkg-config"
command -v prove      >/dev/null || need="$need perl"
command -v jq         >/dev/null || need="$need jq"
command -v parallel   >/dev/null || need="$need parallel"
if [ "$1" = --quiet ]; then
	[ -z "$need" ] && exit 0
	echo "dirigo: missing packages:$need (run 'make deps')" >&2
	exit 1
fi
# The torch recorder (dtrace-cuda/python) needs a python3 that imports torch.
# Debian's python3-torch (CPU, 1.13) is a ~50 MB download into the system
# python3; PyPI's torch 2.x wheel is ~900 MB plus ~2.5 GB of CUDA wheels.
# Not needed to compile, so --quiet does not ask for it; tests skip without it.
"$(dirname "$0")/../dtrace-cuda/python/dirigo-python" >/dev/null 2>&1 || \
	need="$need python3-torch python3-numpy python3-msgpack libtorch-dev pybind11-dev"
# dtrace-cuda --kernelbench builds torch extensions against CPU torch: it
# needs torch's C++ headers and pybind11 (libtorch-dev ~2 MB and its -dev
# dependencies ~2 MB, pybind11-dev ~0.2 MB).  Tests skip without them.
# With Debian's torch (in /usr/lib/python3) they are separate packages.
if py=$("$(dirname "$0")/../dtrace-cuda/python/dirigo-python" 2>/dev/null) &&
   "$py" -c 'import torch, sys; sys.exit(not torch.__file__.startswith("/usr/lib/python3/"))' 2>/dev/null; then
	[ -e /usr/include/torch/extension.h ] || need="$need libtorch-dev"
	[ -e /usr/include/pybind11/pybind11.h ] || need="$need pybind11-dev"
fi
# The recorder writes its records with the msgpack package.
if py=$("$(dirname "$0")/../dtrace-cuda/python/dirigo-python" 2>/dev/null) &&
   ! "$py" -c 'import msgpack' 2>/dev/null; then
	case $py in
	/usr/bin/*) need="$need python3-msgpack" ;;
	*) echo "dirigo: warning: $py lacks the msgpack package (pip install msgpack)" >&2 ;;
	esac
fi
if [ -n "$need" ]; then
	echo "dirigo: installing$need" >&2
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || \
	echo "dirigo: warning: nvcc not found; tests that compile CUDA programs will be skipped" >&2
exit 0
