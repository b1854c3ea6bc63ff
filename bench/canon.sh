#!/bin/sh
# bench/canon.sh [-b SECONDS] [-m N] [-j JOBS] [-B DCHECK] [-o OUT] DIR...: dcheck
# on the saved symbolic streams of pairs with large reductions (each DIR
# holds pair.sym, as bench/run-kernelbench leaves it), once with the
# dcheck given by -B (the "before": a build without canonical forms and
# enumeration tables, e.g. main's bin/dcheck) and once with this tree's:
# per pair the verdict, the locations decided (equal, within tolerance or
# differ) and how (structural, screen, solver), the locations decided per
# second of wall time and per CPU second (what a core gives on a shared
# machine), and the first bug's message.  Without -B only this tree's
# dcheck runs.
#
# Budget: dcheck --budget SECONDS (default 90), --jobs JOBS (default 1);
# with -m, at most N locations too (--max-locations: on a loaded machine
# the CPU seconds per location compare better than a wall-clock budget).
# Each run is killed 60 s past its budget (outcome "killed").  Runs go
# to OUT (default build/bench/canon): NAME.{before,after}.ver and .err,
# results.tsv.  Prints Markdown: bench/canon.sh ... >> bench/RESULTS.md
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUDGET=90 MAXLOC="" JOBS=1 BEFORE="" OUT=$ROOT/build/bench/canon
usage() { echo "usage: bench/canon.sh [-b SECONDS] [-m N] [-j JOBS] [-B DCHECK] [-o OUT] DIR..." >&2; exit 2; }
while getopts b:m:j:B:o: opt; do
	case $opt in
	b) BUDGET=$OPTARG ;;
	m) MAXLOC=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	B) BEFORE=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
command -v jq >/dev/null || { echo "bench/canon.sh: needs jq" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/canon.sh: needs /usr/bin/time" >&2; exit 2; }
AFTER=$ROOT/bin/dcheck
DCAT=$ROOT/bin/dcat
mkdir -p "$OUT"
: >"$OUT/results.tsv"

# run TAG DCHECK DIR: one dcheck run; appends a line to results.tsv:
# name tag result decided checked structural screen smt elapsed cpu message
run() {
	tag=$1 dc=$2 dir=$3
	n=$(basename "$dir")
	ver=$OUT/$n.$tag.ver
	/usr/bin/time -f '%e %U %S' -o "$OUT/$n.$tag.time" \
		timeout -k 5 $((BUDGET + 60)) "$dc" --budget "$BUDGET" ${MAXLOC:+--max-locations "$MAXLOC"} --jobs "$JOBS" --timing \
		"$dir/pair.sym" >"$ver" 2>"$OUT/$n.$tag.err" || true
	cpu=$(tail -n 1 "$OUT/$n.$tag.time" | awk '{printf "%.1f", $2 + $3}')
	wall=$(tail -n 1 "$OUT/$n.$tag.time" | awk '{printf "%.1f", $1}')
	v=$("$DCAT" "$ver" 2>/dev/null | jq -c 'select(.t=="verdict")' | tail -n 1)
	if [ -z "$v" ]; then
		printf '%s\t%s\tkilled\t0\t0\t0\t0\t0\t%s\t%s\t%s\n' "$n" "$tag" "$wall" "$cpu" \
			"$(grep -v 'locations/s' "$OUT/$n.$tag.err" | head -n 1 | tr '\t' ' ')" >>"$OUT/results.tsv"
		return
	fi
	printf '%s\t%s\t%s\n' "$n" "$tag" "$(printf '%s' "$v" | jq -r --arg cpu "$cpu" \
		'[.result, (.equal + .within_tol + .differ), .checked, .structural, .screen, .smt,
		  (.elapsed_s * 10 | round / 10), $cpu, (.message | gsub("\t"; " "))] | @tsv')" >>"$OUT/results.tsv"
}

for dir in "$@"; do
	[ -s "$dir/pair.sym" ] || { echo "bench/canon.sh: no $dir/pair.sym" >&2; continue; }
	[ -z "$BEFORE" ] || run before "$BEFORE" "$dir"
	run after "$AFTER" "$dir"
done

echo "dcheck --budget $BUDGET${MAXLOC:+ --max-locations $MAXLOC} --jobs $JOBS on $(uname -n), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| pair | run | verdict | decided (structural/screen/smt) | checked | wall s | CPU s | decided/s | decided/CPU s |"
echo "|---|---|---|---|---|---|---|---|---|"
awk -F'\t' '{
	rate = $9 > 0 ? $4 / $9 : 0; crate = $10 > 0 ? $4 / $10 : 0
	printf "| %s | %s | %s | %d (%d/%d/%d) | %d | %s | %s | %.2f | %.2f |\n",
	       $1, $2, $3, $4, $6, $7, $8, $5, $9, $10, rate, crate
}' "$OUT/results.tsv"
echo
echo "Messages:"
echo
awk -F'\t' '{ printf "- %s (%s): %s\n", $1, $2, $11 }' "$OUT/results.tsv"
