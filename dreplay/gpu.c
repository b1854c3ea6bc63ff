/*
 * gpu.c: --gpu, finding a CUDA device.  The driver library is opened at
 * run time (dlopen of libcuda.so.1), so dreplay builds and runs on
 * machines without a GPU or a driver: there, --gpu says why in one line
 * (the driver's reason) and dreplay exits 2 without replaying on the CPU
 * instead.
 * CUDA_VISIBLE_DEVICES= hides every device, as for any CUDA program.
 */
#include "dreplay.h"

#include <dlfcn.h>
#include <stdio.h>

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_count_fn)(int *count);

bool gpu_probe(char *msg, size_t msglen)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(msg, msglen, "cannot load the CUDA driver (%s)", e ? e : "libcuda.so.1");
		return false;
	}
	cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
	cu_count_fn count = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
	int n = 0, rc;
	bool ok = false;
	if (!init || !count)
		snprintf(msg, msglen, "libcuda.so.1 lacks cuInit or cuDeviceGetCount");
	else if ((rc = init(0)) != 0)
		snprintf(msg, msglen, "cuInit failed with CUDA error %d%s", rc,
		         rc == 100 ? " (no CUDA-capable device)" : "");
	else if ((rc = count(&n)) != 0 || n == 0)
		snprintf(msg, msglen, "no CUDA device (cuDeviceGetCount: error %d, %d devices)", rc, n);
	else
		ok = true;
	dlclose(h);
	return ok;
}
