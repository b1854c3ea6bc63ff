// Bug: warp-synchronous programming: the last 32 partial sums are reduced
// by one warp through shared memory without __syncwarp.
#include "../common/harness.h"

__global__ void blocksum_shared(const float *in, float *out, int n)
{
	__shared__ float sd[128];
	unsigned t = threadIdx.x;
	sd[t] = in[blockIdx.x * n + t];
	__syncthreads();
	if (t < 64)
		sd[t] += sd[t + 64];
	__syncthreads();
	if (t < 32) {
		sd[t] += sd[t + 32];
		sd[t] += sd[t + 16];
		sd[t] += sd[t + 8];
		sd[t] += sd[t + 4];
		sd[t] += sd[t + 2];
		sd[t] += sd[t + 1];
		if (t == 0)
			out[blockIdx.x] = sd[0];
	}
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
