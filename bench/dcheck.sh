#!/bin/sh
# bench/dcheck.sh: the figures of the issue "dcheck and dreplay at full
# strength" (dcheck side), on the program pairs of tests/cases/ and
# tests/cases-dcheck/:
#   locations decided per second per core: dcheck --all --jobs 1 on every
#   correct pair that dexec executes (each pair's whole output; pairs with
#   fewer than MINLOC locations are left out), per second of wall time and
#   per CPU second (user + system, which is what a core gives when the
#   machine is shared), and the speed-up of --jobs 2 over --jobs 1 on the
#   same runs (wall time; and CPU time, to show work is not duplicated);
#   time to first bug on every buggy pair (the verdict's elapsed_s with
#   --timing: the search, not reading the stream), median and max, and the
#   share of bugs found at the first location (position 0 of the order).
# Prints Markdown: bench/dcheck.sh >> bench/RESULTS.md
# DTRACE=path/to/dtrace-cuda overrides the tracer.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PATH="$ROOT/bin:$PATH"
DTRACE=${DTRACE:-dtrace-cuda}
W="$ROOT/build/bench/dcheck"
MINLOC=${MINLOC:-256}
mkdir -p "$W"
cd "$W"
: >rates.tsv
: >bugs.tsv

for dir in "$ROOT"/tests/cases/*/ "$ROOT"/tests/cases-dcheck/*/; do
	[ -f "$dir/expect" ] || continue
	n=$(basename "$dir")
	expect=$(cat "$dir/expect")
	"$ROOT/scripts/nvcc-build.sh" "$dir/ref.cu" "$n-ref" >/dev/null &&
	"$ROOT/scripts/nvcc-build.sh" "$dir/opt.cu" "$n-opt" >/dev/null &&
	"$DTRACE" --no-gpu --name ref -o "$n-ref.trace" -- "./$n-ref" 2>/dev/null &&
	"$DTRACE" --no-gpu --name opt -o "$n-opt.trace" -- "./$n-opt" 2>/dev/null &&
	dmerge "$n-ref.trace" "$n-opt.trace" >"$n.obl" || { echo "$n: trace failed" >&2; continue; }
	dexec "$n.obl" >"$n.sym" 2>/dev/null || true
	[ -s "$n.sym" ] || continue
	case "$expect" in
	correct)
		for j in 1 2; do
			/usr/bin/time -o "$n.cpu$j" -f '%U %S' dcheck --all --jobs "$j" --timing "$n.sym" >"$n.all$j.ver" 2>/dev/null || true
		done
		dcat "$n.all2.ver" | jq -c 'select(.t=="verdict")' >"$n.v2"
		c1=$(awk '{print $1 + $2}' "$n.cpu1"); c2=$(awk '{print $1 + $2}' "$n.cpu2")
		dcat "$n.all1.ver" | jq -r --arg n "$n" --slurpfile two "$n.v2" --arg c1 "$c1" --arg c2 "$c2" \
			'select(.t=="verdict") | [$n, .locations, .checked, .equal + .within_tol, .elapsed_s,
			 $two[0].elapsed_s, .estimate_s, .structural, .screen, .smt, $c1, $c2] | @tsv' >>rates.tsv ;;
	*)
		dcheck --jobs 1 --timing "$n.sym" >"$n.bug.ver" 2>/dev/null || true
		dcheck --jobs 1 --timing --order sequential --max-locations 1000 "$n.sym" >"$n.seq.ver" 2>/dev/null || true
		pos=$(dcat "$n.bug.ver" | jq -r 'select(.t=="location" and (.result=="differ" or .result=="uninit")) | .pos' | head -1)
		spos=$(dcat "$n.seq.ver" | jq -r 'select(.t=="location" and (.result=="differ" or .result=="uninit")) | .pos' | head -1)
		res=$(dcat "$n.bug.ver" | jq -r 'select(.t=="verdict") | "\(.result)\t\(.elapsed_s)\t\(.locations)\t\(.findings)"')
		printf '%s\t%s\t%s\t%s\n' "$n" "$res" "${pos:--}" "${spos:--}" >>bugs.tsv ;;
	esac
done

echo "### Locations decided per second (dcheck --all; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| pair | locations | decided | wall s, 1 job | per wall s | per CPU s | wall s, 2 jobs | wall speed-up | CPU s 1 job / 2 jobs | estimate (s) | structural / screen / smt |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
awk -F'\t' -v min="$MINLOC" '$2 >= min && $3 == $2 {
	printf "| %s | %d | %d | %.3f | %.0f | %.0f | %.3f | %.2f | %.2f / %.2f | %.3f | %d / %d / %d |\n",
	       $1, $2, $4, $5, $4 / $5, $4 / ($11 > 0 ? $11 : 0.01), $6, $5 / $6, $11, $12, $7, $8, $9, $10 }' rates.tsv
awk -F'\t' -v min="$MINLOC" '$2 >= min && $3 == $2 { d += $4; t1 += $5; t2 += $6; c1 += $11; c2 += $12; k++ }
	END { if (k) printf "\nIn all (%d pairs, %d locations): %.0f locations per wall second and %.0f per CPU second with one job; with two jobs %.2f times the wall-clock speed, using %.2f times the CPU time.\n", k, d, d / t1, d / c1, t1 / t2, c2 / c1 }' rates.tsv
echo
echo "### Time to first bug (default heuristic order, one job)"
echo
echo "| pair | verdict | search time (s) | locations | first bug at position | sequential order: position |"
echo "|---|---|---|---|---|---|"
awk -F'\t' '{ printf "| %s | %s | %.4f | %d | %s | %s |\n", $1, $2, $3, $4, $6, $7 }' bugs.tsv
awk -F'\t' '$6 != "-" { t[++n] = $3; if ($6 == 0) first++ }
	$6 == "-" && $5 > 0 { up++ }
	END {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		med = n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
		printf "\n%d bugs found at a location: search time median %.4f s, max %.4f s; %d of %d (%.0f%%) at the first location checked. %d more pairs are buggy by a dexec finding alone (no location needed).\n",
		       n, med, t[n], first, n, n ? 100 * first / n : 0, up }' bugs.tsv
