/*
 * errors.c: the per-thread last error and the names and descriptions of
 * cudaError_t values (forward mode: the real runtime's).  The name table was generated once from the
 * cudaError enum of CUDA 13.0's driver_types.h.
 */
#include "shim.h"

#include <stddef.h>

static _Thread_local cudaError_t last_error;

cudaError_t shim_error(cudaError_t e)
{
	if (e != cudaSuccess)
		last_error = e;
	return e;
}

SHIM_EXPORT cudaError_t cudaGetLastError(void)
{
	if (shim_forward())
		return REAL(cudaGetLastError)();
	cudaError_t e = last_error;
	last_error = cudaSuccess;
	return e;
}

SHIM_EXPORT cudaError_t cudaPeekAtLastError(void)
{
	if (shim_forward())
		return REAL(cudaPeekAtLastError)();
	return last_error;
}

static const struct { int code; const char *name; } names[] = {
	{ 0, "cudaSuccess" },
	{ 1, "cudaErrorInvalidValue" },
	{ 2, "cudaErrorMemoryAllocation" },
	{ 3, "cudaErrorInitializationError" },
	{ 4, "cudaErrorCudartUnloading" },
	{ 5, "cudaErrorProfilerDisabled" },
	{ 6, "cudaErrorProfilerNotInitialized" },
	{ 7, "cudaErrorProfilerAlreadyStarted" },
	{ 8, "cudaErrorProfilerAlreadyStopped" },
	{ 9, "cudaErrorInvalidConfiguration" },
	{ 12, "cudaErrorInvalidPitchValue" },
	{ 13, "cudaErrorInvalidSymbol" },
	{ 16, "cudaErrorInvalidHostPointer" },
	{ 17, "cudaErrorInvalidDevicePointer" },
	{ 18, "cudaErrorInvalidTexture" },
	{ 19, "cudaErrorInvalidTextureBinding" },
	{ 20, "cudaErrorInvalidChannelDescriptor" },
	{ 21, "cudaErrorInvalidMemcpyDirection" },
	{ 22, "cudaErrorAddressOfConstant" },
	{ 23, "cudaErrorTextureFetchFailed" },
	{ 24, "cudaErrorTextureNotBound" },
	{ 25, "cudaErrorSynchronizationError" },
	{ 26, "cudaErrorInvalidFilterSetting" },
	{ 27, "cudaErrorInvalidNormSetting" },
	{ 28, "cudaErrorMixedDeviceExecution" },
	{ 31, "cudaErrorNotYetImplemented" },
	{ 32, "cudaErrorMemoryValueTooLarge" },
	{ 34, "cudaErrorStubLibrary" },
	{ 35, "cudaErrorInsufficientDriver" },
	{ 36, "cudaErrorCallRequiresNewerDriver" },
	{ 37, "cudaErrorInvalidSurface" },
	{ 43, "cudaErrorDuplicateVariableName" },
	{ 44, "cudaErrorDuplicateTextureName" },
	{ 45, "cudaErrorDuplicateSurfaceName" },
	{ 46, "cudaErrorDevicesUnavailable" },
	{ 49, "cudaErrorIncompatibleDriverContext" },
	{ 52, "cudaErrorMissingConfiguration" },
	{ 53, "cudaErrorPriorLaunchFailure" },
	{ 65, "cudaErrorLaunchMaxDepthExceeded" },
	{ 66, "cudaErrorLaunchFileScopedTex" },
	{ 67, "cudaErrorLaunchFileScopedSurf" },
	{ 68, "cudaErrorSyncDepthExceeded" },
	{ 69, "cudaErrorLaunchPendingCountExceeded" },
	{ 98, "cudaErrorInvalidDeviceFunction" },
	{ 100, "cudaErrorNoDevice" },
	{ 101, "cudaErrorInvalidDevice" },
	{ 102, "cudaErrorDeviceNotLicensed" },
	{ 103, "cudaErrorSoftwareValidityNotEstablished" },
	{ 127, "cudaErrorStartupFailure" },
	{ 200, "cudaErrorInvalidKernelImage" },
	{ 201, "cudaErrorDeviceUninitialized" },
	{ 205, "cudaErrorMapBufferObjectFailed" },
	{ 206, "cudaErrorUnmapBufferObjectFailed" },
	{ 207, "cudaErrorArrayIsMapped" },
	{ 208, "cudaErrorAlreadyMapped" },
	{ 209, "cudaErrorNoKernelImageForDevice" },
	{ 210, "cudaErrorAlreadyAcquired" },
	{ 211, "cudaErrorNotMapped" },
	{ 212, "cudaErrorNotMappedAsArray" },
	{ 213, "cudaErrorNotMappedAsPointer" },
	{ 214, "cudaErrorECCUncorrectable" },
	{ 215, "cudaErrorUnsupportedLimit" },
	{ 216, "cudaErrorDeviceAlreadyInUse" },
	{ 217, "cudaErrorPeerAccessUnsupported" },
	{ 218, "cudaErrorInvalidPtx" },
	{ 219, "cudaErrorInvalidGraphicsContext" },
	{ 220, "cudaErrorNvlinkUncorrectable" },
	{ 221, "cudaErrorJitCompilerNotFound" },
	{ 222, "cudaErrorUnsupportedPtxVersion" },
	{ 223, "cudaErrorJitCompilationDisabled" },
	{ 224, "cudaErrorUnsupportedExecAffinity" },
	{ 225, "cudaErrorUnsupportedDevSideSync" },
	{ 226, "cudaErrorContained" },
	{ 300, "cudaErrorInvalidSource" },
	{ 301, "cudaErrorFileNotFound" },
	{ 302, "cudaErrorSharedObjectSymbolNotFound" },
	{ 303, "cudaErrorSharedObjectInitFailed" },
	{ 304, "cudaErrorOperatingSystem" },
	{ 400, "cudaErrorInvalidResourceHandle" },
	{ 401, "cudaErrorIllegalState" },
	{ 402, "cudaErrorLossyQuery" },
	{ 500, "cudaErrorSymbolNotFound" },
	{ 600, "cudaErrorNotReady" },
	{ 700, "cudaErrorIllegalAddress" },
	{ 701, "cudaErrorLaunchOutOfResources" },
	{ 702, "cudaErrorLaunchTimeout" },
	{ 703, "cudaErrorLaunchIncompatibleTexturing" },
	{ 704, "cudaErrorPeerAccessAlreadyEnabled" },
	{ 705, "cudaErrorPeerAccessNotEnabled" },
	{ 708, "cudaErrorSetOnActiveProcess" },
	{ 709, "cudaErrorContextIsDestroyed" },
	{ 710, "cudaErrorAssert" },
	{ 711, "cudaErrorTooManyPeers" },
	{ 712, "cudaErrorHostMemoryAlreadyRegistered" },
	{ 713, "cudaErrorHostMemoryNotRegistered" },
	{ 714, "cudaErrorHardwareStackError" },
	{ 715, "cudaErrorIllegalInstruction" },
	{ 716, "cudaErrorMisalignedAddress" },
	{ 717, "cudaErrorInvalidAddressSpace" },
	{ 718, "cudaErrorInvalidPc" },
	{ 719, "cudaErrorLaunchFailure" },
	{ 720, "cudaErrorCooperativeLaunchTooLarge" },
	{ 721, "cudaErrorTensorMemoryLeak" },
	{ 800, "cudaErrorNotPermitted" },
	{ 801, "cudaErrorNotSupported" },
	{ 802, "cudaErrorSystemNotReady" },
	{ 803, "cudaErrorSystemDriverMismatch" },
	{ 804, "cudaErrorCompatNotSupportedOnDevice" },
	{ 805, "cudaErrorMpsConnectionFailed" },
	{ 806, "cudaErrorMpsRpcFailure" },
	{ 807, "cudaErrorMpsServerNotReady" },
	{ 808, "cudaErrorMpsMaxClientsReached" },
	{ 809, "cudaErrorMpsMaxConnectionsReached" },
	{ 810, "cudaErrorMpsClientTerminated" },
	{ 811, "cudaErrorCdpNotSupported" },
	{ 812, "cudaErrorCdpVersionMismatch" },
	{ 900, "cudaErrorStreamCaptureUnsupported" },
	{ 901, "cudaErrorStreamCaptureInvalidated" },
	{ 902, "cudaErrorStreamCaptureMerge" },
	{ 903, "cudaErrorStreamCaptureUnmatched" },
	{ 904, "cudaErrorStreamCaptureUnjoined" },
	{ 905, "cudaErrorStreamCaptureIsolation" },
	{ 906, "cudaErrorStreamCaptureImplicit" },
	{ 907, "cudaErrorCapturedEvent" },
	{ 908, "cudaErrorStreamCaptureWrongThread" },
	{ 909, "cudaErrorTimeout" },
	{ 910, "cudaErrorGraphExecUpdateFailure" },
	{ 911, "cudaErrorExternalDevice" },
	{ 912, "cudaErrorInvalidClusterSize" },
	{ 913, "cudaErrorFunctionNotLoaded" },
	{ 914, "cudaErrorInvalidResourceType" },
	{ 915, "cudaErrorInvalidResourceConfiguration" },
	{ 999, "cudaErrorUnknown" },
};

