// Bug: as opaque-partial, plus an off-by-one (i <= n) that writes one
// element past the end (its read wraps, x[i & (n-1)], so only the store is
// out of bounds): the opaque value does not stop the launch, so the
// out-of-bounds store after it is found.
#include "../common/harness.h"

__device__ __forceinline__ float fast_exp(float x)
{
	return __int_as_float((int)(12102203.0f * x) + 1065353216);
}

__global__ void halves_fast(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n / 2) {
		out[i] = x[i] + x[i];
	} else if (i <= n) {
		float e = fast_exp(0.5f * x[i & (n - 1)]);
		out[i] = e * e;
	}
}

int main()
{
	const int n = 256;
	float *x = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	halves_fast<<<n / 128 + 1, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
