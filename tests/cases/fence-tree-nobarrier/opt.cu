// fence-tree with __threadfence_block() in place of the barrier between
// the steps: the threads of other warps race on sd[t + s].  dirigo does
// not model a fence as ordering threads (a flag protocol over fences can
// order them), so a race in a kernel with a fence is unsupported, named,
// rather than reported: never a report that may be false.
#include "../common/harness.h"

__global__ void blocksum_fenced(const float *in, float *out, int n)
{
	__shared__ float sd[128];
	unsigned t = threadIdx.x;
	sd[t] = in[blockIdx.x * n + t];
	__syncthreads();
	for (unsigned s = 64; s > 0; s >>= 1) {
		if (t < s)
			sd[t] += sd[t + s];
		__threadfence_block();
	}
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
