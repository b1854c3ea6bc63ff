// Bug: wrong constant: slope 0.1 instead of 0.01.  Random inputs in [-1, 1]
// differ by at most 0.09 * |x|, which a loose tolerance can hide.
#include "../common/harness.h"

__global__ void leaky(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		out[i] = fmaxf(v, 0.0f) + 0.1f * fminf(v, 0.0f);
	}
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 11), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	leaky<<<n / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
