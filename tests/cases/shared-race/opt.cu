// Fixed twin of shared-race-bug: a barrier after every step.
#include "../common/harness.h"

__global__ void blocksum_shared(const float *in, float *out, int n)
{
	__shared__ float sd[128];
	unsigned t = threadIdx.x;
	sd[t] = in[blockIdx.x * n + t];
	__syncthreads();
	for (unsigned s = 64; s > 0; s >>= 1) {
		if (t < s)
			sd[t] += sd[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = sd[0];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum_shared<<<blocks, 128>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
