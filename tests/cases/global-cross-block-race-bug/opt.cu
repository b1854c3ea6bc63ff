// Bug: one launch both fills the scratch buffer and reads it: block b
// reads what block gridDim.x - 1 - b stores, and __syncthreads() orders
// only the threads of one block (there is no grid-wide barrier): a
// global-memory race.
#include "../common/harness.h"

__global__ void scale_reverse(const float *in, float *part, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x, nb = gridDim.x - 1 - b;
	part[b * blockDim.x + t] = 2.0f * in[b * blockDim.x + t];
	__syncthreads();
	out[b * blockDim.x + t] = part[nb * blockDim.x + t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 7), *part, *out;
	CHECK(cudaMalloc(&part, sizeof(float) * n * blocks));
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	scale_reverse<<<blocks, n>>>(in, part, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
