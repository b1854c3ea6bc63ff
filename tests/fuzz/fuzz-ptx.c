/*
 * fuzz-ptx.c: the PTX lexer and parser (libcommon/ptx) on the input as
 * PTX text, then the kernel lookup every stage does on a module.
 */
#include "fuzz.h"

#include <string.h>

#include "libcommon/ptx/ptx.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	fz_init("fuzz-ptx");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a;
	arena_init(&a);
	char err[256];
	char *text = arena_alloc(&a, size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	if (setjmp(fz_jmp) == 0) {
		struct ptx_module *m = ptx_parse(&a, text, size, err, sizeof err);
		for (unsigned i = 0; m && i < m->nfuncs; i++)
			(void)ptx_find_func(m, m->funcs[i].name);
	}
	arena_release(&a);
	return 0;
}
