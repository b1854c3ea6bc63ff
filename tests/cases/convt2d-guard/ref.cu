// Reference for the convt2d-guard pairs: a transposed 2-D convolution
// (stride 1, no padding) as a gather, one block per (output row,
// channel, image), one thread per output column.
#include "../common/harness.h"
#include "../common/convt2d_guard.h"

__global__ void convt2d_ref(const float *in, const float *wt, const float *bias, float *out)
{
	int oh = blockIdx.x, co = blockIdx.y, n = blockIdx.z, ow = threadIdx.x;
	float s = bias[co];
	for (int kh = 0; kh < KH; kh++)
		for (int kw = 0; kw < KW; kw++) {
			int ih = oh - kh, iw = ow - kw;
			if (ih >= 0 && ih < H && iw >= 0 && iw < W)
				for (int ci = 0; ci < CI; ci++)
					s += in[((n * CI + ci) * H + ih) * W + iw] * wt[((ci * CO + co) * KH + kh) * KW + kw];
		}
	out[((n * CO + co) * OH + oh) * OW + ow] = s;
}

int main()
{
	float *in = device_random(N * CI * H * W, 61), *wt = device_random(CI * CO * KH * KW, 62);
	float *bias = device_random(CO, 63), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * OH * OW));
	convt2d_ref<<<dim3(OH, CO, N), OW>>>(in, wt, bias, out);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * OH * OW);
	return 0;
}
