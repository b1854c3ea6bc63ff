// Reference of the stencil-tile pairs: t = a*a + b, then out[i] = t[i-1] +
// t[i] + t[i+1] (0 beyond the ends), in two launches through an
// intermediate buffer.
#include "harness.h"

__global__ void square_add(const float *a, const float *b, float *t, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		t[i] = a[i] * a[i] + b[i];
}

__global__ void sum3(const float *t, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float l = i > 0 ? t[i - 1] : 0.0f, r = i + 1 < n ? t[i + 1] : 0.0f;
		out[i] = l + t[i] + r;
	}
}

int main()
{
	const int n = 1 << 18;
	float *a = device_random(n, 1), *b = device_random(n, 2), *t, *out;
	CHECK(cudaMalloc(&t, sizeof(float) * n));
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	square_add<<<n / 256, 256>>>(a, b, t, n);
	sum3<<<n / 256, 256>>>(t, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
