"""recorder: a TorchDispatchMode that writes torch records of a dirigo trace.

Record layouts are in dirigo-trace(5), section TORCH RECORDS, and in
formats/torch.h.  In short:

  tensor   a tensor value: a view (shape, stride, offset, dtype) of one
           version of one storage; ids name values, so a value never changes
  tinput   a tensor the program starts from: an input, a parameter, a buffer
           or a constant, with its bytes when small
  op       one aten call: every schema argument by name, the result tensors,
           and the tensors it wrote in place (new versions of their storage)
  toutput  a tensor the program returns
  tunsupported  the op that makes the program unsupported (data-
           dependent), after which recording stops

A random op (rand*, bernoulli, normal_, dropout with p > 0 in training
mode, ...) is recorded with "random": true and its results' tensor records
carry their bytes: dmerge makes each result a fresh input of its program.

While the recorder generates the inputs (gen_inputs(): get_inputs() of a
KernelBench pair that does more than draw random tensors, such as
torch.tril(torch.randn(N, N))), each random tensor drawn is instead an
input of the program, named genK in the order drawn, the same on both
sides, and the ops made of them are the program's first ops: the
program is checked on the inputs get_inputs() can make, not on all.

Storage versions follow the one rule of dirigo-trace(5), section STORAGE
VERSIONS, which dmerge follows too: an op that writes a storage in place
(an argument whose schema says Tensor(a!)) makes a new version of it, and
so does each launch, copy or memset of the record-only runtime that
reached it (one entry each from ShimLink.written()); a view taken
afterwards names the new version.  A result that is not an alias gets a
new storage even where the allocator reuses an address.
"""
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import torchver

DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.int64: "s64", torch.int32: "s32",
    torch.int16: "s16", torch.int8: "s8", torch.uint8: "u8", torch.bool: "u8",
}

# Ops whose results are random: recorded with "random": true.
RANDOM_OPS = {
    "rand", "randn", "randint", "rand_like", "randn_like", "randint_like",
    "randperm", "bernoulli", "bernoulli_", "normal", "normal_", "uniform_",
    "exponential_", "multinomial", "poisson", "cauchy_", "geometric_",
    "log_normal_", "random_", "rrelu_with_noise", "rrelu_with_noise_",
}
# Random ops that draw a new tensor (no in-place fill): while generating
# inputs, each draw is an input of the program (Recorder.gen_inputs).
DRAW_OPS = {"rand", "randn", "rand_like", "randn_like", "normal"}
DROPOUT_OPS = {"native_dropout", "dropout", "dropout_", "feature_dropout",
               "alpha_dropout", "feature_alpha_dropout"}
# Ops that move tensor values into Python or make shapes depend on data.
DATA_DEPENDENT_OPS = {"_local_scalar_dense", "nonzero", "masked_select",
                      "_unique2", "unique_dim", "unique_consecutive",
                      "item", "equal", "is_nonzero"}


# Arguments some ops write in place although their schema does not say so
# (native_batch_norm updates the running statistics in training, in torch
# 1.13 and 2.x alike; 2.x's _native_batch_norm_legit says so itself).
HIDDEN_WRITES = {
    "native_batch_norm": ("running_mean", "running_var"),
    "cudnn_batch_norm": ("running_mean", "running_var"),
    "miopen_batch_norm": ("running_mean", "running_var"),
}

# Conversions, which _index_table looks at.
CONVERT_OPS = {"_to_copy", "to"}
# In-place ops that change only a tensor's geometry (sizes, strides),
# never an element, although their schema marks self as written
# (Tensor(a!)): adaptive_avg_pool1d restrides its result with as_strided_.
# Their result is a view, on the version of the storage that is there.
METADATA_WRITES = {
    "as_strided_", "t_", "transpose_", "squeeze_", "unsqueeze_", "swapdims_",
    "swapaxes_", "detach_",
}


class Unsupported(Exception):
    """The program does something dirigo cannot model; op names the aten op."""

    def __init__(self, op, message):
        super().__init__(message)
        self.op = op
        self.message = message


def op_name(func):
    """"aten::add.Tensor" for aten.add.Tensor, "aten::relu" for the default."""
    s = func._schema
    return s.name + ("." + s.overload_name if s.overload_name else "")


