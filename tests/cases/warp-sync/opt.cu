// Fixed twin of warp-sync-bug: __syncwarp between each read and write.
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
		float v = sd[t];
		for (unsigned off = 32; off > 0; off >>= 1) {
			v += sd[t + off];
			__syncwarp();
			sd[t] = v;
			__syncwarp();
		}
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
