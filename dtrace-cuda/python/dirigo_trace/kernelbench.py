"""kernelbench: trace one side of a KernelBench pair (see dtrace-cuda(1),
option --kernelbench, which runs this module twice, once per side, under
the record-only CUDA runtime).

    python3 -m dirigo_trace.kernelbench build REF.py OPT
    python3 -m dirigo_trace.kernelbench trace {ref|opt} REF.py OPT [--out FILE] [--shapes]

REF.py is a KernelBench reference: class Model, get_inputs(),
get_init_inputs().  OPT is the optimized program, in one of two forms:

  OPT.py   a KernelBench solution: class ModelNew, built like Model (its
           kernels typically built with torch.utils.cpp_extension.load_inline
           or load, which dirigo builds against CPU torch: see ext.py); it
           may define its own get_inputs/get_init_inputs, the reference's
           are used;
  OPT.cu   an AI CUDA Engineer solution: a C++/CUDA extension source with
           forward(...) bound by PYBIND11_MODULE(TORCH_EXTENSION_NAME, m).
           Then REF.py must be functional: Model.forward(self, ..., fn=
           module_fn) passes the inputs and its parameters to fn, and the
           optimized program is Model.forward with fn=forward.

Both sides run the same sequence, so they see the same inputs and
parameters: seed, get_init_inputs(); seed, Model(*init); (opt side: seed,
ModelNew(*init)); seed, get_inputs().  Where get_inputs() does more than
draw float tensors (torch.tril(torch.randn(N, N)), (A + A.T) / 2, a
softmax of a draw), it runs once more, seeded, under the recorder: its
draws are the inputs (gen0, gen1, ...) and its ops are the first of the
program, so both sides are checked on the inputs get_inputs() makes.
ModelNew's parameters and buffers are then set from Model's, matched by
name and shape, else by order among those of the same shape; the trace
names each by the reference's name (the program's own name, when it
differs, is in the field "own").

`build` builds the extension of OPT (or nothing) without tracing, so that
the traced runs find it in the cache.  `trace --shapes` traces by shape
(shapes.py: torch ops are recorded, not computed) under the record-only
runtime.  Exit statuses as dirigo_trace: 0 done, 3 unsupported, 2
trouble; 4 (shapes.RETRACE) when a trace by shape needs values it did not
compute, and must be made again without --shapes.
"""
import argparse
import importlib.util
import inspect
import os
import re
import sys
import traceback

from . import ext, torchver
from .harness import Sink, generated_inputs, record_run
from .status import OK, TROUBLE, UNDECIDED


class PairError(Exception):
    """The pair is not in a form this module can run."""


def load_module(path, modname, need):
    torchver.backport()
    spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None:
        raise PairError("cannot load '%s'" % path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    for n in need:
        if not hasattr(mod, n):
            raise PairError("'%s' defines no %s" % (path, n))
    return mod


def is_functional(model_cls):
    try:
        return "fn" in inspect.signature(model_cls.forward).parameters
    except (TypeError, ValueError):
        return False


def opt_kind(path):
    if path.endswith(".py"):
        return "modelnew"
    if path.endswith((".cu", ".cpp", ".cc")):
        return "extension"
    raise PairError("'%s': the optimized program must be a .py file with ModelNew "
                    "or a .cu extension source" % path)


def seed_all(seed):
    import random
    import torch
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy
        numpy.random.seed(seed)
    except ImportError:
        pass


def match_tensors(ref_items, opt_items):
    """For each (name, tensor) of opt_items, the (name, tensor) of ref_items
    it corresponds to, or None: the same name and shape, else the first
    unused one of the same shape and dtype, in order."""
    used = set()
    by_name = {n: i for i, (n, _) in enumerate(ref_items)}
    out = []
    for n, t in opt_items:
        j = by_name.get(n)
        if j is not None and j not in used and ref_items[j][1].shape == t.shape:
            used.add(j)
            out.append(ref_items[j])
            continue
        for j, (rn, rt) in enumerate(ref_items):
            if j not in used and rt.shape == t.shape and rt.dtype == t.dtype:
                used.add(j)
                out.append(ref_items[j])
                break
        else:
            out.append(None)
    return out


def reference_fn(model_cls):
    """The functional reference's module_fn: the default of Model.forward's
    fn argument, or None."""
    try:
        p = inspect.signature(model_cls.forward).parameters.get("fn")
    except (TypeError, ValueError):
        return None
    return p.default if p is not None and p.default is not inspect.Parameter.empty else None


def binding_types(fwd):
    """The argument types of the extension's forward as its pybind11
    docstring gives them ("at::Tensor", "int", "List[at::Tensor]", ...),
    or None when it has several overloads or none can be read."""
    doc = (getattr(fwd, "__doc__", None) or "").strip().splitlines()
    m = re.match(r"^\w+\((.*)\)\s*->", doc[0]) if doc else None
    if not m or "Overloaded" in doc[0]:
        return None
    out, depth, cur = [], 0, ""
    for ch in m.group(1):
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        cur += ch
    if cur.strip():
        out.append(cur)
    types = []
    for a in out:
        name, _, ty = a.partition(":")
        types.append(ty.split("=")[0].strip())
    return types


def coerce_arg(v, ty):
    """v as the binding's type ty wants it, where the reference's value has
    the same meaning in another Python type (2.0 for int 2, a bool for an
    int or a float, a ParameterList for a list of tensors, (3, 3) for an
    int 3); else v unchanged."""
    import torch
    if ty == "int":
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, (tuple, list)) and v and all(isinstance(x, int) and x == v[0] for x in v):
            return int(v[0])
    elif ty == "float":
        if isinstance(v, (bool, int)):
            return float(v)
    elif ty == "bool":
        if isinstance(v, int) and v in (0, 1):
            return bool(v)
    elif ty.startswith("List[") and not isinstance(v, (list, torch.Tensor, str)):
        if isinstance(v, (tuple, torch.nn.ParameterList)):
            return list(v)
    elif ty.startswith("List[int") and isinstance(v, int) and not isinstance(v, bool):
        return [v]
    return v


