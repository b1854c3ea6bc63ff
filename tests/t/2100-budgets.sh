#!/bin/sh
# 2100-budgets.sh: every stage ends within its budget and says "timeout":
# dexec on a kernel whose loop never ends for half of its threads, dcheck
# and dreplay with budgets too short for their work; a timed-out stream is
# complete and valid for the stages after it; solver limits are resource
# limits, so the same input gives the same output.

. "$(dirname "$0")/test-lib.sh"

FIX=$ROOT/tests/fixtures
D=$ROOT/tests/t/data
command -v jq >/dev/null 2>&1 || SKIP_ALL="jq is not installed"

le32() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 24 & 255)))" | base64 -w0
}

# mkobl PTX KERNEL GRIDX BLOCKX N BYTES [LAUNCHES]: an obligation with
# LAUNCHES (default 1) launches in a row of a kernel (a, b, c, n) over
# three buffers of BYTES, each launch making a new version of each; its
# output pair is the last c against a buffer of the second program that
# nothing writes.
mkobl() {
	ptx=$(base64 -w0 <"$1")
	z='{"$bin":"AAAAAAAAAAA="}'
	nl=${7:-1}
	{
	echo '{"t":"header","format":"dirigo","version":1,"stream":"obligation"}'
	echo '{"t":"obligation","programs":["ref","opt"]}'
	for b in 0 1 2; do
		echo "{\"t\":\"value\",\"value\":$((b * (nl + 1))),\"prog\":0,\"buf\":$b,\"version\":0,\"bytes\":$6,\"def\":\"uninit\"}"
		l=0
		while [ $l -lt $nl ]; do
			v=$((b * (nl + 1) + l + 1))
			echo "{\"t\":\"value\",\"value\":$v,\"prog\":0,\"buf\":$b,\"version\":$((l + 1)),\"bytes\":$6,\"def\":\"launch\",\"prev\":$((v - 1)),\"launch\":$l}"
			l=$((l + 1))
		done
	done
	echo "{\"t\":\"module\",\"module\":0,\"prog\":0,\"ptx\":{\"\$bin\":\"$ptx\"}}"
	l=0
	while [ $l -lt $nl ]; do
		args=""
		for b in 0 1 2; do
			v=$((b * (nl + 1) + l))
			args="$args{\"param\":\"$(echo abc | cut -c$((b + 1)))\",\"size\":8,\"raw\":$z,\"in\":$v,\"out\":$((v + 1)),\"off\":0},"
		done
		echo "{\"t\":\"launch\",\"launch\":$l,\"prog\":0,\"seq\":$l,\"module\":0,\"kernel\":\"$2\",\"grid\":[$3,1,1],\"block\":[$4,1,1],\"shmem\":0,\"args\":[$args{\"param\":\"n\",\"size\":4,\"raw\":{\"\$bin\":\"$(le32 "$5")\"}}]}"
		l=$((l + 1))
	done
	c=$((3 * (nl + 1) - 1))
	echo "{\"t\":\"value\",\"value\":$((c + 1)),\"prog\":1,\"buf\":0,\"version\":0,\"bytes\":$6,\"def\":\"uninit\"}"
	echo "{\"t\":\"output\",\"output\":0,\"bytes\":$6,\"name\":\"c\",\"values\":[$c,$((c + 1))],\"offs\":[0,0]}"
	echo '{"t":"end"}'
	} | dcat -r
}

now() { date +%s.%N; }
# within T0 LIMIT: fewer than LIMIT seconds since T0
within() { awk -v t0="$1" -v t1="$(now)" -v lim="$2" 'BEGIN { d = t1 - t0; print "elapsed " d " s"; exit !(d < lim) }'; }

SPIN=_Z4spinPKfS0_Pfi

