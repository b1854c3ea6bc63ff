// Reference: the negative log-likelihood term of cross entropy, one row
// per thread: loss[i] = -x[i * C + label[i]], the labels an integer input
// the host copies in (its bytes are in the trace: dexec reads them as the
// constants they are, so the address is no address on data).
#include "../common/harness.h"

#include <cstdint>

__global__ void pick(const float *x, const int64_t *label, float *loss, int n, int c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		loss[i] = -x[i * c + label[i]];
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
	pick<<<n / 64, 64>>>(x, label, loss, n, c);
	CHECK(cudaGetLastError());
	fetch(loss, n);
	return 0;
}
