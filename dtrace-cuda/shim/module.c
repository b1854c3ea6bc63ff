/*
 * module.c: registration of device code by the host stubs nvcc generates
 * (__cudaRegisterFatBinary, __cudaRegisterFunction, __cudaRegisterVar, ...)
 * and the "module" records: a module's PTX is looked up and recorded the
 * first time one of its kernels or variables is used.
 *
 * In forward mode every registration is also handed to the real runtime,
 * whose handles the program keeps (so the real launch works); the modules
 * are still kept here to find the PTX.  Registrations by torch's own
 * libraries (shim_enter) are only handed on.
 */
#include "shim.h"

#include <stdlib.h>
#include <string.h>

#include "libcommon/diag.h"

/* Prototypes of crt/host_runtime.h, which is C++ only. */
SHIM_EXPORT void **__cudaRegisterFatBinary(void *fatCubin);
SHIM_EXPORT void __cudaRegisterFatBinaryEnd(void **handle);
SHIM_EXPORT void __cudaUnregisterFatBinary(void **handle);
SHIM_EXPORT char __cudaInitModule(void **handle);
SHIM_EXPORT void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                                        const char *deviceName, int thread_limit, uint3 *tid,
                                        uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
SHIM_EXPORT void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                                   const char *deviceName, int ext, size_t size,
                                   int constant, int global);
SHIM_EXPORT void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
                                          char *deviceAddress, const char *deviceName,
                                          int ext, size_t size, int constant, int global);

/* The module registered under handle, or NULL (a registration that was
 * only handed on).  The newest first: functions follow their module. */
static struct shim_module *module_of(void **handle)
{
	for (size_t i = shim.mods.len; i-- > 0;)
		if (shim.mods.items[i]->handle == handle)
			return shim.mods.items[i];
	return NULL;
}

/* The handle given to the stubs is the module itself (record mode) or the
 * real runtime's. */
void **__cudaRegisterFatBinary(void *fatCubin)
{
	SHIM_ENTER();
	void **real = NULL;
	if (shim_forward()) {
		real = REAL(__cudaRegisterFatBinary)(fatCubin);
		if (shim_quiet)
			return real;
	}
	shim_lock();
	struct shim_module *m = xcalloc(1, sizeof *m);
	m->fatbin = fatbin_unwrap(fatCubin);
	m->handle = real ? real : (void **)m;
	arena_init(&m->arena);
	VEC_PUSH(shim.mods, m);
	shim_unlock();
	return m->handle;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
	if (shim_forward())
		REAL(__cudaRegisterFatBinaryEnd)(handle);
}

char __cudaInitModule(void **handle)
{
	if (shim_forward())
		return REAL(__cudaInitModule)(handle);
	return 1;
}

/* Modules stay known until the process ends: kernels may still be named
 * by records written later, and unregistration happens at exit. */
void __cudaUnregisterFatBinary(void **handle)
{
	if (shim_forward())
		REAL(__cudaUnregisterFatBinary)(handle);
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid,
                            uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
	if (shim_forward())
		REAL(__cudaRegisterFunction)(handle, hostFun, deviceFun, deviceName, thread_limit,
		                             tid, bid, bDim, gDim, wSize);
	shim_lock();
	struct shim_module *m = module_of(handle);
	if (m) {
		struct shim_func *f = xcalloc(1, sizeof *f);
		f->host = hostFun;
		f->kernel = shim_forward() ? NULL : f;
		f->name = xstrdup(deviceFun);
		f->mod = m;
		VEC_PUSH(shim.funcs, f);
	}
	shim_unlock();
}

/* init: the variable's first contents (size bytes), or NULL for zeros.
 * In forward mode the real runtime holds the variable (v->mem is found when
 * the module is used); NULL when the module is not kept. */
