"""shapes: trace by shape, recording torch ops without computing them.

The analysis never uses the values torch ops compute while a program is
traced, only what the records say: the op, its arguments, the shapes,
strides, dtypes, storages and versions of the tensors.  So while tracing
by shape (dtrace-cuda --kernelbench, unless --compute), ShapeRunner.run
stands in for calling an op:

  * a view (an op whose result aliases an argument: view, transpose,
    expand, select, split, _unsafe_view, ...) runs as usual, since it
    computes nothing and its aliasing is what the records name;
  * any other op runs on meta tensors of its arguments' shapes and strides
    (torch's meta kernels: shapes, strides and dtypes without data); a
    fresh result becomes a tensor of those shapes, strides and dtype over
    memory mapped without access ("poisoned", see Poison); an op that
    writes its arguments in place is checked the same way and returns
    them unchanged;
  * an op runs as usual, computing, when all its tensor arguments hold the
    values a computing trace would give them (inputs, parameters,
    constants, results computed so far) and either it is small (at most
    SMALL bytes in and out: its values stay available to the program at
    no cost) or it has no meta kernel.

So the records are the ones a computing trace writes (the recorder does
not know which way an op ran); only values are missing, and no record
holds the value of an op's result.  When the program needs one anyway, the
trace stops with status RETRACE and dtrace-cuda traces it again computing
(the safe choice; never garbage): an op that must compute (no meta kernel,
a result that is not a tensor such as .item(), a resize) over a value
that was not computed, or a read of poisoned memory outside torch ops
(Tensor.tolist(), numpy(), host code of an extension, a copy out of a
tensor): the record-only runtime catches the fault (shim/poison.c).

One gap remains: an op that writes in place into memory that is not
poisoned (native_batch_norm's running statistics in training mode, a
copy into an input) from values that were not computed leaves that memory
stale; ops that later read it must compute and stop the trace, but a
read outside torch ops is not seen.
"""
import ctypes
import mmap
import os
import sys
import warnings

import torch

from .recorder import storage_ptr
from .status import RETRACE  # noqa: F401 (shapes.RETRACE, as before)
# Ops over computed values of at most this many bytes in and out compute
# ($DIRIGO_SHAPES_SMALL: 0 makes every op with a meta kernel run by shape,
# which the tests use to compare traces of small programs).
SMALL = int(os.environ.get("DIRIGO_SHAPES_SMALL", 64 << 10))
PAGE = mmap.PAGESIZE

# Results that alias an argument although the schema does not say so.
ALIASING = {"_unsafe_view"}
# Ops that change a tensor's size or storage: run as usual, on memory that
# holds computed values only.
RESIZING = {"set_", "resize_", "resize_as_", "_resize_output_", "resize_as_sparse_"}
# Ops that read only the shape of their tensor arguments: run as usual even
# on values not computed.
VALUE_FREE = {"empty_like", "zeros_like", "ones_like", "full_like", "new_empty",
              "new_empty_strided", "new_zeros", "new_ones", "new_full"}


def _python_metas():
    """Ops whose meta kernel is written in Python (torch._meta_registrations):
    they check less than the real kernels and choose strides for CUDA, so
    they are not used (convolution has its own rule, conv_meta)."""
    try:
        import torch._meta_registrations as mr
        impls = mr._meta_lib_dont_use_me_use_register_meta._op_impls
    except (ImportError, AttributeError):
        return None         # unknown: trust no meta kernel written in Python
    out = set()
    for k in impls:
        parts = k.split("/")
        if len(parts) == 3 and parts[2] == "Meta":
            out.add(parts[0] + "::" + parts[1])
    return out


