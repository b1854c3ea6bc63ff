#!/bin/sh
# The formats as a contract: every section-5 page's EXAMPLE is a stream a
# user can type in.  Each block of the EXAMPLE(S) section that starts with
# a header record (excerpts, with "...", are not streams) is turned into a
# stream by dcat -r and fed to the stage that reads it.

. "$(dirname "$0")/test-lib.sh"

MAN5=$ROOT/man/man5

# examples PAGE PREFIX: writes each complete example of PAGE as JSON Lines
# into PREFIX.1.jsonl, PREFIX.2.jsonl, ... (a line that starts with a blank
# continues the record before it); prints how many
examples() {
	awk -v prefix="$2" '
	/^\.SH EXAMPLE/ { sect = 1; next }
	/^\.SH/ { sect = 0 }
	!sect { next }
	/^\.nf/ { inblk = 1; buf = ""; next }
	/^\.fi/ {
		inblk = 0
		if (buf ~ /^\{"t":"header"/ && buf !~ /\.\.\./) {
			n++
			printf "%s", buf > (prefix "." n ".jsonl")
			close(prefix "." n ".jsonl")
		}
		next
	}
	inblk && /^\.R[SE]/ { next }
	inblk {
		line = $0
		gsub(/\\-/, "-", line); gsub(/\\e/, "\\", line)
		if (line ~ /^ /) { sub(/\n$/, "", buf); sub(/^ +/, "", line) }
		buf = buf line "\n"
	}
	END { print n + 0 }' "$1"
}

# run_examples PAGE STATUS STAGE...: every example of the page is read
# by STAGE (exit STATUS) into a stream dcat reads back
run_examples() {
	page=$1 want=$2
	shift 2
	n=$(examples "$MAN5/$page" ex) &&
	test "$n" -ge 1 &&
	i=1 &&
	while [ "$i" -le "$n" ]; do
		dcat -r ex.$i.jsonl >ex.$i.bin &&
		test_status "$want" "$@" ex.$i.bin >ex.$i.out &&
		dcat ex.$i.out >ex.$i.json || return 1
		i=$((i + 1))
	done
}

test_expect_success 'dirigo-trace(5): the traces of EXAMPLES merge' '
	run_examples dirigo-trace.5 0 dmerge &&
	grep "\"t\":\"obligation\"" ex.1.json
'

test_expect_success 'dirigo-obligation(5): dexec reads the EXAMPLE' '
	run_examples dirigo-obligation.5 0 dexec &&
	grep "\"stream\":\"symbolic\"" ex.1.json
'

test_expect_success 'dirigo-obligation(5): the EXAMPLE is what dmerge makes of the traces' '
	examples "$MAN5/dirigo-trace.5" tr >/dev/null &&
	dcat -r tr.1.jsonl | dmerge >merged &&
	dcat merged >merged.json &&
	examples "$MAN5/dirigo-obligation.5" ob >/dev/null &&
	dcat -r ob.1.jsonl | dcat >ob.json &&
	test_cmp ob.json merged.json
'

test_expect_success 'dirigo-symbolic(5): dcheck reads the EXAMPLE and finds the bug' '
	run_examples dirigo-symbolic.5 1 dcheck &&
	grep "\"t\":\"verdict\",\"result\":\"buggy\"" ex.1.json
'

test_expect_success 'dirigo-verdict(5): dreplay reads the EXAMPLE and confirms the witness' '
	run_examples dirigo-verdict.5 1 dreplay &&
	grep "\"t\":\"replay\".*\"confirmed\":true" ex.1.json
'

test_expect_success 'dirigo-replay(5): the EXAMPLE reads back, and dreplay reruns on it' '
	run_examples dirigo-replay.5 1 dreplay &&
	test $(grep -c "\"t\":\"replay\"" ex.1.json) = 1
'

test_expect_success 'a broken example is caught: a value out of order' '
	examples "$MAN5/dirigo-obligation.5" bad >/dev/null &&
	sed "s/\"value\":2,/\"value\":7,/" bad.1.jsonl | dcat -r >bad.obl &&
	test_must_fail --status=2 dexec bad.obl >/dev/null 2>err &&
	grep "value 7 out of order" err
'

test_done
