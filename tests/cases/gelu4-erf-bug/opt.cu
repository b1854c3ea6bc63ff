// Optimized, wrongly: the float4 GELU of gelu4-erf with the third element
// scaled by 1/2 instead of 1/sqrt 2 inside its erff.  Buggy.
#include "../common/harness.h"

__device__ inline float gelu1(float v)
{
	return 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

__global__ void gelu4(const float4 *x, float4 *y, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		float4 v = x[i];
		v.x = gelu1(v.x);
		v.y = gelu1(v.y);
		v.z = 0.5f * v.z * (1.0f + erff(v.z * 0.5f));
		v.w = gelu1(v.w);
		y[i] = v;
	}
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 71), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	gelu4<<<n / 4 / 64, 64>>>((const float4 *)x, (float4 *)y, n / 4);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
