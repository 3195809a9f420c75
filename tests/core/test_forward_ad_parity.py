# ruff: noqa: E501 (tables of cases, one per line)
"""torch.autograd.forward_ad against torch 2.15: dual tensors and the tangents of operations.

The API part runs snippets with ``m = torch`` and ``m = engine`` (parity.assert_same_snippet:
values, dtypes, shapes, requires_grad, grad_fn names, errors' type and message, reprs).
The operations part makes each input dual with a seeded tangent, runs the op, and compares
every result's primal and tangent (parity.run_both: values within torch.testing's tolerances,
dtypes, shapes, strides).
"""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

PRELUDE = """
fw = m.autograd.forward_ad
x = m.tensor([1.0, -2.0, 3.0])
t = m.tensor([0.5, 1.0, -1.0])
"""

API_CASES = {
    "make_dual and unpack": "with fw.dual_level() as level:\n d = fw.make_dual(x, t)\n"
                            " u = fw.unpack_dual(d)\n r = [level, d, u.primal, u.tangent,"
                            " type(u).__name__, u._fields, repr(d), repr(u)]",
    "tangent kept as it is": "with fw.dual_level():\n d = fw.make_dual(x, t)\n"
                             " u = fw.unpack_dual(d)\n r = [u.tangent is t, u.primal is d,"
                             " u.primal.data_ptr() == x.data_ptr(), d.data_ptr() == x.data_ptr(),"
                             " d._base is x, d.grad_fn, d.requires_grad, d.is_leaf]",
    "tangent of another layout is copied": (
        "p = m.arange(6.).reshape(2, 3).t()\nwith fw.dual_level():\n d = fw.make_dual(p, m.ones(3, 2))\n"
        " T = fw.unpack_dual(d).tangent\n r = [T.stride(), p.stride(), T, d[1], fw.unpack_dual(d[1]).tangent.stride()]"),
    "tangents of views laid out as torch's": (
        "b = m.arange(12.).view(3, 4)\nwith fw.dual_level():\n r = []\n"
        " for p in (b[..., 0], b[1:, 1:3], b.t()[1:], b[1], b[2, 3]):\n"
        "  T = fw.unpack_dual(fw.make_dual(p, m.ones(p.shape))).tangent\n"
        "  r.append([T.stride(), T.storage_offset(), T.untyped_storage().nbytes()])\n"
        "r.append(m.func.hessian(lambda a: a.log_softmax(-1).sum())(b[..., 0]))"),
    "tangent keeps its dtype": "with fw.dual_level():\n d = fw.make_dual(x, t.double())\n"
                               " r = [fw.unpack_dual(d).tangent, fw.unpack_dual(d * 2).tangent]",
    "after the level": "with fw.dual_level():\n d = fw.make_dual(x, t)\n"
                       "r = [fw.unpack_dual(d), repr(d), fw.unpack_dual(3)]",
    "not dual": "with fw.dual_level():\n u = fw.unpack_dual(x)\n r = [u, u.primal is x,"
                " u.primal.data_ptr() == x.data_ptr(), repr(x)]",
    "requires grad": (
        "xr = x.clone().requires_grad_()\nwith fw.dual_level():\n d = fw.make_dual(xr, t)\n"
        " u = fw.unpack_dual(d)\n y = (d * d).sum()\n uy = fw.unpack_dual(y)\n"
        " r = [d, u.primal, u.primal.grad_fn, u.tangent, y, uy.primal, uy.tangent, repr(y),"
        " fw.unpack_dual(xr).primal]\n y.backward()\n r.append(xr.grad)"),
    "0-d repr": "with fw.dual_level():\n d = fw.make_dual(m.tensor(2.0), m.tensor(3.0))\n"
                " r = [repr(d), repr(d * m.tensor(2.0, requires_grad=True)), str(d), repr(d[None])]",
    "empty": "with fw.dual_level():\n d = fw.make_dual(m.zeros(0), m.zeros(0))\n r = [repr(d), d * 2]",
    "2-d repr": "with fw.dual_level():\n d = fw.make_dual(m.eye(2), m.eye(2) * 3)\n r = repr(d.exp())",
    "no_grad keeps tangents": "with fw.dual_level():\n d = fw.make_dual(x, t)\n with m.no_grad():\n"
                              "  y = d * 2 + 1\n r = fw.unpack_dual(y)",
    "detach drops the tangent": "with fw.dual_level():\n d = fw.make_dual(x, t)\n"
                                " r = [fw.unpack_dual(d.detach()), fw.unpack_dual(d.data),"
                                " fw.unpack_dual(d.clone())]",
    "dual_level as a decorator": "@fw.dual_level()\ndef f(a):\n    return fw.unpack_dual(fw.make_dual(a, t) * 2)\n"
                                 "r = [f(x), f(x), fw.unpack_dual(x)]",
    "nested level": "with fw.dual_level():\n r = error(fw.enter_dual_level)",
    "nested dual_level": "with fw.dual_level():\n r = error(lambda: fw.dual_level().__enter__())",
    "exit without level": "r = error(fw.exit_dual_level)",
    "exit another level": "fw.enter_dual_level()\nfw.exit_dual_level()\n"
                          "r = [error(lambda: fw.exit_dual_level(level=0))]",
    "enter exit": "r = [fw.enter_dual_level()]\nfw.exit_dual_level(level=0)\n"
                  "r.append(fw.enter_dual_level())\nfw.exit_dual_level()",
    "make_dual without level": "r = error(lambda: fw.make_dual(x, t))",
    "make_dual size": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x, m.ones(2)))",
    "make_dual 2-d size": "with fw.dual_level():\n r = error(lambda: fw.make_dual(m.ones(2, 3), m.ones(3, 2)))",
    "make_dual int tangent": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x, m.ones(3, dtype=m.int64)))",
    "make_dual int primal": "with fw.dual_level():\n r = error(lambda: fw.make_dual(m.arange(3), m.ones(3)))",
    "make_dual bool primal": "with fw.dual_level():\n r = error(lambda: fw.make_dual(m.ones(3).bool(), m.ones(2)))",
    "make_dual level": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x, t, level=5))",
    "make_dual negative level": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x, t, level=-1))",
    "make_dual of a dual": "with fw.dual_level():\n d = fw.make_dual(x, t)\n"
                           " r = error(lambda: fw.make_dual(d, t))",
    "unpack_dual level": "with fw.dual_level():\n r = error(lambda: fw.unpack_dual(fw.make_dual(x, t), level=5))",
    "unpack_dual number": "with fw.dual_level():\n r = error(lambda: fw.unpack_dual(3))",
    "unpack_dual level given without level": "r = fw.unpack_dual(x, level=0)",
    "in place on a dual": "with fw.dual_level():\n x2 = x.clone()\n d = fw.make_dual(x2, t.clone())\n"
                          " d.mul_(3)\n d.add_(d)\n r = [fw.unpack_dual(d), fw.unpack_dual(x2)]",
    "in place into a plain tensor": "with fw.dual_level():\n d = fw.make_dual(x, t)\n y = m.ones(3)\n"
                                    " y.add_(d)\n z = m.ones(3)\n z.copy_(d)\n r = [fw.unpack_dual(y), fw.unpack_dual(z)]",
    "in place into a view": "with fw.dual_level():\n d = fw.make_dual(x, t)\n b = m.ones(4)\n"
                            " v = b[1:]\n v.mul_(d)\n w = b[:2]\n"
                            " r = [fw.unpack_dual(b), fw.unpack_dual(v), fw.unpack_dual(w)]",
    "copy_ into a slice": "with fw.dual_level():\n d = fw.make_dual(x, t)\n b = m.zeros(2, 3)\n"
                          " b[1].copy_(d)\n b[0] = d * 2\n r = [fw.unpack_dual(b)]",
    "in place plain into a dual": "with fw.dual_level():\n d = fw.make_dual(x.clone(), t.clone())\n"
                                  " d.mul_(m.tensor([1.0, 2.0, 3.0]))\n d.fill_(1)\n r = fw.unpack_dual(d)",
    "views share the tangent": "with fw.dual_level():\n d = fw.make_dual(x.clone(), t.clone())\n"
                               " v = d[1:]\n v.mul_(10)\n r = [fw.unpack_dual(d), fw.unpack_dual(v)]",
    "in-place unary and setitem": "with fw.dual_level():\n d = fw.make_dual(x.clone(), t.clone())\n"
                                  " d.sin_()\n d[0] = 5.0\n d[1:] *= 2\n r = fw.unpack_dual(d)",
    "in-place views": "with fw.dual_level():\n d = fw.make_dual(m.ones(2, 3), m.arange(6.).view(2, 3))\n"
                      " d.t_()\n r = [fw.unpack_dual(d)]\n d.unsqueeze_(0)\n r.append(fw.unpack_dual(d))",
    "setitem with a dual value": "with fw.dual_level():\n d = fw.make_dual(x, t)\n b = m.zeros(2, 3)\n"
                                 " b[:, 1] = d[:2]\n b[m.tensor([True, False])] = d * 3\n r = fw.unpack_dual(b)",
    "no forward formula": "with fw.dual_level():\n d = fw.make_dual(x, t)\n"
                          " r = [error(lambda: d // 2), error(lambda: m.floor_divide(d, 2.0))]",
    "bernoulli's zero tangent": "m.manual_seed(0)\nwith fw.dual_level():\n"
                                " d = fw.make_dual(m.tensor([0.2, 0.5, 0.9]), t)\n"
                                " r = fw.unpack_dual(m.bernoulli(d))",
}


