// The mask fills -inf (a kernel argument) where b < 0 and the relu takes
// it back to 0, as level-3 50_ReLUSelfAttention's kernel does: nvcc
// selects, then takes the max, and the max of a select with an infinite
// arm is distributed over it, so no infinity is left.
#include <math.h>
#include "../common/harness.h"

__global__ void masked_relu(const float *a, const float *b, float *out, int n, float fill)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		out[k] = fmaxf(b[k] < 0.0f ? fill : a[k], 0.0f);
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
