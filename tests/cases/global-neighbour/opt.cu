// out[i] = 2 * in[REV(i)] through a global scratch buffer: every thread
// stores its doubled element, a barrier, then each reads the element that
// the mirrored thread of its block stored.
#include "../common/harness.h"

__global__ void revthreads_scratch(const float *in, float *part, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	part[b * blockDim.x + t] = 2.0f * in[b * blockDim.x + t];
	__syncthreads();
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
