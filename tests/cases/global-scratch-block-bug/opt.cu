// Bug: thread 0 adds the partial sums of all threads but the last one.
#include "../common/harness.h"

__global__ void blocksum_scratch(const float *in, float *part, float *out, int n)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	part[b * blockDim.x + t] = in[b * n + 2 * t] + in[b * n + 2 * t + 1];
	__syncthreads();
	if (t == 0) {
		float s = 0.0f;
		for (unsigned i = 0; i < blockDim.x - 1; i++)
			s += part[b * blockDim.x + i];
		out[b] = s;
	}
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *part, *out;
	CHECK(cudaMalloc(&part, sizeof(float) * blocks * (n / 2)));
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum_scratch<<<blocks, n / 2>>>(in, part, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
