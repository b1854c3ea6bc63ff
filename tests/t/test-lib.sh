# test-lib.sh: a small git-style test library for the shell pipeline tests.
#
#	. "$(dirname "$0")/test-lib.sh"
#	test_expect_success 'title' 'commands && chained && with &&'
#	test_must_fail [--status=N] cmd...   (fails on a crash: signal or >= 126)
#	test_cmp expect actual
#	test_done
#
# Each test runs in a fresh scratch folder $TRASH with bin/ on PATH.
# Set DIRIGO_TEST_VERBOSE=1 to see the commands' output.

set -u
TEST_NAME=$(basename "$0" .sh)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${DIRIGO_BUILD:-build}
PATH="$ROOT/${DIRIGO_BIN:-bin}:$PATH"
export PATH ROOT BUILD
TRASH="$ROOT/$BUILD/trash/$TEST_NAME"
rm -rf "$TRASH" && mkdir -p "$TRASH" || exit 1
cd "$TRASH" || exit 1
test_count=0
test_failures=0
test_skipped=0

say() { printf '# %s\n' "$*"; }

# say_torch PY: a TAP comment naming the torch the torch tests run against
# (make check: the machine's python3; make check-torch2: build/torch2).
say_torch() {
	say "torch $("$1" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo '(none)') ($1)"
}

test_run_() {
	if [ "${DIRIGO_TEST_VERBOSE:-}" ]; then
		(set -e; eval "$1")
	else
		(set -e; eval "$1") >"$TRASH/.out" 2>&1
	fi
}

test_expect_success() {
	test_count=$((test_count + 1))
	if [ -n "${SKIP_ALL:-}" ]; then
		echo "ok $test_count # skip $1 ($SKIP_ALL)"
		return 0
	fi
	if test_run_ "$2"; then
		echo "ok $test_count - $1"
	else
		test_failures=$((test_failures + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' <<-EOF
		$2
		EOF
		[ -f "$TRASH/.out" ] && sed 's/^/#   > /' "$TRASH/.out" | tail -40
	fi
	return 0
}

test_skip() { test_count=$((test_count + 1)); echo "ok $test_count # skip $1"; }

# test_must_fail [--status=N] cmd args: the command must exit non-zero but not
# crash (signals and 126/127 are failures of the test).
test_must_fail() {
	want=""
	case "$1" in --status=*) want=${1#--status=}; shift ;; esac
	"$@"
	st=$?
	if [ $st -eq 0 ]; then echo "test_must_fail: '$*' succeeded" >&2; return 1; fi
	if [ $st -gt 125 ]; then echo "test_must_fail: '$*' crashed or was not found (status $st)" >&2; return 1; fi
	if [ -n "$want" ] && [ $st -ne "$want" ]; then
		echo "test_must_fail: '$*' exited $st, expected $want" >&2; return 1
	fi
	return 0
}

# test_status N cmd args: the command must exit exactly N.
test_status() {
	want=$1; shift
	"$@"
	st=$?
	[ $st -eq "$want" ] && return 0
	echo "test_status: '$*' exited $st, expected $want" >&2
	return 1
}

test_cmp() { diff -u "$1" "$2"; }

have_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }

# build_cuda SRC OUT: compile a standalone CUDA program (cached by content).
build_cuda() { "$ROOT/scripts/nvcc-build.sh" "$1" "$2"; }

# Every trace the tracer wrote in $TRASH (header tool dtrace-cuda or
# dirigo_trace, with an end record of status 0, or a tunsupported record:
# a program that finished) is one dmerge takes: merged with itself,
# dmerge exits 0 (or 1 with a finding), never 2 (refused) nor by a
# signal (a file of two traces, the literal pipe's, is merged alone).
# A program that copies nothing back and returns nothing has
# nothing to compare; that refusal is the right one.  Run by
# test_done as one more test when the script left such traces.
test_traces_merge_() {
	command -v jq >/dev/null || return 0
	find . -name "*.trace" -type f | sort >.traces
	: >.merge-refused
	while read -r t; do
		dcat "$t" 2>/dev/null | jq -s -e 'map(select(.t=="header"))[0].tool as $k |
			($k == "dtrace-cuda" or $k == "dirigo_trace") and
			((map(select(.t=="end"))[0].status // 2) == 0 or
			 (map(select(.t=="tunsupported")) | length > 0))' >/dev/null 2>&1 || continue
		# the literal pipe's output holds both traces, ref then opt
		if [ "$(dcat "$t" 2>/dev/null | jq -s 'map(select(.t=="header")) | length')" = 2 ]; then
			dmerge "$t" >/dev/null 2>.merge-err
		else
			dmerge "$t" "$t" >/dev/null 2>.merge-err
		fi
		st=$?
		case $st in
		0|1) ;;
		2) grep -q "there are no outputs to compare" .merge-err ||
			echo "$t: dmerge exit $st: $(grep -v "^dmerge: warning" .merge-err | head -n 1)" >>.merge-refused ;;
		*) echo "$t: dmerge exit $st" >>.merge-refused ;;
		esac
	done <.traces
	test ! -s .merge-refused || { cat .merge-refused >&2; return 1; }
}

# DIRIGO_FUZZ_SEEDS=DIR: keep the files each test made (streams, JSON,
# PTX) in DIR/TESTNAME-FILE, for the fuzz seed corpus (tests/fuzz).
keep_seeds_() {
	[ -n "${DIRIGO_FUZZ_SEEDS:-}" ] || return 0
	mkdir -p "$DIRIGO_FUZZ_SEEDS" &&
	find "$TRASH" -maxdepth 1 -type f -size -1024k ! -name '.*' | while read -r f; do
		cp "$f" "$DIRIGO_FUZZ_SEEDS/$TEST_NAME-$(basename "$f")"
	done
}

test_done() {
	if [ -z "${SKIP_ALL:-}" ] && [ -n "$(find . -name "*.trace" -type f 2>/dev/null | head -n 1)" ]; then
		test_expect_success 'every trace written here is one dmerge takes' 'test_traces_merge_'
	fi
	echo "1..$test_count"
	keep_seeds_
	[ $test_failures -eq 0 ] && rm -rf "$TRASH"
	[ $test_failures -eq 0 ]
}
