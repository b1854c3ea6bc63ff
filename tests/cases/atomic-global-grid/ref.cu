// Reference: out[0] = sum of the n * blocks elements of in (n = 128, 4
// blocks), by one thread.
#include "../common/harness.h"

__global__ void gridsum(const float *in, float *out, int count)
{
	float s = 0.0f;
	for (int i = 0; i < count; i++)
		s += in[i];
	out[0] = s;
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 5), *out;
	CHECK(cudaMalloc(&out, sizeof(float)));
	gridsum<<<1, 1>>>(in, out, n * blocks);
	CHECK(cudaGetLastError());
	fetch(out, 1);
	return 0;
}
