#!/bin/sh
# make install puts the tools, the runtime shim and the man pages under
# DESTDIR/PREFIX, and the installed dtrace-cuda finds its shim.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'make install DESTDIR=... PREFIX=/usr' '
	make -s -C "$ROOT" install DESTDIR="$TRASH/dest" PREFIX=/usr >/dev/null &&
	for t in dcat dtrace-cuda dmerge dexec dcheck dreplay; do
		test -x "dest/usr/bin/$t" || exit 1
	done &&
	test -f dest/usr/lib/dirigo/libdirigo-cudart.so &&
	test -f dest/usr/lib/dirigo/python/dirigo_trace/recorder.py &&
	test -x dest/usr/lib/dirigo/python/dirigo-python &&
	test -f dest/usr/share/man/man7/dirigo.7 &&
	test -f dest/usr/share/man/man5/dirigo-obligation.5 &&
	test -f dest/usr/share/man/man1/dmerge.1
'

test_expect_success 'every tool has a man page, every man page renders' '
	for t in dcat dtrace-cuda dmerge dexec dcheck dreplay; do
		test -f "dest/usr/share/man/man1/$t.1" || { echo "no man page for $t"; exit 1; }
	done &&
	for k in trace obligation symbolic verdict replay; do
		test -f "dest/usr/share/man/man5/dirigo-$k.5" || { echo "no man page for $k"; exit 1; }
	done &&
	for m in dest/usr/share/man/man*/*; do
		MANWIDTH=80 man -l "$m" >/dev/null 2>err.man || { cat err.man; exit 1; }
	done
'

test_expect_success 'the installed dtrace-cuda finds the installed shim' '
	have_nvcc || exit 0
	build_cuda "$ROOT/tests/t/programs/vadd.cu" vadd &&
	dest/usr/bin/dtrace-cuda --no-gpu -o t.trace -- ./vadd 2>err &&
	dcat t.trace | grep -q "\"t\":\"launch\""
'

test_done
