// Reference: out[i] = a[i] * a[i] + b[i], one thread per element (1024
// elements, out filled with other data before the launch).
#include "harness.h"

__global__ void sqadd(const float *a, const float *b, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = a[i] * a[i] + b[i];
}

int main()
{
	const int n = 1024;
	float *a = device_random(n, 1), *b = device_random(n, 2), *out = device_random(n, 3);
	sqadd<<<n / 256, 256>>>(a, b, out);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
