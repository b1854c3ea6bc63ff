// compat.cpp: the host functions of libc10_cuda and libtorch_cuda that
// extensions call and that CPU torch lacks (the stream API, device
// queries, what C10_CUDA_CHECK calls), linked into every extension
// dirigo builds against CPU torch (dirigo_trace/ext.py, which builds it
// once per toolchain into the extension cache).  The CUDA calls they make
// go to the runtime dtrace-cuda preloads: without a GPU, the record-only
// runtime, for which a stream is a handle and every wait returns at once.
//
// Streams.  A c10::cuda::CUDAStream is a c10::Stream on device 0 whose id
// this file gives meaning to: id 0 is the default (legacy) stream, a null
// cudaStream_t; id k > 0 is the k-th entry of a table of cudaStream_t
// handles, made by getStreamFromPool (a pool of kPoolSize streams per
// priority, created with cudaStreamCreateWithPriority on first use, handed
// out round robin as torch does) or recorded by getStreamFromExternal.
// The current stream is per thread, as in torch.  A CUDA device guard
// implementation is registered so that c10::DeviceGuard over a CUDA device
// or stream (CUDAStream::query and synchronize use one) works; there is
// one device, 0.
#include <ATen/cuda/CUDAContext.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>

#include <atomic>
#include <mutex>
#include <ostream>
#include <vector>

namespace {

constexpr int kPoolSize = 32;

std::mutex table_lock;
std::vector<cudaStream_t> table;     // id k > 0 is table[k - 1]
c10::StreamId pool[2][kPoolSize];    // [high priority][i]: ids, 0 while unmade
std::atomic<unsigned> next_in_pool[2];
thread_local c10::StreamId current_id = 0;

c10::DeviceIndex one_device(c10::DeviceIndex d)
{
	TORCH_CHECK(d <= 0, "dirigo: CUDA device ", static_cast<int>(d),
	            " requested; the record-only runtime has one device, 0");
	return 0;
}

c10::cuda::CUDAStream make(c10::StreamId id)
{
	return c10::cuda::CUDAStream(
		c10::cuda::CUDAStream::UNCHECKED,
		c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::CUDA, 0), id));
}

// The id of handle s in the table (added when new).
c10::StreamId id_of(cudaStream_t s)
{
	if (!s)
		return 0;
	std::lock_guard<std::mutex> g(table_lock);
	for (size_t i = 0; i < table.size(); i++)
		if (table[i] == s)
			return static_cast<c10::StreamId>(i + 1);
	table.push_back(s);
	return static_cast<c10::StreamId>(table.size());
}

cudaStream_t handle_of(c10::StreamId id)
{
	if (id == 0)
		return nullptr;
	std::lock_guard<std::mutex> g(table_lock);
	TORCH_CHECK(id > 0 && static_cast<size_t>(id) <= table.size(),
	            "dirigo: no CUDA stream has id ", id);
	return table[static_cast<size_t>(id - 1)];
}

// c10::DeviceGuard and c10::StreamGuard over CUDA devices and streams.
struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
	c10::DeviceType type() const override { return c10::DeviceType::CUDA; }
	c10::Device exchangeDevice(c10::Device d) const override
	{
		one_device(d.index());
		return c10::Device(c10::DeviceType::CUDA, 0);
	}
	c10::Device getDevice() const override { return c10::Device(c10::DeviceType::CUDA, 0); }
	void setDevice(c10::Device d) const override { one_device(d.index()); }
	void uncheckedSetDevice(c10::Device) const noexcept override {}
	c10::Stream getStream(c10::Device) const noexcept override
	{
		return make(current_id).unwrap();
	}
	c10::Stream getDefaultStream(c10::Device) const override { return make(0).unwrap(); }
	c10::Stream getStreamFromGlobalPool(c10::Device d, bool high) const override
	{
		return c10::cuda::getStreamFromPool(high, d.index()).unwrap();
	}
	c10::Stream exchangeStream(c10::Stream s) const noexcept override
	{
		c10::Stream old = make(current_id).unwrap();
		current_id = s.id();
		return old;
	}
	c10::DeviceIndex deviceCount() const noexcept override { return 1; }
	void destroyEvent(void *event, const c10::DeviceIndex) const noexcept override
	{
		if (event)
			cudaEventDestroy(static_cast<cudaEvent_t>(event));
	}
	void record(void **event, const c10::Stream &stream, const c10::DeviceIndex,
	            const c10::EventFlag flag) const override
	{
		auto *e = reinterpret_cast<cudaEvent_t *>(event);
		if (!*e)
			C10_CUDA_CHECK(cudaEventCreateWithFlags(
				e, flag == c10::EventFlag::PYTORCH_DEFAULT ? cudaEventDisableTiming
				                                           : cudaEventDefault));
		C10_CUDA_CHECK(cudaEventRecord(*e, handle_of(stream.id())));
	}
	void block(void *event, const c10::Stream &stream) const override
	{
		if (event)
			C10_CUDA_CHECK(cudaStreamWaitEvent(handle_of(stream.id()),
			                                   static_cast<cudaEvent_t>(event), 0));
	}
	bool queryEvent(void *event) const override
	{
		return !event || cudaEventQuery(static_cast<cudaEvent_t>(event)) == cudaSuccess;
	}
	bool queryStream(const c10::Stream &s) const override
	{
		return cudaStreamQuery(handle_of(s.id())) == cudaSuccess;
	}
	void synchronizeStream(const c10::Stream &s) const override
	{
		C10_CUDA_CHECK(cudaStreamSynchronize(handle_of(s.id())));
	}
	void recordDataPtrOnStream(const c10::DataPtr &, const c10::Stream &) const override {}
};

