#!/bin/sh
# collect-seeds.sh OUT: the seed corpus of the fuzz targets, from the
# streams the test suite produces.  Runs the suite's stream tests (those
# that need no CUDA build or torch) with DIRIGO_FUZZ_SEEDS set, so that
# each keeps the files it made, then sorts them into OUT/TARGET/: every
# stream for the stream, formats and dcat targets, each by its kind for
# the stage that reads it (trace: dmerge, obligation: dexec, symbolic:
# dcheck, verdict and replay: dreplay), JSON Lines for dcat, the PTX of
# module records and of tests/fixtures for ptx.  Where nvcc is found, the
# pairs of tests/cases named in DIRIGO_FUZZ_CASES (default: a few that
# reach branch merges, opaque values, canonical sums and products,
# enumeration tables and global-memory ordering) go through the whole
# pipeline too, and every stream they make is a seed (CASE-FILE).
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${DIRIGO_BIN:-bin}
raw=$out/.raw
rm -rf "$out" && mkdir -p "$raw"
for t in 0100-dcat 0200-dmerge 0300-bad-input 0400-complete-streams 2000-dexec 2100-budgets \
         2200-dexec-cache 3000-dcheck 3100-dcheck-parallel 4000-dreplay; do
	DIRIGO_FUZZ_SEEDS=$raw DIRIGO_BUILD=${DIRIGO_BUILD:-build} DIRIGO_BIN=$bin \
		sh "$root/tests/t/$t.sh" >/dev/null 2>&1 || true
done
cases=${DIRIGO_FUZZ_CASES-elu-branch elu-branch-cmp-bug rowmax-shared-bug opaque-partial opaque-oob-bug
	const-table reduce-softmax-block reduce-softmax-block-bug reduce-mean-atomic-bug
	reduce-matmul-tiled-bug global-tree-reduce global-cross-block-race-bug gelu4-erf-bug}
if [ -n "$cases" ] && { [ -n "${NVCC:-}" ] || command -v nvcc >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; }; then
	work=$raw/.cases && mkdir -p "$work"
	for c in $cases; do
		d=$root/tests/cases/$c
		[ -r "$d/ref.cu" ] || { echo "collect-seeds: no case $c" >&2; continue; }
		# the name without '-': the trace pairs below are found by the part before the first '-'
		p=$work/case_$(echo "$c" | tr - _)
		for s in ref opt; do
			"$root/scripts/nvcc-build.sh" "$d/$s.cu" "$p-$s" >/dev/null 2>&1 &&
			"$root/$bin/dtrace-cuda" --no-gpu --name $s -o "$p-$s.trace" -- "$p-$s" >/dev/null 2>&1 || true
		done
		[ -s "$p-ref.trace" ] && [ -s "$p-opt.trace" ] || continue
		"$root/$bin/dmerge" "$p-ref.trace" "$p-opt.trace" >"$p-pair.obl" 2>/dev/null || true
		"$root/$bin/dexec" "$p-pair.obl" >"$p-pair.sym" 2>/dev/null || true
		"$root/$bin/dcheck" "$p-pair.sym" >"$p-pair.ver" 2>/dev/null || true
		"$root/$bin/dreplay" "$p-pair.ver" >"$p-pair.rep" 2>/dev/null || true
		for f in "$p"-*.trace "$p"-pair.*; do
			[ -s "$f" ] && [ "$(wc -c <"$f")" -lt 2000000 ] && cp "$f" "$raw/" || true
		done
	done
	rm -rf "$work"
fi
for d in stream formats dcat ptx dmerge dexec dcheck dreplay; do mkdir -p "$out/fuzz-$d"; done
PATH="$root/$bin:$PATH"
n=0
for f in "$raw"/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	kind=$(dcat "$f" 2>/dev/null | head -1 | jq -r '.stream // empty' 2>/dev/null || true)
	if [ -n "$kind" ]; then
		for d in stream formats dcat; do cp "$f" "$out/fuzz-$d/$b"; done
		case $kind in
		trace) cp "$f" "$out/fuzz-dmerge/$b" ;;
		obligation) cp "$f" "$out/fuzz-dexec/$b" ;;
		symbolic) cp "$f" "$out/fuzz-dcheck/$b" ;;
		verdict|replay) cp "$f" "$out/fuzz-dreplay/$b" ;;
		esac
		dcat "$f" 2>/dev/null | jq -r 'select(.t == "module") | .ptx | strings' 2>/dev/null |
			head -c 200000 >"$out/fuzz-ptx/$b.ptx" || true
		[ -s "$out/fuzz-ptx/$b.ptx" ] || rm -f "$out/fuzz-ptx/$b.ptx"
		n=$((n + 1))
	elif head -c 20 "$f" | grep -q '^{"t":' 2>/dev/null; then
		cp "$f" "$out/fuzz-dcat/$b"
	fi
done
# dmerge reads two traces: each pair of traces one test made, concatenated
for f in "$out"/fuzz-dmerge/*; do
	[ -f "$f" ] || continue
	t=$(basename "$f" | cut -d- -f1)
	for g in "$out"/fuzz-dmerge/"$t"-*; do
		[ "$g" != "$f" ] && [ -f "$g" ] || continue
		case $g in *+*) continue ;; esac
		cat "$f" "$g" >"$out/fuzz-dmerge/$(basename "$f")+$(basename "$g")"
	done
done
cp "$root"/tests/fixtures/*.ptx "$out/fuzz-ptx/"
cp "$root"/tests/t/data/*.jsonl "$out/fuzz-dcat/"
rm -rf "$raw"
echo "collect-seeds: $n streams from the test suite into $out" >&2
