// Optimized: the sign copied and applied with masks on the floats' bits.
// Equal (over the reals: the model has one zero).
#include "../common/harness.h"

__global__ void signs_bits(const float *a, const float *b, float *out, float *out2, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int ia = __float_as_int(a[i]), ib = __float_as_int(b[i]);
		out[i] = __int_as_float((ia & 0x7fffffff) | (ib & 0x80000000));
		out2[i] = __int_as_float(ia ^ (ib & 0x80000000));
	}
}

int main()
{
	const int n = 512;
	float *a = device_random(n, 4), *b = device_random(n, 5), *out, *out2;
	CHECK(cudaMalloc(&out, sizeof(float) * n));
	CHECK(cudaMalloc(&out2, sizeof(float) * n));
	signs_bits<<<n / 128, 128>>>(a, b, out, out2, n);
	CHECK(cudaGetLastError());
	fetch(out, n);
	fetch(out2, n);
	return 0;
}
