// Bug: the table has 8 entries, the index runs to 15 (i & 15): reads past
// the end of the __constant__ table.
#include "../common/harness.h"

__constant__ float wtab[8] = { 0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f };

__global__ void weigh_table(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = x[i] * wtab[i & 15];
}

int main()
{
	const int n = 512;
	float *x = device_random(n, 9), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	weigh_table<<<n / 128, 128>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