// Registered when the extension is loaded (C10_REGISTER_GUARD_IMPL, spelled
// out so that it needs no unique name from the preprocessor).
const c10::impl::DeviceGuardImplRegistrar dirigo_guard_registrar(c10::DeviceType::CUDA,
                                                                 new GuardImpl());

}  // namespace

namespace c10 {
namespace cuda {

CUDAStream getStreamFromPool(const bool high, DeviceIndex d)
{
	one_device(d);
	int p = high ? 1 : 0;
	unsigned i = next_in_pool[p]++ % kPoolSize;
	{
		std::lock_guard<std::mutex> g(table_lock);
		if (pool[p][i])
			return make(pool[p][i]);
	}
	int least = 0, greatest = 0;
	cudaDeviceGetStreamPriorityRange(&least, &greatest);
	cudaStream_t s = nullptr;
	C10_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
	                                            high ? greatest : least));
	StreamId id = id_of(s);
	std::lock_guard<std::mutex> g(table_lock);
	pool[p][i] = id;
	return make(id);
}

CUDAStream getStreamFromExternal(cudaStream_t s, DeviceIndex d)
{
	one_device(d);
	return make(id_of(s));
}

CUDAStream getCurrentCUDAStream(DeviceIndex d)
{
	one_device(d);
	return make(current_id);
}

CUDAStream getDefaultCUDAStream(DeviceIndex d)
{
	one_device(d);
	return make(0);
}

void setCurrentCUDAStream(CUDAStream s) { current_id = s.id(); }

cudaStream_t CUDAStream::stream() const { return handle_of(id()); }

std::ostream &operator<<(std::ostream &os, const CUDAStream &s) { return os << s.unwrap(); }

DeviceIndex device_count() noexcept { return 1; }
DeviceIndex device_count_ensure_non_zero() { return 1; }
DeviceIndex current_device() { return 0; }
void set_device(DeviceIndex d) { one_device(d); }
void device_synchronize() { C10_CUDA_CHECK(cudaDeviceSynchronize()); }

// Called by stream_synchronize and memcpy_and_sync when torch's sync debug
// mode (torch.cuda.set_sync_debug_mode) is on, which CPU torch cannot set.
void warn_or_error_on_sync() {}

void c10_cuda_check_implementation(const std::string &filename,
                                   const std::string &function_name,
                                   const int line_number, const bool)
{
	cudaError_t e = cudaGetLastError();
	TORCH_CHECK(false, "CUDA error: ", cudaGetErrorString(e), " (", filename, ":",
	            line_number, " in ", function_name, ")");
}

namespace CUDACachingAllocator {
// Tensors here are CPU tensors: nothing to keep alive for a stream.
void recordStream(const DataPtr &, CUDAStream) {}
}  // namespace CUDACachingAllocator

}  // namespace cuda
}  // namespace c10

namespace at {
namespace cuda {

cudaDeviceProp *getDeviceProperties(int64_t device)
{
	static cudaDeviceProp prop;
	static std::once_flag once;
	TORCH_CHECK(device <= 0, "dirigo: CUDA device ", device,
	            " requested; the record-only runtime has one device, 0");
	std::call_once(once, [] { C10_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0)); });
	return &prop;
}

cudaDeviceProp *getCurrentDeviceProperties() { return getDeviceProperties(0); }
int warp_size() { return getCurrentDeviceProperties()->warpSize; }
bool canDeviceAccessPeer(int64_t, int64_t) { return false; }

}  // namespace cuda
}  // namespace at
