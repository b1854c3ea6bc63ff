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

from .mpack import packb

USAGE_STATUS = 2


def load(path):
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


def trace_file(path, out, name=None, seed=42, max_data=1 << 20, all_data=False,
               device="cpu", eval_mode=False):
    """Traces the program in path into the binary file out; returns the
    exit status (0 done, 3 unsupported)."""
    import torch
    from .recorder import Recorder, Unsupported

    def write(rec):
        out.write(packb(rec))

    write({"t": "header", "format": "dirigo", "version": 1, "stream": "trace",
           "name": name or os.path.splitext(os.path.basename(path))[0],
           "tool": "dirigo_trace", "torch": torch.__version__})
    mod = load(path)
    torch.manual_seed(seed)
    model = mod.Model(*mod.get_init_inputs())
    torch.manual_seed(seed)
    inputs = list(mod.get_inputs())
    model = model.to(device)
    if eval_mode:
        model.eval()
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
    rec = Recorder(write, max_data=max_data, all_data=all_data)
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            rec.add_input(x, "input", "arg%d" % i)
    for n, p in model.named_parameters():
        rec.add_input(p.data, "param", n)
    for n, b in model.named_buffers():
        rec.add_input(b, "buffer", n)
    status = 0
    try:
        with torch.no_grad(), rec:
            result = model(*inputs)
        k = 0
        for r in flatten(result):
            if isinstance(r, torch.Tensor):
                rec.add_output(r, "out%d" % k)
                k += 1
    except Unsupported as e:
        write({"t": "tunsupported", "op": e.op, "message": e.message})
        print("dirigo_trace: %s: unsupported: %s" % (path, e.message), file=sys.stderr)
        status = 3
    write({"t": "end", "status": status})
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
