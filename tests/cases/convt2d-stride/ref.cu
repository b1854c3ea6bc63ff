// Reference for the convt2d-stride pairs: a grouped transposed 2-D
// convolution with strides, padding and dilation as a gather, one block
// per (output row, channel, image), one thread per output column: every
// tap tried, the ones whose input row or column is not a whole stride
// away skipped.  The sizes are kernel arguments, as the optimized
// kernel's are: as constants, nvcc divides by them with multiply-high
// sequences, which the affine reasoning does not read (dexec(1)).
#include "../common/harness.h"
#include "../common/convt2d_stride.h"

__global__ void convt2d_ref(const float *x, const float *wt, const float *bias, float *out, int ci_,
                            int h_, int w_, int co_, int oh_, int ow_, int kh_, int kw_, int sh, int sw,
                            int ph, int pw, int dh, int dw, int groups)
{
	int ow = threadIdx.x, oh = blockIdx.x, oc = blockIdx.y, n = blockIdx.z;
	int cog = co_ / groups, cig = ci_ / groups, g = oc / cog;
	float acc = bias[oc];
	for (int kh = 0; kh < kh_; kh++) {
		int nh = oh + ph - kh * dh;
		if (nh < 0 || nh % sh != 0 || nh / sh >= h_)
			continue;
		for (int kw = 0; kw < kw_; kw++) {
			int nw = ow + pw - kw * dw;
			if (nw < 0 || nw % sw != 0 || nw / sw >= w_)
				continue;
			for (int c = g * cig; c < (g + 1) * cig; c++)
				acc += x[((n * ci_ + c) * h_ + nh / sh) * w_ + nw / sw] *
				       wt[((c * cog + oc - g * cog) * kh_ + kh) * kw_ + kw];
		}
	}
	out[((n * co_ + oc) * oh_ + oh) * ow_ + ow] = acc;
}

int main()
{
	float *x = device_random(N * CI * H * W, 81), *wt = device_random(CI * COG * KH * KW, 82);
	float *bias = device_random(CO, 83), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * OH * OW));
	convt2d_ref<<<dim3(OH, CO, N), OW>>>(x, wt, bias, out, CI, H, W, CO, OH, OW, KH, KW, SH, SW, PH, PW,
	                                      DH, DW, GROUPS);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * OH * OW);
	return 0;
}
