#!/bin/sh
# dtrace-cuda --gpu: the shim over a real CUDA runtime (forward mode).
# Without a GPU, a stand-in for the real libcudart.so.13 (built here: host
# memory, kernels not run, every call logged) takes its place on
# LD_LIBRARY_PATH, so the forwarding and the records can be checked: the
# trace must be the record-only runtime's, and the calls must reach the
# stand-in.  bench/gpu-check.sh does the same on a GPU.

. "$(dirname "$0")/test-lib.sh"

PROGS=$ROOT/tests/t/programs
have_nvcc || SKIP_ALL="nvcc not found"
command -v jq >/dev/null || SKIP_ALL="jq not found"
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include

# same TRACE1 TRACE2: equal but for the raw bytes of launch arguments
# (pointers differ) and the header's name.
proj() { dcat "$1" | jq -c 'if .t == "launch" then .args |= map(del(.raw))
                            elif .t == "header" then del(.name) else . end'; }
same() { proj "$1" >"$1.p" && proj "$2" >"$2.p" && test_cmp "$1.p" "$2.p"; }

test_expect_success 'build the test programs and a stand-in CUDA runtime' '
	build_cuda "$PROGS/vadd.cu" vadd &&
	build_cuda "$PROGS/scale2.cu" scale2 &&
	build_cuda "$PROGS/fail.cu" fail &&
	mkdir -p fake &&
	echo "libcudart.so.13 { global: *; };" >fake.map &&
	cat >fake.c <<-\EOC &&
	/* A stand-in for the real CUDA runtime: host memory, kernels not run;
	 * every call is logged to $FAKE_CUDART_LOG; $FAKE_CUDART_DEVICES=0 makes
	 * it see no GPU. */
	#include <cuda_runtime_api.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	static void logc(const char *f)
	{
		const char *p = getenv("FAKE_CUDART_LOG");
		FILE *l = p ? fopen(p, "a") : NULL;
		if (l) { fprintf(l, "%s\n", f); fclose(l); }
	}
	#define L() logc(__func__)
	static struct { const void *host; void *mem; } vars[64];
	static int nvars;
	static int handle;
	cudaError_t cudaGetDeviceCount(int *n)
	{
		L();
		const char *d = getenv("FAKE_CUDART_DEVICES");
		*n = d ? atoi(d) : 1;
		return *n ? cudaSuccess : cudaErrorNoDevice;
	}
	const char *cudaGetErrorName(cudaError_t e) { return e == cudaErrorNoDevice ? "cudaErrorNoDevice" : "fakeError"; }
	const char *cudaGetErrorString(cudaError_t e) { return e ? "fake error" : "no error"; }
	cudaError_t cudaGetLastError(void) { return cudaSuccess; }
	void **__cudaRegisterFatBinary(void *f) { (void)f; L(); return (void **)&handle; }
	void __cudaRegisterFatBinaryEnd(void **h) { (void)h; L(); }
	void __cudaUnregisterFatBinary(void **h) { (void)h; }
	void __cudaRegisterFunction(void **h, const char *hf, char *df, const char *dn, int t, uint3 *a,
	                            uint3 *b, dim3 *c, dim3 *d, int *w)
	{ (void)h; (void)hf; (void)df; (void)dn; (void)t; (void)a; (void)b; (void)c; (void)d; (void)w; L(); }
	void __cudaRegisterVar(void **h, char *hv, char *da, const char *dn, int e, size_t size, int c, int g)
	{
		(void)h; (void)da; (void)dn; (void)e; (void)c; (void)g; L();
		vars[nvars].host = hv;
		vars[nvars].mem = calloc(1, size);
		memcpy(vars[nvars++].mem, hv, size);
	}
	cudaError_t cudaGetSymbolAddress(void **p, const void *s)
	{
		L();
		for (int i = 0; i < nvars; i++)
			if (vars[i].host == s) { *p = vars[i].mem; return cudaSuccess; }
		return cudaErrorInvalidSymbol;
	}
	cudaError_t cudaMemcpyToSymbol(const void *s, const void *src, size_t n, size_t off, enum cudaMemcpyKind k)
	{
		(void)k; L();
		void *p;
		if (cudaGetSymbolAddress(&p, s)) return cudaErrorInvalidSymbol;
		memcpy((char *)p + off, src, n);
		return cudaSuccess;
	}
	cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *f) { L(); *k = (cudaKernel_t)((char *)f + 1); return cudaSuccess; }
	cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st)
	{ (void)k; (void)g; (void)b; (void)a; (void)s; (void)st; L(); return cudaSuccess; }
	cudaError_t cudaMalloc(void **p, size_t n) { L(); *p = calloc(1, n); return cudaSuccess; }
	cudaError_t cudaFree(void *p) { L(); free(p); return cudaSuccess; }
	cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { (void)k; L(); memmove(d, s, n); return cudaSuccess; }
	cudaError_t cudaMemset(void *d, int v, size_t n) { L(); memset(d, v, n); return cudaSuccess; }
	cudaError_t cudaDeviceSynchronize(void) { L(); return cudaSuccess; }
	cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p)
	{ (void)p; memset(a, 0, sizeof *a); a->type = cudaMemoryTypeUnregistered; return cudaSuccess; }
	EOC
	cc -shared -fPIC -I"$CUDA_INC" -Wl,-soname,libcudart.so.13 -Wl,--version-script=fake.map \
		-o fake/libcudart.so.13 fake.c &&
	cat >torchish.c <<-\EOC &&
	#include <cuda_runtime_api.h>
	void torchish(void) { void *p; float x = 1; cudaMalloc(&p, 64);
	                      cudaMemcpy(p, &x, 4, cudaMemcpyHostToDevice); cudaFree(p); }
	EOC
	cat >usetorch.c <<-\EOC &&
	#include <cuda_runtime_api.h>
	void torchish(void);
	int main(void) { void *p; torchish(); cudaMalloc(&p, 32); cudaFree(p); return 0; }
	EOC
	cc -shared -fPIC -I"$CUDA_INC" -o libc10_fake.so torchish.c fake/libcudart.so.13 &&
	cc -I"$CUDA_INC" -o usetorch usetorch.c ./libc10_fake.so fake/libcudart.so.13 -Wl,-rpath,"$PWD"
