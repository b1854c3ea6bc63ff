#!/bin/sh
# make-fixtures.sh: regenerate every tests/fixtures/NAME.ptx from
# tests/fixtures/src/NAME.cu with nvcc (run by `make fixtures`), and the
# PTX of the kernels the record-only runtime embeds,
# dtrace-cuda/shim/NAME.ptx from dtrace-cuda/shim/NAME.cu.
#
# The output depends only on the sources and the nvcc release: nvcc writes
# absolute names into .file, and the path of this checkout is cut from
# them; .ptx files without a source are removed.
# NVCC overrides the compiler (default: nvcc on PATH, else
# /usr/local/cuda/bin/nvcc).  A source may add nvcc options of its own
# with a line `// fixture-flags: OPTIONS` (e.g. --use_fast_math).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

if ! [ -x "$NVCC" ] && ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "make-fixtures.sh: nvcc not found (set NVCC)" >&2
	exit 2
fi

for ptx in "$fix"/*.ptx; do
	[ -e "$ptx" ] || continue
	name=$(basename "$ptx" .ptx)
	[ -e "$fix/src/$name.cu" ] || rm -f "$ptx"
done

# ptx SRCDIR OUTDIR NAME: OUTDIR/NAME.ptx from SRCDIR/NAME.cu
ptx() {
	cu=$1/$3.cu out=$2/$3.ptx
	flags=$(sed -n 's,^// fixture-flags:[ \t]*,,p' "$cu" | head -n 1)
	# shellcheck disable=SC2086 # the options are words
	"$NVCC" -ptx -arch=compute_90 -lineinfo -O3 $flags -o "$out.tmp" "$cu"
	# .file 1 "/path/to/checkout/tests/fixtures/src/x.cu" -> .file 1 "x.cu"
	awk -v dir="$1/" '
		/^[ \t]*\.file[ \t]/ { i = index($0, "\"" dir); if (i) $0 = substr($0, 1, i) substr($0, i + 1 + length(dir)) }
		{ print }' "$out.tmp" >"$out"
	rm -f "$out.tmp"
	echo "  PTX     ${out#"$top"/}"
}

for cu in "$fix"/src/*.cu; do
	ptx "$fix/src" "$fix" "$(basename "$cu" .cu)"
done
for cu in "$top"/dtrace-cuda/shim/*.cu; do
	ptx "$top/dtrace-cuda/shim" "$top/dtrace-cuda/shim" "$(basename "$cu" .cu)"
done
