// Optimized, with a bug: the label taken as the row and the row as the
// column (x[label * n + k]), in bounds, the wrong element; two rows
// per thread.
#include "../common/harness.h"

#include <cstdint>

__global__ void pick2(const float *x, const int64_t *label, float *loss, int n, int c)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	for (int k = i; k < i + 2 && k < n; k++) {
		loss[k] = -x[label[k] * n + k];
	}
}

int main()
{
	const int n = 256, c = 10;
	int64_t h[n], *label;
	for (int i = 0; i < n; i++)
		h[i] = (i * 7 + 3) % c;
	float *x = device_random(n * c, 5), *loss;
	CHECK(cudaMalloc(&label, sizeof h));
	CHECK(cudaMemcpy(label, h, sizeof h, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&loss, sizeof(float) * n));
	pick2<<<n / 128, 64>>>(x, label, loss, n, c);
	CHECK(cudaGetLastError());
	fetch(loss, n);
	return 0;
}
