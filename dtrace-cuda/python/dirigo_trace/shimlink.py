"""shimlink: the torch recorder's side of the link with the record-only
CUDA runtime (dtrace-cuda/shim/torch.c), when dtrace-cuda preloads it into
this process.

Through it the recorder writes its records into the runtime's trace (one
stream, in program order), tells the runtime where each torch storage
lives (so that a kernel argument pointing into a tensor is recorded as
{"storage": id, "off": bytes}), silences the runtime while a torch op runs,
and learns which storages launches, copies and memsets reached (they get
new versions, one per event).
"""
import ctypes


class ShimLink:
    """The runtime's dirigo_trace_* functions; find() returns None when the
    runtime is not loaded or does not record in this process."""

    def __init__(self, lib):
        self._write = lib.dirigo_trace_write
        self._write.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self._write.restype = ctypes.c_int
        self._storage = lib.dirigo_trace_storage
        self._storage.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32]
        self._storage.restype = None
        self._suppress = lib.dirigo_trace_suppress
        self._suppress.argtypes = [ctypes.c_int]
        self._suppress.restype = None
        self._written = lib.dirigo_trace_written
        self._written.argtypes = [ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint32]
        self._written.restype = ctypes.c_uint32
        self._buf = (ctypes.c_uint32 * 256)()

    @staticmethod
    def find():
        try:
            lib = ctypes.CDLL(None)
            active = lib.dirigo_trace_active
        except (OSError, AttributeError):
            return None
        active.restype = ctypes.c_int
        if not active():
            return None
        return ShimLink(lib)

    def write(self, data):
        if self._write(data, len(data)) != 0:
            raise OSError("cannot write the trace")

    def storage(self, base, nbytes, sid):
        self._storage(base, nbytes, sid)

    def suppress(self, delta):
        self._suppress(delta)

    def written(self):
        """Storage ids written since the last call: one entry per launch
        given a pointer into the storage, and per copy or memset into it."""
        out = []
        while True:
            n = self._written(self._buf, len(self._buf))
            out.extend(self._buf[:n])
            if n < len(self._buf):
                return out
