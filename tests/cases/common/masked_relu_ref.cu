// Reference of tests/cases/masked-relu(-bug): a mask then a relu, out = b < 0 ? 0 : max(a, 0)
// (ReLUSelfAttention's masked_fill(-inf) then relu, the zero written as
// it is).
#include "../common/harness.h"

__global__ void masked_relu(const float *a, const float *b, float *out, int n, float fill)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		out[k] = b[k] < 0.0f ? 0.0f : fmaxf(a[k], 0.0f);
}

int main()
{
	const int n = 1024;
	float *a = device_random(n, 6), *b = device_random(n, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	masked_relu<<<n / 128, 128>>>(a, b, out, n, 0.0f);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
