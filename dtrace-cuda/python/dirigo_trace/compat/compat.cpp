// compat.cpp: the host functions of libc10_cuda that extensions call and
// that CPU torch lacks, linked into every extension dirigo builds against
// CPU torch (dirigo_trace/ext.py).  Streams are the legacy default stream
// (a null cudaStream_t, which the record-only runtime accepts); there is
// one device, 0.
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

namespace c10 {
namespace cuda {

static CUDAStream dirigo_stream(DeviceIndex d)
{
	return CUDAStream(CUDAStream::UNCHECKED,
	                  Stream(Stream::UNSAFE, Device(DeviceType::CUDA, d < 0 ? 0 : d), 0));
}

CUDAStream getCurrentCUDAStream(DeviceIndex d) { return dirigo_stream(d); }
CUDAStream getDefaultCUDAStream(DeviceIndex d) { return dirigo_stream(d); }
CUDAStream getStreamFromPool(const bool, DeviceIndex d) { return dirigo_stream(d); }
void setCurrentCUDAStream(CUDAStream) {}
cudaStream_t CUDAStream::stream() const { return nullptr; }

DeviceIndex device_count() noexcept { return 1; }
DeviceIndex device_count_ensure_non_zero() { return 1; }
DeviceIndex current_device() { return 0; }
void set_device(DeviceIndex) {}
void device_synchronize() {}

void c10_cuda_check_implementation(const std::string &filename,
                                   const std::string &function_name,
                                   const int line_number, const bool)
{
	cudaError_t e = cudaGetLastError();
	TORCH_CHECK(false, "CUDA error: ", cudaGetErrorString(e), " (", filename, ":",
	            line_number, " in ", function_name, ")");
}

}  // namespace cuda
}  // namespace c10
