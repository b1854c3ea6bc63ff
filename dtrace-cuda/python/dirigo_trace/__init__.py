"""dirigo_trace: record what a PyTorch program does, as a dirigo trace.

    python3 -m dirigo_trace REF.py --out ref.trace

The recorder is a TorchDispatchMode (recorder.Recorder) that writes one
record per aten operation (see dirigo-trace(5), section TORCH RECORDS);
harness.trace_file runs a KernelBench-style file (class Model, get_inputs,
get_init_inputs) under it.
"""
from .recorder import Recorder, Unsupported  # noqa: F401
