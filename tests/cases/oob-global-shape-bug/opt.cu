// Bug: shape mismatch: the bias (one value per column) is indexed like the
// matrix, reading far past its end.
#include "../common/harness.h"

__global__ void biasadd_flat(const float *a, const float *bias, float *out, int cols)
{
	int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	out[r * cols + c] = a[r * cols + c] + bias[r * cols + c];
}

int main()
{
	const int rows = 8, cols = 64;
	float *a = device_random(rows * cols, 11), *bias = device_random(cols, 12), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * rows * cols));
	biasadd_flat<<<dim3(cols / 32, rows), 32>>>(a, bias, out, cols);
	CHECK(cudaGetLastError());
	fetch(out, rows * cols);
	return 0;
}
