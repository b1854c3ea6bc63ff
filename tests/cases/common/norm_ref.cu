// Reference of the norm-tree and norm-onepass pairs: a layer norm over
// the rows of a ROWS x COLS matrix (no affine part), one thread per
// element, each computing its row's mean and variance by itself
// (two-pass: the mean of (x - mean)^2).
#include "harness.h"

enum { ROWS = 4, COLS = 256 };

__global__ void layer_norm(const float *x, float *out, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= rows * cols)
		return;
	const float *row = x + (i / cols) * cols;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += row[c];
	float mean = s / cols;
	float q = 0.0f;
	for (int c = 0; c < cols; c++) {
		float d = row[c] - mean;
		q += d * d;
	}
	float var = q / cols;
	out[i] = (x[i] - mean) * rsqrtf(var + 1e-5f);
}

int main()
{
	float *x = device_random(ROWS * COLS, 41), *out;
	CHECK(cudaMalloc(&out, sizeof(float) * ROWS * COLS));
	layer_norm<<<(ROWS * COLS + 127) / 128, 128>>>(x, out, ROWS, COLS);
	CHECK(cudaGetLastError());
	fetch(out, ROWS * COLS);
	return 0;
}
