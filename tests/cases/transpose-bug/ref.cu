// Reference: out = a + transpose(b) for a 48 x 48 matrix, 2D grid.
#include "../common/harness.h"

__global__ void add_transposed(const float *a, const float *b, float *out, int n)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < n && c < n)
		out[r * n + c] = a[r * n + c] + b[c * n + r];
}

int main()
{
	const int n = 48;
	float *a = device_random(n * n, 7), *b = device_random(n * n, 8), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n * n));
	dim3 block(16, 16), grid(3, 3);
	add_transposed<<<grid, block>>>(a, b, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n * n);
	return 0;
}
