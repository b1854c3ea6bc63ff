// Bug: __syncthreads inside a branch that only half of the block takes.
#include "../common/harness.h"

__global__ void blocksum_shared(const float *in, float *out, int n)
{
	__shared__ float sd[128];
	unsigned t = threadIdx.x;
	sd[t] = in[blockIdx.x * n + t];
	__syncthreads();
	if (t < 64) {
		sd[t] += sd[t + 64];
		__syncthreads();
		if (t == 0) {
			float s = 0.0f;
			for (int i = 0; i < 64; i++)
				s += sd[i];
			out[blockIdx.x] = s;
		}
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
