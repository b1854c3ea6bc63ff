// The buggy twin of conv-tail/opt.cu: the kernel drops the bottom row of
// the 3x3 window (ky < 2).  The first 3x3 convolution (padding 1)
// as a kernel of its own, one thread per output element; the rest of the
// network is the same torch ops as the reference.
#include <torch/extension.h>

__global__ void conv3x3(const float *__restrict__ x, const float *__restrict__ w,
                        const float *__restrict__ b, float *__restrict__ y,
                        int n, int c, int k, int h, int wd)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * k * h * wd)
        return;
    int ox = i % wd, oy = i / wd % h, ko = i / (wd * h) % k, no = i / (wd * h * k);
    float s = b[ko];
    for (int ci = 0; ci < c; ci++)
        for (int ky = 0; ky < 2; ky++)  // bug: the bottom row of the window
            for (int kx = 0; kx < 3; kx++) {
                int iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                    s += x[((no * c + ci) * h + iy) * wd + ix] * w[((ko * c + ci) * 3 + ky) * 3 + kx];
            }
    y[i] = s;
}

torch::Tensor forward(torch::Tensor x, torch::Tensor w1, torch::Tensor b1, torch::Tensor w2,
                      torch::Tensor b2, torch::Tensor fw, torch::Tensor fb)
{
    const int n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3), k = w1.size(0);
    auto y = torch::empty({n, k, h, wd}, x.options());
    const int total = n * k * h * wd, threads = 128;
    conv3x3<<<(total + threads - 1) / threads, threads>>>(
        x.data_ptr<float>(), w1.data_ptr<float>(), b1.data_ptr<float>(), y.data_ptr<float>(),
        n, c, k, h, wd);
    auto t = torch::relu(y);
    t = torch::relu(torch::conv2d(t, w2, b2, /*stride=*/1, /*padding=*/1));
    t = torch::max_pool2d(t, 2, 2);
    return torch::linear(t.flatten(1), fw, fb);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("forward", &forward, "conv3x3 kernel, then the reference's torch ops");
}