class OpInfo:
    """What the recorder and the shape runner ask of an op's schema, worked
    out once per op (op_info): a GRU makes 86,000 calls of a dozen ops.

    name, base: "aten::add.Tensor" and "add"; args: the schema arguments;
    types: str() of each one's type; writes: whether each is written in
    place (Tensor(a!), but not by METADATA_WRITES); hidden: names
    written although the schema does
    not say so, in training (HIDDEN_WRITES); returns: the schema returns;
    view: a result aliases an argument without writing it; tensor_returns:
    every return is a tensor."""

    __slots__ = ("name", "base", "args", "types", "writes", "any_writes", "hidden",
                 "returns", "view", "tensor_returns")

    def __init__(self, func):
        schema = func._schema
        self.name = op_name(func)
        self.base = schema.name.split("::")[-1]
        self.args = list(schema.arguments)
        self.types = [str(a.type) for a in self.args]
        self.writes = [a.alias_info is not None and a.alias_info.is_write and
                       self.base not in METADATA_WRITES for a in self.args]
        self.any_writes = any(self.writes)
        self.hidden = HIDDEN_WRITES.get(self.base, ())
        self.returns = list(schema.returns)
        self.view = self.base in METADATA_WRITES or any(
            r.alias_info is not None and not r.alias_info.is_write for r in self.returns)
        self.tensor_returns = all("Tensor" in str(r.type) for r in self.returns)


_OP_INFO = {}


def op_info(func):
    """func's OpInfo, made on first use."""
    info = _OP_INFO.get(func)
    if info is None:
        info = _OP_INFO[func] = OpInfo(func)
    return info


def dtype_name(dt):
    return DTYPES.get(dt, str(dt).replace("torch.", ""))


def tensor_bytes(t):
    """The tensor's elements in row-major order, as bytes of its dtype."""
    c = t.detach().contiguous().cpu()
    if c.dtype == torch.bfloat16:
        c = c.view(torch.int16)
    elif c.dtype == torch.bool:
        c = c.to(torch.uint8)
    return c.numpy().tobytes()


_FAST_HASH = []


def fnv1a64(b):
    """The trace's content hash of bytes b (FNV-1a 64, as hex): by the
    record-only runtime's dirigo_trace_hash when it is loaded, else here."""
    if not _FAST_HASH:
        import ctypes
        try:
            f = ctypes.CDLL(None).dirigo_trace_hash
            f.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
            f.restype = None
            _FAST_HASH.append(f)
        except (OSError, AttributeError):
            _FAST_HASH.append(None)
    if _FAST_HASH[0] is not None:
        import ctypes
        out = ctypes.create_string_buffer(17)
        _FAST_HASH[0](bytes(b), len(b), out)
        return out.value.decode()
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def storage_ptr(t):
    """The address of t's storage.  For a strided tensor that is its data
    pointer less its offset (what TensorImpl computes the other way), which
    makes no storage object: a GRU's 86,000 step ops ask about 800,000
    times, and torch 1.x's t.storage() builds a Python TypedStorage each
    time."""
    if t.layout is torch.strided:
        return t.data_ptr() - t.storage_offset() * t.element_size()
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:           # torch 1.x
        return t.storage().data_ptr()


def storage_nbytes(t):
    try:
        return t.untyped_storage().nbytes()
    except AttributeError:           # torch 1.x
        return t.storage().nbytes()


