// Bug: the thread reads its element back before it stores the square, so
// it adds b[i] to what out held before the launch.
#include "../common/harness.h"

__global__ void sqadd_twostep(const float *a, const float *b, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float *row = out + (size_t)blockIdx.x * blockDim.x;
	float old = row[threadIdx.x];
	out[i] = a[i] * a[i];
	row[threadIdx.x] = old + b[i];
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
