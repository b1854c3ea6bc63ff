/*
 * device.c: the device, streams, events and versions.  Forward mode hands
 * every call to the real runtime.  Record mode has one device, shaped like
 * an sm_90 part; streams and events exist only as handles, and every wait
 * returns at once (nothing runs asynchronously).
 */
#include "shim.h"

#include <stdlib.h>
#include <string.h>

#define SHIM_CC_MAJOR 9
#define SHIM_CC_MINOR 0
#define SHIM_SMS 132

SHIM_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
	FORWARD(cudaGetDeviceCount, count);
	if (!count)
		return shim_error(cudaErrorInvalidValue);
	*count = 1;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaGetDevice(int *device)
{
	FORWARD(cudaGetDevice, device);
	if (!device)
		return shim_error(cudaErrorInvalidValue);
	*device = 0;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaSetDevice(int device)
{
	FORWARD(cudaSetDevice, device);
	return device == 0 ? cudaSuccess : shim_error(cudaErrorInvalidDevice);
}

SHIM_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
	FORWARD(cudaGetDeviceProperties, p, device);
	if (!p)
		return shim_error(cudaErrorInvalidValue);
	if (device != 0)
		return shim_error(cudaErrorInvalidDevice);
	memset(p, 0, sizeof *p);
	strcpy(p->name, "dirigo record-only device");
	p->totalGlobalMem = (size_t)80 << 30;
	p->sharedMemPerBlock = 48 * 1024;
	p->sharedMemPerBlockOptin = 227 * 1024;
	p->sharedMemPerMultiprocessor = 228 * 1024;
	p->regsPerBlock = 65536;
	p->regsPerMultiprocessor = 65536;
	p->warpSize = 32;
	p->memPitch = (size_t)2 << 30;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = 1024; p->maxThreadsDim[1] = 1024; p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 0x7fffffff; p->maxGridSize[1] = 65535; p->maxGridSize[2] = 65535;
	p->totalConstMem = 64 * 1024;
	p->major = SHIM_CC_MAJOR;
	p->minor = SHIM_CC_MINOR;
	p->textureAlignment = 512;
	p->multiProcessorCount = SHIM_SMS;
	p->canMapHostMemory = 1;
	p->concurrentKernels = 1;
	p->asyncEngineCount = 2;
	p->unifiedAddressing = 1;
	p->memoryBusWidth = 5120;
	p->l2CacheSize = 50 * 1024 * 1024;
	p->maxThreadsPerMultiProcessor = 2048;
	p->maxBlocksPerMultiProcessor = 32;
	p->managedMemory = 1;
	p->concurrentManagedAccess = 1;
	p->cooperativeLaunch = 1;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	FORWARD(cudaDeviceGetAttribute, value, attr, device);
	if (!value)
		return shim_error(cudaErrorInvalidValue);
	if (device != 0)
		return shim_error(cudaErrorInvalidDevice);
	switch (attr) {
	case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
	case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: *value = 1024; break;
	case cudaDevAttrMaxBlockDimZ: *value = 64; break;
	case cudaDevAttrMaxGridDimX: *value = 0x7fffffff; break;
	case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: *value = 65535; break;
	case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 * 1024; break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = 227 * 1024; break;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = 228 * 1024; break;
	case cudaDevAttrTotalConstantMemory: *value = 64 * 1024; break;
	case cudaDevAttrWarpSize: *value = 32; break;
	case cudaDevAttrMaxRegistersPerBlock: case cudaDevAttrMaxRegistersPerMultiprocessor:
		*value = 65536; break;
	case cudaDevAttrMultiProcessorCount: *value = SHIM_SMS; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; break;
	case cudaDevAttrMaxBlocksPerMultiprocessor: *value = 32; break;
	case cudaDevAttrComputeCapabilityMajor: *value = SHIM_CC_MAJOR; break;
	case cudaDevAttrComputeCapabilityMinor: *value = SHIM_CC_MINOR; break;
	case cudaDevAttrL2CacheSize: *value = 50 * 1024 * 1024; break;
	case cudaDevAttrUnifiedAddressing: case cudaDevAttrManagedMemory:
	case cudaDevAttrConcurrentKernels: case cudaDevAttrCanMapHostMemory:
	case cudaDevAttrConcurrentManagedAccess: case cudaDevAttrCooperativeLaunch:
		*value = 1; break;
	default: *value = 0; break;
	}
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	FORWARD(cudaDeviceSynchronize);
	return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaDeviceReset(void)
{
	FORWARD(cudaDeviceReset);
	return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	FORWARD(cudaSetDeviceFlags, flags);
	(void)flags; return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaThreadSynchronize(void)
{
	FORWARD(cudaThreadSynchronize);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaRuntimeGetVersion(int *v)
{
	FORWARD(cudaRuntimeGetVersion, v);
	if (!v)
		return shim_error(cudaErrorInvalidValue);
	*v = CUDART_VERSION;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaDriverGetVersion(int *v)
{
	FORWARD(cudaDriverGetVersion, v);
	return cudaRuntimeGetVersion(v);
}

/* ---- streams and events: handles only ------------------------------------ */

/* Stream priorities as on sm_90: 0 (least) to -5 (greatest). */
#define SHIM_PRIO_LEAST 0
#define SHIM_PRIO_GREATEST (-5)

/* What a stream or event handle points to: what it was made with.  The
 * program never dereferences it. */
struct shim_handle {
	unsigned flags;
	int prio;
};

static void *handle_new(unsigned flags, int prio)
{
	struct shim_handle *h = xcalloc(1, sizeof *h);
	h->flags = flags;
	h->prio = prio;
	return h;
}

SHIM_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s)
{
	FORWARD(cudaStreamCreate, s);
	if (!s)
		return shim_error(cudaErrorInvalidValue);
	*s = handle_new(cudaStreamDefault, SHIM_PRIO_LEAST);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
	FORWARD(cudaStreamCreateWithFlags, s, flags);
	if (!s)
		return shim_error(cudaErrorInvalidValue);
	*s = handle_new(flags, SHIM_PRIO_LEAST);
	return cudaSuccess;
}

/* A priority outside the range is clamped to it, as the real runtime does. */
SHIM_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int prio)
{
	FORWARD(cudaStreamCreateWithPriority, s, flags, prio);
	if (!s)
		return shim_error(cudaErrorInvalidValue);
	if (prio > SHIM_PRIO_LEAST)
		prio = SHIM_PRIO_LEAST;
	if (prio < SHIM_PRIO_GREATEST)
		prio = SHIM_PRIO_GREATEST;
	*s = handle_new(flags, prio);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
	FORWARD(cudaDeviceGetStreamPriorityRange, least, greatest);
	if (least)
		*least = SHIM_PRIO_LEAST;
	if (greatest)
		*greatest = SHIM_PRIO_GREATEST;
	return cudaSuccess;
}

/* The legacy default stream (null) and the per-thread one (2) have the
 * least priority and default flags. */
static const struct shim_handle *stream_of(cudaStream_t s)
{
	static const struct shim_handle legacy = { cudaStreamDefault, SHIM_PRIO_LEAST };
	if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread)
		return &legacy;
	return (const struct shim_handle *)s;
}

SHIM_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t s, int *prio)
{
	FORWARD(cudaStreamGetPriority, s, prio);
	if (!prio)
		return shim_error(cudaErrorInvalidValue);
	*prio = stream_of(s)->prio;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *flags)
{
	FORWARD(cudaStreamGetFlags, s, flags);
	if (!flags)
		return shim_error(cudaErrorInvalidValue);
	*flags = stream_of(s)->flags;
	return cudaSuccess;
}

