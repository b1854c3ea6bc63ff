#!/bin/sh
# build-time.sh: how long extension builds take, over a sample of corpus
# programs (AI CUDA Engineer .cu files and their references), cold cache.
#
#   bench/build-time.sh [--append] [--dtrace BIN] [--corpus DIR] [--sample N] [--jobs J] [LEVEL/NAME...]
#   bench/build-time.sh --from-cache DIR [--append]
#
# Each program is built with `dtrace-cuda --kernelbench --build-only` into
# one fresh cache for the whole sample (so the first build also makes the
# compat library, and the second build that meets a header prefix makes its
# precompiled header, as on a new machine), J builds at a time (default 1).
# Per program: the wall time and the CPU time (user + sys) of the whole
# command, and, from the build's timing.json (builders since the phased
# one), each phase's CPU time: host preprocessing + cudafe++ (the host
# front end), device preprocessing + cicc + ptxas + fatbinary (the device
# chain), the host compile (and whether it used a precompiled header),
# the link, and the critical path: the CPU time of the longer chain (the
# host's with the making of a precompiled header, or the device's), the
# host compile and the link, which is the wall time of the build on an
# idle machine with two cores, less Python's start.  --from-cache DIR reads the timing.json
# of every build in DIR instead (a corpus built ahead).
#
# The sample: the programs named (LEVEL/NAME), else every 20th program of
# level1 and every 17th of level3 of $DIRIGO_CORPUS (default
# /work/corpus), N of them (default 8).  --dtrace
# picks the dtrace-cuda to measure (another checkout's, for the figure
# before a change).  Prints a Markdown table and the medians; --append
# adds them to bench/RESULTS.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
append="" dtrace=$top/bin/dtrace-cuda corpus=${DIRIGO_CORPUS:-/work/corpus} sample=8 jobs=1 from=""
while [ $# -gt 0 ]; do
	case $1 in
	--append) append=1 ;;
	--dtrace) dtrace=$2; shift ;;
	--corpus) corpus=$2; shift ;;
	--sample) sample=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--from-cache) from=$2; shift ;;
	--*) echo "usage: build-time.sh [--append] [--dtrace BIN] [--corpus DIR] [--sample N] [--jobs J] | --from-cache DIR" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
command -v jq >/dev/null || { echo "build-time.sh: jq not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row NAME WALL CPU TIMING.JSON: one table row.
row() {
	if [ -s "$4" ]; then
		jq -r --arg n "$1" --arg w "$2" --arg c "$3" '
		def cpu($re): [.phases[] | select(.name | test($re)) | .cpu] | add // 0;
		def r: .*10 | round / 10;
		(cpu("^host (preprocess|front end)")) as $h |
		(cpu("^(device preprocess|cicc|ptxas|fatbinary)")) as $d |
		(cpu("^host pch")) as $p |
		(cpu("^host compile")) as $cc | (cpu("^link")) as $l |
		([.phases[] | select(.name == "host pch") | .note] | first // "-") as $pch |
		"| \($n) | \($w) | \($c) | \($h | r) | \($d | r) | \($p | r) | \($cc | r) (\($pch)) | \($l | r) | \([$h + $p, $d] | max + $cc + $l | r) |"' "$4"
	else
		echo "| $1 | $2 | $3 | - | - | - | - | - | - |"
	fi
}

rows=$tmp/rows
: >"$rows"
if [ -n "$from" ]; then
	for t in "$from"/*/timing.json; do
		[ -f "$t" ] || continue
		n=$(basename "$(dirname "$t")")
		src=$(ls "$(dirname "$t")"/*.cu 2>/dev/null | head -n 1)
		case $src in
		*/cuda.cu | "") n=${n%-*} ;;        # load_inline: the module's name
		*) n=$(basename "$src" .cu) ;;
		esac
		w=$(jq '.total | .*10 | round / 10' "$t")
		row "$n" "$w" "-" "$t" >>"$rows"
	done
	what="the builds in $from (each cold, sharing the compat library and precompiled headers)"
else
	if [ $# -gt 0 ]; then
		for p in "$@"; do echo "$corpus/KernelBench_c/$p.cu"; done >"$tmp/list"
	else
		l1=$(ls "$corpus"/KernelBench_c/level1/*.cu | awk 'NR % 20 == 1')
		l3=$(ls "$corpus"/KernelBench_c/level3/*.cu | awk 'NR % 17 == 1')
		printf '%s\n%s\n' "$l1" "$l3" | head -n "$sample" >"$tmp/list"
	fi
	export DIRIGO_EXT_CACHE=$tmp/cache
	one() {
		cu=$1 n=$(basename "$1" .cu) lv=$(basename "$(dirname "$1")")
		ref=$corpus/EvalEngine/torch_functionals/$lv/$n.py
		/usr/bin/time -f '%e %U %S' -o "$tmp/$n.time" "$dtrace" --kernelbench --build-only "$ref" "$cu" \
			>"$tmp/$n.log" 2>&1 || echo "build-time.sh: $lv/$n did not build (see $tmp/$n.log)" >&2
		w=$(awk '{ printf "%.1f", $1 }' "$tmp/$n.time")
		c=$(awk '{ printf "%.1f", $2 + $3 }' "$tmp/$n.time")
		t=$(ls "$DIRIGO_EXT_CACHE"/dirigo_ext_*/"$n".cu 2>/dev/null | head -n 1)
		row "$lv/$n" "$w" "$c" "${t%/*}/timing.json"
	}
	while read -r cu; do
		one "$cu" >>"$rows" &
		# jobs -p in a command substitution runs in a subshell, which
		# has no jobs in dash: count them through a file
		while jobs -p >"$tmp/jobs" && [ "$(wc -l <"$tmp/jobs")" -ge "$jobs" ]; do sleep 1; done
	done <"$tmp/list"
	wait
	what="$(wc -l <"$tmp/list") programs, one fresh cache, $jobs at a time, with $dtrace"
fi

med() { sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%.1f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2); else printf "-" }'; }
mx() { sort -n | tail -n 1; }
col() { awk -F'|' -v c="$1" '{ gsub(/ /, "", $c); split($c, a, "("); if (a[1] != "-") print a[1] }' "$rows"; }
table="| program | wall (s) | CPU (s) | host front end CPU | device chain CPU | making the pch CPU | host compile CPU (pch) | link CPU | critical path (s) |
|---|---|---|---|---|---|---|---|---|
$(sort "$rows")"
summary="Median wall $(col 3 | med) s (max $(col 3 | mx)), CPU $(col 4 | med) s (max $(col 4 | mx)), critical path $(col 10 | med) s (max $(col 10 | mx)); load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo "$what"
echo
echo "$table"
echo
echo "$summary"
if [ -n "$append" ]; then
	{
		echo
		echo "### bench/build-time.sh, $(date '+%Y-%m-%d %H:%M')"
		echo
		echo "$what."
		echo
		echo "$table"
		echo
		echo "$summary"
	} >>"$top/bench/RESULTS.md"
fi
