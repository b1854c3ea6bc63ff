// C = A B for lower triangular A and B (tests/kernelbench/matmul-tril-bug):
// one thread per element; the upper triangle is zero, and below it only
// the terms with col <= k <= row are not zero; the bug: k < row drops
// the diagonal term A[row][row] B[row][col].
#include <torch/extension.h>

__global__ void tril_mm(const float *A, const float *B, float *C, int n)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= n || col >= n)
		return;
	float sum = 0.0f;
	if (col <= row)
		for (int k = col; k < row; k++)
			sum += A[row * n + k] * B[k * n + col];
	C[row * n + col] = sum;
}

torch::Tensor forward(torch::Tensor A, torch::Tensor B)
{
	int n = A.size(0);
	auto C = torch::empty_like(A);
	dim3 threads(8, 8), blocks((n + 7) / 8, (n + 7) / 8);
	tril_mm<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), n);
	return C;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "lower triangular matmul"); }
