#!/bin/sh
# run.sh SECONDS: runs every fuzz target of build-fuzz/fuzz for SECONDS
# seconds each, from build-fuzz/corpus/TARGET (grown by earlier runs) and
# the seed corpus build-fuzz/seeds/TARGET (tests/fuzz/collect-seeds.sh,
# made once).  A crash, a sanitizer report, a leak or an input that takes
# over 20 s is a failure: its input is kept as build-fuzz/crashes/TARGET-*
# (turn it into a regression test).  Exit 0 when no target failed.
set -u
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
fb=$root/build-fuzz
cd "$root" || exit 2
[ -d "$fb/seeds" ] || tests/fuzz/collect-seeds.sh "$fb/seeds" || exit 2
mkdir -p "$fb/corpus" "$fb/crashes" "$fb/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
for t in "$fb"/fuzz/fuzz-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	mkdir -p "$fb/corpus/$name" "$fb/seeds/$name"
	"$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=262144 \
		-print_final_stats=1 -artifact_prefix="$fb/crashes/$name-" \
		"$fb/corpus/$name" "$fb/seeds/$name" >"$fb/logs/$name.log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fb/logs/$name.log" | tail -1)
	if [ $st -ne 0 ]; then
		failed=$((failed + 1))
		echo "fuzz: $name: FAILED (exit $st) after ${execs:-?} inputs; see $fb/logs/$name.log" >&2
		grep -m3 -E 'ERROR|SUMMARY|Test unit written' "$fb/logs/$name.log" >&2
	else
		echo "fuzz: $name: ${execs:-?} inputs in ${secs} s, no failure"
	fi
done
[ $failed -eq 0 ]
