"""harness: run a KernelBench-style file under the recorder.

A KernelBench file defines class Model (an nn.Module), get_inputs() (the
forward arguments) and get_init_inputs() (the constructor arguments).  The
harness seeds torch, builds the model, declares the tensors of get_inputs()
as inputs and the model's parameters and buffers as such, runs forward under
the recorder (without autograd), declares what it returns as outputs, and
writes the trace.
"""
import argparse
import importlib.util
import os
import sys
import traceback

from . import torchver
from .status import OK, TROUBLE, UNDECIDED

try:
    import msgpack
except ImportError:  # depends on the machine
    msgpack = None


def packb(rec):
    """The MessagePack bytes of one record (dicts keep their order)."""
    if msgpack is None:
        raise RuntimeError("dirigo_trace needs the msgpack package "
                           "(apt-get install python3-msgpack, or pip install msgpack)")
    return msgpack.packb(rec, use_bin_type=True)

USAGE_STATUS = TROUBLE


def load(path):
    torchver.backport()
    spec = importlib.util.spec_from_file_location("dirigo_program", path)
    if spec is None:
        raise ImportError("cannot load '%s'" % path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for need in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(mod, need):
            raise ImportError("'%s' defines no %s" % (path, need))
    return mod


def flatten(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from flatten(y)
    else:
        yield x


class Sink:
    """Where records go: through the record-only CUDA runtime when
    dtrace-cuda preloaded it (then dtrace-cuda writes the header and the
    end record, and kernel launches interleave in program order), else to
    the binary file out, framed by our own header and end."""

    def __init__(self, out, name):
        import torch
        from .shimlink import ShimLink
        self.link = ShimLink.find()
        self.out = out
        self.counts = {}
        if self.link is None:
            self.write({"t": "header", "format": "dirigo", "version": 1, "stream": "trace",
                        "name": name, "tool": "dirigo_trace", "torch": torch.__version__})

    def write(self, rec):
        if self.link is not None:
            self.link.write(packb(rec))
        else:
            self.out.write(packb(rec))
            self.counts[rec["t"]] = self.counts.get(rec["t"], 0) + 1

    def end(self, status):
        # The end record says the trace is whole (dirigo-trace(5)): not
        # written when the program failed (status TROUBLE).
        if self.link is None and status != TROUBLE:
            self.write({"t": "end", "status": status, "records": sum(self.counts.values()),
                        "counts": dict(self.counts)})


def record_run(sink, model, inputs, max_data, all_data, params=None, call=None, where="",
               shapes=False, gen=None):
    """Records model(*inputs) (or call(model, inputs)) into sink: inputs,
    parameters and buffers as tinputs (params: [(name, tensor[, own name])]
    in place of model.named_parameters(), buffers named "buffer:NAME"), the
    ops, the outputs.  gen: a callable that makes the inputs (get_inputs(),
    seeded), recorded too (Recorder.gen_inputs), in place of inputs.
    shapes: trace by shape (shapes.py) when the record-only runtime is
    there to catch reads of what is not computed and no record carries
    every tensor's bytes (all_data).  Returns 0, or 3
    when unsupported (tunsupported written); ends the process with status
    shapes.RETRACE when a trace by shape needs values."""
    import torch
    from .recorder import Recorder, Unsupported
    runner = None
    if shapes and not all_data and sink.link is not None:
        from .shapes import Poison, ShapeRunner
        poison = Poison.find()
        if poison is not None:
            runner = ShapeRunner(poison)
    rec = Recorder(sink.write, max_data=max_data, all_data=all_data, link=sink.link,
                   shapes=runner)
    if gen is None:
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                rec.add_input(x, "input", "arg%d" % i)
    if params is None:
        params = [(n, p.data) for n, p in model.named_parameters()]
        params += [("buffer:" + n, b) for n, b in model.named_buffers()]
    for item in params:
        n, p = item[0], item[1]
        own = item[2] if len(item) > 2 and item[2] != n else None
        if own and own.startswith("buffer:"):
            own = own[len("buffer:"):]
        buffer = n.startswith("buffer:")
        name = n[len("buffer:"):] if buffer else n
        if not (p.is_floating_point() or p.is_complex()) or (buffer and p.dim() == 0):
            # An integer or bool parameter or buffer, or a buffer that is
            # one number, is the model's configuration (a stride, an
            # index table, a count, a rate), fixed when the model is
            # made, as shapes are: a constant of the trace, so that
            # .item() of it, or a gather by it, is not data-dependent.
            rec.add_input(p, "constant", name)
        else:
            rec.add_input(p, "buffer" if buffer else "param", name, own=own)
    try:
        with torch.no_grad(), rec:
            if gen is not None:
                inputs = rec.gen_inputs(gen)
            result = call(model, inputs) if call else model(*inputs)
        k = 0
        for r in flatten(result):
            if isinstance(r, torch.Tensor):
                rec.add_output(r, "out%d" % k)
                k += 1
    except Unsupported as e:
        sink.write({"t": "tunsupported", "op": e.op, "message": e.message})
        print("dirigo_trace: %s: unsupported: %s" % (where, e.message), file=sys.stderr)
        return UNDECIDED
    return OK


def _op_names_probe():
    """A dispatch mode that collects the base names of the aten ops a call
    makes, in .names (made here: a TorchDispatchMode subclass needs torch)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Probe(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = set()

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.add(func._schema.name.split("::")[-1])
            return func(*args, **(kwargs or {}))
    return Probe()


def generated_inputs(get_inputs):
    """Runs get_inputs() once; returns (inputs, generate): generate is
    True when the inputs are more than random draws (torch.tril of a
    randn, (A + A.T) / 2, a softmax of a randn, ...) and nothing but
    functional float draws is random, so that record_run should record
    get_inputs() itself (gen=) and check the program on the inputs it can
    make.  Integer draws (randint: class indices, masks) keep today's
    form, inputs of their own, since a draw's range is not recorded."""
    import torch
    from .recorder import DRAW_OPS, RANDOM_OPS
    probe = _op_names_probe()
    with torch.no_grad(), probe:
        inputs = list(get_inputs())
    names = probe.names
    draws = names & DRAW_OPS
    other_random = names & (RANDOM_OPS - DRAW_OPS)
    return inputs, bool(draws) and not other_random and bool(names - DRAW_OPS)


def trace_file(path, out, name=None, seed=42, max_data=1 << 20, all_data=False,
               device="cpu", eval_mode=False):
    """Traces the program in path into the binary file out; returns the
    exit status (0 done, 3 unsupported)."""
    import torch

    sink = Sink(out, name or os.path.splitext(os.path.basename(path))[0])
    mod = load(path)
    torch.manual_seed(seed)
    model = mod.Model(*mod.get_init_inputs())
    torch.manual_seed(seed)
    inputs = list(mod.get_inputs())
    model = model.to(device)
    if eval_mode:
        model.eval()
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
    status = record_run(sink, model, inputs, max_data, all_data, where=path)
    sink.end(status)
    return status


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m dirigo_trace",
                                 description="trace a KernelBench-style PyTorch program")
    ap.add_argument("program", help="a .py file with Model, get_inputs, get_init_inputs")
    ap.add_argument("--out", "-o", default="-", help="trace file (default: stdout)")
    ap.add_argument("--name", help="the trace's name (default: the file's stem)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--max-data", type=int, default=1 << 20,
                    help="inputs of at most this many bytes carry their bytes")
    ap.add_argument("--all-data", action="store_true",
                    help="every tensor record carries its bytes (tests)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--eval", action="store_true", help="run the model in eval mode")
    o = ap.parse_args(argv)
    try:
        if o.out == "-":
            f = sys.stdout.buffer
            status = trace_file(o.program, f, o.name, o.seed, o.max_data, o.all_data, o.device, o.eval)
            f.flush()
        else:
            with open(o.out, "wb") as f:
                status = trace_file(o.program, f, o.name, o.seed, o.max_data, o.all_data, o.device, o.eval)
    except Exception as e:  # the program failed: trouble
        traceback.print_exc()
        print("dirigo_trace: %s: %s" % (o.program, e), file=sys.stderr)
        return USAGE_STATUS
    return status
