"""gen.py: reference data for tests/unit/test-ops.c.

    python3 tests/ops/gen.py OUT.trace

Runs small programs, one or a few aten ops each, on random float64 inputs
of several shapes and attributes under the recorder (dtrace-cuda/python)
with every tensor's bytes kept, and writes the trace: test-ops evaluates
each recorded op with engine/ops and compares with the bytes torch
computed.  Float64 makes torch's own rounding negligible against the
tolerance (1e-5 relative).
"""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__),
                                              "..", "..", "dtrace-cuda", "python"))
from dirigo_trace.harness import packb        # noqa: E402
from dirigo_trace.recorder import Recorder     # noqa: E402

D = torch.float64


def r(*s):
    return torch.randn(*s, dtype=D)


def pos(*s):
    return torch.rand(*s, dtype=D) + 0.1


def cases():
    """(name, function, inputs) triples."""
    x4, x3 = r(2, 3, 5, 6), r(2, 4, 7)
    for act in [torch.relu, torch.sigmoid, torch.tanh, F.silu, F.mish, F.hardswish,
                F.hardsigmoid, F.selu, F.softsign, torch.exp, torch.abs, torch.neg,
                torch.erf, F.relu6, F.logsigmoid, torch.sin, torch.cos, torch.floor,
                torch.square]:
        yield act.__name__, act, [r(3, 4, 5)]
    yield "log", torch.log, [pos(3, 4)]
    yield "sqrt", torch.sqrt, [pos(3, 4)]
    yield "rsqrt", torch.rsqrt, [pos(3, 4)]
    yield "reciprocal", torch.reciprocal, [pos(3, 4)]
    yield "log1p", torch.log1p, [pos(3, 4)]
    yield "gelu", F.gelu, [r(4, 6)]
    yield "gelu-tanh", lambda x: F.gelu(x, approximate="tanh"), [r(4, 6)]
    yield "leaky_relu", lambda x: F.leaky_relu(x, 0.2), [r(4, 6)]
    yield "softplus", lambda x: F.softplus(x * 10, beta=2, threshold=5), [r(4, 6)]
    yield "elu", lambda x: F.elu(x, alpha=0.7), [r(4, 6)]
    yield "celu", lambda x: F.celu(x, alpha=1.3), [r(4, 6)]
    yield "hardtanh", lambda x: F.hardtanh(x, -0.5, 0.7), [r(4, 6)]
    yield "clamp", lambda x: torch.clamp(x, -0.3, 0.4), [r(4, 6)]
    yield "clamp-min", lambda x: torch.clamp(x, min=0.1), [r(4, 6)]
    yield "clamp_min", lambda x: torch.clamp_min(x, 0.1), [r(4, 6)]
    yield "add", lambda a, b: a + b, [r(2, 3, 4), r(3, 1)]
    yield "add-alpha", lambda a, b: torch.add(a, b, alpha=0.5), [r(2, 3, 4), r(4)]
    yield "add-scalar", lambda a: a + 1.5, [r(3, 4)]
    yield "sub", lambda a, b: a - b, [r(2, 3, 4), r(2, 1, 4)]
    yield "rsub", lambda a: 2 - a, [r(3, 4)]
    yield "mul", lambda a, b: a * b, [r(2, 3, 4), r(1, 3, 1)]
    yield "mul-scalar", lambda a: a * 0.3, [r(3, 4)]
    yield "div", lambda a, b: a / b, [r(2, 3, 4), pos(4)]
    yield "div-scalar", lambda a: a / 3.0, [r(3, 4)]
    yield "div-floor", lambda a, b: torch.div(a, b, rounding_mode="floor"), [r(3, 4), pos(4)]
    yield "pow-2", lambda a: a ** 2, [r(3, 4)]
    yield "pow-3", lambda a: torch.pow(a, 3), [r(3, 4)]
    yield "pow-frac", lambda a: torch.pow(a, 1.7), [pos(3, 4)]
    yield "pow-tensor", lambda a, b: torch.pow(a, b), [pos(3, 4), r(3, 4)]
    yield "maximum", torch.maximum, [r(3, 4), r(4)]
    yield "minimum", torch.minimum, [r(3, 4), r(3, 1)]
    yield "where", lambda a, b: torch.where(a > 0, a, b * 0.1), [r(3, 4), r(3, 4)]
    yield "gt-lt", lambda a, b: (a > b).to(D) + (a < 0.2).to(D), [r(3, 4), r(3, 4)]
    yield "addcmul", lambda a, b, c: torch.addcmul(a, b, c, value=0.5), [r(3, 4), r(3, 4), r(4)]
    yield "inplace", lambda a: a.clone().add_(1).relu_().mul_(2), [r(3, 4)]
    for dims, kd in [((1,), False), ((0, 2), True), (None, False)]:
        yield "sum%s" % (dims,), (lambda d, k: lambda a: a.sum() if d is None else a.sum(dim=d, keepdim=k))(dims, kd), [r(3, 4, 5)]
        yield "mean%s" % (dims,), (lambda d, k: lambda a: a.mean() if d is None else a.mean(dim=d, keepdim=k))(dims, kd), [r(3, 4, 5)]
        if dims is not None:
            yield "amax%s" % (dims,), (lambda d, k: lambda a: torch.amax(a, dim=d, keepdim=k))(dims, kd), [r(3, 4, 5)]
            yield "amin%s" % (dims,), (lambda d, k: lambda a: torch.amin(a, dim=d, keepdim=k))(dims, kd), [r(3, 4, 5)]
            yield "logsumexp%s" % (dims,), (lambda d, k: lambda a: torch.logsumexp(a, dim=d, keepdim=k))(dims, kd), [r(3, 4, 5)]
    yield "max-dim", lambda a: torch.max(a, dim=1)[0], [r(3, 4, 5)]
    yield "min-dim", lambda a: torch.min(a, dim=2, keepdim=True)[0], [r(3, 4, 5)]
    yield "max-all", lambda a: torch.max(a), [r(3, 4)]
    # ties (rounded values) show that the first extreme is the one named
    for d, kd in [(1, False), (-1, True), (None, False), (None, True)]:
        yield "argmax%s%s" % (d, kd), (lambda d, k: lambda a: torch.argmax(a, dim=d, keepdim=k))(d, kd), [r(3, 4, 5)]
        yield "argmin%s%s" % (d, kd), (lambda d, k: lambda a: torch.argmin(a, dim=d, keepdim=k))(d, kd), [r(3, 4, 5)]
        yield "argmax-ties%s%s" % (d, kd), (lambda d, k: lambda a: torch.argmax(a.round(), dim=d, keepdim=k))(d, kd), [r(3, 4, 5)]
        yield "argmin-ties%s%s" % (d, kd), (lambda d, k: lambda a: torch.argmin(a.round(), dim=d, keepdim=k))(d, kd), [r(3, 4, 5)]
    yield "prod", lambda a: torch.prod(a, dim=1), [r(3, 4, 5)]
    yield "var", lambda a: torch.var(a, dim=1), [r(3, 4, 5)]
    yield "std", lambda a: torch.std(a, dim=(0, 2), unbiased=False), [r(3, 4, 5)]
    yield "norm", lambda a: torch.norm(a, dim=1), [r(3, 4, 5)]
    yield "norm-1", lambda a: torch.norm(a, p=1, dim=2), [r(3, 4, 5)]
    for d in (0, 1, -1):
        yield "softmax%d" % d, (lambda d: lambda a: torch.softmax(a * 3, dim=d))(d), [r(3, 4, 5)]
        yield "log_softmax%d" % d, (lambda d: lambda a: torch.log_softmax(a, dim=d))(d), [r(3, 4, 5)]
        yield "cumsum%d" % d, (lambda d: lambda a: torch.cumsum(a, dim=d))(d), [r(3, 4, 5)]
    yield "cumprod", lambda a: torch.cumprod(a, dim=1), [r(3, 4)]
    yield "cat1", lambda a, b: torch.cat([a, b], 1), [r(2, 3, 4), r(2, 5, 4)]
    yield "cat-last", lambda a, b, c: torch.cat([a, b, c], -1), [r(2, 3), r(2, 1), r(2, 4)]
    yield "cat0-empty", lambda a, b: torch.cat([a, torch.empty(0, dtype=D), b]), [r(3, 2), r(1, 2)]
    yield "stack0", lambda a, b: torch.stack([a, b]), [r(2, 3), r(2, 3)]
    yield "stack-last", lambda a, b, c: torch.stack([a, b, c], -1), [r(2, 3), r(2, 3), r(2, 3)]
    # a GRU cell's gates: unsafe_split of a product into three chunks
    yield "unsafe_split", lambda a: (lambda c: c[0] + c[1] * 2 + c[2] * 3)(torch.ops.aten.unsafe_split(a, 2, 1)), [r(3, 6)]
    yield "split-uneven", lambda a: (lambda c: c[2] * 2)(torch.ops.aten.split.Tensor(a * 1, 2, 0)), [r(5, 3)]
    yield "mm", torch.mm, [r(3, 5), r(5, 4)]
    yield "addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2), [r(4), r(3, 5), r(5, 4)]
    yield "bmm", torch.bmm, [r(2, 3, 5), r(2, 5, 4)]
    yield "baddbmm", lambda c, a, b: torch.baddbmm(c, a, b, alpha=0.3), [r(2, 3, 4), r(2, 3, 5), r(2, 5, 4)]
    yield "matmul-nd", torch.matmul, [r(2, 3, 4, 5), r(5, 2)]
    yield "matmul-bcast", torch.matmul, [r(2, 1, 4, 5), r(3, 5, 2)]
    yield "matmul-vec", torch.matmul, [r(4, 5), r(5)]
    yield "linear", F.linear, [r(2, 3, 6), r(4, 6), r(4)]
    convs = [
        ("conv1d", F.conv1d, [r(2, 4, 11), r(6, 2, 3), r(6)], dict(stride=2, padding=1, groups=2)),
        ("conv1d-dil", F.conv1d, [r(1, 3, 12), r(2, 3, 3), None], dict(dilation=2)),
        ("conv2d", F.conv2d, [r(2, 3, 7, 6), r(4, 3, 3, 2), r(4)], dict(stride=(2, 1), padding=(1, 0))),
        ("conv2d-groups", F.conv2d, [r(1, 4, 6, 6), r(6, 2, 3, 3), r(6)], dict(groups=2, dilation=(1, 2), padding=2)),
        ("conv3d", F.conv3d, [r(1, 2, 4, 5, 5), r(3, 2, 2, 3, 3), r(3)], dict(stride=(1, 2, 1), padding=(0, 1, 1))),
        ("conv_transpose1d", F.conv_transpose1d, [r(2, 4, 5), r(4, 3, 3), r(3)], dict(stride=2, padding=1, output_padding=1)),
        ("conv_transpose2d", F.conv_transpose2d, [r(1, 4, 4, 5), r(4, 2, 3, 3), r(4)], dict(stride=2, padding=1, groups=2, output_padding=(1, 0))),
        ("conv_transpose2d-dil", F.conv_transpose2d, [r(1, 2, 4, 4), r(2, 3, 2, 3), None], dict(dilation=2)),
        ("conv_transpose3d", F.conv_transpose3d, [r(1, 2, 3, 3, 4), r(2, 2, 2, 2, 3), r(2)], dict(stride=(2, 1, 2))),
    ]
    for name, f, ins, kw in convs:
        yield name, (lambda f, kw, has_b: (lambda x, w, b: f(x, w, b, **kw)) if has_b else (lambda x, w: f(x, w, None, **kw)))(f, kw, ins[2] is not None), [t for t in ins if t is not None]
    yield "batch_norm-train", lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-3), [r(4, 3, 5, 5), r(3), r(3), r(3), pos(3)]
    yield "batch_norm-eval", lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3), [r(4, 3, 5), r(3), r(3), r(3), pos(3)]
    yield "batch_norm-nostats", lambda x: F.batch_norm(x, None, None, training=True), [r(4, 3)]
    yield "instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), [r(2, 3, 4, 5), r(3), r(3)]
    yield "group_norm", lambda x, w, b: F.group_norm(x, 2, w, b, eps=1e-4), [r(2, 4, 3, 5), r(4), r(4)]
    yield "layer_norm", lambda x, w, b: F.layer_norm(x, [4, 5], w, b), [r(2, 3, 4, 5), r(4, 5), r(4, 5)]
    yield "layer_norm-noaffine", lambda x: F.layer_norm(x, [5]), [r(3, 5)]
    yield "max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1), [x3]
    yield "max_pool2d", lambda x: F.max_pool2d(x, 2), [x4]
    yield "max_pool2d-ceil", lambda x: F.max_pool2d(x, (3, 2), stride=2, padding=1, dilation=(1, 2), ceil_mode=True), [r(1, 2, 7, 8)]
    yield "max_pool3d", lambda x: F.max_pool3d(x, 2, stride=(1, 2, 2)), [r(1, 2, 4, 5, 6)]
    yield "avg_pool1d", lambda x: F.avg_pool1d(x, 3, stride=2, padding=1), [x3]
    yield "avg_pool2d", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False), [x4]
    yield "avg_pool2d-ceil", lambda x: F.avg_pool2d(x, 2, ceil_mode=True), [r(1, 2, 5, 7)]
    yield "avg_pool2d-div", lambda x: F.avg_pool2d(x, 2, divisor_override=3), [x4]
    yield "avg_pool3d", lambda x: F.avg_pool3d(x, 2, padding=1), [r(1, 2, 4, 4, 5)]
    yield "adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 4)), [r(2, 3, 5, 7)]
    yield "adaptive_avg_pool2d-1", lambda x: F.adaptive_avg_pool2d(x, 1), [r(2, 3, 5, 7)]
    yield "adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), [r(1, 2, 4, 5, 5)]
    yield "adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), [x3]
    yield "adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), [r(2, 3, 5, 7)]
    yield "mse_loss", F.mse_loss, [r(4, 5), r(4, 5)]
    yield "mse_loss-sum", lambda a, b: F.mse_loss(a, b, reduction="sum"), [r(4, 5), r(4, 5)]
    yield "l1_loss", lambda a, b: F.l1_loss(a, b, reduction="none"), [r(4, 5), r(4, 5)]
    yield "smooth_l1_loss", lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), [r(4, 5), r(4, 5)]
    yield "huber_loss", lambda a, b: F.huber_loss(a, b, delta=0.7), [r(4, 5), r(4, 5)]
    yield "cross_entropy", lambda a, t: F.cross_entropy(a, t), [r(6, 5), torch.randint(0, 5, (6,))]
    yield "cross_entropy-w", lambda a, t, w: F.cross_entropy(a, t, weight=w, reduction="sum"), [r(6, 5), torch.randint(0, 5, (6,)), pos(5)]
    yield "nll_loss-none", lambda a, t: F.nll_loss(a, t, reduction="none"), [r(6, 5), torch.randint(0, 5, (6,))]
    yield "kl_div", lambda p, t: F.kl_div(torch.log(p), t, reduction="batchmean"), [pos(4, 5), pos(4, 5)]
    yield "bce", lambda p, t: F.binary_cross_entropy(p, t), [torch.rand(4, 5, dtype=D) * 0.9 + 0.05, torch.rand(4, 5, dtype=D)]
    yield "hinge", lambda p, t: torch.mean(torch.clamp(1 - p * t, min=0)), [r(8), torch.sign(r(8))]
    yield "cosine_similarity", lambda a, b: torch.mean(1 - F.cosine_similarity(a, b, dim=1)), [r(4, 6), r(4, 6)]
    yield "triplet_margin", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=1.0), [r(4, 6), r(4, 6), r(4, 6)]
    yield "views", lambda a: a.view(3, 20).t().contiguous()[1:7:2].reshape(-1).unsqueeze(0).expand(2, 9) * 1.0, [r(3, 4, 5)]
    yield "select-permute", lambda a: a[:, 1].permute(1, 0).flatten() + 0.0, [r(3, 4, 5)]
    yield "flip", lambda a: torch.flip(a, [1]) * 2, [r(3, 4, 5)]
    yield "flip-dims", lambda a: torch.flip(a, [0, -1]) + 1, [r(3, 4, 5)]
    yield "roll", lambda a: torch.roll(a, 2, 1) * 2, [r(3, 4, 5)]
    yield "roll-dims", lambda a: torch.roll(a, (-3, 1, 7), (2, 0, -1)) + 1, [r(3, 4, 5)]
    yield "roll-flat", lambda a: torch.roll(a, -7) * 2, [r(3, 4, 5)]
    yield "pad", lambda a: F.pad(a, (1, 2)) * 2, [r(3, 4, 5)]
    yield "pad-value-cut", lambda a: F.pad(a, (0, -1, 2, 1), value=0.5) + 1, [r(3, 4, 5)]
    yield "zeros_like", lambda a: torch.zeros_like(a) + a * 2, [r(3, 4)]
    yield "ones_like", lambda a: torch.ones_like(a) * a, [r(3, 4)]
    yield "full_like", lambda a: torch.full_like(a, 0.25) - a, [r(3, 4)]
    yield "fill", lambda a: a.clone().fill_(1.5) * a, [r(3, 4)]
    yield "logical_not", lambda a: torch.logical_not(a > 0).to(D) + a, [r(3, 4)]
    # ~ of a bool mask is recorded as logical_not (recorder.py)
    yield "not-mask", lambda a: a.masked_fill(~(a > 0.2), -2.0) * 2, [r(3, 4)]
    yield "transpose-squeeze", lambda a: a.transpose(0, 2).squeeze(1) * 2, [r(3, 1, 5)]
    yield "softsign-ops", F.softsign, [r(3, 4)]
    yield "diag-vector", lambda a: torch.diag(a), [r(4)]
    yield "diag-vector-k", lambda a: torch.diag(a, 2)[:5, :5] + torch.diag(a, -1), [r(4)]
    yield "diag-matrix", lambda a: torch.diag(a)[:3] + torch.diag(a, 1)[:3] + torch.diag(a, -2).sum(), [r(4, 5)]
    yield "triu-tril", lambda a: torch.triu(a) + torch.tril(a, -1) * 2 + torch.triu(a, 2) * 3, [r(2, 4, 5)]
    yield "tril-k", lambda a: torch.tril(a, 1), [r(5, 3)]
    yield "masked_fill", lambda a: a.masked_fill(a > 0.3, -1.5) * 2, [r(3, 4)]
    # gathers by index tensors (constants of the trace, as a model's
    # index tables are): one index, a 2-d one in the middle with a
    # negative index, two apart (their dims go first), index_select
    yield "index", lambda a: a[torch.tensor([2, 0, 1, 2])] * 2, [r(3, 4)]
    yield "index-middle", lambda a: a[:, torch.tensor([[3, 0], [1, -1]])] + 1, [r(2, 4, 3)]
    yield "index-apart", lambda a: a[torch.tensor([1, 0]), :, torch.tensor([2, 3])] * 2, [r(2, 3, 4)]
    yield "index-bcast", lambda a: a[torch.tensor([[0], [2]]), torch.tensor([1, 3, 0])] + 1, [r(3, 4, 2)]
    yield "index_select", lambda a: torch.index_select(a, 1, torch.tensor([3, 1, 1])) * 2, [r(2, 4, 3)]
    yield "masked_fill-bcast", lambda a, m: a.masked_fill(m > 0, 0.25) + 1, [r(3, 4), r(4)]


def main(argv):
    torch.manual_seed(1234)
    with open(argv[1], "wb") as f:
        def write(rec):
            f.write(packb(rec))
        write({"t": "header", "format": "dirigo", "version": 1, "stream": "trace",
               "name": "ops", "tool": "tests/ops/gen.py", "torch": torch.__version__})
        for name, fn, ins in cases():
            rec = Recorder(write, all_data=True)
            write({"t": "case", "name": name})
            for i, x in enumerate(ins):
                rec.add_input(x, "input", "arg%d" % i)
            with torch.no_grad(), rec:
                out = fn(*ins)
            rec.add_output(out, "out0")
        write({"t": "end", "status": 0})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
