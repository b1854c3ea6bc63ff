#!/bin/sh
# trace-corpus.sh: time to trace corpus programs (KernelBench pairs: an AI
# CUDA Engineer .cu and its functional reference), the extension build
# excluded, tracing by shape; with --compare, also the computing trace of
# each program and whether the two give the same records.
#
#   bench/trace-corpus.sh [--append] [--compare] [--sample N] [--timeout S] [--corpus DIR] [LEVEL/NAME...]
#
# Each side runs as dtrace-cuda --kernelbench runs it (python3 -m
# dirigo_trace.kernelbench trace SIDE ... --shapes under the record-only
# runtime, traced again computing when it exits 4), both sides at once;
# the program's trace time is the wall time of the two.  A program whose
# extension is not in the cache ($DIRIGO_EXT_CACHE: build the corpus ahead
# with --build-only) is listed as "not built".  --compare traces each
# program again with --compute (one side after the other, at most S
# seconds a side, default 900) and compares the records but for the raw
# bytes of pointer parameters.  The programs: those named, else every
# program of level1 and level3 of $DIRIGO_CORPUS (default /work/corpus),
# or every Kth of them with --sample K.  The corpus is laid out as
# fetched (KernelBench_c/LEVEL/NAME.cu beside
# EvalEngine/torch_functionals/LEVEL/NAME.py) or as bench/run-kernelbench
# lays out its pairs (LEVEL/NAME/ref.py and opt.cu); the extension
# cache's keys name the folder of the .cu, so time the layout the cache
# was built from.  Prints a Markdown table and the median and worst
# times; --append adds them to bench/RESULTS.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
append="" compare="" every=1 limit=900 corpus=${DIRIGO_CORPUS:-/work/corpus}
while [ $# -gt 0 ]; do
	case $1 in
	--append) append=1 ;;
	--compare) compare=1 ;;
	--sample) every=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--corpus) corpus=$2; shift ;;
	--*) echo "usage: trace-corpus.sh [--append] [--compare] [--sample K] [--timeout S] [--corpus DIR] [LEVEL/NAME...]" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