static const struct { int code; const char *text; } texts[] = {
	{ cudaSuccess, "no error" },
	{ cudaErrorInvalidValue, "invalid argument" },
	{ cudaErrorMemoryAllocation, "out of memory" },
	{ cudaErrorInvalidConfiguration, "invalid configuration argument" },
	{ cudaErrorInvalidPitchValue, "invalid pitch argument" },
	{ cudaErrorInvalidSymbol, "invalid device symbol" },
	{ cudaErrorInvalidDevicePointer, "invalid device pointer" },
	{ cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy" },
	{ cudaErrorMissingConfiguration, "__global__ function call is not configured" },
	{ cudaErrorInvalidDeviceFunction, "invalid device function" },
	{ cudaErrorNoDevice, "no CUDA-capable device is detected" },
	{ cudaErrorInvalidDevice, "invalid device ordinal" },
	{ cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device" },
	{ cudaErrorInvalidResourceHandle, "invalid resource handle" },
	{ cudaErrorNotSupported, "operation not supported" },
	{ cudaErrorUnknown, "unknown error" },
};

SHIM_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	if (shim_forward())
		return REAL(cudaGetErrorName)(error);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].code == (int)error)
			return names[i].name;
	return "cudaErrorUnknown";
}

SHIM_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	if (shim_forward())
		return REAL(cudaGetErrorString)(error);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		if (texts[i].code == (int)error)
			return texts[i].text;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].code == (int)error)
			return names[i].name;
	return "unrecognized error code";
}