def conv_meta(named):
    """aten::convolution on the CPU, by shape: the checks its kernel makes
    (check_shape_forward in ATen's Convolution.cpp) and its result, a meta
    tensor in the memory format the CPU kernels give (channels last when
    the input or the weight is, else contiguous).  Raises ValueError where
    the kernel would fail (the caller then runs the real one)."""
    v = {a.name: x for a, x in named}
    x, w, b = v["input"], v["weight"], v.get("bias")
    stride, pad, dil = list(v["stride"]), list(v["padding"]), list(v["dilation"])
    transposed, opad, groups = bool(v["transposed"]), list(v["output_padding"]), int(v["groups"])
    k = x.dim()
    n = k - 2
    if k < 3 or w.dim() != k or x.dtype != w.dtype or (b is not None and b.dtype != x.dtype):
        raise ValueError("convolution arguments")

    def expand(p):
        if len(p) == 1:
            return p * n
        if len(p) != n:
            raise ValueError("convolution parameter length")
        return p
    stride, pad, dil = expand(stride), expand(pad), expand(dil)
    opad = expand(opad) if transposed else [0] * n
    ws = list(w.shape)
    if (any(p < 0 for p in pad) or any(p < 0 for p in opad) or any(s <= 0 for s in stride) or
            groups <= 0 or ws[0] < groups or ws[0] % groups or any(d <= 0 for d in dil)):
        raise ValueError("convolution parameters")
    if not transposed:
        if x.shape[1] != ws[1] * groups or (b is not None and (b.dim() != 1 or
                                                               b.shape[0] != ws[0])):
            raise ValueError("convolution channels")
        out_c = ws[0]
        spatial = [(x.shape[2 + i] + 2 * pad[i] - dil[i] * (ws[2 + i] - 1) - 1) // stride[i] + 1
                   for i in range(n)]
        if any(x.shape[2 + i] + 2 * pad[i] < dil[i] * (ws[2 + i] - 1) + 1 for i in range(n)):
            raise ValueError("convolution kernel larger than its input")
    else:
        if x.shape[1] != ws[0] or (b is not None and (b.dim() != 1 or
                                                      b.shape[0] != ws[1] * groups)):
            raise ValueError("convolution channels")
        if any(opad[i] >= stride[i] and opad[i] >= dil[i] for i in range(n)):
            raise ValueError("convolution output padding")
        out_c = ws[1] * groups
        spatial = [(x.shape[2 + i] - 1) * stride[i] - 2 * pad[i] + dil[i] * (ws[2 + i] - 1) +
                   opad[i] + 1 for i in range(n)]
    if any(s < 1 for s in spatial) or x.shape[0] < 0:
        raise ValueError("convolution output size")
    fmt = torch.contiguous_format
    if k in (4, 5):
        cl = torch.channels_last if k == 4 else torch.channels_last_3d
        if any(t.is_contiguous(memory_format=cl) and not t.is_contiguous() for t in (x, w)):
            fmt = cl
    return torch.empty([x.shape[0], out_c] + spatial, dtype=x.dtype, device="meta",
                       memory_format=fmt)


