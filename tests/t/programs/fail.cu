// fail.cu: allocates, launches, then exits with status 3 (a test program
// for dtrace-cuda's handling of failing programs).
__global__ void touch(int *p) { p[threadIdx.x] = 1; }

int main()
{
	int *p;
	cudaMalloc(&p, 32 * sizeof(int));
	touch<<<1, 32>>>(p);
	cudaDeviceSynchronize();
	return 3;
}
