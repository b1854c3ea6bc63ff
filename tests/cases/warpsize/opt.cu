// Optimized: the same with warpSize, which nvcc compiles to PTX's WARP_SZ
// (a constant of the target, not a symbol).  Equal.
#include "../common/harness.h"

__global__ void lanes_ws(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] * (float)(threadIdx.x % warpSize) + (float)(threadIdx.x / warpSize);
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 8), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	lanes_ws<<<n / 256, 256>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
