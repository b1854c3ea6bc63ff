// Reference: out[b*8 + k] = twice the sum of the elements of row b whose
// index is k modulo 8 (n = 128, 4 blocks), by eight threads per block.
#include "../common/harness.h"

__global__ void binsum(const float *in, float *out, int n)
{
	float s = 0.0f;
	for (int i = threadIdx.x; i < n; i += 8)
		s += in[blockIdx.x * n + i];
	out[blockIdx.x * 8 + threadIdx.x] = s + s;
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * 8 * blocks));
	binsum<<<blocks, 8>>>(in, out, n);
	CHECK(cudaGetLastError());
	fetch(out, 8 * blocks);
	return 0;
}
