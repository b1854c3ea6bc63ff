// An extension that does not compile (tests/t/6300-ext-build.sh).
#include <pybind11/pybind11.h>

__global__ void k(float *y) { y[0] = undeclared_name; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}
