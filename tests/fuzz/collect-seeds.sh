#!/bin/sh
# collect-seeds.sh OUT: the seed corpus of the fuzz targets, from the
# streams the test suite produces.  Runs the suite's stream tests (those
# that need no CUDA build or torch) with DIRIGO_FUZZ_SEEDS set, so that
# each keeps the files it made, then sorts them into OUT/TARGET/: every
# stream for the stream, formats and dcat targets, each by its kind for
# the stage that reads it (trace: dmerge, obligation: dexec, symbolic:
# dcheck, verdict and replay: dreplay), JSON Lines for dcat, the PTX of
# module records and of tests/fixtures for ptx.
set -eu
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${DIRIGO_BIN:-bin}
raw=$out/.raw
rm -rf "$out" && mkdir -p "$raw"
for t in 0100-dcat 0200-dmerge 0300-bad-input 0400-complete-streams 2000-dexec 3000-dcheck \
         4000-dreplay; do
	DIRIGO_FUZZ_SEEDS=$raw DIRIGO_BUILD=${DIRIGO_BUILD:-build} DIRIGO_BIN=$bin \
		sh "$root/tests/t/$t.sh" >/dev/null 2>&1 || true
done
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
