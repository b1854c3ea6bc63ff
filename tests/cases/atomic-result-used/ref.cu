// Reference of atomic-result-used: out = in.
#include "../common/harness.h"

__global__ void copy(const float *in, float *out)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = in[i];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	copy<<<blocks, n>>>(in, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
