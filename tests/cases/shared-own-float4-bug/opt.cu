// Optimized, the pattern of 43_MinGPTCausalAttention's softmax: a thread
// rewrites one element of its own group of four in shared memory, then
// reads the group back as one float4.  Which of the four elements it
// stored depends on the thread (i % 4), so the float4 meets the thread's
// own store at one element for each thread, and the other three come from
// before the barrier.  No other thread touches the group after the
// barrier: no race.  The element doubled is chosen by (t + 1) % 4, not
// t % 4: a bug.
#include "../common/harness.h"

#define N 128

__global__ void quadsum_shared(const float *x, float *out)
{
	__shared__ float4 s4[64];
	float *s = reinterpret_cast<float *>(s4);
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	for (int j = 0; j < 4; j++)
		s[4 * t + j] = x[4 * i + j];
	__syncthreads();
	s[4 * t + ((t + 1) & 3)] *= 2.0f;
	float4 v = s4[t];
	out[i] = v.x + v.y + v.z + v.w;
}

int main()
{
	float *x = device_random(4 * N, 31), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * N));
	quadsum_shared<<<N / 64, 64>>>(x, out);
	CHECK(cudaGetLastError());
	fetch(out, N);
	return 0;
}
