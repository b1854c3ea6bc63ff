// Reference: out = a + 2 b over a 50 x 70 matrix with a 2D grid of 16 x 16 blocks.
#include "../common/harness.h"

__global__ void matadd(const float *a, const float *b, float *out, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		out[r * cols + c] = a[r * cols + c] + 2.0f * b[r * cols + c];
}

int main()
{
	const int rows = 50, cols = 70, n = rows * cols;
	float *a = device_random(n, 5), *b = device_random(n, 6), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
	matadd<<<grid, block>>>(a, b, out, rows, cols);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