@pytest.mark.parametrize("code", API_CASES.values(), ids=API_CASES.keys())
def test_forward_ad_api(code):
    parity.assert_same_snippet(PRELUDE + code)


# ---------------------------------------------------------------- tangents of operations
def _jvp(m, fn, n, *args):
    """``fn(m, *duals)`` with the first n args made dual with the next n as tangents, and the
    rest passed as they are: every result's primal and tangent."""
    fw = m.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(p, t) for p, t in zip(args[:n], args[n:2 * n])]
        out = fn(m, *duals, *args[2 * n:])
        outs = out if isinstance(out, (tuple, list)) else (out,)
        found = []
        for o in outs:
            u = fw.unpack_dual(o)
            found.extend([u.primal, u.tangent])
        return found


F = "nn.functional"
UNARY = {
    "exp": lambda m, a: a.exp(), "log": lambda m, a: a.abs().log(), "sin": lambda m, a: m.sin(a),
    "cos": lambda m, a: a.cos(), "tanh": lambda m, a: a.tanh(), "sigmoid": lambda m, a: a.sigmoid(),
    "sqrt": lambda m, a: (a * a + 1).sqrt(), "abs": lambda m, a: a.abs(), "neg": lambda m, a: -a,
    "relu": lambda m, a: m.relu(a), "pow2": lambda m, a: a ** 2, "pow3.5": lambda m, a: a.abs() ** 3.5,
    "rsub": lambda m, a: 1 - a, "rdiv": lambda m, a: 2 / (a + 10), "square": lambda m, a: a.square(),
    "clamp": lambda m, a: a.clamp(-0.5, 0.5), "reciprocal": lambda m, a: (a + 10).reciprocal(),
    "log1p": lambda m, a: a.abs().log1p(), "expm1": lambda m, a: a.expm1(), "atan": lambda m, a: a.atan(),
    "sum": lambda m, a: a.sum(), "sum dim": lambda m, a: a.sum(-1, keepdim=True),
    "mean": lambda m, a: a.mean(), "mean dim": lambda m, a: a.mean(0),
    "prod": lambda m, a: a.prod(), "prod dim": lambda m, a: a.prod(-1),
    "max dim": lambda m, a: a.max(-1), "min dim": lambda m, a: a.min(0, keepdim=True),
    "max": lambda m, a: a.max(), "amax": lambda m, a: a.amax(-1), "amin": lambda m, a: a.amin(),
    "norm": lambda m, a: a.norm(), "norm dim": lambda m, a: a.norm(dim=-1), "norm 1": lambda m, a: a.norm(p=1),
    "var": lambda m, a: a.var(), "std dim": lambda m, a: a.std(-1), "var unbiased": lambda m, a: a.var(0, correction=0),
    "logsumexp": lambda m, a: a.logsumexp(-1), "view": lambda m, a: a.view(-1),
    "reshape": lambda m, a: a.reshape(-1, 1), "t": lambda m, a: a.t(), "transpose": lambda m, a: a.transpose(0, 1),
    "permute": lambda m, a: a.permute(1, 0), "unsqueeze": lambda m, a: a.unsqueeze(1),
    "squeeze": lambda m, a: a.unsqueeze(0).squeeze(0), "expand": lambda m, a: a.unsqueeze(0).expand(2, -1, -1),
    "slice": lambda m, a: a[:, 1:], "select": lambda m, a: a[1], "narrow": lambda m, a: a.narrow(1, 0, 2),
    "flatten": lambda m, a: a.flatten(), "transpose reshape": lambda m, a: a.t().reshape(-1),
    "index tensor": lambda m, a: a[m.tensor([1, 0, 1])], "index mask": lambda m, a: a[a > 0],
    "index_select": lambda m, a: a.index_select(1, m.tensor([2, 0])),
    "gather": lambda m, a: a.gather(1, m.tensor([[0, 0], [2, 1]])),
    "cat": lambda m, a: m.cat([a, a * 2], 1), "stack": lambda m, a: m.stack([a, a.exp()]),
    "clone": lambda m, a: a.clone(), "contiguous": lambda m, a: a.t().contiguous(),
    "split": lambda m, a: a.split(1, 1), "unbind": lambda m, a: a.unbind(0),
    "softmax": lambda m, a: m.nn.functional.softmax(a, -1),
    "log_softmax": lambda m, a: m.nn.functional.log_softmax(a, 0),
    "gelu": lambda m, a: m.nn.functional.gelu(a), "gelu tanh": lambda m, a: m.nn.functional.gelu(a, approximate="tanh"),
    "F.relu": lambda m, a: m.nn.functional.relu(a), "F.tanh": lambda m, a: m.nn.functional.tanh(a),
    "F.sigmoid": lambda m, a: m.nn.functional.sigmoid(a),
    "mse_loss": lambda m, a: m.nn.functional.mse_loss(a, m.ones(2, 3)),
    "mse_loss sum": lambda m, a: m.nn.functional.mse_loss(a, m.ones(2, 3), reduction="sum"),
    "cross_entropy": lambda m, a: m.nn.functional.cross_entropy(a, m.tensor([2, 0])),
    "cross_entropy probs": lambda m, a: m.nn.functional.cross_entropy(a, m.full((2, 3), 1 / 3)),
    "linear": lambda m, a: m.nn.functional.linear(a, m.ones(4, 3), m.ones(4)),
    "matmul const": lambda m, a: a @ m.ones(3, 2), "mv const": lambda m, a: a.mv(m.ones(3)),
    "float64": lambda m, a: a.double() * 2, "where": lambda m, a: m.where(a > 0, a, a * a),
    "maximum": lambda m, a: m.maximum(a, m.zeros(3)), "div": lambda m, a: a / 3,
    "mul broadcast": lambda m, a: a * m.tensor([[1.0], [2.0]]), "chain": lambda m, a: (a.tanh() @ a.t()).sum(),
    # more of the engine's ops (each derived from its backward formula)
    "cumsum": lambda m, a: a.cumsum(1), "cumprod": lambda m, a: a.cumprod(1), "sort": lambda m, a: a.sort(1).values,
    "topk": lambda m, a: a.topk(2).values, "pow tensor": lambda m, a: (a.abs() + 1) ** a,
    "lerp": lambda m, a: m.lerp(a, a.exp(), 0.3), "addcmul": lambda m, a: m.addcmul(a, a, a, value=2),
    "outer": lambda m, a: m.outer(a[0], a[1]), "max_pool2d": lambda m, a: m.nn.functional.max_pool2d(a.view(1, 1, 2, 3), 2),
    "avg_pool2d": lambda m, a: m.nn.functional.avg_pool2d(a.view(1, 1, 2, 3), 2),
    "conv2d": lambda m, a: m.nn.functional.conv2d(a.view(1, 1, 2, 3), m.ones(1, 1, 2, 2, dtype=a.dtype)),
    "layer_norm": lambda m, a: m.nn.functional.layer_norm(a, (3,)),
    "batch_norm": lambda m, a: m.nn.functional.batch_norm(a, None, None, training=True),
    "nll_loss": lambda m, a: m.nn.functional.nll_loss(a, m.tensor([0, 2])),
    "bce with logits": lambda m, a: m.nn.functional.binary_cross_entropy_with_logits(a, m.full((2, 3), 0.3, dtype=a.dtype)),
    "l1_loss": lambda m, a: m.nn.functional.l1_loss(a, m.zeros(2, 3, dtype=a.dtype)),
    "softplus": lambda m, a: m.nn.functional.softplus(a), "elu": lambda m, a: m.nn.functional.elu(a),
    "leaky_relu": lambda m, a: m.nn.functional.leaky_relu(a), "silu": lambda m, a: m.nn.functional.silu(a),
    "pad": lambda m, a: m.nn.functional.pad(a, (1, 1)), "repeat": lambda m, a: a.repeat(2, 1),
    "masked_fill": lambda m, a: a.masked_fill(a > 0, 1.0), "cross": lambda m, a: m.linalg.cross(a[0], a[1]),
    "vector_norm": lambda m, a: m.linalg.vector_norm(a, dim=1), "norm inf": lambda m, a: a.norm(p=float("inf")),
    "sign floor round frac": lambda m, a: a.sign() + a.floor() + a.round() + a.frac(),
    "remainder fmod": lambda m, a: a.remainder(1.5) + a.fmod(1.5), "lgamma": lambda m, a: (a.abs() + 1).lgamma(),
    "chunk": lambda m, a: a.chunk(3, 1)[1], "movedim": lambda m, a: a.movedim(0, 1),
    "as_strided": lambda m, a: a.as_strided((2, 2), (1, 2)), "flip": lambda m, a: a.flip(1),
    "prod with a zero": lambda m, a: (a * m.tensor([[0.0, 1, 1], [1, 1, 1]], dtype=a.dtype)).prod(1),
    "bernoulli": lambda m, a: m.bernoulli(a.sigmoid(), generator=m.Generator().manual_seed(0)),
    # a vector times a matrix, and batched matmul: their tangents were silently zero when no
    # operand required grad (matmul skipped recording; issue 26, nested forward mode)
    "vector @ matrix": lambda m, a: a[0] @ m.ones(3, 2, dtype=a.dtype),
    "batched @ matrix": lambda m, a: a.view(1, 2, 3).expand(2, 2, 3) @ m.ones(3, 2, dtype=a.dtype),
    "matrix @ batched vector": lambda m, a: m.ones(2, 2, 3, dtype=a.dtype) @ a[1],
}
BINARY = {
    "add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / (b * b + 1), "pow": lambda m, a, b: (a * a + 1) ** b,
    "add alpha": lambda m, a, b: m.add(a, b, alpha=2), "maximum": lambda m, a, b: m.maximum(a, b),
    "atan2": lambda m, a, b: m.atan2(a, b), "mul broadcast": lambda m, a, b: a * b[0],
    "mm": lambda m, a, b: a.mm(b.t()), "matmul": lambda m, a, b: a @ b.t(),
    "bmm": lambda m, a, b: m.bmm(a.unsqueeze(0), b.t().unsqueeze(0)),
    "mv": lambda m, a, b: a.mv(b[0]), "dot": lambda m, a, b: a[0].dot(b[1]),
    "cat": lambda m, a, b: m.cat([a, b]), "stack": lambda m, a, b: m.stack([a, b], 1),
    "mse_loss": lambda m, a, b: m.nn.functional.mse_loss(a, b),
    "linear": lambda m, a, b: m.nn.functional.linear(a, b, b[0]),
    "where": lambda m, a, b: m.where(a > b, a, b),
    # matmul's ways that skip a node when nothing requires grad (their tangents were lost)
    "matmul of batches": lambda m, a, b: a.view(2, 1, 3) @ b.view(2, 3, 1),
    "matmul row @ matrix": lambda m, a, b: a[0] @ b.t(), "matmul batch @ matrix": lambda m, a, b: a.view(1, 2, 3) @ b.t(),
    "matmul batch @ vector": lambda m, a, b: m.matmul(a.view(2, 1, 3), b[0]),
}


