"""torch's warnings, word for word, from the learner's line.

Warnings torch raises from its C++ code end with where they were raised, "(Triggered internally
at /__w/pytorch/pytorch/...cpp:NNN.)", as torch 2.15's Linux wheel prints it; all of them name
the Python line that called torch (here: this file), not the engine's insides.
"""
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch

WARNINGS = {
    "a list of numpy arrays": lambda m: m.tensor([np.zeros(2), np.zeros(2)]),
    "softmax without dim": lambda m: m.nn.functional.softmax(m.ones(2, 3)),
    "a tensor from a tensor": lambda m: m.tensor(m.ones(2)),
    "new_tensor of a tensor": lambda m: m.ones(2).new_tensor(m.ones(2)),
    "mse_loss of other shapes": lambda m: m.nn.functional.mse_loss(m.ones(2, 1), m.ones(2)),
    "out= resized": lambda m: m.add(m.ones(2), 1, out=m.zeros(3)),
    "sum out= resized": lambda m: m.sum(m.ones(2, 2), 0, out=m.zeros(3)),
    "arange out= resized": lambda m: m.arange(3, out=m.zeros(5)),
    "a non-leaf's .grad": lambda m: (m.ones(2, requires_grad=True) * 2).grad,
    "padding='same' with an even kernel": lambda m: m.nn.functional.conv1d(
        m.ones(1, 1, 5), m.ones(1, 1, 2), padding="same"),
    "std without degrees of freedom": lambda m: m.ones(1).std(),
    "var along a dim of one": lambda m: m.ones(2, 1).var(1),
    "cross without dim": lambda m: m.cross(m.ones(3, 3), m.ones(3, 3)),
    "a uint8 mask": lambda m: m.ones(2)[m.tensor([1, 0], dtype=m.uint8)],
    "index_fill_ of an expanded tensor": lambda m: m.zeros(3).expand(2, 3).index_fill_(
        0, m.tensor([1]), 2.0),
    "masked_fill_ of an expanded tensor": lambda m: m.zeros(3).expand(2, 3).masked_fill_(
        m.tensor([True, False, False]), 2.0),
}


# warned once per process (torch's TORCH_WARN_ONCE, the engine likewise)
WARNED_ONCE = {"a list of numpy arrays", "cross without dim", "padding='same' with an even kernel"}


@pytest.mark.parametrize("name", list(WARNINGS))
def test_warnings_read_and_point_as_torchs(name):
    seen = {}
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            WARNINGS[name](m)
        seen[m.__name__] = [(w.category.__name__, str(w.message), w.filename) for w in caught]
    if name in WARNED_ONCE and not (seen["engine"] and seen["torch"]):
        pytest.skip("warned once per process, and one of them already did")
    assert seen["torch"], "torch warns here"
    assert seen["engine"] == seen["torch"]


def _twice_differentiated(m):
    # fuzz 902483: log_softmax of a 0-d tensor is 0, y = 0 / 0; the gradient's fused sums
    # meet inf * 0 and inf - inf (numpy's "invalid value encountered in add")
    x = m.tensor(-1.25, requires_grad=True)
    y = x.log_softmax(-1) / x.log_softmax(-1)
    z, = m.autograd.grad(y.sum(), x, create_graph=True)
    w, = m.autograd.grad(z.sum(), x, create_graph=True)
    return m.autograd.grad(w, x, m.ones_like(w))


def _values(m, dtype):
    return m.tensor([float("inf"), 1.0, 2.0, 3e38, 0.0, float("-inf")], dtype=dtype,
                    requires_grad=True)


SILENT = {
    "third derivative through 0 / 0": _twice_differentiated,
    "log_softmax's gradient of inf": lambda m: (lambda x: m.autograd.grad(
        x.log_softmax(0).sum(), x))(_values(m, m.float32)),
    "fused multiply-add of inf and 0": lambda m: m.addcmul(
        m.tensor([float("inf"), 0.0]), m.tensor([0.0, 3e38]), m.tensor([float("inf"), 3e38])),
}
for _name in ("float16", "float32", "float64"):
    SILENT[f"layer_norm of inf ({_name})"] = lambda m, d=_name: (lambda x: m.autograd.grad(
        m.nn.functional.layer_norm(x.reshape(2, 3), (3,)).sum(), x))(_values(m, getattr(m, d)))
    SILENT[f"batch_norm of inf ({_name})"] = lambda m, d=_name: (lambda x: m.autograd.grad(
        m.nn.functional.batch_norm(x.reshape(3, 2), None, None, training=True).sum(), x))(
        _values(m, getattr(m, d)))
    SILENT[f"batch_norm of 3e38 ({_name})"] = lambda m, d=_name: m.nn.functional.batch_norm(
        m.tensor([[3e38, 1.0], [-3e38, 2.0], [3e38, 3.0]], dtype=getattr(m, d)),
        m.zeros(2, dtype=getattr(m, d)), m.ones(2, dtype=getattr(m, d)), training=True)


@pytest.mark.parametrize("name", list(SILENT))
def test_inf_and_nan_computed_silently_as_torch(name):
    for m in (torch, engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            SILENT[name](m)
        assert [str(w.message) for w in caught] == [], m.__name__


_ONCE_AFTER_FORWARD_MODE = """
import sys, warnings
warnings.simplefilter("always")
torch = __import__(sys.argv[1])
q = torch.tensor([1.0, 1.5], dtype=torch.float64)
{before}
x = torch.tensor([0.5, -0.75], dtype=torch.float64, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (x.reciprocal() @ x.reciprocal()).sum().backward(create_graph=True)
    (x * x).sum().backward(create_graph=True)
print([str(w.message)[:60] for w in caught])
"""


@pytest.mark.parametrize("before", [
    "torch.func.hessian(lambda a: (a.var() * a).sum())(q)",  # fuzz 900063
    "torch.func.jvp(lambda a: a.exp().sum(), (q,), (q,))",
    "torch.func.jacfwd(lambda a: a.sin())(q.requires_grad_())",
    "torch.autograd.grad((q.requires_grad_() ** 2).sum(), q, create_graph=True)",
])
def test_create_graph_warning_once_per_process_after_forward_mode(before):
    # backward(create_graph=True) warns once per process, in torch and the engine; the
    # engine's forward mode runs a backward(create_graph=True) of its own, which must not
    # use that one warning up (a fresh process each, as "once" needs)
    import subprocess
    import sys

    script = _ONCE_AFTER_FORWARD_MODE.format(before=before)
    seen = [subprocess.run([sys.executable, "-c", script, name], capture_output=True, text=True,
                           check=True).stdout for name in ("torch", "engine")]
    assert "Using backward() with create_graph=True" in seen[0]
    assert seen[1] == seen[0]
