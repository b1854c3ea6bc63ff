/*
 * forward.c: the shim's forward mode (dtrace-cuda --gpu).  The mode is read
 * from $DIRIGO_CUDART_MODE ("record", the default, or "forward") on first
 * use.  In forward mode the real CUDA runtime is the libcudart.so.13 (or
 * .12) the loader finds on its usual path: dtrace-cuda does not put its
 * libcudart links first on LD_LIBRARY_PATH then, so the program's own
 * NEEDED entry loads it, and the shim, preloaded, still comes first for
 * every cuda* name.  Its functions are looked up with dlsym on its own
 * handle (REAL in shim.h), which never finds the shim's.
 * $DIRIGO_CUDART_REAL names the real runtime's file instead.
 *
 * The caller filter (shim_enter): torch's own libraries (libtorch*,
 * libc10*, libcaffe2*, and the CUDA libraries it loads: cuBLAS, cuDNN, ...)
 * call the runtime too on a GPU, for their caching allocator, their copies
 * and their kernels; those calls are torch's, not the program's, and are
 * passed through unrecorded (the paper's section 3.1, as the suppression
 * of torch.c is for torch ops).
 */
#include "shim.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_UNSET, MODE_RECORD, MODE_FORWARD };
static int mode;

bool shim_forward(void)
{
	int m = __atomic_load_n(&mode, __ATOMIC_RELAXED);
	if (m == MODE_UNSET) {
		const char *s = getenv("DIRIGO_CUDART_MODE");
		m = s && strcmp(s, "forward") == 0 ? MODE_FORWARD : MODE_RECORD;
		__atomic_store_n(&mode, m, __ATOMIC_RELAXED);
	}
	return m == MODE_FORWARD;
}

/* ---- the real runtime ------------------------------------------------------ */

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static void *real_lib;
static char real_path[400];
static char real_err[1024];

/* Whether address p lies in this library (the shim). */
static bool in_shim(const void *p)
{
	Dl_info a, b;
	return dladdr(p, &a) && dladdr((const void *)in_shim, &b) && a.dli_fbase == b.dli_fbase;
}

/* Opens name; keeps it when it is a CUDA runtime other than the shim (the
 * record mode's libcudart links name the shim). */
static bool real_try(const char *name, int flags)
{
	void *h = dlopen(name, flags);
	if (!h)
		return false;
	void *f = dlsym(h, "cudaGetDeviceCount");
	Dl_info di;
	if (!f || in_shim(f) || !dladdr(f, &di)) {
		dlclose(h);
		return false;
	}
	real_lib = h;
	snprintf(real_path, sizeof real_path, "%s", di.dli_fname);
	return true;
}

static void real_open(void)
{
	static const char *const names[] = { "libcudart.so.13", "libcudart.so.12" };
	const char *env = getenv("DIRIGO_CUDART_REAL");
	if (env && *env) {
		if (!real_try(env, RTLD_NOW | RTLD_GLOBAL)) {
			const char *e = dlerror();
			snprintf(real_err, sizeof real_err, "DIRIGO_CUDART_REAL=%.400s: %.400s", env,
			         e ? e : "not a CUDA runtime");
		}
		return;
	}
	/* the runtime the program loaded, else the newest the loader finds */
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (real_try(names[i], RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD))
			return;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (real_try(names[i], RTLD_NOW | RTLD_GLOBAL))
			return;
	snprintf(real_err, sizeof real_err,
	         "no real CUDA runtime (libcudart.so.13 or .12) on the loader's path");
}

void *shim_real_sym(const char *name)
{
	pthread_once(&real_once, real_open);
	if (!real_lib)
		shim_fatal("--gpu: %s; trace on the CPU with --no-gpu", real_err);
	void *p = dlsym(real_lib, name);
	if (!p)
		shim_fatal("--gpu: the CUDA runtime '%s' has no %s", real_path, name);
	return p;
}

/* ---- the device ------------------------------------------------------------ */

static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static char device_err[1024];

