// Reference: out[b] = max of in[b*n .. b*n+n-1], one thread per block
// (n = 32, 4 blocks).
#include "../common/harness.h"

__global__ void blockmax(const float *in, float *out, int n)
{
	float m = in[blockIdx.x * n];
	for (int i = 1; i < n; i++)
		m = fmaxf(m, in[blockIdx.x * n + i]);
	out[blockIdx.x] = m;
}

int main()
{
	const int n = 32, blocks = 4;
	float *in = device_random(n * blocks, 7), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blockmax<<<blocks, 1>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