def _values(seed, dtype, shape=(2, 3)):
    return parity.make_tensor(shape, dtype, seed=seed, low=-2, high=2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_tangents(name, dtype):
    parity.run_both(lambda m, *a: _jvp(m, UNARY[name], 1, *a), _values(0, dtype),
                    _values(1, dtype), exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_tangents(name, dtype):
    a, b, ta, tb = (_values(seed, dtype) for seed in range(4))
    parity.run_both(lambda m, *v: _jvp(m, BINARY[name], 2, *v), a, b, ta, tb, exact=False)
    # one operand dual, the other plain
    parity.run_both(lambda m, a, ta, b: _jvp(m, lambda m, x: BINARY[name](m, x, b), 1, a, ta),
                    a, ta, b, exact=False)


@pytest.mark.parametrize("name", ["exp", "sum dim", "t", "chain", "cross_entropy"])
def test_tangents_under_no_grad_and_with_requires_grad(name):
    def run(m, a, ta, grad):
        fw = m.autograd.forward_ad
        with fw.dual_level(), m.set_grad_enabled(grad):
            u = fw.unpack_dual(UNARY[name](m, fw.make_dual(a, ta)))
            return [u.primal, u.tangent, u.tangent.requires_grad, u.primal.requires_grad]
    for grad in (False, True):
        parity.run_both(run, _values(0, "float32"), _values(1, "float32"), grad, exact=False)
    parity.run_both(run, _values(0, "float32").requires_grad_(), _values(1, "float32"), True,
                    exact=False)


@pytest.mark.parametrize("pair", [((3,), (2, 3)), ((2, 1), (1, 3)), ((), (3,))])
def test_broadcasting_and_type_promotion(pair):
    a, b = parity.make_tensor(pair[0], "float32"), parity.make_tensor(pair[1], "float64", seed=1)
    ta, tb = parity.make_tensor(pair[0], "float32", seed=2), parity.make_tensor(pair[1], "float64", seed=3)
    for fn in (lambda m, x, y: x * y, lambda m, x, y: x + y, lambda m, x, y: m.maximum(x, y)):
        parity.run_both(lambda m, *v, fn=fn: _jvp(m, fn, 2, *v), a, b, ta, tb, exact=False)


def test_no_level_costs_one_test():
    """With no dual level, recording asks one attribute (the state's ``active``)."""
    from engine.core import forward
    assert forward.state.active is False
    with engine.autograd.forward_ad.dual_level():
        assert forward.state.active is True
    assert forward.state.active is False
