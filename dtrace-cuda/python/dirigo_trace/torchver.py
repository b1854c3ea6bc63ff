"""torchver: which torch the recorder runs under, and whether it knows it.

The recorder (recorder.py) uses torch's dispatch API: TorchDispatchMode,
func._schema (name, overload_name, arguments with alias_info), storages.
These changed between torch 1.13 and 2.x (untyped_storage() came in 2.0;
2.x adds _native_batch_norm_legit, whose schema marks the running
statistics as written where native_batch_norm's does not); recorder.py
adapts to both.  SUPPORTED is the range it was
written for, TESTED the releases its test suite ran on (dtrace-cuda(1),
section TORCH VERSIONS).  A torch outside SUPPORTED still runs, with a
warning: its trace may be wrong where the dispatch API changed.
"""
import re
import sys

SUPPORTED = ((1, 13), (2, 15))       # first and last major.minor, inclusive
TESTED = ("1.13", "2.15")

_warned = False


def parse(version):
    """(major, minor) of a torch version string ("2.15.0+cu132",
    "1.13.0a0+git..."), or None when it is not one."""
    m = re.match(r"\s*(\d+)\.(\d+)", str(version))
    return (int(m.group(1)), int(m.group(2))) if m else None


def problem(version):
    """None when version is in SUPPORTED, else what is wrong with it."""
    v = parse(version)
    if v is None:
        return "torch version '%s' is not one dirigo_trace can read" % version
    lo, hi = SUPPORTED
    if lo <= v <= hi:
        return None
    return ("torch %s is outside the versions dirigo_trace supports "
            "(%d.%d to %d.%d; tested with %s): check its traces" %
            (version, lo[0], lo[1], hi[0], hi[1], " and ".join(TESTED)))


def warn_once(version=None):
    """Writes problem(version) (default: the running torch's) to stderr,
    once a process; returns it."""
    global _warned
    if version is None:
        import torch
        version = torch.__version__
    p = problem(version)
    if p and not _warned:
        _warned = True
        print("dirigo_trace: warning: " + p, file=sys.stderr)
    return p
