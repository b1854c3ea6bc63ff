// Reference for the cublas-batched pairs: C = A B^T + 0.5 C for each
// matrix of a batch (blockIdx.z), row-major, one thread per element of C.
#include "../common/harness.h"
#include "../common/cublas_batched.h"

__global__ void bmm_nt_ref(const float *a, const float *b, float *c)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
	int z = blockIdx.z;
	if (row >= M || col >= N)
		return;
	float acc = 0.0f;
	for (int p = 0; p < K; p++)
		acc += a[(z * M + row) * K + p] * b[(z * N + col) * K + p];
	float *out = &c[(z * M + row) * N + col];
	*out = acc + 0.5f * *out;
}

int main()
{
	float *a = device_random(BATCH * M * K, 21), *b = device_random(BATCH * N * K, 22);
	float *c = device_random(BATCH * M * N, 23);
	bmm_nt_ref<<<dim3((N + 15) / 16, (M + 15) / 16, BATCH), dim3(16, 16)>>>(a, b, c);
	CHECK(cudaGetLastError());
	fetch(c, BATCH * M * N);
	return 0;
}
