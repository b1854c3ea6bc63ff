// Reference for the dwconv-tile pairs: a depthwise 2-D convolution, one
// block per (output row, channel, image), one thread per output column,
// each tap guarded by the padding.  The sizes are kernel arguments (as
// constants, nvcc divides by them with multiply-high sequences).
#include "../common/harness.h"
#include "../common/dwconv_tile.h"

__global__ void dwconv_ref(const float *x, const float *wt, const float *bias, float *out, int c_, int h_,
                           int w_, int oh_, int ow_, int k_, int stride, int pad)
{
	int ow = threadIdx.x, oh = blockIdx.x, c = blockIdx.y, n = blockIdx.z;
	float acc = 0.0f;
	for (int ky = 0; ky < k_; ky++)
		for (int kx = 0; kx < k_; kx++) {
			int iy = oh * stride - pad + ky, ix = ow * stride - pad + kx;
			if (iy >= 0 && iy < h_ && ix >= 0 && ix < w_)
				acc += x[((n * c_ + c) * h_ + iy) * w_ + ix] * wt[(c * k_ + ky) * k_ + kx];
		}
	out[((n * c_ + c) * oh_ + oh) * ow_ + ow] = acc + bias[c];
}

int main()
{
	float *x = device_random(N * C * H * W, 91), *wt = device_random(C * K * K, 92);
	float *bias = device_random(C, 93), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * C * OH * OW));
	dwconv_ref<<<dim3(OH, C, N), OW>>>(x, wt, bias, out, C, H, W, OH, OW, K, STRIDE, PAD);
	CHECK(cudaGetLastError());
	fetch(out, N * C * OH * OW);
	return 0;
}
