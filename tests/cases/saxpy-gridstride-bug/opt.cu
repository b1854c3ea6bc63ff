// Bug: the grid-stride loop starts at blockIdx.x * blockDim.x * 2 + threadIdx.x
// (a leftover from a two-elements-per-thread version), so some elements are
// never computed and keep the zeros of the memset.
#include "../common/harness.h"

__global__ void saxpy_gs(float a, const float *x, const float *y, float *out, int n)
{
	for (int i = blockIdx.x * blockDim.x * 2 + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		out[i] = fmaf(a, x[i], y[i]);
}

int main()
{
	const int n = 3000;
	float *x = device_random(n, 3), *y = device_random(n, 4), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	CHECK(cudaMemset(out, 0, sizeof(float) * n));
	saxpy_gs<<<4, 128>>>(2.5f, x, y, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
