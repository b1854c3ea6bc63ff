#!/bin/sh
# The extension builder (dtrace-cuda/python/dirigo_trace/ext.py, nvbuild.py,
# hostpch.py, extcache.py) on small extensions without torch's headers
# (tests/t/programs/ext): where the cache lives, nvcc's phases run at once
# with the host code at -O0 and the PTX nvcc gives, cache hits, concurrent
# builders, keys that do not depend on the checkout, the precompiled
# header of a header prefix, a source that names its own module, a
# source that does not compile, and one that calls cuBLAS.
#
# Skipped without a python3 that imports torch, without nvcc, or without
# torch's C++ headers and pybind11.  Each test run builds into its own
# cache (a minute or two on 2 cores).

. "$(dirname "$0")/test-lib.sh"

EXT=$ROOT/tests/t/programs/ext
PY=$("$ROOT/dtrace-cuda/python/dirigo-python") || SKIP_ALL="no python3 that imports torch"
command -v jq >/dev/null || SKIP_ALL="jq not found"
have_nvcc || SKIP_ALL="nvcc not found"
if [ -z "${SKIP_ALL:-}" ]; then
	"$PY" - 2>/dev/null <<-\EOF || SKIP_ALL="no torch C++ headers or pybind11 (install libtorch-dev pybind11-dev)"
	import os, sys, sysconfig
	import torch.utils.cpp_extension as c
	inc = c.include_paths() + [sysconfig.get_paths()["include"], "/usr/include"]
	need = ["torch/extension.h", "pybind11/pybind11.h", "Python.h"]
	sys.exit(0 if all(any(os.path.exists(os.path.join(d, n)) for d in inc) for n in need) else 1)
	EOF
fi
if [ -n "${SKIP_ALL:-}" ]; then
	test_skip "$SKIP_ALL"
	test_done
	exit
fi

export DIRIGO_EXT_CACHE="$TRASH/cache" PYTHONPATH="$ROOT/dtrace-cuda/python" DIRIGO_PYTHONPATH="$ROOT/dtrace-cuda/python"
unset DIRIGO_EXT_PCH DIRIGO_EXT_PHASES

# build SRC: builds and imports SRC; prints the .so and what ones(2) gives.
build() {
	"$PY" -c 'import sys; from dirigo_trace import ext
m = ext.load_cu(sys.argv[1]); print(m.__file__, m.ones(2))' "$1"
}
# entry SRC: the cache folder of SRC's build (after build).
entry() { dirname "$(cut -d' ' -f1 "$1")"; }

for s in 2 3 4 5; do
	sed "s/^#define SCALE 2.0f/#define SCALE $s.0f/" "$EXT/twice.cu" >scale$s.cu
done

ROOTPY='from dirigo_trace import extcache; print(extcache.root())'
test_expect_success 'the cache: $DIRIGO_EXT_CACHE, else $XDG_CACHE_HOME/dirigo/ext, else ~/.cache/dirigo/ext' '
	test "$(DIRIGO_EXT_CACHE=$TRASH/c "$PY" -c "$ROOTPY")" = "$TRASH/c" &&
	test "$(env -u DIRIGO_EXT_CACHE XDG_CACHE_HOME=$TRASH/xdg "$PY" -c "$ROOTPY")" = "$TRASH/xdg/dirigo/ext" &&
	test "$(env -u DIRIGO_EXT_CACHE -u XDG_CACHE_HOME HOME=$TRASH/home "$PY" -c "$ROOTPY")" = "$TRASH/home/.cache/dirigo/ext" &&
	test -d "$TRASH/home/.cache/dirigo/ext"
'

test_expect_success 'a build: cudafe++ and cicc at once, host code at -O0, the device chain as nvcc has it' '
	build scale2.cu >a.out 2>a.err &&
	grep -q "building extension" a.err &&
	grep -q "\[1, 1\]$" a.out &&
	d=$(entry a.out) &&
	jq -e "[.phases[] | {(.name): .}] | add | .cicc.start < .\"host front end\".end and .\"host front end\".start < .cicc.end" "$d/timing.json" &&
	jq -e "[.phases[] | .status == 0] | all" "$d/timing.json" &&
	head -n 1 "$d/phase-host-compile.log" | grep -q " -O0 " &&
	! head -n 1 "$d/phase-host-compile.log" | grep -q -- " -O3" &&
	head -n 1 "$d/phase-device-preprocess.log" | grep -q -- " -O3 " &&
	! grep -q -- "--gen_module_id_file" "$d/phase-host-front-end.log" &&
	test "$(cat "$d/scale2.module_id")" = _dirigo_ext_tu0
'

# ptx_norm FILE: the PTX with the module id taken out of the names that
# carry it (a mangled name part <len>_INTERNAL... or <len>_GLOBAL__N_...).
ptx_norm() {
	"$PY" - "$1" <<-\EOF
	import re, sys
	t = open(sys.argv[1]).read()
	pat = re.compile(r"(\d+)(_INTERNAL|_GLOBAL__N_)")
	out, i = [], 0
	while True:
	    m = pat.search(t, i)
	    if not m:
	        break
	    out.append(t[i:m.start()] + "ID")
	    i = m.start(2) + int(m.group(1))
	print("".join(out) + t[i:], end="")
	EOF
}

