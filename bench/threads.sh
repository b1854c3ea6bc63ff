#!/bin/sh
# bench/threads.sh: the thread-model issue's figures.
#
#   bundles per kernel launch over the test kernels of tests/cases (median
#   and max), from the "bundles" of dexec's writes records;
#   dexec execution time per launch (median and max, --timing "ms");
#   the running example's fused kernel launched with 128 x 64 blocks of 256
#   threads (2,097,152 threads; M of shape [64, 2, 256, 128]): its dexec
#   time, which should stay under 1 s.
# Prints Markdown: bench/threads.sh >> bench/RESULTS.md
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PATH="$ROOT/bin:$PATH"
W="$ROOT/build/bench/threads"
mkdir -p "$W"
cd "$W"

: >launches.tsv
for dir in "$ROOT"/tests/cases/*/; do
	[ -f "$dir/expect" ] || continue
	name=$(basename "$dir")
	for p in ref opt; do
		"$ROOT/scripts/nvcc-build.sh" "$dir/$p.cu" "$name-$p" >/dev/null 2>&1 || continue
		dtrace-cuda --no-gpu --name "$p" -o "$name-$p.trace" -- "./$name-$p" >/dev/null 2>&1 || continue
	done
	[ -f "$name-ref.trace" ] && [ -f "$name-opt.trace" ] || continue
	dmerge "$name-ref.trace" "$name-opt.trace" >"$name.obl" 2>/dev/null || continue
	dexec --timing "$name.obl" 2>/dev/null >"$name.sym" || true
	dcat "$name.sym" | jq -r --arg n "$name" 'select(.t=="writes") | [$n, .kernel, .bundles, .ms] | @tsv' >>launches.tsv
done

stats() {   # column -> "median max"
	cut -f"$1" launches.tsv | sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%g %g\n", m, v[NR] }'
}
n=$(wc -l <launches.tsv)
set -- $(stats 3)
bmed=$1 bmax=$2
set -- $(stats 4)
tmed=$1 tmax=$2

# the 2,097,152-thread launch of the fused kernel
sed -e 's/N = 2, C = 16, H = 64, W = 32, NT = 128/N = 64, C = 2, H = 256, W = 128, NT = 256/' \
    "$ROOT/tests/cases/running-example/opt.cu" >big.cu
sed -i "s|\"../common/harness.h\"|\"$ROOT/tests/cases/common/harness.h\"|" big.cu
"$ROOT/scripts/nvcc-build.sh" big.cu big >/dev/null
dtrace-cuda --no-gpu --name ref -o big-ref.trace -- ./big >/dev/null 2>&1
dtrace-cuda --no-gpu --name opt -o big-opt.trace -- ./big >/dev/null 2>&1
dmerge big-ref.trace big-opt.trace >big.obl
t0=$(date +%s.%N)
dexec --timing big.obl >big.sym 2>/dev/null || true
t1=$(date +%s.%N)
big=$(dcat big.sym | jq -r 'select(.t=="writes") | "\(.ms * 10 | round / 10) ms, \(.bundles) bundles"' | head -1)
whole=$(echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}')

echo "| figure | value |"
echo "|---|---|"
echo "| kernel launches measured (tests/cases) | $n |"
echo "| bundles per launch, median / max | $bmed / $bmax |"
echo "| dexec time per launch, median / max (ms) | $tmed / $tmax |"
echo "| fused kernel, 128x64 blocks of 256 (2,097,152 threads): dexec per launch | $big |"
echo "| same, whole dexec run on both copies of the obligation (s) | $whole |"