/* Nothing is ever captured into a CUDA graph here. */
SHIM_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st)
{
	FORWARD(cudaStreamIsCapturing, s, st);
	if (!st)
		return shim_error(cudaErrorInvalidValue);
	*st = cudaStreamCaptureStatusNone;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	FORWARD(cudaStreamDestroy, s);
	free(s); return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	FORWARD(cudaStreamSynchronize, s);
	(void)s; return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaStreamQuery(cudaStream_t s)
{
	FORWARD(cudaStreamQuery, s);
	(void)s; return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
	FORWARD(cudaStreamWaitEvent, s, e, flags);
	(void)s; (void)e; (void)flags;
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	FORWARD(cudaEventCreate, e);
	if (!e)
		return shim_error(cudaErrorInvalidValue);
	*e = handle_new(cudaEventDefault, 0);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
	FORWARD(cudaEventCreateWithFlags, e, flags);
	if (!e)
		return shim_error(cudaErrorInvalidValue);
	*e = handle_new(flags, 0);
	return cudaSuccess;
}

SHIM_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	FORWARD(cudaEventDestroy, e);
	free(e); return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	FORWARD(cudaEventRecord, e, s);
	(void)e; (void)s; return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags)
{
	FORWARD(cudaEventRecordWithFlags, e, s, flags);
	(void)e; (void)s; (void)flags; return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	FORWARD(cudaEventSynchronize, e);
	(void)e; return cudaSuccess;
}
SHIM_EXPORT cudaError_t cudaEventQuery(cudaEvent_t e)
{
	FORWARD(cudaEventQuery, e);
	(void)e; return cudaSuccess;
}

/* Kernels take no time here. */
SHIM_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
	FORWARD(cudaEventElapsedTime, ms, start, end);
	(void)start; (void)end;
	if (!ms)
		return shim_error(cudaErrorInvalidValue);
	*ms = 0.0f;
	return cudaSuccess;
}
