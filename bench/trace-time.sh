#!/bin/sh
# trace-time.sh: time to trace each KernelBench program of tests/kernelbench
# on the CPU (dtrace-cuda --kernelbench: the reference and the optimized
# program, each a python3 process under the record-only runtime), with the
# extension build cached and excluded (a first untimed run builds it).
# Target: under 10 s per program.  Best of N runs (default 3); prints a
# Markdown table, and appends it to bench/RESULTS.md with --append.
#
#   bench/trace-time.sh [--append] [N]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
append=""
[ "${1:-}" = --append ] && { append=1; shift; }
runs=${1:-3}
PATH=$top/bin:$PATH
export DIRIGO_EXT_CACHE=${DIRIGO_EXT_CACHE:-$top/build/ext-cache}
py=$("$top/dtrace-cuda/python/dirigo-python") || { echo "trace-time.sh: no python3 with torch" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
# best_of CMD...: the smallest wall time of $runs runs, in seconds.
best_of() {
	best=""
	i=0
	while [ $i -lt "$runs" ]; do
		t0=$(now); "$@" >/dev/null 2>&1 || { echo "trace-time.sh: '$*' failed" >&2; exit 2; }; t1=$(now)
		t=$(echo "$t1 - $t0" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
		i=$((i + 1))
	done
	printf '%.2f' "$best"
}

# One side alone: the python3 process under the runtime (no build step).
side() {
	PYTHONPATH=$top/dtrace-cuda/python dtrace-cuda --name "$1" -o "$tmp/side.trace" -- \
		"$py" -m dirigo_trace.kernelbench trace "$1" "$2" "$3"
}

table="| pair | optimized form | --kernelbench, both sides (s) | ref side (s) | opt side (s) | launches | torch ops ref / opt |
|---|---|---|---|---|---|---|"
for pair in running-example:opt-bug.py running-example:opt-fixed.py scale-bias-relu:opt.cu; do
	d=${pair%%:*}; o=${pair#*:}
	ref=$top/tests/kernelbench/$d/ref.py opt=$top/tests/kernelbench/$d/$o
	dtrace-cuda --kernelbench -o "$tmp/w" "$ref" "$opt" 2>/dev/null   # builds, untimed
	both=$(best_of dtrace-cuda --kernelbench -o "$tmp/t" "$ref" "$opt")
	r=$(best_of side ref "$ref" "$opt")
	p=$(best_of side opt "$ref" "$opt")
	nl=$(dcat "$tmp/t/opt.trace" | jq -s '[.[] | select(.t=="launch")] | length')
	nr=$(dcat "$tmp/t/ref.trace" | jq -s '[.[] | select(.t=="op")] | length')
	no=$(dcat "$tmp/t/opt.trace" | jq -s '[.[] | select(.t=="op")] | length')
	case $o in *.cu) form="extension .cu" ;; *) form="ModelNew + load_inline" ;; esac
	table="$table
| $d/$o | $form | $both | $r | $p | $nl | $nr / $no |"
done
echo "$table"
if [ -n "$append" ]; then
	{
		echo
		echo "## KernelBench tracing on the CPU (bench/trace-time.sh)"
		echo
		echo "Target: under 10 s per program, the extension build cached and excluded."
		echo "Best of $runs runs, measured $(date +%Y-%m-%d) (load average $(cut -d' ' -f1 /proc/loadavg))."
		echo
		echo "$table"
	} >>"$top/bench/RESULTS.md"
fi
