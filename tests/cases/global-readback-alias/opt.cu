// out[i] = a[i] * a[i] + b[i] in two steps: a thread stores the square,
// then reads it back through another address expression of the same
// element (the block's row pointer indexed by the unsigned thread index,
// where the store used a signed global index) and adds b[i].
#include "../common/harness.h"

__global__ void sqadd_twostep(const float *a, const float *b, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = a[i] * a[i];
	float *row = out + (size_t)blockIdx.x * blockDim.x;
	row[threadIdx.x] = row[threadIdx.x] + b[i];
}

int main()
{
	const int n = 1024;
	float *a = device_random(n, 1), *b = device_random(n, 2), *out = device_random(n, 3);
	sqadd_twostep<<<n / 256, 256>>>(a, b, out);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
