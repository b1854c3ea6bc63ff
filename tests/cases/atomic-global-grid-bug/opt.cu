// Buggy twin of atomic-global-grid: the accumulator is zeroed inside the
// accumulating kernel by thread 0 of block 0.  __syncthreads orders that
// store only for block 0: the other blocks' atomicAdds may come before it
// and be wiped out.  No grid-wide barrier orders the store and the
// atomics of other blocks: a race.
#include "../common/harness.h"

__global__ void gridsum_atomic(const float *in, float *out)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		out[0] = 0.0f;
	__syncthreads();
	atomicAdd(&out[0], in[blockIdx.x * blockDim.x + threadIdx.x]);
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float)));
	gridsum_atomic<<<blocks, n>>>(in, out);
	CHECK(cudaGetLastError());
	fetch(out, 1);
	return 0;
}