test_expect_success 'dexec: a loop that never ends stops at the budget with a timeout record' '
	mkobl "$FIX/spin.ptx" $SPIN 2 64 1001 512 2 >spin.obl &&
	t0=$(now) &&
	test_must_fail --status=3 dexec --budget 2 spin.obl >spin.sym 2>err &&
	within $t0 4 &&
	dcat spin.sym >spin.jsonl &&
	jq -c "select(.t == \"timeout\")" spin.jsonl >to.jsonl &&
	test $(wc -l <to.jsonl) = 2 &&
	head -n 1 to.jsonl | jq -e ".launch == 0 and .kernel == \"$SPIN\" and .line > 0 and .doing == \"executing\"" &&
	head -n 1 to.jsonl | jq -r .message | grep "the budget ran out while executing .* at PTX line [0-9]* (spin.cu:[0-9]*), after [0-9]* steps" &&
	tail -n 1 to.jsonl | jq -e ".launch == 1 and .doing == \"not started\"" &&
	test "$(jq -r "select(.t == \"writes\" or .t == \"unsupported\") | .t" spin.jsonl)" = "" &&
	grep "dexec: timeout: launch 0: kernel .$SPIN.: the budget ran out" err &&
	grep "dexec: timeout: 1 launch not started" err
'


test_expect_success 'dexec: a budget of 0 starts no launch' '
	mkobl "$FIX/vec_add.ptx" _Z7vec_addPKfS0_Pfi 4 256 1000 4000 >add.obl &&
	test_must_fail --status=3 dexec --budget 0 add.obl >add0.sym 2>err &&
	dcat add0.sym | jq -s -e "map(select(.t == \"timeout\")) | length == 1 and .[0].doing == \"not started\"" &&
	grep "1 launch not started: the budget of 0 s was spent" err
'

test_expect_success 'dexec: the output depends on the input and the resource limit, not the clock' '
	dexec add.obl >add1.sym &&
	dexec --budget 1000 --smt-timeout 600000 add.obl >add2.sym &&
	cmp add1.sym add2.sym &&
	dexec --budget 5 --smt-rlimit 1 add.obl >add3.sym &&
	dexec --budget 500 --smt-rlimit 1 add.obl >add4.sym &&
	cmp add3.sym add4.sym
'

test_expect_success 'dexec: bad budgets are trouble' '
	test_must_fail --status=2 dexec --budget -1 add.obl 2>err &&
	grep "option .--budget.: bad number .-1." err &&
	test_must_fail --status=2 dexec --budget x add.obl 2>err &&
	test_must_fail --status=2 dexec --smt-rlimit z add.obl 2>err &&
	grep "option .--smt-rlimit.: bad number .z." err
'

sym() { cat "$D/check-base.jsonl" "$D/check-opt-$1.jsonl" | dcat -r >"$1.sym"; }