def reference_forward(fwd, module_fn):
    """The extension's forward called as the functional reference calls
    module_fn: keyword arguments become positional by module_fn's
    signature (a binding without py::arg names takes no keywords).  When
    the binding still rejects the arguments, the arguments module_fn's
    caller left to their defaults are passed as module_fn's defaults (a
    default in the C++ source that the binding does not declare is no
    default in Python), each converted to the type the binding's
    signature names (coerce_arg), and the call is made once more."""
    try:
        sig = inspect.signature(module_fn) if module_fn is not None else None
    except (TypeError, ValueError):
        sig = None
    types = binding_types(fwd)

    def with_defaults(args, kwargs):
        if sig is None:
            return None
        try:
            b = sig.bind(*args, **kwargs)
        except TypeError:
            return None
        b.apply_defaults()
        return None if b.kwargs else tuple(b.args)

    def call(*args, **kwargs):
        full = with_defaults(args, kwargs)
        if kwargs and full is not None:
            args, kwargs = full, {}
            if types is not None:
                args = args[:len(types)]
        try:
            return fwd(*args, **kwargs)
        except TypeError as e:
            if "incompatible function arguments" not in str(e) or types is None or kwargs:
                raise
            more = args
            if full is not None and len(args) < len(types) <= len(full):
                more = full[:len(types)]
            if len(more) > len(types):
                raise
            conv = tuple(coerce_arg(v, t) for v, t in zip(more, types))
            if len(more) == len(args) and all(a is b for a, b in zip(conv, args)):
                raise
            return fwd(*conv)
    return call


def build_side(ref_path, opt_path, side, seed):
    """Loads the pair and returns (model, inputs, params, call, gen) for
    side; gen: None, or get_inputs() seeded, for record_run to record
    when the inputs are more than random draws (harness.generated_inputs)."""
    import torch
    ext.install()
    ref = load_module(ref_path, "dirigo_ref", ("Model", "get_inputs", "get_init_inputs"))
    kind = opt_kind(opt_path)
    opt = None
    fwd = None
    if side == "opt":
        if kind == "modelnew":
            opt = load_module(opt_path, "dirigo_opt", ("ModelNew",))
        else:
            if not is_functional(ref.Model):
                raise PairError("'%s': Model.forward takes no fn=module_fn argument; an "
                                "extension source (%s) needs a functional reference"
                                % (ref_path, opt_path))
            m = ext.load_cu(opt_path)
            if not hasattr(m, "forward"):
                raise PairError("'%s' binds no forward()" % opt_path)
            fwd = m.forward
    seed_all(seed)
    init = list(ref.get_init_inputs())
    seed_all(seed)
    model = ref.Model(*init)
    ref_params = [(n, p.data) for n, p in model.named_parameters()]
    ref_bufs = list(model.named_buffers())
    params = None
    call = None
    if side == "opt" and opt is not None:
        seed_all(seed)
        new = opt.ModelNew(*init)
        own = [(n, p.data) for n, p in new.named_parameters()]
        own_bufs = list(new.named_buffers())
        params = []
        with torch.no_grad():
            for (n, t), m in zip(own, match_tensors(ref_params, own)):
                if m is None:
                    print("dirigo_trace: %s: parameter '%s' matches none of the reference's; "
                          "it keeps its own values" % (opt_path, n), file=sys.stderr)
                    params.append((n, t))
                    continue
                t.copy_(m[1])
                params.append((m[0], t, n))
            for (n, t), m in zip(own_bufs, match_tensors(ref_bufs, own_bufs)):
                if m is not None:
                    t.copy_(m[1])
                params.append(("buffer:" + (m[0] if m else n), t, "buffer:" + n))
        model = new
    elif side == "opt":
        fn = reference_forward(fwd, reference_fn(ref.Model))
        call = lambda mdl, xs: mdl(*xs, fn=fn)  # noqa: E731
    model.train()    # KernelBench runs forward in training mode
    seed_all(seed)
    inputs, generate = generated_inputs(ref.get_inputs)
    gen = None
    if generate:
        def gen():
            seed_all(seed)
            return ref.get_inputs()
    return model, inputs, params, call, gen


