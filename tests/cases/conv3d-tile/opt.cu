// Optimized, as level-1 54_conv_standard_3D's kernel: a grid of (image,
// output channel, chunk of 512 outputs) with blocks of 8x8x8 threads,
// each thread's (od, oh, ow) found by division and remainder of its flat
// index by the sizes (kernel arguments), a bias pointer that may be null.
// Equal.  nvcc computes oh as (index / W) % H and od as index / (W*H),
// and folds the guard's "z >= 0 && y >= 0" into one sign test of z | y;
// the output offset ((n*CO + co)*D + od)*H*W + oh*W + ow is affine in the
// index only once (index / W) / H is index / (W*H) and the remainder and
// quotient are put back together.  Before, dexec sent these bounds to the
// solver, which gave up: the launch was unsupported.
#include "../common/harness.h"

#define N 2
#define CI 3
#define CO 4
#define D 6
#define H 5
#define W 7
#define K 3

__global__ void conv3d_tile(const float *in, const float *wt, const float *bias, float *out,
                            int ci_, int co_, int d_, int h_, int w_)
{
	int n = blockIdx.x, co = blockIdx.y;
	int index = blockIdx.z * blockDim.x * blockDim.y * blockDim.z + threadIdx.z * blockDim.x * blockDim.y +
	            threadIdx.y * blockDim.x + threadIdx.x;
	if (index >= d_ * h_ * w_)
		return;
	int ow = index % w_;
	int oh = (index / w_) % h_;
	int od = index / (w_ * h_);
	float s = 0.0f;
	for (int ci = 0; ci < ci_; ++ci)
		for (int kd = 0; kd < K; ++kd)
			for (int kh = 0; kh < K; ++kh)
				for (int kw = 0; kw < K; ++kw) {
					int z = od - 1 + kd, y = oh - 1 + kh, x = ow - 1 + kw;
					if (z >= 0 && z < d_ && y >= 0 && y < h_ && x >= 0 && x < w_)
						s += in[(((n * ci_ + ci) * d_ + z) * h_ + y) * w_ + x] *
						     wt[(((co * ci_ + ci) * K + kd) * K + kh) * K + kw];
				}
	if (bias != nullptr)
		s += bias[co];
	out[((n * co_ + co) * d_ + od) * h_ * w_ + oh * w_ + ow] = s;
}

int main()
{
	float *in = device_random(N * CI * D * H * W, 41), *wt = device_random(CO * CI * K * K * K, 42);
	float *bias = device_random(CO, 43), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N * CO * D * H * W));
	int total = D * H * W;
	conv3d_tile<<<dim3(N, CO, (total + 511) / 512), dim3(8, 8, 8)>>>(in, wt, bias, out, CI, CO, D, H, W);
	CHECK(cudaGetLastError());
	fetch(out, N * CO * D * H * W);
	return 0;
}
