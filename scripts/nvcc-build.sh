#!/bin/sh
# nvcc-build.sh SRC OUT [NVCC-OPTIONS...]: compile a standalone CUDA program
# with the runtime linked dynamically (so dtrace-cuda can trace it):
#   nvcc -cudart shared -O2 -lineinfo [NVCC-OPTIONS] -o OUT SRC
# A line `// build-flags: OPTIONS` in SRC adds OPTIONS (e.g. -lcublas).
# Results are cached under build/cuda-cache by a hash of the source (with
# the files it includes with #include "..."), the options and the nvcc
# version, so reruns are instant.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: nvcc-build.sh SRC OUT [NVCC-OPTIONS...]" >&2
	exit 2
fi
src=$1 out=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
if [ ! -x "$nvcc" ]; then
	echo "nvcc-build.sh: nvcc not found (set NVCC or CUDA_HOME)" >&2
	exit 2
fi
[ -r "$src" ] || { echo "nvcc-build.sh: cannot read '$src'" >&2; exit 2; }
cache=${DIRIGO_CUDA_CACHE:-$root/build/cuda-cache}
# closure FILE [DEPTH]: FILE and, recursively, the files it includes with
# #include "...", relative to its folder (the key must change with them)
closure() {
	cat "$1"
	[ "${2:-0}" -lt 8 ] || return 0
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | while read -r inc; do
		case $inc in
		/*) f=$inc ;;               # as 5010 includes a pair's source by its path
		*) f=$(dirname "$1")/$inc ;;
		esac
		[ -r "$f" ] && closure "$f" $((${2:-0} + 1))
	done
}
own=$(sed -n 's,^// build-flags:[ \t]*,,p' "$src" | head -n 1)
# shellcheck disable=SC2086 # the options are words
set -- "$@" $own
key=$( { closure "$src"; printf '%s\n' "$@"; "$nvcc" --version; } | sha256sum | cut -c1-32)
hit=$cache/$key
if [ ! -x "$hit" ]; then
	mkdir -p "$cache"
	tmp=$cache/.$key.$$
	if ! "$nvcc" -cudart shared -O2 -lineinfo "$@" -o "$tmp" "$src" 2>"$tmp.err"; then
		cat "$tmp.err" >&2
		rm -f "$tmp" "$tmp.err"
		echo "nvcc-build.sh: nvcc failed on '$src'" >&2
		exit 1
	fi
	rm -f "$tmp.err"
	mv -f "$tmp" "$hit"
fi
cp "$hit" "$out"