def cmd_build(o):
    ext.install()
    # The build runs without the recording runtime, so the calls only the
    # runtime provides (cuBLAS: shim/blas.c) are bound when first called,
    # which a build never does; a trace, under the runtime, binds every
    # call at import and names one that nothing provides.
    flags = sys.getdlopenflags()
    sys.setdlopenflags((flags & ~os.RTLD_NOW) | os.RTLD_LAZY)
    try:
        if opt_kind(o.opt) == "modelnew":
            load_module(o.opt, "dirigo_opt", ("ModelNew",))
        else:
            ext.load_cu(o.opt)
    finally:
        sys.setdlopenflags(flags)
    return OK


def cmd_trace(o):
    name = o.name or o.side
    out = None
    if o.out != "-":
        out = open(o.out, "wb")
    try:
        sink = Sink(out if out else sys.stdout.buffer, name)
        model, inputs, params, call, gen = build_side(o.ref, o.opt, o.side, o.seed)
        status = record_run(sink, model, inputs, o.max_data, o.all_data, params=params,
                            call=call, where=o.opt if o.side == "opt" else o.ref,
                            shapes=o.shapes, gen=gen)
        sink.end(status)
    finally:
        if out:
            out.close()
        else:
            sys.stdout.buffer.flush()
    return status


_LIBS = (("cublasLt", "cuBLASLt"), ("cublas", "cuBLAS"), ("cudnn", "cuDNN"), ("curand", "cuRAND"),
         ("cusparse", "cuSPARSE"), ("cufft", "cuFFT"), ("cusolver", "cuSOLVER"), ("nccl", "NCCL"))


def _library(symbol):
    """ " (LIB)" for a symbol of a CUDA library other than the runtime."""
    for prefix, lib in _LIBS:
        if symbol.startswith(prefix):
            return " (%s)" % lib
    return ""


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m dirigo_trace.kernelbench",
                                 description="trace one side of a KernelBench pair")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the optimized program's extension")
    b.add_argument("ref")
    b.add_argument("opt")
    t = sub.add_parser("trace", help="trace one side")
    t.add_argument("side", choices=("ref", "opt"))
    t.add_argument("ref")
    t.add_argument("opt")
    t.add_argument("--out", "-o", default="-")
    t.add_argument("--name")
    t.add_argument("--seed", type=int, default=42)
    t.add_argument("--max-data", type=int, default=1 << 20)
    t.add_argument("--all-data", action="store_true")
    t.add_argument("--shapes", action="store_true",
                   help="trace by shape: do not compute torch ops (exit 4 when values "
                        "are needed)")
    o = ap.parse_args(argv)
    try:
        return cmd_build(o) if o.cmd == "build" else cmd_trace(o)
    except (PairError, ext.BuildError) as e:
        print("dirigo_trace: %s" % e, file=sys.stderr)
        return TROUBLE
    except ImportError as e:
        # A function the extension links against that neither the
        # recording runtime nor the compat library provides (cuBLAS,
        # cuDNN, a runtime call not modelled): not the program's fault.
        m = re.search(r"undefined symbol: (\S+)", str(e))
        if not m:
            raise
        print("dirigo_trace: %s: unsupported: the extension calls '%s', which dirigo's "
              "recording runtime does not provide%s" % (o.opt, m.group(1), _library(m.group(1))),
              file=sys.stderr)
        return UNDECIDED
    except Exception as e:  # the program failed: trouble
        traceback.print_exc()
        print("dirigo_trace: %s" % e, file=sys.stderr)
        return TROUBLE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
