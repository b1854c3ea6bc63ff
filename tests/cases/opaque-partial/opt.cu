// Optimized: the second half squares a hand-written exp(x/2) (Schraudolph's
// trick on the bits of a float), which has no exact meaning: its locations
// are unknown, named by the mov.b32 that reinterprets the bits, while the
// first half is still checked.
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
	} else if (i < n) {
		float e = fast_exp(0.5f * x[i]);
		out[i] = e * e;
	}
}

int main()
{
	const int n = 256;
	float *x = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	halves_fast<<<n / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
