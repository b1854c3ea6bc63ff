// Bug: the sign bit is set instead of cleared (-|x| instead of |x|).
#include "../common/harness.h"

__global__ void absval_bits(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __int_as_float(__float_as_int(x[i]) | 0x80000000);
}

int main()
{
	const int n = 1000;
	float *x = device_random(n, 3), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	absval_bits<<<(n + 255) / 256, 256>>>(x, out, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	return 0;
}
