// Softplus with a second threshold, as AI-written kernels have it
// (KernelBench level-1 29_Softplus): below -20, e^x alone, which differs
// from log(1 + e^x) by less than e^-40, far within tolerance.  Deciding
// it needs the bounds the solver knows of exp and log1p (e^x <= e^-20 for
// x <= -20, 0 <= log1p(y) <= y for y >= 0; libcommon/smt.c).
#include "../common/harness.h"

__global__ void softplus(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	y[i] = v > 20.0f ? v : v < -20.0f ? expf(v) : log1pf(expf(v));
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 43), *y;
	CHECK(cudaMalloc(&y, sizeof(float) * n));
	softplus<<<n / 128, 128>>>(x, y, n);
	CHECK(cudaGetLastError());
	fetch(y, n);
	return 0;
}
