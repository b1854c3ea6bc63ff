// refused.cu: a launch of 64 x 32 = 2048 threads a block, which CUDA
// refuses (at most 1024); exits 0 when the launch reports
// cudaErrorInvalidConfiguration, as the runtime does (a test program for
// dtrace-cuda's warning about refused launches).
#include <cstdio>

__global__ void touch(int *p) { p[threadIdx.y * 64 + threadIdx.x] = 1; }

int main()
{
	int *p;
	cudaMalloc(&p, 2048 * sizeof(int));
	touch<<<1, dim3(64, 32)>>>(p);
	cudaError_t e = cudaGetLastError();
	printf("%s\n", cudaGetErrorName(e));
	return e == cudaErrorInvalidConfiguration ? 0 : 1;
}
