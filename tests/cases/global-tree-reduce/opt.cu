// out[b] = sum of in[b*n .. b*n+n-1] by a tree reduction in global memory:
// the block copies its elements to a scratch buffer, then halves it step
// by step (thread t < s adds element t + s to element t), a barrier after
// each step; thread 0 stores element 0.
#include "../common/harness.h"

__global__ void blocksum_tree(const float *in, float *part, float *out)
{
	unsigned t = threadIdx.x;
	float *p = part + blockIdx.x * blockDim.x;
	p[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			p[t] += p[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = p[0];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *part, *out;
	CHECK(cudaMalloc(&part, sizeof(float) * n * blocks));
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum_tree<<<blocks, n>>>(in, part, out);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
