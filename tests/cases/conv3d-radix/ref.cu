// Reference for the conv3d-radix pairs: a valid (unpadded) 3x3x3
// convolution (N, CI, D, H, W) -> (N, CO, OD, OH, OW) plus a bias, a
// kernel of 3x5x7 taps, one block per (output row, depth, channel), one
// thread per output column, looping over the images.
#include "../common/harness.h"

#include "../common/conv3d_radix.h"

__global__ void conv3d_ref(const float *in, const float *wt, const float *bias, float *out)
{
	int h = blockIdx.x, d = blockIdx.y, co = blockIdx.z, w = threadIdx.x;
	for (int n = 0; n < N; n++) {
		float s = 0.0f;
		for (int ci = 0; ci < CI; ci++)
			for (int kd = 0; kd < KD; kd++)
				for (int kh = 0; kh < KH; kh++)
					for (int kw = 0; kw < KW; kw++)
						s += in[(((n * CI + ci) * D + d + kd) * H + h + kh) * W + w + kw] *
						     wt[(((co * CI + ci) * KD + kd) * KH + kh) * KW + kw];
		out[(((n * CO + co) * OD + d) * OH + h) * OW + w] = s + bias[co];
	}
}

int main()
{
	float *in = device_random(N * CI * D * H * W, 51), *wt = device_random(CO * CI * KD * KH * KW, 52);
	float *bias = device_random(CO, 53), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * OD * OH * OW));
	conv3d_ref<<<dim3(OH, OD, CO), OW>>>(in, wt, bias, out);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * OD * OH * OW);
	return 0;
}