# big: the pair of check-base.jsonl with 1M-element buffers: both
# programs add a and b elementwise, the opt's write set a copy of the
# ref's over its own values (too many locations to check in a second).
big() {
	n=4194304
	cat "$D/check-base.jsonl" "$D/check-opt-equal.jsonl" |
	jq -c --argjson n $n "select(.t != \"end\" and (.t != \"writes\" or .launch == 0)) |
	if .t == \"input\" or .t == \"value\" or .t == \"output\" then
		.bytes = \$n | (if .len then .len = \$n else . end)
	elif .t == \"launch\" then .grid = [131072, 1, 1] | .block = [8, 1, 1] else . end" >big.jsonl &&
	jq -c "select(.t == \"writes\") | .launch = 1 | .prog = 1 | .kernel = \"add_opt\" |
		.exprs |= map(if .[0] == \"load\" then .[2] += 4 else . end) | .writes[0].value = 7" \
		"$D/check-base.jsonl" >>big.jsonl &&
	echo "{\"t\":\"end\"}" >>big.jsonl &&
	dcat -r big.jsonl >big.sym
}

test_expect_success 'a launch dexec did not finish: its locations and the verdict are timeout' '
	sym equal &&
	dcat equal.sym | jq -c "select((.t != \"writes\" or .launch != 1) and .t != \"end\")" >to.jsonl &&
	echo "{\"t\":\"timeout\",\"prog\":1,\"launch\":1,\"kernel\":\"add_opt\",\"line\":9,\"doing\":\"executing\",\"message\":\"kernel add_opt: the budget ran out\"}" >>to.jsonl &&
	echo "{\"t\":\"end\"}" >>to.jsonl &&
	dcat -r to.jsonl >to.sym &&
	test_status 3 dcheck --max-locations 4 to.sym >to.ver 2>err &&
	dcat to.ver >tov.jsonl &&
	jq -s -e "map(select(.t == \"location\")) | length == 4 and all(.result == \"timeout\")" tov.jsonl &&
	jq -r "select(.t == \"location\") | .detail" tov.jsonl | head -n 1 |
		grep -a "opt: timeout: launch 1 (add_opt) was not finished: dexec ran out of time (executing)" &&
	jq -s -e "map(select(.t == \"verdict\"))[0] | .result == \"timeout\" and .timeout == 4" tov.jsonl &&
	grep "dcheck: timeout: launch 1 (add_opt) was not finished" err
'

test_expect_success 'a timeout record with a bad launch is trouble' '
	sed "s/\"launch\":1,\"kernel\":\"add_opt\",\"line\"/\"launch\":0,\"kernel\":\"add_opt\",\"line\"/" to.jsonl >bad.jsonl &&
	dcat -r bad.jsonl >bad.sym &&
	test_must_fail --status=2 dcheck bad.sym 2>err &&
	grep "launch 0 is not a launch of program 1" err
'

test_expect_success 'dcheck: the budget bounds the run, the verdict says timeout' '
	big &&
	t0=$(now) &&
	test_status 3 dcheck --budget 1 --min-locations 1000000 --order sequential big.sym >eq.ver 2>err &&
	within $t0 3.5 &&
	dcat eq.ver | jq -s -e "map(select(.t == \"verdict\"))[0] | .result == \"timeout\" and .stopped == \"budget\"" &&
	grep "dcheck: timeout: " err
'

test_expect_success 'dcheck: a location timed out is "timeout", never "unknown"' '
	test_status 3 dcheck --budget 0 equal.sym >eq0.ver 2>err &&
	dcat eq0.ver | jq -s -e "map(select(.t == \"verdict\"))[0] | .result == \"timeout\" and .unknown == 0"
'

test_expect_success 'dreplay: witnesses not replayed within the budget are timeout, exit 3' '
	sym differ &&
	{ dcheck differ.sym >differ.ver; test $? = 1; } &&
	test_status 3 dreplay --budget 0 differ.ver >differ.rep 2>err &&
	dcat differ.rep >rep.jsonl &&
	jq -s -e "map(select(.t == \"replay\")) | length == 1 and all(.timeout == true and .confirmed == false)" rep.jsonl &&
	jq -s -e "map(select(.t == \"report\"))[0].result == \"timeout\"" rep.jsonl &&
	grep "dreplay: timeout: 1 of 1 witnesses not replayed within the budget of 0 s" err &&
	test_status 1 dreplay --budget 60 differ.ver >differ2.rep 2>/dev/null
'

test_expect_success 'dreplay: a bad budget is trouble' '
	test_must_fail --status=2 dreplay --budget -3 differ.ver 2>err &&
	grep "option .--budget.: bad number" err
'

test_expect_success 'dreplay: a timeout verdict whose timeout count is not the stream'"'"'s: exit 2, named' '
	sed "/\"t\":\"verdict\"/s/\"timeout\":4/\"timeout\":3/" tov.jsonl | dcat -r >badto.ver &&
	test_must_fail --status=2 dreplay badto.ver >out 2>err &&
	grep "badto.ver: record [0-9]* (verdict): field .timeout. says 3, the stream holds 4" err
'

test_expect_success 'dreplay: a timeout verdict with a bug already shown: exit 2' '
	dcat differ.ver | sed "/\"t\":\"verdict\"/s/\"result\":\"buggy\"/\"result\":\"timeout\"/" |
		dcat -r >badbug.ver &&
	test_must_fail --status=2 dreplay badbug.ver >out 2>err &&
	grep "badbug.ver: record [0-9]* (verdict): timeout with a bug already shown" err
'

test_done