PATH=$top/bin:$PATH
export PYTHONPATH=$top/dtrace-cuda/python
py=$("$top/dtrace-cuda/python/dirigo-python") || { echo "trace-corpus.sh: no python3 with torch" >&2; exit 2; }
command -v jq >/dev/null || { echo "trace-corpus.sh: jq not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$tmp/list"
else
	for l in level1 level3; do
		if [ -d "$corpus/KernelBench_c" ]; then
			ls "$corpus/KernelBench_c/$l"/*.cu | sed "s|.*/KernelBench_c/||; s|\.cu$||"
		else
			ls -d "$corpus/$l"/*/ | sed "s|^$corpus/||; s|/$||"
		fi
	done | awk -v k="$every" 'NR % k == 1 || k == 1' >"$tmp/list"
fi

now() { date +%s.%N; }
nomod='select(.t!="module" and .kind!="symbol") | if .t=="launch" then .args |= map(if .storage then del(.raw) else . end) else . end'

# side NAME REF OPT OUT [--shapes]: one side as dtrace-cuda --kernelbench
# traces it (again computing on status 4); prints "status seconds retraced".
side() {
	s=$1 ref=$2 opt=$3 out=$4 mode=${5:-}
	t0=$(now)
	r=no
	st=0
	timeout "$limit" dtrace-cuda --name "$s" -o "$out" -- "$py" -m dirigo_trace.kernelbench trace \
		"$s" "$ref" "$opt" $mode >"$out.err" 2>&1 || st=$?
	# (a side run this way exits 2, not 4, when it needs values: the
	# runtime's message says so)
	if [ "$st" != 0 ] && [ -n "$mode" ] && grep -q "trace by shape does not compute" "$out.err"; then
		r=yes
		st=0
		timeout "$limit" dtrace-cuda --name "$s" -o "$out" -- "$py" -m dirigo_trace.kernelbench \
			trace "$s" "$ref" "$opt" >>"$out.err" 2>&1 || st=$?
	fi
	echo "$st $(echo "$(now) - $t0" | bc) $r"
}

rows=$tmp/rows
: >"$rows"
while read -r p; do
	lv=${p%%/*} n=${p#*/}
	if [ -d "$corpus/KernelBench_c" ]; then
		ref=$corpus/EvalEngine/torch_functionals/$lv/$n.py opt=$corpus/KernelBench_c/$lv/$n.cu
	else
		ref=$corpus/$lv/$n/ref.py opt=$corpus/$lv/$n/opt.cu
	fi
	so=$("$py" -c 'import sys; from dirigo_trace import ext; print(ext.load_cu(sys.argv[1], cached_only=True) or "")' "$opt" 2>/dev/null || true)
	if [ -z "$so" ]; then
		echo "| $p | - | - | - | - | not built | | |" >>"$rows"
		continue
	fi
	t0=$(now)
	side ref "$ref" "$opt" "$tmp/ref.trace" --shapes >"$tmp/ref.res" &
	side opt "$ref" "$opt" "$tmp/opt.trace" --shapes >"$tmp/opt.res" &
	wait
	both=$(printf '%.1f' "$(echo "$(now) - $t0" | bc)")
	read -r rs rt rr <"$tmp/ref.res"
	read -r os ot or <"$tmp/opt.res"
	retr=""
	[ "$rr" = yes ] && retr="ref"
	[ "$or" = yes ] && retr="$retr opt"
	cmpt="" same=""
	if [ -n "$compare" ]; then
		a=$(side ref "$ref" "$opt" "$tmp/ref.c.trace")
		b=$(side opt "$ref" "$opt" "$tmp/opt.c.trace")
		cmpt=$(printf '%.1f' "$(echo "${a#* }" "${b#* }" | awk '{ print $1 + $3 }')")
		if [ "${a%% *}" = 124 ] || [ "${b%% *}" = 124 ]; then
			same="timeout"
		else
			same=same
			for s in ref opt; do
				dcat "$tmp/$s.trace" 2>/dev/null | jq -c "$nomod" >"$tmp/a.json" || true
				dcat "$tmp/$s.c.trace" 2>/dev/null | jq -c "$nomod" >"$tmp/b.json" || true
				cmp -s "$tmp/a.json" "$tmp/b.json" || same="DIFFER ($s)"
			done
		fi
	fi
	printf '| %s | %.1f | %.1f | %s | %s | %s %s | %s | %s |\n' "$p" "$rt" "$ot" "$both" \
		"${retr:-}" "$rs" "$os" "$cmpt" "$same" >>"$rows"
done <"$tmp/list"

med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%.1f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2); else printf "-" }'; }
col() { awk -F'|' -v c="$1" '{ gsub(/ /, "", $c); if ($c != "-" && $c != "") print $c }' "$rows"; }
table="| program | ref side (s) | opt side (s) | trace (s) | traced again | status ref opt | computing trace (s) | records |
|---|---|---|---|---|---|---|---|
$(cat "$rows")"
n=$(col 5 | wc -l)
summary="$n programs traced: median $(col 5 | med) s, worst $(col 5 | sort -n | tail -n 1) s; traced again computing: $(awk -F'|' '$6 ~ /[a-z]/' "$rows" | wc -l); not built: $(grep -c 'not built' "$rows" || true)."
[ -n "$compare" ] && summary="$summary Computing traces: median $(col 8 | med) s, worst $(col 8 | sort -n | tail -n 1) s; records differ: $(grep -c DIFFER "$rows" || true)."
summary="$summary Load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo "$table"
echo
echo "$summary"
if [ -n "$append" ]; then
	{
		echo
		echo "### bench/trace-corpus.sh, $(date '+%Y-%m-%d %H:%M')"
		echo
		echo "$table"
		echo
		echo "$summary"
	} >>"$top/bench/RESULTS.md"
fi
