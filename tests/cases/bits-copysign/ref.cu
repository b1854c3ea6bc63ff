// Reference: out = copysignf(|a|, b) and the sign of b applied to a.
#include "../common/harness.h"

__global__ void signs(const float *a, const float *b, float *out, float *out2, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = copysignf(a[i], b[i]);
		out2[i] = b[i] < 0.0f ? -a[i] : a[i];
	}
}

int main()
{
	const int n = 512;
	float *a = device_random(n, 4), *b = device_random(n, 5), *out, *out2;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	CHECK(cudaMalloc(&out2, sizeof(float) * n));
	signs<<<n / 128, 128>>>(a, b, out, out2, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	fetch(out2, n);
	return 0;
}