static void device_check(void)
{
	pthread_once(&real_once, real_open);
	if (!real_lib) {
		snprintf(device_err, sizeof device_err, "%s", real_err);
		return;
	}
	cudaError_t (*count)(int *) = (cudaError_t (*)(int *))dlsym(real_lib, "cudaGetDeviceCount");
	const char *(*ename)(cudaError_t) = (const char *(*)(cudaError_t))dlsym(real_lib, "cudaGetErrorName");
	const char *(*etext)(cudaError_t) = (const char *(*)(cudaError_t))dlsym(real_lib, "cudaGetErrorString");
	int n = 0;
	cudaError_t e = count(&n);
	if (e != cudaSuccess)
		snprintf(device_err, sizeof device_err,
		         "the CUDA runtime '%s' cannot use a GPU: cudaGetDeviceCount: %.100s (%.200s)",
		         real_path, ename ? ename(e) : "?", etext ? etext(e) : "?");
	else if (n == 0)
		snprintf(device_err, sizeof device_err,
		         "the CUDA runtime '%s' sees no GPU (cudaGetDeviceCount: 0)", real_path);
}

static void device_check_fatal(void)
{
	device_check();
	if (device_err[0])
		shim_fatal("--gpu: %s; trace on the CPU with --no-gpu", device_err);
}

bool shim_forward_device(void)
{
	if (!shim_forward())
		return false;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, device_check_fatal);
	return true;
}

/* Exported for dtrace-cuda, which dlopens the shim in a child process to
 * learn, before it runs anything, whether --gpu can work.  Returns 0 when
 * the real runtime loads and sees a GPU, 1 when it does not load, 2 when it
 * sees no GPU; msg (cap bytes) says why. */
SHIM_EXPORT int dirigo_trace_gpu_probe(char *msg, size_t cap);

int dirigo_trace_gpu_probe(char *msg, size_t cap)
{
	pthread_once(&device_once, device_check);
	snprintf(msg, cap, "%s", device_err[0] ? device_err : real_path);
	return !real_lib ? 1 : device_err[0] ? 2 : 0;
}

/* ---- the caller filter ------------------------------------------------------ */

/* Library file names whose calls are torch's own. */
static const char *const foreign[] = {
	"libtorch", "libc10", "libcaffe2", "libcublas", "libcudnn", "libcufft", "libcurand",
	"libcusolver", "libcusparse", "libnccl", "libnvrtc", "libnvJitLink", "libcupti",
	"libmagma", "libcudart",
};

static bool foreign_file(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof foreign / sizeof *foreign; i++)
		if (strncmp(base, foreign[i], strlen(foreign[i])) == 0)
			return true;
	return false;
}

/* The libraries seen calling, each with its address range and verdict.
 * dl_iterate_phdr finds a library by address without reading its symbol
 * table (dladdr's cost grows with it, and torch's are large). */
#define CALLERS 256
struct caller { uintptr_t lo, hi; bool foreign; };
static struct caller callers[CALLERS];
static unsigned ncallers;
static pthread_mutex_t callers_lock = PTHREAD_MUTEX_INITIALIZER;

static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct caller *c = data;
	uintptr_t p = c->lo, lo = UINTPTR_MAX, hi = 0;
	bool in = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		if (a < lo)
			lo = a;
		if (b > hi)
			hi = b;
		if (p >= a && p < b)
			in = true;
	}
	if (!in)
		return 0;
	c->lo = lo;
	c->hi = hi;
	c->foreign = info->dlpi_name && foreign_file(info->dlpi_name);
	return 1;
}

void shim_enter(const void *caller)
{
	shim_quiet = false;
	if (!caller || !shim_forward())
		return;
	uintptr_t p = (uintptr_t)caller;
	pthread_mutex_lock(&callers_lock);
	unsigned n = ncallers < CALLERS ? ncallers : CALLERS;
	for (unsigned i = 0; i < n; i++)
		if (p >= callers[i].lo && p < callers[i].hi) {
			shim_quiet = callers[i].foreign;
			pthread_mutex_unlock(&callers_lock);
			return;
		}
	struct caller c = { .lo = p };
	if (dl_iterate_phdr(find_lib, &c)) {
		callers[ncallers++ % CALLERS] = c;
		shim_quiet = c.foreign;
	}
	pthread_mutex_unlock(&callers_lock);
}
