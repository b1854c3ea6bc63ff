// Reference: out[i] = x[4i] + x[4i+1] + x[4i+2] + x[4i+3] with element
// i % 4 of the four counted twice, one thread per output.
#include "harness.h"

#define N 128                 /* outputs; the input has 4 * N */

__global__ void quadsum(const float *x, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0.0f;
	for (int j = 0; j < 4; j++)
		s += (j == (i & 3) ? 2.0f : 1.0f) * x[4 * i + j];
	out[i] = s;
}

int main()
{
	float *x = device_random(4 * N, 31), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N));
	quadsum<<<N / 64, 64>>>(x, out);
	CHECK(cudaGetLastError());
	fetch(out, N);
	return 0;
}
