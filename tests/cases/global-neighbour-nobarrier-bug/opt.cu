// Bug: no barrier between the stores to the scratch buffer and the loads
// of the mirrored elements: a thread reads what another thread of its
// block stores in the same barrier epoch (a global-memory race).
#include "../common/harness.h"

__global__ void revthreads_scratch(const float *in, float *part, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	part[b * blockDim.x + t] = 2.0f * in[b * blockDim.x + t];
	out[b * blockDim.x + t] = part[b * blockDim.x + blockDim.x - 1 - t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 9), *part, *out;
	CHECK(cudaMalloc(&part, sizeof(float) * n * blocks));
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	revthreads_scratch<<<blocks, n>>>(in, part, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
