// out[i] = 2 * in[REV(i)] through a scratch buffer that the blocks of one
// launch fill and the blocks of a second launch read: the launch boundary
// orders every store of the first before every load of the second.
#include "../common/harness.h"

__global__ void scale(const float *in, float *part)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	part[i] = 2.0f * in[i];
}

__global__ void reverse_blocks(const float *part, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x, nb = gridDim.x - 1 - b;
	out[b * blockDim.x + t] = part[nb * blockDim.x + t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 7), *part, *out;
	CHECK(cudaMalloc(&part, sizeof(float) * n * blocks));
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	scale<<<blocks, n>>>(in, part);
	reverse_blocks<<<blocks, n>>>(part, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