'

export FAKE_CUDART_LOG="$PWD/fake.log"

test_expect_success 'vadd: the --gpu trace is the --no-gpu one' '
	LD_LIBRARY_PATH=$PWD/fake dtrace-cuda --gpu -- ./vadd >gpu.trace 2>err &&
	grep "vadd done" err &&
	dtrace-cuda --no-gpu -- ./vadd >cpu.trace 2>err &&
	same gpu.trace cpu.trace
'

test_expect_success 'vadd: the calls reach the real runtime' '
	for f in __cudaRegisterFatBinary __cudaRegisterFunction __cudaGetKernel \
	         __cudaLaunchKernel cudaMalloc cudaMemcpy cudaFree cudaDeviceSynchronize; do
		grep -x "$f" fake.log || return 1
	done
'

test_expect_success 'scale2: memset, symbol, copy to symbol, offsets: as --no-gpu' '
	LD_LIBRARY_PATH=$PWD/fake dtrace-cuda --gpu -- ./scale2 >gpu2.trace 2>err &&
	dtrace-cuda --no-gpu -- ./scale2 >cpu2.trace 2>err &&
	same gpu2.trace cpu2.trace &&
	grep -x cudaMemcpyToSymbol fake.log &&
	grep -x cudaMemset fake.log
'

test_expect_success 'a program that exits non-zero under --gpu: exit 2, as --no-gpu' '
	test_must_fail --status=2 env LD_LIBRARY_PATH=$PWD/fake dtrace-cuda --gpu -- ./fail >gpu3.trace 2>err &&
	test_must_fail --status=2 dtrace-cuda --no-gpu -- ./fail >cpu3.trace 2>err &&
	same gpu3.trace cpu3.trace
'

test_expect_success 'calls made by torch'"'"'s own libraries are not recorded' '
	LD_LIBRARY_PATH=$PWD/fake dtrace-cuda --gpu -- ./usetorch >t.trace 2>err &&
	dcat t.trace | jq -c "select(.t != \"header\" and .t != \"end\") | [.t, .bytes]" >actual &&
	printf "%s\n" "[\"alloc\",32]" "[\"free\",null]" >expect &&
	test_cmp expect actual &&
	test $(grep -c -x cudaMalloc fake.log) -ge 2
'

test_expect_success '--gpu when the real runtime sees no GPU: exit 2, says why' '
	test_must_fail --status=2 env FAKE_CUDART_DEVICES=0 LD_LIBRARY_PATH=$PWD/fake \
		dtrace-cuda --gpu -- ./vadd >out 2>err &&
	grep "dtrace-cuda: --gpu: the CUDA runtime .*fake/libcudart.so.13.* cannot use a GPU: cudaGetDeviceCount: cudaErrorNoDevice" err &&
	grep -- "--no-gpu" err &&
	test ! -s out
'

test_expect_success 'the shim in forward mode stops cleanly when no device answers' '
	test_must_fail --status=2 env FAKE_CUDART_DEVICES=0 LD_LIBRARY_PATH=$PWD/fake \
		DIRIGO_CUDART_MODE=forward LD_PRELOAD="$ROOT/lib/libdirigo-cudart.so" ./vadd 2>err &&
	grep "dtrace-cuda: .*vadd: --gpu: .*cudaErrorNoDevice" err &&
	test_must_fail --status=2 env DIRIGO_CUDART_MODE=forward DIRIGO_CUDART_REAL=/no/such/libcudart.so \
		LD_PRELOAD="$ROOT/lib/libdirigo-cudart.so" ./vadd 2>err &&
	grep "DIRIGO_CUDART_REAL=/no/such/libcudart.so" err
'

if [ -e /dev/nvidia0 ]; then
	test_skip 'the machine'"'"'s own CUDA runtime without a GPU (there is one)'
else
	test_expect_success 'the machine'"'"'s own CUDA runtime without a GPU: --gpu exits 2' '
		test_must_fail --status=2 dtrace-cuda --gpu -- ./vadd >out 2>err &&
		grep "dtrace-cuda: --gpu: " err
	'
	test_expect_success 'without /dev/nvidia0 the default is --no-gpu' '
		LD_LIBRARY_PATH=$PWD/fake dtrace-cuda -- ./vadd >dflt.trace 2>err &&
		same dflt.trace cpu.trace &&
		! grep -q "a GPU is present" err
	'
	test_expect_success 'bench/gpu-check.sh without a GPU: skips, says so in its summary' '
		PATH=/usr/bin:/bin "$ROOT/bench/gpu-check.sh" gc >gc.tap 2>&1 &&
		grep -x "1..0 # skip no GPU" gc.tap &&
		grep -x "skipped: no GPU (no /dev/nvidia0, no nvidia-smi)" gc/summary.txt
	'
fi

test_expect_success '--kernelbench --gpu: not implemented yet, exit 2' '
	test_must_fail --status=2 dtrace-cuda --kernelbench --gpu -o kb a.py b.py 2>err &&
	grep "not implemented yet" err
'

test_done
