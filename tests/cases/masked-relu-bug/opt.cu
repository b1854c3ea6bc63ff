// Bug: the mask is inverted (b > 0): out is max(a, 0) where the
// reference has 0, and 0 where it has max(a, 0).
#include <math.h>
#include "../common/harness.h"

__global__ void masked_relu(const float *a, const float *b, float *out, int n, float fill)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		out[k] = fmaxf(b[k] > 0.0f ? fill : a[k], 0.0f);
}

int main()
{
	const int n = 1024;
	float *a = device_random(n, 6), *b = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	masked_relu<<<n / 128, 128>>>(a, b, out, n, -INFINITY);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
