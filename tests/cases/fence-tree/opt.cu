// The block sum of shared-race with a memory fence after each barrier
// (__threadfence_block, membar.cta) and one before the result is stored
// (__threadfence, membar.gl), as real kernels write them: the fences
// change no value, and with a barrier after every step there is no race.
#include "../common/harness.h"

__global__ void blocksum_fenced(const float *in, float *out, int n)
{
	__shared__ float sd[128];
	unsigned t = threadIdx.x;
	sd[t] = in[blockIdx.x * n + t];
	__syncthreads();
	__threadfence_block();
	for (unsigned s = 64; s > 0; s >>= 1) {
		if (t < s)
			sd[t] += sd[t + s];
		__syncthreads();
		__threadfence_block();
	}
	__threadfence();
	if (t == 0)
		out[blockIdx.x] = sd[0];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * blocks));
	blocksum_fenced<<<blocks, 128>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, blocks);
	return 0;
}