static struct shim_var *var_register(void **handle, const void *host, const char *name,
                                     size_t size, const void *init)
{
	struct shim_module *m = module_of(handle);
	if (!m)
		return NULL;
	struct shim_var *v = xcalloc(1, sizeof *v);
	v->host = host;
	v->name = xstrdup(name);
	v->size = size;
	v->mod = m;
	if (!shim_forward()) {
		v->mem = xcalloc(1, size ? size : 1);
		if (init)
			memcpy(v->mem, init, size);
	}
	VEC_PUSH(shim.vars, v);
	return v;
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global)
{
	if (shim_forward())
		REAL(__cudaRegisterVar)(handle, hostVar, deviceAddress, deviceName, ext, size,
		                        constant, global);
	shim_lock();
	/* Device memory of a variable starts as its initialiser, which the
	 * host shadow holds too. */
	var_register(handle, hostVar, deviceAddress, size, hostVar);
	shim_unlock();
}

/* A __managed__ variable: the host reaches it through *hostVarPtrAddress,
 * which is pointed at the variable's (host) memory. */
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global)
{
	if (shim_forward()) {
		REAL(__cudaRegisterManagedVar)(handle, hostVarPtrAddress, deviceAddress, deviceName,
		                               ext, size, constant, global);
		shim_lock();
		var_register(handle, hostVarPtrAddress, deviceAddress, size, NULL);
		shim_unlock();
		return;
	}
	shim_lock();
	struct shim_var *v = var_register(handle, hostVarPtrAddress, deviceAddress, size, NULL);
	if (v)
		*hostVarPtrAddress = v->mem;
	shim_unlock();
}

static void module_load(struct shim_module *m)
{
	m->loaded = true;
	if (!m->fatbin) {
		m->st = FATBIN_BAD;
		snprintf(m->err, sizeof m->err, "registered device code is not a fatbinary");
		return;
	}
	m->st = fatbin_find_ptx(m->fatbin, fatbin_size(m->fatbin), &m->arena, &m->ptx,
	                        m->err, sizeof m->err);
}

static void module_emit_vars(struct shim_module *m)
{
	for (size_t i = 0; i < shim.vars.len; i++) {
		struct shim_var *v = shim.vars.items[i];
		if (v->mod != m || v->emitted)
			continue;
		if (shim_forward()) {
			void *dev = NULL;
			cudaError_t e = REAL(cudaGetSymbolAddress)(&dev, v->host);
			if (e != cudaSuccess)
				shim_fatal("cannot find the device address of '%s': %s", v->name,
				           REAL(cudaGetErrorString)(e));
			v->mem = dev;
		}
		v->emitted = true;
		shim_buf_add((uintptr_t)v->mem, v->size, TA_SYMBOL, NULL, m->id, v->name);
	}
}

void shim_module_use(struct shim_module *m)
{
	if (m->emitted)
		return;
	if (!m->loaded)
		module_load(m);
	if (m->st == FATBIN_NO_PTX) {
		if (m->ptx.elf_arch)
			shim_fatal("kernel module has no PTX (only sm_%u code); rebuild with "
			           "-gencode arch=compute_%u,code=compute_%u (or add code=compute_%u "
			           "next to your sm_%u)", m->ptx.elf_arch, m->ptx.elf_arch,
			           m->ptx.elf_arch, m->ptx.elf_arch, m->ptx.elf_arch);
		shim_fatal("kernel module has no PTX; rebuild with -gencode arch=compute_XX,"
		           "code=compute_XX (or add code=compute_XX next to your sm_XX)");
	}
	if (m->st != FATBIN_OK)
		shim_fatal("kernel module: %s", m->err);
	m->emitted = true;
	m->id = shim.next_module++;
	struct stream_out *w = shim_out();
	if (w) {
		char hash[17];
		trace_hash_hex(m->ptx.text, m->ptx.len, hash);
		struct trace_module r = { .module = m->id, .ptx = m->ptx.text,
		                          .ptxlen = m->ptx.len, .hash = hash, .arch = m->ptx.arch };
		trace_write_module(w, &r);
		shim_flush();
	}
	module_emit_vars(m);
}

struct shim_func *shim_func_find(const void *host)
{
	for (size_t i = 0; i < shim.funcs.len; i++)
		if (shim.funcs.items[i]->host == host ||
		    (shim.funcs.items[i]->kernel && shim.funcs.items[i]->kernel == host))
			return shim.funcs.items[i];
	return NULL;
}

struct shim_var *shim_var_find(const void *host)
{
	for (size_t i = 0; i < shim.vars.len; i++)
		if (shim.vars.items[i]->host == host)
			return shim.vars.items[i];
	return NULL;
}
