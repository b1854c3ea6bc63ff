// out[i] = in[REV(i)] through a work buffer that starts as a copy of in:
// each thread doubles its element of the work buffer in place, a barrier,
// then halves the mirrored element of its block.  What the load sees is
// the doubled element, not the copy the buffer held before the launch.
#include "../common/harness.h"

__global__ void revcopy_inplace(const float *in, float *work, float *out)
{
	unsigned t = threadIdx.x, b = blockIdx.x;
	work[b * blockDim.x + t] = 2.0f * in[b * blockDim.x + t];
	__syncthreads();
	out[b * blockDim.x + t] = 0.5f * work[b * blockDim.x + blockDim.x - 1 - t];
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
