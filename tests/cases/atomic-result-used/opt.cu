// The old value atomicAdd returns depends on the order of the threads:
// here it picks each thread's output slot (a ticket), which dirigo does
// not model.  The reference copies in to out in order; the ticket order
// makes out a permutation of in.
#include "../common/harness.h"

__global__ void copy_ticket(const float *in, float *out, unsigned *count)
{
	unsigned slot = atomicAdd(count, 1u);
	out[slot] = in[blockIdx.x * blockDim.x + threadIdx.x];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	unsigned *count;
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	CHECK(cudaMalloc(&count, sizeof(unsigned)));
	CHECK(cudaMemset(count, 0, sizeof(unsigned)));
	copy_ticket<<<blocks, n>>>(in, out, count);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