class Recorder(TorchDispatchMode):
    """Records every aten call made while it is active.

    write: a callable given each record (a dict) in order.
    max_data: inputs of at most this many bytes carry their bytes.
    all_data: every tensor record carries its bytes (for tests).
    link: a shimlink.ShimLink when the record-only CUDA runtime records
    this process (kernels mixed with torch ops), else None.  Then every
    storage is registered with it, it records nothing while an op runs,
    and a storage that a kernel launch was given gets a new version.
    shapes: a shapes.ShapeRunner that runs the ops (trace by shape), or
    None to call them.
    """

    def __init__(self, write, max_data=1 << 20, all_data=False, link=None, shapes=None):
        super().__init__()
        torchver.warn_once()
        self.write = write
        self.link = link
        self.shapes = shapes
        self.by_sid = {}        # storage id -> its entry in storages
        self.max_data = max_data
        self.all_data = all_data
        self.storages = {}      # data pointer -> [storage id, version]
        self.values = {}        # (storage, version, offset, shape, stride, dtype) -> id
        self.next_storage = 0
        self.next_tensor = 0
        self.seq = 0
        self.busy = False
        self.consts = set()     # (storage id, version) of values that are constants
        self.buffers = {}       # (storage id, version) of a float buffer as made -> its name
        self.gen = None         # while generating inputs: the number of draws so far

    # ---- tensors ---------------------------------------------------------

    def _new_storage(self, ptr, t):
        entry = [self.next_storage, 0]
        self.storages[ptr] = entry
        self.by_sid[self.next_storage] = entry
        if self.link is not None and ptr:
            self.link.storage(ptr, storage_nbytes(t), self.next_storage)
        self.next_storage += 1

    def _bump(self, t):
        ptr = storage_ptr(t)
        if ptr not in self.storages or ptr == 0:
            self._new_storage(ptr, t)
        else:
            self.storages[ptr][1] += 1

    def sync(self):
        """Gives a storage one new version per launch that was given a
        pointer into it (the kernel may have written it), and per copy or
        memset that wrote it, since the last call."""
        if self.link is None:
            return
        for sid in self.link.written():
            entry = self.by_sid.get(sid)
            if entry is not None:
                entry[1] += 1

    def tensor_id(self, t, fresh=False, data=False, ptr=None):
        """The id of t's current value, writing its tensor record if new.
        fresh: t's storage is new (an op's non-alias result); data: the
        record carries t's bytes (as with all_data); ptr: storage_ptr(t),
        when the caller has it."""
        if ptr is None:
            ptr = storage_ptr(t)
        entry = self.storages.get(ptr)
        if fresh or entry is None or ptr == 0:
            self._new_storage(ptr, t)
            entry = self.storages[ptr]
        sid, ver = entry
        offset, shape, stride = t.storage_offset(), tuple(t.shape), t.stride()
        key = (sid, ver, offset, shape, stride, t.dtype)
        tid = self.values.get(key)
        if tid is not None:
            return tid
        tid = self.next_tensor
        self.next_tensor += 1
        self.values[key] = tid
        rec = {"t": "tensor", "tensor": tid, "storage": sid, "version": ver,
               "dtype": dtype_name(t.dtype), "shape": list(shape),
               "stride": list(stride), "offset": offset,
               "device": t.device.type}
        if self.all_data or data:
            rec["data"] = tensor_bytes(t)
        self.write(rec)
        return tid

    def _version(self, t):
        """(storage id, version) of t's current value."""
        return tuple(self.storages[storage_ptr(t)])

    def _constant_operands(self, named):
        """Whether every tensor operand of the call is a constant: made
        from constants only, so the same for every input of the program."""
        storages, consts = self.storages, self.consts
        for _, v in named:
            for t in (v if isinstance(v, (list, tuple)) else [v]):
                if isinstance(t, torch.Tensor):
                    entry = storages.get(storage_ptr(t))
                    if entry is None or tuple(entry) not in consts:
                        return False
        return True

    def _same_value(self, named):
        """Whether the call's tensor operands are all one value: the same
        elements of the same version of one storage (torch.equal(x, x),
        as libtorch's MultiheadAttention asks of its query, key and value
        to choose self-attention), whose answer no input can change."""
        keys = set()
        for _, v in named:
            for t in (v if isinstance(v, (list, tuple)) else [v]):
                if isinstance(t, torch.Tensor):
                    ptr = storage_ptr(t)
                    if ptr not in self.storages:
                        return False
                    keys.add((tuple(self.storages[ptr]), t.storage_offset(), tuple(t.shape),
                              t.stride(), t.dtype))
        return len(keys) == 1

    def known(self, t):
        return storage_ptr(t) in self.storages

    def add_input(self, t, role, name, data=None, own=None):
        """Declares t a tensor the program starts from (role: "input",
        "param", "buffer" or "constant"); its bytes go with it when at most
        max_data (always for constants).  own: the program's own name for
        it, when name is the reference's (dtrace-cuda --kernelbench)."""
        tid = self.tensor_id(t, fresh=not self.known(t))
        if role == "constant":
            self.consts.add(self._version(t))
        elif role == "buffer":
            self.buffers[self._version(t)] = name
        rec = {"t": "tinput", "tensor": tid, "role": role, "name": name}
        if own is not None:
            rec["own"] = own
        nbytes = t.numel() * t.element_size()
        if data is None and (role == "constant" or nbytes <= self.max_data):
            data = tensor_bytes(t)
        if data is not None:
            rec["data"] = data
            rec["hash"] = fnv1a64(data)
        self.write(rec)
        return tid

    def gen_inputs(self, get_inputs):
        """Calls get_inputs() under the recorder, with every random draw
        (DRAW_OPS) an input named genK and the other ops recorded; returns
        its list of forward arguments."""
        self.gen = 0
        try:
            return list(get_inputs())
        finally:
            self.gen = None

    def _index_table(self, named):
        """For a conversion to an integer type (named: its arguments) of a
        float buffer as the model made it, the name of the constant it
        makes, else None.  A model that stores an index table as floats
        and converts it where it indexes (SwinV2's relative_position_index,
        .float() when registered, .int() in forward) indexes by the table
        it holds, as one with an integer buffer does: the conversion is a
        constant of the trace, as an integer buffer is (harness.py); the
        float buffer itself stays an input everywhere else."""
        vals = {a.name: v for a, v in named}
        t, dt = vals.get("self"), vals.get("dtype")
        if not isinstance(t, torch.Tensor) or not t.is_floating_point() or \
                not isinstance(dt, torch.dtype) or dt.is_floating_point or \
                dt.is_complex or dt == torch.bool:
            return None
        entry = self.storages.get(storage_ptr(t))
        name = self.buffers.get(tuple(entry)) if entry is not None else None
        return None if name is None else "%s:%s" % (name, dtype_name(dt))

    def _draw(self, func, args, kwargs, role="input", name=None):
        """A random draw while generating inputs: computed (also when
        tracing by shape, since its bytes may go with it) and declared an
        input; or (role "constant", name) a conversion _index_table names,
        computed and declared a constant."""
        self.busy = True
        if self.link is not None:
            self.link.suppress(1)
        try:
            result = func(*args, **kwargs)
        finally:
            if self.link is not None:
                self.link.suppress(-1)
        try:
            # a new storage, even where the allocator hands out the address
            # of a tensor freed before (the draw a torch.tril consumed)
            self.tensor_id(result, fresh=True)
            if name is None:
                self.add_input(result, role, "gen%d" % self.gen)
                self.gen += 1
            else:
                self.add_input(result, role, name)
        finally:
            self.busy = False
        return result

    def add_output(self, t, name):
        self.sync()
        self.write({"t": "toutput", "tensor": self.tensor_id(t), "name": name})

    # ---- arguments -------------------------------------------------------

    def _arg_tensor(self, t):
        ptr = storage_ptr(t)
        if ptr not in self.storages:
            # Made outside any recorded op (a literal): a constant.
            self.busy = True
            try:
                return self.add_input(t, "constant", "const%d" % self.next_tensor)
            finally:
                self.busy = False
        return self.tensor_id(t, ptr=ptr)

    def _encode(self, name, ty, v):
        a = {"name": name}
        if isinstance(v, torch.Tensor):
            a["tensor"] = self._arg_tensor(v)
        elif v is None:
            a["none"] = True
        elif isinstance(v, bool):
            a["bool"] = v
        elif isinstance(v, int):
            a["int"] = v
        elif isinstance(v, float):
            a["float"] = v
        elif isinstance(v, str):
            a["str"] = v
        elif isinstance(v, torch.dtype):
            a["dtype"] = dtype_name(v)
        elif isinstance(v, (list, tuple)):
            if any(isinstance(x, torch.Tensor) for x in v) or ty.startswith("Tensor"):
                a["tensors"] = [None if x is None else self._arg_tensor(x) for x in v]
            elif all(isinstance(x, int) and not isinstance(x, bool) for x in v) \
                    and not ty.startswith("float"):
                a["ints"] = [int(x) for x in v]
            elif all(isinstance(x, bool) for x in v):
                a["bools"] = list(v)
            else:
                a["floats"] = [float(x) for x in v]
        else:  # device, layout, memory format, ...
            a["str"] = str(v)
        return a

    def _arguments(self, info, args, kwargs):
        """(schema argument, value) of every schema argument, defaults filled."""
        out = []
        n = len(args)
        for i, a in enumerate(info.args):
            if i < n and not a.kwarg_only:
                v = args[i]
            elif a.name in kwargs:
                v = kwargs[a.name]
            elif a.default_value is not None or a.has_default_value():
                v = a.default_value
            else:
                v = None
            out.append((a, v))
        return out

    # ---- the mode --------------------------------------------------------

    def __enter__(self):
        # Printing a tensor (repr, str, an error message that shows the
        # arguments) runs aten ops, .item() among them: they are not the
        # program's, so they run unrecorded.
        import torch._tensor_str as ts
        self._str = ts._str

        def quiet_str(*args, _str=ts._str, **kwargs):
            busy, self.busy = self.busy, True
            try:
                return _str(*args, **kwargs)
            finally:
                self.busy = busy
        ts._str = quiet_str
        return super().__enter__()

    def __exit__(self, *exc):
        import torch._tensor_str as ts
        ts._str = self._str
        return super().__exit__(*exc)

    def _check_supported(self, info, named):
        """Raises Unsupported for an op dirigo cannot model; returns True
        for a random op (its results are fresh inputs), else False.  A
        data-dependent op on constants only (.item() of a tensor made from
        literals and shapes) is a constant of the trace: supported; so is
        torch.equal of a tensor with itself."""
        base = info.base
        if base in DATA_DEPENDENT_OPS and not self._constant_operands(named) and \
                not (base == "equal" and self._same_value(named)):
            raise Unsupported(info.name, "data-dependent op '%s'" % info.name)
        if base in RANDOM_OPS:
            return True
        if base in DROPOUT_OPS:
            vals = {a.name: v for a, v in named}
            p = vals.get("p", 0.0) or 0.0
            train = vals.get("train", vals.get("training", True))
            return bool(train and p > 0)
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.busy:
            return func(*args, **kwargs)
        self.sync()
        info = op_info(func)
        named = self._arguments(info, args, kwargs)
        enc = [self._encode(a.name, ty, v) for (a, v), ty in zip(named, info.types)]
        random = self._check_supported(info, named)
        if random and self.gen is not None and info.base in DRAW_OPS:
            return self._draw(func, args, kwargs)
        if info.base in CONVERT_OPS:
            table = self._index_table(named)
            if table is not None:
                return self._draw(func, args, kwargs, "constant", table)
        call = torchver.long_indices(func, info.name)
        self.busy = True
        link = self.link
        if link is not None:
            link.suppress(1)
        try:
            if info.base == "equal" and self._same_value(named):
                result = True        # a tensor equals itself, computed or not
            elif self.shapes is not None:
                result = self.shapes.run(call, info, named, args, kwargs)
            else:
                result = call(*args, **kwargs)
        finally:
            self.busy = False
            if link is not None:
                link.suppress(-1)
        self.busy = True
        try:
            self._record(info, named, enc, result, random)
        finally:
            self.busy = False
        return result

    @staticmethod
    def _name(info, named):
        """The op's name for the trace: info.name, but ~ of a bool tensor
        (a mask inverted: masked_fill(~mask, ...)) is recorded as the
        logical_not it is, since bools are recorded as u8 (DTYPES), where
        ~ would not be logic."""
        if info.base in ("bitwise_not", "bitwise_not_") and named and \
                isinstance(named[0][1], torch.Tensor) and named[0][1].dtype == torch.bool:
            return info.name.replace("bitwise_not", "logical_not")
        return info.name

    def _record(self, info, named, enc, result, random=False):
        # Results of an op on constants only are constants (judged before
        # the in-place writes below make new versions).
        const = not random and self._constant_operands(named)
        # Storages written in place: one new version each.
        mutated = []
        if info.any_writes or info.hidden:
            bumped = set()
            hidden = info.hidden
            training = bool(hidden) and any(a.name == "training" and v for a, v in named)
            for (a, v), w in zip(named, info.writes):
                if not w and not (training and a.name in hidden):
                    continue
                ts = v if isinstance(v, (list, tuple)) else [v]
                for t in ts:
                    if isinstance(t, torch.Tensor):
                        ptr = storage_ptr(t)
                        if ptr not in bumped:
                            bumped.add(ptr)
                            self._bump(t)
                        mutated.append((a.name, t))
        results = result if isinstance(result, (list, tuple)) else [result]
        outs = []
        returns = info.returns
        for i, r in enumerate(results):
            if not isinstance(r, torch.Tensor):
                outs.append(None)
                continue
            ret = returns[i] if i < len(returns) else returns[-1]
            if ret.alias_info is not None:
                ptr = storage_ptr(r)
                fresh = ptr not in self.storages
            else:
                ptr, fresh = None, True
            outs.append(self.tensor_id(r, fresh=fresh, data=random, ptr=ptr))
        rec = {"t": "op", "seq": self.seq, "op": self._name(info, named), "args": enc,
               "outs": outs}
        if mutated:
            rec["mutated"] = [{"arg": n, "tensor": self.tensor_id(t, data=random)}
                              for n, t in mutated]
        if random:
            rec["random"] = True
        if const:
            for r in results + [t for _, t in mutated]:
                if isinstance(r, torch.Tensor):
                    self.consts.add(self._version(r))
        self.seq += 1
        self.write(rec)
