// dirigo_compat.h: included first in every source of a torch extension
// that dirigo builds against CPU torch (dirigo_trace/ext.py), together with
// the source rewrites listed there.  The extension's tensors live on the
// CPU, its kernels are recorded by the record-only CUDA runtime.
//
// dirigo_compat::DeviceGuard stands for at::cuda::CUDAGuard and
// OptionalCUDAGuard: the rewrite names it instead, because the real guards
// insist on CUDA devices and the extension's tensors are on the CPU.  It
// accepts any constructor arguments and does nothing.  The stream guards
// (CUDAStreamGuard, OptionalCUDAStreamGuard) are torch's own: their
// streams are CUDA streams (compat.cpp).
#pragma once
#ifdef __cplusplus
namespace dirigo_compat {
struct DeviceGuard {
	template <class... A> explicit DeviceGuard(A &&...) {}
	template <class... A> void set_device(A &&...) {}
	template <class... A> void reset_device(A &&...) {}
	template <class... A> void set_index(A &&...) {}
	template <class... A> void reset_stream(A &&...) {}
	void reset() {}
};
}  // namespace dirigo_compat
#endif
