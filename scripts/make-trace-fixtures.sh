#!/bin/sh
# make-trace-fixtures.sh: regenerate the committed traces of the
# KernelBench test pairs (run by `make fixtures`, after `make all`).
#
#
#   scripts/make-trace-fixtures.sh [tests/kernelbench/NAME/trace...]
#
# A pair tests/kernelbench/NAME that has a folder trace/ keeps there the
# two traces `dtrace-cuda --kernelbench` writes for ref.py and opt.cu
# (ref.trace, opt.trace); a folder trace-STEM/ those for ref.py and
# STEM.cu, or STEM.py (a twin: trace-opt-bug/ for opt-bug.cu).  Beside
# them: `sources`, the sha256sum of the two files they were made from, and
# `torch`, the torch version that traced them.  tests/t/6400 runs its
# engine checks on these traces instead of building every extension again
# (a build is about a minute of CPU), and tests/t/6200 takes its twins
# from them; 6400 fails when a `sources` no longer matches, and traces one
# pair itself to see that the committed traces are what the tracer writes
# today (but for host addresses).  A trace depends only on the sources,
# torch and nvcc (no paths, seeded draws).  Every folder is made again,
# or only those named.
# Needs what tests/t/6400 needs: python3 with torch, nvcc, torch's headers.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kb=$top/tests/kernelbench
export PATH="$top/bin:$PATH" DIRIGO_PYTHONPATH="$top/dtrace-cuda/python"
py=$("$top/dtrace-cuda/python/dirigo-python") || { echo "make-trace-fixtures.sh: no python3 that imports torch" >&2; exit 2; }
torch=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)

[ $# -gt 0 ] || set -- "$kb"/*/trace "$kb"/*/trace-*
for d in "$@"; do
	[ -d "$d" ] || continue
	d=$(cd "$d" && pwd)
	pair=$(dirname "$d")
	name=$(basename "$pair")/$(basename "$d")
	stem=opt
	case $(basename "$d") in trace-*) stem=${d##*/trace-} ;; esac
	opt=$stem.cu
	[ -f "$pair/$opt" ] || opt=$stem.py
	tmp=$d.tmp
	rm -rf "$tmp"
	if ! dtrace-cuda --kernelbench -o "$tmp" "$pair/ref.py" "$pair/$opt" 2>"$d.err"; then
		cat "$d.err" >&2
		rm -rf "$tmp" "$d.err"
		echo "make-trace-fixtures.sh: tests/kernelbench/$name: tracing failed" >&2
		exit 2
	fi
	mv "$tmp/ref.trace" "$tmp/opt.trace" "$d/"
	(cd "$pair" && sha256sum ref.py "$opt") >"$d/sources"
	echo "$torch" >"$d/torch"
	rm -rf "$tmp" "$d.err"
	echo "  TRACE   tests/kernelbench/$name"
done
