#!/bin/sh
# The tools' command lines: every option of a tool's usage is in the
# OPTIONS of its man page and the other way round, -h prints the usage,
# a bad number is trouble naming the option, and the preloaded recording
# runtime links no more than recording needs.

. "$(dirname "$0")/test-lib.sh"

TOOLS="dcat dtrace-cuda dmerge dexec dcheck dreplay"

# opts: the option names (-x, --xyz) in the text on stdin, one a line, sorted
opts() {
	grep -oE '(^|[^a-zA-Z0-9-])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[^-]*//' | sort -u
}
# man_opts PAGE: the options of the tags (.TP, .TQ) of its OPTIONS section
man_opts() {
	awk '/^\.SH OPTIONS/ { p = 1; next } /^\.SH/ { p = 0 }
	     p && t { print; t = 0 } p && /^\.T[PQ]/ { t = 1 }' "$1" |
	sed 's/\\f[BIRP]//g; s/\\-/-/g' | opts
}

for t in $TOOLS; do
	test_expect_success "$t: the usage names the options of $t(1), no more, no fewer" "
		$t --help >usage &&
		opts <usage >from-usage &&
		man_opts \"\$ROOT/man/man1/$t.1\" >from-man &&
		test -s from-man &&
		test_cmp from-man from-usage
	"
	test_expect_success "$t: -h prints the usage on stdout and exits 0" "
		$t -h >out 2>err &&
		grep '^usage: $t' out &&
		test ! -s err
	"
	test_expect_success "$t: an unknown option is trouble, with the usage on stderr" "
		test_must_fail --status=2 $t --no-such-option >out 2>err &&
		grep '^usage: $t' err &&
		test ! -s out
	"
done

# bad TOOL OPTION VALUE: exit 2, and the message names the option and the value
bad() {
	test_must_fail --status=2 "$@" </dev/null >out 2>err || return 1
	grep "^$1: option '$2': bad number '$3' (" err
}

test_expect_success 'dtrace-cuda: bad numbers are trouble, named' '
	bad dtrace-cuda --max-data 1M -- true &&
	bad dtrace-cuda --max-data -5 -- true &&
	bad dtrace-cuda --seed 18446744073709551616 --kernelbench a.py b.cu &&
	bad dtrace-cuda --seed x --kernelbench a.py b.cu
'

test_expect_success 'dexec: bad numbers are trouble, named' '
	bad dexec --budget-steps 0 &&
	bad dexec --budget-bundles 4294967296 &&
	bad dexec --smt-timeout 5x &&
	bad dexec --smt-rlimit -1 &&
	bad dexec --budget inf &&
	bad dexec --budget "" &&
	grep "(a finite number, at least 0)" err
'

test_expect_success 'dcheck: bad numbers are trouble, named' '
	bad dcheck --jobs 0 &&
	grep "(a whole number from 1 to 1024)" err &&
	test_must_fail --status=2 dcheck -j 2000 2>err &&
	grep "^dcheck: option .--jobs.: bad number .2000." err &&
	bad dcheck --min-locations 1.5 &&
	bad dcheck --max-locations " 3" &&
	bad dcheck --seed +1 &&
	bad dcheck --smt-timeout 4294967296 &&
	bad dcheck --smt-rlimit 1e6 &&
	bad dcheck --atol -0.1 &&
	bad dcheck --rtol nan &&
	bad dcheck --budget 3s
'

test_expect_success 'dreplay: bad numbers are trouble, named' '
	bad dreplay --atol x &&
	bad dreplay --rtol -1 &&
	bad dreplay --budget inf &&
	bad dreplay --budget 1e999
'

test_expect_success 'dmerge -v says what it matched' '
	cat >one.jsonl <<-\EOF_ &&
	{"t":"header","format":"dirigo","version":1,"stream":"trace","name":"NAME"}
	{"t":"alloc","buf":0,"bytes":4,"kind":"device"}
	{"t":"copy","dir":"h2d","buf":0,"off":0,"bytes":4,"data":{"$bin":"AACAPw=="}}
	{"t":"copy","dir":"d2h","buf":0,"off":0,"bytes":4}
	{"t":"end","status":0}
	EOF_
	sed s/NAME/ref/ one.jsonl | dcat -r >ref.trace &&
	sed s/NAME/opt/ one.jsonl | dcat -r >opt.trace &&
	dmerge -v ref.trace opt.trace >x.obl 2>err &&
	grep "^dmerge: merged .ref. (0 launches, 0 torch ops) and .opt. (0 launches, 0 torch ops): 1 shared inputs, 4 values, 1 output pairs, 0 findings" err &&
	dmerge ref.trace opt.trace >x.obl 2>err </dev/null &&
	test ! -s err
'

SHIM="$ROOT/${DIRIGO_BIN:-bin}/../lib/libdirigo-cudart.so"
if ! command -v ldd >/dev/null 2>&1; then
	test_skip 'the recording runtime links no Z3 (ldd not found)'
else
	test_expect_success 'the recording runtime links no Z3, only msgpack and zstd' '
		ldd "$SHIM" >libs &&
		grep libmsgpack libs &&
		! grep -i -e z3 -e jansson -e archive libs
	'
fi

test_done
