#!/bin/sh
# fuzz-stages.sh [-n N] [-j J] [-B SECONDS] [-t SECONDS] [-S SECONDS] [-T SECONDS]
#                [-s STAGES] [-b BINDIR]...:
# the mutation campaign of issue 9.  N mutants (default 10000) of valid
# streams per stage (dmerge, dexec, dcheck, dreplay, and dcat -r on JSON
# mutants is covered by the json kind), dexec, dcheck and dreplay with a
# wall-clock --budget of B seconds (default 5; dcheck with --jobs 1), each
# run under a time limit of t seconds (default B + 2: past it is a hang),
# J at a time (default 2), with the binaries of each BINDIR
# (default bin; give build-san/bin too for the sanitizer build, made with
# make SANITIZE=1).  Mutations and outcomes: see bench/fuzz-mutate.py.
# Seeds: the streams the test suite produces (tests/fuzz/collect-seeds.sh,
# into build-fuzz/seeds unless it is there) that the stage takes, with -S
# only those it takes within S seconds (so that N mutants fit a time);
# with -T, each stage and build stops after T seconds of mutants, however
# many it ran (the JSON line and the table give the count).
# Prints one JSON line per stage and build, and a Markdown table for
# bench/RESULTS.md; crash, hang and wrong-status inputs are kept under
# build-fuzz/campaign/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
n=10000 j=2 budget=5 t="" seedlim="" maxt="" bins="" stages="dmerge dexec dcheck dreplay"
while getopts n:j:B:t:S:T:b:s: o; do
	case $o in
	n) n=$OPTARG ;; j) j=$OPTARG ;; B) budget=$OPTARG ;; t) t=$OPTARG ;; b) bins="$bins $OPTARG" ;;
	S) seedlim="--seed-limit $OPTARG" ;; T) maxt="--max-time $OPTARG" ;; s) stages=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-j J] [-B SECONDS] [-t SECONDS] [-S SECONDS] [-T SECONDS] [-s STAGES]" \
		"[-b BINDIR]..." >&2
	   exit 2 ;;
	esac
done
[ -n "$t" ] || t=$((budget + 2))
[ -n "$bins" ] || bins=bin
seeds=build-fuzz/seeds
[ -d $seeds ] || tests/fuzz/collect-seeds.sh $seeds
out=build-fuzz/campaign
mkdir -p $out
# a sanitizer report is a crash: exit 70, never a stage's own status
export ASAN_OPTIONS=exitcode=70:detect_leaks=0 UBSAN_OPTIONS=exitcode=70:halt_on_error=1:print_stacktrace=1
for b in $bins; do
	for s in $stages; do
		# each stage's own budget; past it by 2 s is a hang
		case $s in
		dexec|dreplay) opts="--budget $budget" ;;
		dcheck) opts="--budget $budget --jobs 1" ;;
		*) opts="" ;;
		esac
		python3 bench/fuzz-mutate.py --stage $s --bin "$b" --seeds $seeds/fuzz-$s -n "$n" -j "$j" \
			--timeout "$t" $seedlim $maxt --keep $out -- $opts | tee -a $out/results.jsonl
	done
done
python3 - $out/results.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
last = {}
for r in rows:
    last[(r["stage"], r["bin"])] = r
print("\n| stage | build | mutants | exit 0 | exit 1 | exit 2 | exit 3 | crashes | hangs | wrong status | longest |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (s, b), r in last.items():
    o = r["outcomes"]
    print("| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %.1f s |" % (s, b, r["mutants"], o.get("exit 0", 0),
          o.get("exit 1", 0), o.get("exit 2", 0), o.get("exit 3", 0), o.get("crash", 0), o.get("hang", 0),
          o.get("bad status", 0) + o.get("silent trouble", 0), r["longest_s"]))
PY
