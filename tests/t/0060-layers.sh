#!/bin/sh
# The layers of the source tree (scripts/check-layers.sh): libcommon <
# formats < engine < the tools, each including only those below it, every
# include of a layer's header written with its folder.  The tree passes,
# and a small tree with one fault planted at a time fails, naming it.
. "$(dirname "$0")/test-lib.sh"

CHECK="$ROOT/scripts/check-layers.sh"

test_expect_success 'the source tree keeps its layers' '
	"$CHECK" "$ROOT" >out 2>&1 || { cat out; exit 1; }
	test ! -s out
'

# a clean little tree: one header per layer, each including the one below
plant() {
	rm -rf tree && mkdir -p tree/libcommon/ptx tree/formats tree/engine tree/tool &&
	printf '#include <stdint.h>\n' >tree/libcommon/a.h &&
	printf '#include "libcommon/a.h"\n' >tree/libcommon/ptx/p.h &&
	printf '#include "libcommon/ptx/p.h"\n' >tree/formats/f.h &&
	printf '#include "formats/f.h"\n#include "libcommon/a.h"\n' >tree/engine/e.h &&
	printf '#include "engine/e.h"\n#include "t.h"\n' >tree/tool/main.c &&
	printf '#include "formats/f.h"\n' >tree/tool/t.h &&
	printf 'CFLAGS = -I.\n' >tree/GNUmakefile
}

test_expect_success 'a clean tree passes' '
	plant &&
	"$CHECK" tree >out 2>&1 || { cat out; exit 1; }
	test ! -s out
'

test_expect_success 'a lower layer including a higher one fails' '
	plant &&
	printf "#include \"engine/e.h\"\n" >>tree/formats/f.h &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "^formats/f.h:2: includes \"engine/e.h\": formats includes engine" out &&
	plant &&
	printf "#include \"formats/f.h\"\n" >tree/libcommon/ptx/q.c &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "^libcommon/ptx/q.c:1: .*libcommon includes formats" out
'

test_expect_success 'a layer including a tool fails' '
	plant &&
	printf "#include \"../tool/t.h\"\n" >tree/engine/bad.c &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "^engine/bad.c:1: .*engine includes the tools" out
'

test_expect_success 'a flat include that bypasses the folder fails' '
	plant &&
	printf "#include \"a.h\"\n" >tree/tool/flat.c &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "^tool/flat.c:1: includes \"a.h\" by a flat include path: write \"libcommon/a.h\"" out &&
	plant &&
	printf "#include \"ptx/p.h\"\n" >tree/formats/flat.c &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "write \"libcommon/ptx/p.h\"" out
'

test_expect_success 'an include relative to the file, not the root, fails' '
	plant &&
	printf "#include \"a.h\"\n" >tree/libcommon/b.c &&
	printf "#include \"../libcommon/a.h\"\n" >tree/tool/rel.c &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "^libcommon/b.c:1: includes \"a.h\": write it with its folder, \"libcommon/a.h\"" out &&
	grep -q "^tool/rel.c:1: .*\"libcommon/a.h\"" out
'

test_expect_success 'a flat -I path into a layer fails' '
	plant &&
	printf "CFLAGS = -I. -Ilibcommon\n" >tree/GNUmakefile &&
	test_must_fail --status=1 "$CHECK" tree >out &&
	grep -q "^GNUmakefile:1: a flat include path" out
'

test_expect_success 'a folder that is no source tree is refused' '
	mkdir -p empty &&
	test_must_fail --status=2 "$CHECK" empty 2>err &&
	grep -q "has no libcommon/" err
'

test_done
