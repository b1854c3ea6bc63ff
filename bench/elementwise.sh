#!/bin/sh
# bench/elementwise.sh: the pipeline issue's figures.
#
# An elementwise pair (out = a*b + a against out = a*(b + 1)) over
# 4,096 x S floats for S = 1, 64, 4096 (16M floats: 65,536 blocks of 256
# threads at S = 4096).  Best of R runs (default 5) of:
#   dexec on the obligation (both programs), and its per-launch execution
#   time (--timing, the "ms" of each writes record);
#   dcheck to the first decided location (--max-locations 1).
# Prints a Markdown table: bench/elementwise.sh >> bench/RESULTS.md
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PATH="$ROOT/bin:$PATH"
W="$ROOT/build/bench/elementwise"
R=${R:-5}
mkdir -p "$W"
cd "$W"

now() { date +%s.%N; }
best() {   # best wall time of R runs of "$@", in seconds
	b=1e9
	for _ in $(seq "$R"); do
		t0=$(now); "$@" >/dev/null; t1=$(now)
		b=$(echo "$t0 $t1 $b" | awk '{d = $2 - $1; print (d < $3 ? d : $3)}')
	done
	printf '%.3f' "$b"
}

echo "| blocks of 256 | elements | dexec, whole run, both programs (s) | dexec per launch ref / opt (ms) | dcheck to first location (s) |"
echo "|---|---|---|---|---|"
for S in 1 64 4096; do
	n=$((4096 * S))
	for v in 0 1; do
		"$ROOT/scripts/nvcc-build.sh" "$ROOT/bench/elementwise.cu" "prog-$S-$v" -DN=$n -DVARIANT=$v
		dtrace-cuda --no-gpu --name "v$v" -o "t-$S-$v.trace" -- "./prog-$S-$v" 2>/dev/null
	done
	dmerge "t-$S-0.trace" "t-$S-1.trace" >"x-$S.obl"
	dexec --timing "x-$S.obl" >"x-$S.sym"
	ms=$(dcat "x-$S.sym" | jq -r 'select(.t=="writes") | .ms' | awk '{printf "%s%.2f", (NR > 1 ? " / " : ""), $1}')
	t_dexec=$(best dexec "x-$S.obl")
	t_chk=$(best dcheck --max-locations 1 --min-locations 1 "x-$S.sym")
	echo "| $((n / 256)) | $n | $t_dexec | $ms | $t_chk |"
done