test_expect_success 'its PTX is the one nvcc itself gives, but for the module id' '
	d=$(entry a.out) &&
	mkdir plain && cp "$d/scale2.cu" plain/ &&
	(cd plain && "$PY" -c "import json, subprocess, sys; sys.exit(subprocess.call([\"nvcc\"] + json.load(open(sys.argv[1]))))" "$d/scale2.nvcc.json") &&
	test -s plain/scale2.ptx &&
	grep -q _INTERNAL "$d/scale2.ptx" &&
	ptx_norm "$d/scale2.ptx" >ours &&
	ptx_norm plain/scale2.ptx >theirs &&
	test_cmp theirs ours
'

test_expect_success 'the same source again: a cache hit, no build' '
	build scale2.cu >b.out 2>b.err &&
	! grep -q "building extension" b.err &&
	test_cmp a.out b.out
'

test_expect_success 'two builders of one source at once: one builds, the other waits for it' '
	build scale3.cu >c1.out 2>c1.err &
	build scale3.cu >c2.out 2>c2.err &
	wait &&
	test_cmp c1.out c2.out &&
	test "$(cat c1.err c2.err | grep -c "building extension")" = 1
'

test_expect_success 'a checkout elsewhere finds the same builds (keys hash contents, not paths)' '
	mkdir -p other && cp -R "$ROOT/dtrace-cuda/python" other/ &&
	PYTHONPATH=$TRASH/other/python build scale2.cu >d.out 2>d.err &&
	! grep -q "building extension" d.err &&
	test_cmp a.out d.out
'

pch_note() { jq -r ".phases[] | select(.name == \"host pch\") | .note" "$(entry "$1")/timing.json"; }
test_expect_success 'a header prefix: the first build marks it, the next precompiles it, later ones use it' '
	test "$(pch_note a.out)" = "first seen" &&
	test "$(pch_note c1.out)" = made &&
	build scale4.cu >e.out 2>e.err &&
	test "$(pch_note e.out)" = used &&
	grep -q "\[1, 1\]$" e.out &&
	grep -q "^#include \".*/pch-[0-9a-f]*/prefix.h\"" "$(entry e.out)/scale4.cudafe1.pch.cpp"
'

test_expect_success 'a program in another folder uses the same precompiled header' '
	mkdir -p elsewhere && sed "s/^#define SCALE 2.0f/#define SCALE 6.0f/" "$EXT/twice.cu" >elsewhere/scale6.cu &&
	build elsewhere/scale6.cu >g.out 2>g.err &&
	test "$(pch_note g.out)" = used &&
	grep -q "\[1, 1\]$" g.out
'

test_expect_success 'not where a file of the program has the name of a header it read' '
	mkdir -p shadow && : >shadow/driver_types.h &&
	sed "s/^#define SCALE 2.0f/#define SCALE 7.0f/" "$EXT/twice.cu" >shadow/scale7.cu &&
	build shadow/scale7.cu >h.out 2>h.err &&
	test "$(pch_note h.out)" = shadowed &&
	grep -q "shadow/driver_types.h has the name of a header the prefix read" "$(entry h.out)/phase-host-pch.log"
'

test_expect_success 'with the precompiled header, the object defines what it defines without' '
	DIRIGO_EXT_PCH=0 DIRIGO_EXT_CACHE=$TRASH/nopch build scale4.cu >f.out 2>f.err &&
	test "$(pch_note f.out)" = off &&
	nm -g --defined-only "$(entry e.out)/scale4.o" | cut -c18- >with &&
	nm -g --defined-only "$(entry f.out)/scale4.o" | cut -c18- >without &&
	test_cmp without with
'

# level-3 25_ShuffleNetUnit names its module itself: PYBIND11_MODULE(
# ShuffleNetUnit, m); built as it is, Python finds no PyInit_ for the
# build's name
test_expect_success 'a source that names its own module: built under the build name, and imports' '
	sed "s/^PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)/PYBIND11_MODULE(TwiceOwnName, m)/" "$EXT/twice.cu" >named.cu &&
	grep -q "^PYBIND11_MODULE(TwiceOwnName, m)" named.cu &&
	build named.cu >n.out 2>n.err &&
	grep -q "\[1, 1\]$" n.out
'
test_expect_success 'a source that does not compile: its error line, status 2' '
	cp "$EXT/broken.cu" . &&
	test_must_fail --status=2 dtrace-cuda --kernelbench --build-only "$ROOT/tests/kernelbench/scale-bias-relu/ref.py" broken.cu 2>err &&
	grep -q "broken.cu.*undeclared_name" err &&
	grep -q "cannot build" err
'

test_expect_success 'traced without building ahead: the optimized side builds it, the same error, status 2, no whole trace' '
	test_must_fail --status=2 dtrace-cuda --kernelbench "$ROOT/tests/kernelbench/scale-bias-relu/ref.py" broken.cu >out 2>err &&
	grep -q "broken.cu.*undeclared_name" err &&
	test_must_fail dmerge <out >/dev/null 2>merr &&
	grep -q dtrace-cuda merr
'

# level-1 2_, 7_ and 8_ call cublasSgemm, which only the record-only
# runtime provides: the build imports the extension binding lazily
test_expect_success 'an extension that calls cuBLAS: --build-only imports it (names bound lazily)' '
	cp "$EXT/gemm.cu" . &&
	test_must_fail "$PY" -c "import sys; from dirigo_trace import ext; ext.load_cu(sys.argv[1])" \
		gemm.cu 2>now.err &&
	grep -q "undefined symbol: cublas" now.err &&
	dtrace-cuda --kernelbench --build-only "$ROOT/tests/kernelbench/scale-bias-relu/ref.py" gemm.cu 2>err
'

test_done