class Poison:
    """Memory with no access for results that are not computed, registered
    with the record-only runtime, which stops the program when it reads
    one (dirigo_trace_poison).

    Results are carved, page-aligned, out of regions of REGION bytes
    reserved without access and registered once each (a larger result gets
    a region of its own): a GRU's 55,000 uncomputed step results cost one
    mapping each before.  Nothing is given back until the process ends, so
    no address is handed out twice and every result is a storage of its
    own; the memory is never touched, so it costs address space only."""

    REGION = 1 << 32

    def __init__(self, lib):
        self._poison = lib.dirigo_trace_poison
        self._poison.argtypes = [ctypes.c_uint64, ctypes.c_uint64]
        self._poison.restype = ctypes.c_int
        self.live = set()       # storage base addresses of poisoned results
        self._maps = []         # the regions (kept mapped)
        self._map = None        # the region results are carved from
        self._used = 0          # bytes of it handed out

    @staticmethod
    def find():
        """A Poison over the runtime in this process, or None."""
        try:
            lib = ctypes.CDLL(None)
            lib.dirigo_trace_poison
        except (OSError, AttributeError):
            return None
        return Poison(lib)

    def _region(self, length):
        """A new region of length bytes, reserved, without access, poisoned."""
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
        m = mmap.mmap(-1, length, flags=flags, prot=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = torch.frombuffer(m, dtype=torch.uint8, count=1).data_ptr()
        if self._poison(base, length) != 0:
            raise MemoryError("cannot register poisoned memory")
        self._maps.append(m)
        return m

    def tensor(self, size, stride, offset, dtype, nbytes):
        """A tensor of that shape over fresh poisoned memory of nbytes (no
        memory when nbytes is 0: torch allocates none either, and the
        recorder counts on the null data pointer)."""
        if nbytes == 0:
            return torch.empty_strided(size, stride, dtype=dtype)
        length = (nbytes + PAGE - 1) // PAGE * PAGE
        if length > self.REGION // 4:
            m, at = self._region(length), 0
        else:
            if self._map is None or self._used + length > self.REGION:
                self._map, self._used = self._region(self.REGION), 0
            m, at = self._map, self._used
            self._used += length
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = torch.frombuffer(m, dtype=torch.uint8, count=nbytes, offset=at)
        self.live.add(raw.data_ptr())
        return raw.view(dtype).as_strided(size, stride, offset)

    def poisoned(self, t):
        return storage_ptr(t) in self.live


def _storage_nbytes(t):
    try:
        return t.untyped_storage().nbytes()
    except AttributeError:
        return t.storage().nbytes()


def _tensors(v):
    if isinstance(v, torch.Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _tensors(x)


def _nbytes(t):
    return t.numel() * t.element_size()


class ShapeRunner:
    """Runs ops for the recorder while tracing by shape (see the top)."""

    def __init__(self, poison):
        self.poison = poison
        self.python_metas = _python_metas()
        self.stale = set()      # storage pointers written in place from uncomputed values
        self.meta_ops = 0       # ops run on meta tensors (for the bench)
        self.real_ops = 0

    def faithful(self, t):
        """Whether t holds what a computing trace would give it."""
        p = storage_ptr(t)
        return p not in self.poison.live and p not in self.stale

    def needs_values(self, name, why):
        """Stops the trace: the program needs values this trace does not have."""
        print("dirigo_trace: %s: %s; tracing again, computing every op" % (name, why),
              file=sys.stderr)
        sys.stderr.flush()
        os._exit(RETRACE)

    def run(self, func, info, named, args, kwargs):
        """What func(*args, **kwargs) returns, computed or by shape;
        info: its recorder.OpInfo; named: [(schema argument, value)] of the
        call."""
        base, name = info.base, info.name
        if info.view or base in ALIASING:
            return func(*args, **kwargs)
        hidden = info.hidden if info.hidden and any(a.name == "training" and v
                                                    for a, v in named) else ()
        inputs, targets = [], []
        for (a, v), w in zip(named, info.writes):
            if isinstance(v, torch.Tensor):
                ts = [v]
            elif isinstance(v, (list, tuple)):
                ts = list(_tensors(v))
            else:
                continue
            if w or a.name in hidden:
                targets += ts
            else:
                inputs += ts
        unfaithful = [t for t in inputs + targets if not self.faithful(t)]
        # Results that are not tensors (.item(), equal) are values; an op
        # with no result and nothing written (an assert) reads values.
        reads = not info.tensor_returns or (not info.returns and not targets)
        if base in RESIZING or reads:
            if unfaithful:
                self.needs_values(name, "it needs the values of a tensor not computed")
            self.real_ops += 1
            return func(*args, **kwargs)
        if base in VALUE_FREE and not targets:
            self.real_ops += 1
            return func(*args, **kwargs)
        try:
            if name == "aten::convolution":
                mres = conv_meta(named)
            elif self.python_metas is None or name in self.python_metas:
                raise NotImplementedError(name)
            else:
                mres = self._on_meta(func, args, kwargs)
        except Exception:  # no meta kernel, or an error the real op gives too
            if unfaithful:
                self.needs_values(name, "it has no meta kernel and a tensor it reads "
                                  "was not computed")
            self.real_ops += 1
            return func(*args, **kwargs)
        outs = [t for t in _tensors(mres) if t.device.type == "meta"]
        small = sum(_nbytes(t) for t in inputs + targets) + sum(_nbytes(t) for t in outs)
        if not unfaithful and (small <= SMALL or targets):
            # Computed: small, or an in-place write into computed memory
            # (cheap to keep right, costly to get wrong).
            self.real_ops += 1
            return func(*args, **kwargs)
        self.meta_ops += 1
        return self._results(info, named, mres, targets)

    def _on_meta(self, func, args, kwargs):
        def conv(v):
            if isinstance(v, torch.Tensor):
                if v.dim() == 0 and v.device.type == "cpu" and self.faithful(v):
                    return v            # a CPU scalar, as mixed with other devices
                return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")
            if isinstance(v, torch.device) and v.type == "cpu":
                return torch.device("meta")
            if isinstance(v, (list, tuple)):
                return type(v)(conv(x) for x in v)
            return v
        margs = [conv(a) for a in args]
        mkwargs = {k: conv(v) for k, v in kwargs.items()}
        return func(*margs, **mkwargs)

    def _results(self, info, named, mres, targets):
        """The results of a call run on meta tensors: the written arguments
        for the returns that alias them, poisoned tensors for the rest."""
        by_set = {}
        if info.any_writes:
            for (a, v), w in zip(named, info.writes):
                if w:
                    for s in a.alias_info.before_set:
                        by_set[s] = v
        seq = isinstance(mres, (list, tuple))
        mlist = list(mres) if seq else [mres]
        out = []
        returns = info.returns
        for i, m in enumerate(mlist):
            ret = returns[i] if i < len(returns) else returns[-1]
            if ret.alias_info is not None and ret.alias_info.is_write:
                real = None
                for s in ret.alias_info.before_set:
                    real = by_set.get(s, real)
                if not isinstance(real, torch.Tensor) or not isinstance(m, torch.Tensor) or \
                        tuple(real.shape) != tuple(m.shape) or real.stride() != m.stride():
                    self.needs_values(info.name, "it resizes a tensor not computed")
                out.append(real)
            elif isinstance(m, torch.Tensor) and m.device.type == "meta":
                out.append(self.poison.tensor(m.shape, m.stride(), m.storage_offset(), m.dtype,
                                              _storage_nbytes(m)))
            else:
                out.append(m)
        for t in targets:
            if self.faithful(t):
                self.stale.add(storage_ptr(t))
        if not seq:
            return out[0]
        return type(mres)(out) if isinstance(mres, tuple) else out
