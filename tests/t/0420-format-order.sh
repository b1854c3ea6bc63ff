#!/bin/sh
# The formats as a contract: the readers enforce the order of record types
# that the section-5 pages give, and name the record when a stream breaks
# the rules (dirigo(7): "a violation is exit 2, with the record named").
# The streams are the EXAMPLE of dirigo-obligation(5), broken one way each.

. "$(dirname "$0")/test-lib.sh"

# the example, one record a line (continuations joined)
awk '/^\.SH EXAMPLE/ { s = 1 } /^\.SH SEE/ { s = 0 } s && /^\.nf/ { b = 1; next }
     s && /^\.fi/ { b = 0 } b && !/^\.R[SE]/ { if ($0 ~ /^ /) { sub(/^ +/, ""); printf "%s", $0 }
     else printf "%s%s", (n++ ? "\n" : ""), $0 } END { print "" }' \
	"$ROOT/man/man5/dirigo-obligation.5" >ex.jsonl

# refused FILE.jsonl STAGE PATTERN: the stage refuses it, exit 2, with PATTERN
refused() {
	dcat -r "$1" >"$1.bin" &&
	test_must_fail --status=2 "$2" "$1.bin" >/dev/null 2>err &&
	cat err &&
	grep "$3" err
}

test_expect_success 'the example itself is read' '
	test $(wc -l <ex.jsonl) = 10 &&
	dcat -r ex.jsonl | dexec >/dev/null
'

# as STAGE reads it: the header says the kind of stream it takes
as() {
	case $1 in
	dcheck) sed "1s/\"obligation\"/\"symbolic\"/" ;;
	dreplay) sed "1s/\"obligation\"/\"verdict\"/" ;;
	*) cat ;;
	esac
}

for stage in dexec dcheck dreplay; do
	test_expect_success "$stage: an obligation record comes first, after the header" "
		awk '{ l[NR] = \$0 } END { print l[1]; print l[3]; print l[2]; for (i = 4; i <= NR; i++) print l[i] }' \
			ex.jsonl | as $stage >first.jsonl &&
		refused first.jsonl $stage 'first.jsonl.bin: record 1 (input): the input record comes before the obligation record'
	"
done

test_expect_success 'one obligation record' '
	sed -n "1,2p;2,\$p" ex.jsonl >two.jsonl &&
	refused two.jsonl dexec "two.jsonl.bin: record 2 (obligation): a second obligation record"
'

test_expect_success 'a stream without an obligation record: the end record is named' '
	sed -n "1p;\$p" ex.jsonl >none.jsonl &&
	refused none.jsonl dexec "none.jsonl.bin: record 1 (end): not an obligation stream"
'

test_expect_success 'a value defined by a launch that is not there: the value record is named' '
	sed "s/\"value\":4,\\(.*\\)\"def\":\"memset\",\"prev\":3,\"fill\":0,/\"value\":4,\\1\"def\":\"launch\",\"prev\":3,\"launch\":0,/" \
		ex.jsonl >launch.jsonl &&
	grep "\"def\":\"launch\"" launch.jsonl &&
	refused launch.jsonl dexec "launch.jsonl.bin: record 7 (value): value 4: bad launch 0"
'

test_expect_success 'a previous version from the other program: the value record is named' '
	sed "s/\"prev\":2,/\"prev\":0,/" ex.jsonl | as dcheck >prev.jsonl &&
	refused prev.jsonl dcheck "prev.jsonl.bin: record 6 (value): value 3: bad previous version 0"
'

test_expect_success 'an output of the wrong program: the output record is named' '
	sed "s/\"values\":\\[1,4\\]/\"values\":[1,0]/" ex.jsonl | as dreplay >out.jsonl &&
	refused out.jsonl dreplay "out.jsonl.bin: record 8 (output): output 0: bad value for program 1"
'

test_expect_success 'ids in order: a value out of order is named' '
	sed "s/\"value\":3,/\"value\":9,/" ex.jsonl >order.jsonl &&
	refused order.jsonl dexec "order.jsonl.bin: record 6 (value): value 9 out of order (expected 3)"
'

test_expect_success 'a verdict stream without a verdict record: the end record is named' '
	as dreplay <ex.jsonl >nover.jsonl &&
	refused nover.jsonl dreplay "nover.jsonl.bin: record 9 (end): no verdict record before the end record"
'

test_expect_success 'a trace: a launch before its module is refused, the record named' '
	awk "/^\\.SH EXAMPLES/ { s = 1 } s && /^\\.nf/ { n++ } s && n == 1 && /^\\{/ { print }" \
		"$ROOT/man/man5/dirigo-trace.5" >tr.jsonl &&
	test $(wc -l <tr.jsonl) = 11 &&
	cat >launch.line <<-\EOF &&
	{"t":"launch","launch":0,"module":0,"kernel":"k","grid":[1,1,1],"block":[1,1,1],"shmem":0,"args":[]}
	EOF
	sed "2r launch.line" tr.jsonl >early.jsonl &&
	refused early.jsonl dmerge "early.jsonl.bin: record 2 (launch): launch of .k. names module 0, which the trace does not hold"
'

test_done
