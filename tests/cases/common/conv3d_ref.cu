// Reference for the conv3d-tile pairs: a 3x3x3 convolution with padding 1
// (N, CI, D, H, W) -> (N, CO, D, H, W) plus a bias, one block per (image,
// output channel, depth), one thread per output pixel of the slice.
#include "harness.h"

#define N 2
#define CI 3
#define CO 4
#define D 6
#define H 5
#define W 7
#define K 3

__global__ void conv3d_ref(const float *in, const float *wt, const float *bias, float *out)
{
	int n = blockIdx.x, co = blockIdx.y, d = blockIdx.z;
	int h = threadIdx.x / W, w = threadIdx.x % W;
	float s = 0.0f;
	for (int ci = 0; ci < CI; ci++)
		for (int kd = 0; kd < K; kd++)
			for (int kh = 0; kh < K; kh++)
				for (int kw = 0; kw < K; kw++) {
					int z = d - 1 + kd, y = h - 1 + kh, x = w - 1 + kw;
					if (z >= 0 && z < D && y >= 0 && y < H && x >= 0 && x < W)
						s += in[(((n * CI + ci) * D + z) * H + y) * W + x] *
						     wt[(((co * CI + ci) * K + kd) * K + kh) * K + kw];
				}
	out[(((n * CO + co) * D + d) * H + h) * W + w] = s + bias[co];
}

int main()
{
	float *in = device_random(N * CI * D * H * W, 41), *wt = device_random(CO * CI * K * K * K, 42);
	float *bias = device_random(CO, 43), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * D * H * W));
	conv3d_ref<<<dim3(N, CO, D), H * W>>>(in, wt, bias, out);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * D * H * W);
	return 0;
}
