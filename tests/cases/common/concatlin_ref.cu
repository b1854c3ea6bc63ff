// Reference: h'[r][j] = tanh(bias[j] + sum_k [x | h][r][k] * w[j][k]),
// the linear layer of an RNN cell over the concatenation of the input x
// (rows x XS) and the hidden state h (rows x HS), one thread per output,
// the x part and the h part in two loops.
#include "harness.h"

#define ROWS 2
#define XS 40
#define HS 24
#define OUTS 8

__global__ void concat_linear(const float *x, const float *h, const float *w, const float *bias,
                              float *out)
{
	int r = blockIdx.x, j = threadIdx.x;
	float s = 0.0f;
	for (int k = 0; k < XS; k++)
		s += x[r * XS + k] * w[j * (XS + HS) + k];
	for (int k = 0; k < HS; k++)
		s += h[r * HS + k] * w[j * (XS + HS) + XS + k];
	out[r * OUTS + j] = tanhf(s + bias[j]);
}

int main()
{
	float *x = device_random(ROWS * XS, 21), *h = device_random(ROWS * HS, 22);
	float *w = device_random(OUTS * (XS + HS), 23), *bias = device_random(OUTS, 24), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * ROWS * OUTS));
	concat_linear<<<ROWS, OUTS>>>(x, h, w, bias, out);
	CHECK(cudaGetLastError());
	fetch(out, ROWS * OUTS);
	return 0;
}
