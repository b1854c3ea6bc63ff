// out[0] = sum of all elements: a first launch zeroes the accumulator, a
// second adds every element into it atomically from every block (the
// launch boundary orders the store before all the atomics).
#include "../common/harness.h"

__global__ void zero(float *out)
{
	out[0] = 0.0f;
}

__global__ void gridsum_atomic(const float *in, float *out)
{
	atomicAdd(&out[0], in[blockIdx.x * blockDim.x + threadIdx.x]);
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float)));
	zero<<<1, 1>>>(out);
	gridsum_atomic<<<blocks, n>>>(in, out);
	CHECK(cudaGetLastError());
	fetch(out, 1);
	return 0;
}
