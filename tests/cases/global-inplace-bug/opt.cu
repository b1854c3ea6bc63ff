// Bug: the mirrored element of the work buffer is read after the barrier
// that orders the doubling, but not halved: out[i] = 2 * in[REV(i)].  (Read
// as the copy the work buffer held before the launch, it would look right.)
#include "../common/harness.h"

__global__ void revcopy_inplace(const float *in, float *work, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	work[b * blockDim.x + t] = 2.0f * in[b * blockDim.x + t];
	__syncthreads();
	out[b * blockDim.x + t] = work[b * blockDim.x + blockDim.x - 1 - t];
}

int main()
{
	const int n = 128, blocks = 4;
	float *in = device_random(n * blocks, 9), *work, *out;
	CHECK(cudaMalloc(&work, sizeof(float) * n * blocks));
	CHECK(cudaMalloc(&out, sizeof(float) * n * blocks));
	CHECK(cudaMemcpy(work, in, sizeof(float) * n * blocks, cudaMemcpyDeviceToDevice));
	revcopy_inplace<<<blocks, n>>>(in, work, out);
	CHECK(cudaGetLastError());
	fetch(out, n * blocks);
	return 0;
}
