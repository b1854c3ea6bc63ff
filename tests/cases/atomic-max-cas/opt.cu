// out[b] = max of in[b*n .. b*n+n-1]: out[b] starts as the row's first
// element, then every thread of block b folds its element in with the
// usual compare-and-swap helper for a float atomicMax.
#include "../common/harness.h"

__device__ __forceinline__ float atomicMaxFloat(float *addr, float value)
{
	int *ai = (int *)addr;
	int old = *ai, assumed;
	do {
		assumed = old;
		old = atomicCAS(ai, assumed, __float_as_int(fmaxf(__int_as_float(assumed), value)));
	} while (assumed != old);
	return __int_as_float(old);
}

__global__ void init_first(const float *in, float *out, int n)
{
	out[blockIdx.x] = in[blockIdx.x * n];
}

__global__ void blockmax_atomic(const float *in, float *out, int n)
{
	atomicMaxFloat(&out[blockIdx.x], in[blockIdx.x * n + threadIdx.x]);
}

int main()
{
	const int n = 32, blocks = 4;
	float *in = device_random(n * blocks, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	init_first<<<blocks, 1>>>(in, out, n);
	blockmax_atomic<<<blocks, n>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
