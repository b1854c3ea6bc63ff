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

Under a torch older than 2.0, backport() adds the torch 2 functions that
programs call and 1.13 lacks, each written by its documented definition
in ops 1.13 has (dtrace-cuda(1), section TORCH VERSIONS), and
long_indices() lets index ops take the int32 index tensors torch 2 takes.
"""
import math
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


def _scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                  is_causal=False, scale=None):
    """torch.nn.functional.scaled_dot_product_attention (torch 2.0) by its
    definition: softmax(q k^T * scale + mask) v, with dropout on the
    attention weights when dropout_p > 0."""
    import torch
    s = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    attn = torch.matmul(query, key.transpose(-2, -1)) * s
    if is_causal:
        keep = torch.ones(query.size(-2), key.size(-2), dtype=torch.bool).tril()
        attn = attn.masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn = attn.masked_fill(~attn_mask, float("-inf"))
        else:
            attn = attn + attn_mask
    attn = torch.softmax(attn, dim=-1)
    if dropout_p > 0.0:
        attn = torch.dropout(attn, dropout_p, True)
    return torch.matmul(attn, value)


def backport():
    """Adds to an older torch the torch 2 functions it lacks (see the top
    of this file); a no-op under torch 2."""
    import torch.nn.functional as F
    if not hasattr(F, "scaled_dot_product_attention"):
        F.scaled_dot_product_attention = _scaled_dot_product_attention


# Ops whose indices argument (the second) is a list of index tensors.
INDEX_OPS = frozenset(("aten::index.Tensor", "aten::index.Tensor_out", "aten::index_put",
                       "aten::index_put_", "aten::_index_put_impl", "aten::_index_put_impl_"))


def _older(version):
    v = parse(version)
    return v is not None and v < (2, 0)


def _widen(indices):
    import torch
    return type(indices)(t.long() if isinstance(t, torch.Tensor) and t.dtype == torch.int32
                         else t for t in indices)


def long_indices(func, name, version=None):
    """The callable to run an op with: func itself, except under a torch
    older than 2.0 for the ops of INDEX_OPS, whose int32 index tensors
    torch 2 takes and 1.13 refuses ("tensors used as indices must be
    long"): then func with those tensors widened to int64 first, which
    selects the same elements.  The trace records the call as made."""
    if name not in INDEX_OPS:
        return func
    if version is None:
        import torch
        version = torch.__version__
    if not _older(version):
        return func

    def call(*args, **kwargs):
        if len(args) > 1 and isinstance(args[1], (list, tuple)):
            args = (args[0], _widen(args[1])) + tuple(args[2:])
        elif isinstance(kwargs.get("indices"), (list, tuple)):
            kwargs = dict(kwargs, indices=_widen(kwargs["indices"]))
        return func(*args, **kwargs)
    return call
