# ruff: noqa: E501 (tables of cases, one per line)
"""torch.vmap / torch.func.vmap against torch 2.15, and per-sample gradients.

Each case is a snippet run once with ``m = torch`` and once with ``m = engine``; its ``r``
(values, dtypes, shapes, strides, grad_fn names, or the error's type and message) must be
the same. ``BATCHED`` cases must also run as one batched call in the engine (no per-sample
loop): the batching rules, not the fallback, give their results.
"""
import importlib

import pytest

import engine
import parity

engine_vmap_module = importlib.import_module("engine.func.vmap")  # (engine.func.vmap: the function)

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _facts(value):
    if isinstance(value, dict):
        return {k: _facts(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_facts(v) for v in value]
    if hasattr(value, "grad_fn"):
        return None if value.grad_fn is None else value.grad_fn.name()
    return value


def _comparable(value):
    if isinstance(value, dict):
        return [(k, _comparable(value[k])) for k in value]
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        return type(value)(_comparable(v) for v in value)
    return value


PRELUDE = """
F = m.nn.functional
vmap = m.vmap
"""


def _run(m, code, x, y, w, v):
    scope = {"m": m, "x": x, "y": y, "w": w, "v": v}
    exec(PRELUDE + code, scope)  # noqa: S102 - the same snippet for both libraries
    return _comparable(scope["r"]), _facts(scope["r"])


BATCHED = {
    # elementwise
    "exp": "r = vmap(m.exp)(x)",
    "methods and operators": "r = vmap(lambda a: a.exp() * 2 + a - 1 / (a * a + 1))(x)",
    "a number on the left": "r = vmap(lambda a: 2 - a)(x)",
    "torch.relu": "r = vmap(m.relu)(x)",
    "with an unbatched tensor": "r = vmap(lambda a: a * w)(x)",
    "two batched inputs": "r = vmap(lambda a, b: a * b + a)(x, y)",
    "ranks broadcast": "r = vmap(lambda a, b: a.view(3, 1) + b)(x, y)",
    "comparison and where": "r = vmap(lambda a: a.where(a > 0, a * 0.1))(x)",
    "clamp": "r = vmap(lambda a: a.clamp(-1, 1))(x)",
    "pow": "r = vmap(lambda a: a ** 2)(x)",
    "dtype change": "r = vmap(lambda a: (a > 0).float() + a.long())(x)",
    # reductions
    "sum": "r = vmap(lambda a: a.sum())(x)",
    "torch.sum": "r = vmap(m.sum)(x)",
    "sum dim": "r = vmap(lambda a: a.view(3, 1).sum(0))(x)",
    "mean keepdim": "r = vmap(lambda a: a.mean(-1, keepdim=True))(x)",
    "amax and argmax": "r = vmap(lambda a: (a.amax(), a.argmax()))(x)",
    "max with dim": "r = vmap(lambda a: a.max(0))(x)",
    "max of all": "r = vmap(lambda a: a.max())(x)",
    "std": "r = vmap(lambda a: a.std())(x)",
    "norm": "r = vmap(lambda a: a.norm())(x)",
    "logsumexp": "r = vmap(lambda a: a.logsumexp(0))(x)",
    "softmax": "r = vmap(lambda a: a.softmax(0))(x)",
    "log_softmax of a matrix": "r = vmap(lambda a: a.view(3, 1).log_softmax(-1))(x)",
    "cumsum": "r = vmap(lambda a: a.cumsum(0))(x)",
    # matmul
    "vector @ matrix": "r = vmap(lambda a: a @ w.t())(x)",
    "matrix @ vector": "r = vmap(lambda a: w @ a)(x)",
    "dot of two batched": "r = vmap(lambda a, b: a @ b)(x, y)",
    "batched matrices": "r = vmap(lambda a: a.view(3, 1) @ a.view(1, 3))(x)",
    "matrix @ batched matrix": "r = vmap(lambda a: w @ a.view(3, 1))(x)",
    # views
    "view": "r = vmap(lambda a: a.view(3, 1))(x)",
    "reshape": "r = vmap(lambda a: a.reshape(-1, 3))(x)",
    "transpose": "r = vmap(lambda a: a.view(3, 1).t())(x)",
    "permute": "r = vmap(lambda a: a.view(1, 3, 1).permute(2, 0, 1))(x)",
    "unsqueeze and squeeze": "r = vmap(lambda a: a.unsqueeze(0).unsqueeze(-1).squeeze())(x)",
    "expand": "r = vmap(lambda a: a.expand(2, 3))(x)",
    "flatten": "r = vmap(lambda a: a.view(3, 1).flatten())(x)",
    "slicing": "r = vmap(lambda a: a[1:])(x)",
    "an integer index": "r = vmap(lambda a: a[0])(x)",
    "select and narrow": "r = vmap(lambda a: (a.select(0, 1), a.narrow(0, 1, 2)))(x)",
    "unbind": "r = vmap(lambda a: a.unbind())(x)",
    "shape inside": "r = vmap(lambda a: a * a.shape[0] + a.dim())(x)",
    "printing inside": "seen = []\nvmap(lambda a: seen.append(repr(a)) or a)(x)\n"
                       "r = (seen, vmap(lambda a: a.sum(), in_dims=1)(x))",
    # dims
    "in_dims 1": "r = vmap(lambda a: a * 2, in_dims=1)(x)",
    "in_dims -1": "r = vmap(lambda a: a.sum(), in_dims=-1)(x)",
    "in_dims None for one": "r = vmap(lambda a, b: a + b, in_dims=(0, None))(x, w[0])",
    "in_dims for a tuple argument":
        "r = vmap(lambda t: t[0] * t[1], in_dims=((0, None),))((x, w[0]))",
    "in_dims for a dict argument": "r = vmap(lambda d: d['a'] + d['b'])({'a': x, 'b': y})",
    "a number argument": "r = vmap(lambda a, n: a * n, in_dims=(0, None))(x, 3)",
    "out_dims 1": "r = vmap(lambda a: a.view(3, 1), out_dims=1)(x)",
    "out_dims per output": "r = vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x)",
    "out_dims None for an unbatched output":
        "r = vmap(lambda a: (a * 2, w), out_dims=(0, None))(x)",
    "an output that does not depend on the batch": "r = vmap(lambda a: w[0])(x)",
    "a dict output": "r = vmap(lambda a: {'s': a.sum(), 'e': a.exp()})(x)",
    "kwargs are not batched": "r = vmap(lambda a, scale=1.0: a * scale)(x, scale=w[0])",
    "empty sample": "r = vmap(lambda a: a.sum())(x[:, :0])",
    "0-d samples": "r = vmap(lambda a: a * 2 + a.sum())(v)",
    "chunk_size": "r = vmap(lambda a: a.exp(), chunk_size=2)(x)",
    "chunk_size 1": "r = vmap(lambda a: (a.sum(), a * 2), chunk_size=1)(x)",
    # nesting
    "vmap of vmap": "r = vmap(vmap(lambda a: a * 2))(w.view(2, 2, 3))",
    "vmap of vmap sum": "r = vmap(vmap(m.sum))(w.view(2, 2, 3))",
    "vmap of vmap, in_dims 1 inside":
        "r = vmap(vmap(lambda a: a.exp(), in_dims=1))(w.view(2, 2, 3))",
    "inner vmap over a captured batch": "r = vmap(lambda r_: vmap(lambda a, b: a * b, "
                                         "in_dims=(0, None))(r_, r_))(x)",
    "grad in vmap": "r = vmap(m.func.grad(lambda a: (a ** 3).sum()))(x)",
    "grad in vmap with unbatched params":
        "r = vmap(m.func.grad(lambda p, a: ((a @ p) ** 2).sum()), in_dims=(None, 0))("
        "w.t().contiguous(), x)",
    "grad_and_value in vmap": "r = vmap(m.func.grad_and_value(lambda a: a.exp().sum()))(x)",
    "vjp in vmap": "r = vmap(lambda a: m.func.vjp(m.sin, a)[1](a))(x)",
    "vmap of grad of grad": "r = vmap(m.func.grad(m.func.grad(lambda a: a.sin() * a)))(v)",
    "grad of a vmapped function": "r = m.func.grad(lambda a: vmap(lambda b: b ** 2)(a).sum())(x)",
    "in-place on a batched tensor": "r = vmap(lambda a: a.clone().mul_(2).add_(1))(x)",
    # torch.nn.functional
    "F.linear": "r = vmap(lambda a: F.linear(a, w))(x)",
    "F.linear with a bias": "r = vmap(lambda a: F.linear(a.view(1, 3), w, w[:, 0]))(x)",
    "F.relu, F.tanh, F.sigmoid": "r = vmap(lambda a: F.relu(a) + F.tanh(a) * F.sigmoid(a))(x)",
    "F.mse_loss": "r = vmap(lambda a, b: F.mse_loss(a, b))(x, y)",
    "F.mse_loss sum and none": "r = vmap(lambda a, b: (F.mse_loss(a, b, reduction='sum'), "
                               "F.mse_loss(a, b, reduction='none')))(x, y)",
    "F.cross_entropy of one sample's logits":
        "r = vmap(lambda a, t: F.cross_entropy(a, t))(x, m.tensor([0, 2]))",
    "F.cross_entropy of rows of logits":
        "r = vmap(lambda a, t: (F.cross_entropy(a, t), F.cross_entropy(a, t, reduction='sum'), "
        "F.cross_entropy(a, t, reduction='none')))(w.view(2, 2, 3), m.tensor([[0, 2], [1, 1]]))",
    "nn.Linear through functional_call, per-sample gradients":
        "m.manual_seed(0)\nlin = m.nn.Linear(3, 2).to(x.dtype)\n"
        "p = {k: t.detach() for k, t in lin.named_parameters()}\n"
        "r = vmap(m.func.grad(lambda p, a: m.func.functional_call(lin, p, (a,)).sum()), "
        "in_dims=(None, 0))(p, x)",
    # torch.cat / torch.stack, torch.add / mul / where / clamp as functions, indexing
    # (issue 26: these ran the per-sample loop before)
    "torch.add with alpha": "r = vmap(lambda a: m.add(a, w[0], alpha=2))(x)",
    "torch.where": "r = vmap(lambda a: m.where(a > 0, a, a * 0.1))(x)",
    "torch.cat": "r = vmap(lambda a: m.cat([a, a * 2]))(x)",
    "torch.stack": "r = vmap(lambda a: m.stack([a, a]))(x)",
    "advanced index": "r = vmap(lambda a: a[m.tensor([0, 2])])(x)",
    "torch.cat of two batched": "r = vmap(lambda a, b: m.cat([a, b]))(x, y)",
    "torch.cat batched and unbatched": "r = vmap(lambda a: m.cat([w[0], a, v]))(x)",
    "torch.cat dim 1": "r = vmap(lambda a: m.cat([a.view(3, 1), w.t()[:, :2]], 1))(x)",
    "torch.cat negative dim": "r = vmap(lambda a: m.cat([a.view(1, 3), w], -2))(x)",
    "torch.concat keyword dim": "r = vmap(lambda a, b: m.concat((a.view(3, 1), b.view(3, 1)), dim=-1))(x, y)",
    "torch.stack of two batched": "r = vmap(lambda a, b: m.stack([a, b]))(x, y)",
    "torch.stack batched and unbatched, dim 1": "r = vmap(lambda a: m.stack([a, w[0]], 1))(x)",
    "torch.stack dim -1": "r = vmap(lambda a: m.stack([a, w[1], a * 2], -1))(x)",
    "torch.stack of 0-d": "r = vmap(lambda a: m.stack([a[0], a[2], w[0, 0]]))(x)",
    "torch.cat out_dims 1": "r = vmap(lambda a: m.cat([a, a]), out_dims=1)(x)",
    "x[0], x[-1]": "r = vmap(lambda a: (a[0], a[-1]))(x)",
    "x[:, 1]": "r = vmap(lambda a: a.view(3, 1)[:, 0])(x)",
    "x[1:]": "r = vmap(lambda a: a[1:])(x)",
    "x[idx], idx batched": "r = vmap(lambda a, i: a[i])(x, m.tensor([[0, 2, 1, 1], [1, 1, 0, 2]]))",
    "x[idx], idx batched 0-d": "r = vmap(lambda a, i: a[i])(x, m.tensor([2, -1]))",
    "2-d x[idx], idx batched": "r = vmap(lambda a, i: a.view(3, 1)[i])(x, m.tensor([[0, 2], [1, 1]]))",
    "x[idx], idx batched int32": "r = vmap(lambda a, i: a[i])(x, m.tensor([[0], [2]], dtype=m.int32))",
    "torch.add(unbatched, batched)": "r = vmap(lambda a: m.add(w[0], a))(x)",
    "torch.add of two batched": "r = vmap(lambda a, b: m.add(a, b, alpha=2))(x, y)",
    "torch.sub(unbatched, batched, alpha)": "r = vmap(lambda a: m.sub(w[0], a, alpha=2))(x)",
    "torch.mul(unbatched, batched)": "r = vmap(lambda a: m.mul(w[0], a))(x)",
    "torch.mul of two batched": "r = vmap(lambda a, b: m.mul(a, b))(x, y)",
    "torch.div(unbatched, batched)": "r = vmap(lambda a: m.div(w[0], a))(x)",
    "torch.where, unbatched other": "r = vmap(lambda a: m.where(a > 0, a, w[0]))(x)",
    "torch.where, unbatched condition": "r = vmap(lambda a: m.where(w[0] > 0, a, 0.0))(x)",
    "torch.where, batched other only": "r = vmap(lambda a: m.where(w[0] > 0, w[1], a))(x)",
    "torch.where, a number first": "r = vmap(lambda a: m.where(a > 0, 0.5, a))(x)",
    "torch.clamp": "r = vmap(lambda a: m.clamp(a, min=-0.5))(x)",
    "torch.clamp, tensor bounds": "r = vmap(lambda a: m.clamp(a, w[0], w[1].abs() + 1))(x)",
    "torch.clip and clamp_min": "r = vmap(lambda a: (m.clip(a, -1, 1), m.clamp_min(a, 0.2), m.clamp_max(a, 0.2)))(x)",
    "clamp with a batched bound": "r = vmap(lambda a, b: a.clamp(b, b + 1))(x, y)",
    # ... nested, and under grad
    "torch.cat nested": "r = vmap(vmap(lambda a, b: m.cat([a.view(1), b.view(1), w[0, :1]])))(x, y)",
    "torch.stack nested, in_dims": "r = vmap(vmap(lambda a, b: m.stack([a, b]), in_dims=(0, None)), in_dims=(None, 0))(x, y)",
    "grad of torch.cat": "r = vmap(m.func.grad(lambda a: (m.cat([a, a * 2]) ** 2).sum()))(x)",
    "grad of torch.stack": "r = vmap(m.func.grad(lambda a: (m.stack([a, w[0]], 1) ** 2).sum()))(x)",
    "grad of torch.where": "r = vmap(m.func.grad(lambda a: m.where(a > 0, a, w[0]).sin().sum()))(x)",
    "grad of torch.add and mul": "r = vmap(m.func.grad(lambda a: m.mul(w[0], m.add(w[1], a, alpha=3)).sum()))(x)",
    "grad of torch.clamp": "r = vmap(m.func.grad(lambda a: m.clamp(a, -0.5, 0.5).exp().sum()))(x)",
    "grad of a batched index": "r = vmap(m.func.grad(lambda a, i: a[i].exp().sum()))(x, m.tensor([[0, 2], [1, 1]]))",
    # matrix products as functions, numbers first, batched bounds, where of two numbers
    # (issue 26, second round: these ran the per-sample loop before)
    "torch.matmul": "r = vmap(lambda a: m.matmul(a, w.t()))(x)",
    "torch.matmul, unbatched first": "r = vmap(lambda a: m.matmul(w, a))(x)",
    "torch.matmul of two batched": "r = vmap(lambda a, b: m.matmul(a.view(3, 1), b.view(1, 3)))(x, y)",
    "torch.mm": "r = vmap(lambda a: m.mm(a.view(1, 3), w.t()))(x)",
    "torch.mm, batched second": "r = vmap(lambda a: m.mm(w, a.view(3, 1)))(x)",
    "torch.mv": "r = vmap(lambda a: m.mv(w, a))(x)",
    "torch.mv of batched matrices": "r = vmap(lambda A, b: m.mv(A, b))(w.view(2, 2, 3), y)",
    "torch.dot": "r = vmap(lambda a, b: m.dot(a, b))(x, y)",
    "torch.dot, unbatched first": "r = vmap(lambda a: m.dot(w[0], a))(x)",
    "torch.bmm": "r = vmap(lambda a: m.bmm(a.view(1, 3, 1), a.view(1, 1, 3)))(x)",
    "torch.bmm, unbatched second": "r = vmap(lambda a: m.bmm(a.view(1, 1, 3), w.t().reshape(1, 3, 4)))(x)",
    "mm, mv, dot, bmm methods": "r = vmap(lambda a: (a.view(1, 3).mm(w.t()), a.view(1, 3).mv(w[0]), a.dot(w[1]), a.view(1, 1, 3).bmm(w.t().reshape(1, 3, 4))))(x)",
    "torch.add of a number first": "r = vmap(lambda a: m.add(1.5, a))(x)",
    "torch.sub, mul, div of a number first": "r = vmap(lambda a: (m.sub(2, a, alpha=3), m.mul(2, a), m.div(1, a)))(x)",
    "torch.maximum(unbatched, batched)": "r = vmap(lambda a: m.maximum(w[0], a))(x)",
    "torch.where of two numbers": "r = vmap(lambda a: m.where(a > 0, 1.0, 0.0))(x)",
    "torch.where of two ints": "r = vmap(lambda a: m.where(a > 0, 1, 0))(x)",
    "torch.clamp with a batched bound": "r = vmap(lambda a: m.clamp(w[0], min=a))(x)",
    "torch.clamp, batched max only": "r = vmap(lambda a: m.clamp(w[0], None, a))(x)",
    "unbatched.clamp(batched bounds)": "r = vmap(lambda a, b: w[0].clamp(a, b + 1))(x, y)",
    "torch.clamp_min, clamp_max with a batched bound": "r = vmap(lambda a: (m.clamp_min(w[0], a), m.clamp_max(w[1], a)))(x)",
    "grad of torch.mm, unbatched params":
        "r = vmap(m.func.grad(lambda p, a: m.mm(a.view(1, 3), p).sum()), in_dims=(None, 0))(w.t().contiguous(), x)",
    "torch.mul of a number and an int sample": "r = vmap(lambda a: m.mul(2.5, (a > 0).long()))(x)",
    "torch.add of a number and 0-d samples": "r = vmap(lambda s: m.add(1.5, s))(v)",
    "torch.clamp with a 0-d batched bound": "r = vmap(lambda s: m.clamp(w[0], min=s))(v)",
    "torch.where of an int and a float": "r = vmap(lambda a: m.where(a > 0, 1, 0.5))(x)",
    "torch.matmul of 0-d samples' rows": "r = vmap(lambda s: m.matmul(w, w[0] * s))(v)",
    # forward mode under vmap: jvp with batched tangents or primals, jacfwd = vmap(jvp)
    "jvp in vmap, batched primals and tangents": "r = vmap(lambda p, t: m.func.jvp(m.sin, (p,), (t,)))(x, y)",
    "jvp in vmap, a batched primal only": "r = vmap(lambda p: m.func.jvp(lambda a: a.exp() * p, (w[0],), (w[1],)))(x)",
    "jacfwd": "r = m.func.jacfwd(lambda a: (a @ a) * a.exp())(x[0])",
    "jacfwd argnums": "r = m.func.jacfwd(lambda a, b: a * b.sum(), argnums=1)(x[0], w)",
    "jacfwd of two inputs": "r = m.func.jacfwd(lambda a, b: (a * b).cumsum(0), argnums=(0, 1))(x[0], y[0])",
    "hessian": "r = m.func.hessian(lambda a: (a.sin() * a).sum())(x[0])",
    "grad of a batched bound": "r = vmap(m.func.grad(lambda a: m.clamp(w[0], min=a).exp().sum()))(x)",
}

# batched too, but the layout of torch's result differs (nested products and the gradient of
# a matrix times a batch of vectors come out transposed in torch; ``@`` does the same; a jvp's
# primal result that does not depend on the batch is expanded in torch, computed in full in
# the engine, whose dual primals are laid out in full)
BATCHED_OTHER_LAYOUT = {
    "torch.matmul nested": "r = vmap(vmap(lambda a, b: m.matmul(a, b), in_dims=(0, None)), in_dims=(None, 0))(x, y)",
    "grad of torch.matmul": "r = vmap(m.func.grad(lambda a: m.matmul(w, a).sin().sum()))(x)",
    "grad of w @ a": "r = vmap(m.func.grad(lambda a: (w @ a).sin().sum()))(x)",
    "vmap of jacfwd": "r = vmap(m.func.jacfwd(lambda a: a.sin() * a.sum()))(x)",
    "jvp in vmap, batched tangents": "r = vmap(lambda t: m.func.jvp(lambda a: (a.sin() * a).sum(), (w[0],), (t,)))(y)",
}

LOOPED = {  # no batching rule: the engine runs them once per sample (same values; layouts
    # may differ: DIFFERENCES.md "vmap's per-sample loop")
    "w[idx], idx batched": "r = vmap(lambda i: w[i])(m.tensor([[0, 2], [1, 3]]))",
    "w[idx], idx batched 0-d": "r = vmap(lambda i: w[i])(m.tensor([0, 3]))",
    "jacrev in vmap": "r = vmap(m.func.jacrev(lambda a: a.sin()))(x)",
    "randomness different": "m.manual_seed(0)\n"
                            "r = vmap(lambda a: a + m.rand(3), randomness='different')(x)",
    "F.mse_loss of another shape": "r = vmap(lambda a, b: F.mse_loss(a, b[:1]))(x, y)",
    "F.cross_entropy with label smoothing":
        "r = vmap(lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1))(x, m.tensor([0, 2]))",
    "unbatched.add(batched) (a Tensor method)": "r = vmap(lambda a: w[0].add(a))(x)",
    "F.cross_entropy with an ignored target":
        "r = vmap(lambda a, t: F.cross_entropy(a, t, ignore_index=2))(x, m.tensor([0, 2]))",
}

ERRORS = {
    "item": "r = vmap(lambda a: a.sum().item())(x)",
    "float()": "r = vmap(lambda a: float(a.sum()))(x)",
    "in-place into a captured tensor":
        "c = m.zeros(3, dtype=x.dtype)\nr = vmap(lambda a: c.add_(a))(x)",
    "+= into a captured tensor": "c = m.zeros(3, dtype=x.dtype)\n"
                                 "def f(a):\n    global c\n    c += a\n    return c\n"
                                 "r = vmap(f)(x)",
    "random without randomness=": "r = vmap(lambda a: a + m.rand(3))(x)",
    "randn_like without randomness=": "r = vmap(lambda a: m.randn_like(a))(x)",
    "random same": "m.manual_seed(0)\nr = vmap(lambda a: a + m.rand(3), randomness='same')(x)",
    "unknown randomness": "r = vmap(lambda a: a, randomness='x')(x)",
    "chunk_size 0": "r = vmap(lambda a: a, chunk_size=0)(x)",
    "in_dim out of range": "r = vmap(lambda a: a, in_dims=2)(x)",
    "in_dims a float": "r = vmap(lambda a: a, in_dims=1.0)(x)",
    "in_dims a list": "r = vmap(lambda a: a, in_dims=[0])(x)",
    "in_dims None": "r = vmap(lambda a: a, in_dims=None)(x)",
    "in_dims of another structure": "r = vmap(lambda a: a, in_dims=(0, 0))(x)",
    "in_dim a string": "r = vmap(lambda a: a, in_dims=('a',))(x)",
    "no inputs": "r = vmap(lambda: 1)()",
    "no batched input": "r = vmap(lambda a: a, in_dims=(None,))(x)",
    "batch sizes differ": "r = vmap(lambda a, b: a + b)(x, w)",
    "a number with an in_dim": "r = vmap(lambda a, n: a * n)(x, 3)",
    "a non-tensor output": "r = vmap(lambda a: 3)(x)",
    "out_dims None for a batched output": "r = vmap(lambda a: a, out_dims=None)(x)",
    "out_dims a float": "r = vmap(lambda a: a, out_dims=1.0)(x)",
    "out_dims of another structure": "r = vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x)",
    "an error inside f": "r = vmap(lambda a: a.view(4))(x)",
    "grad of a batched non-scalar": "r = vmap(m.func.grad(lambda a: a * 2))(x)",
    "torch.mm of a vector": "r = vmap(lambda a: m.mm(a, w.t()))(x)",
    "torch.matmul, sizes that do not fit": "r = vmap(lambda a: m.matmul(a, w))(x)",
    "torch.mv of a vector": "r = vmap(lambda a: m.mv(a, a))(x)",
    "torch.dot of a matrix": "r = vmap(lambda a: m.dot(a, w))(x)",
    "torch.dot of two dtypes": "r = vmap(lambda a: m.dot(a, a.float()))(x)",
    "torch.dot, sizes that do not fit": "r = vmap(lambda a: m.dot(a, a[:2]))(x)",
    "torch.mm of two dtypes": "r = vmap(lambda a: (m.mm(a.view(1, 3), w.t().float()), m.mm(w.float(), a.view(3, 1))))(x)",
    "torch.matmul of two dtypes": "r = vmap(lambda a: m.matmul(a, w.float()))(x)",
    "torch.bmm, sizes that do not fit": "r = vmap(lambda a: m.bmm(a.view(1, 3, 1), a.view(1, 3, 1)))(x)",
    "torch.matmul of a 0-d": "r = vmap(lambda a: m.matmul(a, a[0]))(x)",
    "torch.bmm of matrices": "r = vmap(lambda a: m.bmm(a.view(3, 1), a.view(1, 3)))(x)",
    "torch.mv, sizes that do not fit": "r = vmap(lambda a: m.mv(w, a[:2]))(x)",
}


def _inputs(dtype):
    x = parity.make_tensor((2, 3), dtype, low=-2, high=2)
    y = parity.make_tensor((2, 3), dtype, seed=1, low=-2, high=2)
    w = parity.make_tensor((4, 3), dtype, seed=2, low=-2, high=2)
    v = parity.make_tensor((2,), dtype, seed=3, low=-2, high=2)
    return x, y, w, v


def _check(code, dtype, requires_grad=False):
    x, y, w, v = _inputs(dtype)
    if requires_grad:
        x.requires_grad_()
    parity.run_both(lambda m, x, y, w, v: _run(m, code, x, y, w, v), x, y, w, v, exact=False)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(BATCHED))
def test_batched(name, dtype, monkeypatch):
    _check(BATCHED[name], dtype)
    calls = []  # and the engine ran it as one batched call: the loop never ran
    monkeypatch.setattr(engine_vmap_module, "_loop", lambda *a: calls.append(a))
    x, y, w, v = _inputs(dtype)
    _run(engine, BATCHED[name], x, y, w, v)
    assert not calls


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(BATCHED_OTHER_LAYOUT))
def test_batched_other_layout(name, dtype, monkeypatch):
    x, y, w, v = _inputs(dtype)
    code = BATCHED_OTHER_LAYOUT[name]
    parity.run_both(lambda m, x, y, w, v: _run(m, code, x, y, w, v), x, y, w, v,
                    exact=False, check_layout=False)
    calls = []
    monkeypatch.setattr(engine_vmap_module, "_loop", lambda *a: calls.append(a))
    _run(engine, code, x, y, w, v)
    assert not calls


@pytest.mark.parametrize("name", list(BATCHED)[:12] + ["grad in vmap", "matrix @ vector"])
def test_batched_with_a_graph(name):
    _check(BATCHED[name], "float64", requires_grad=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(LOOPED))
def test_looped(name, dtype):
    x, y, w, v = _inputs(dtype)
    parity.run_both(lambda m, x, y, w, v: _run(m, LOOPED[name], x, y, w, v), x, y, w, v,
                    exact=False, check_layout=False)


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    _check(ERRORS[name], "float64")


def test_torch_vmap_is_torch_func_vmap():
    assert engine.vmap is engine.func.vmap


def _mlp(m):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Linear(8, 16), m.nn.Tanh(), m.nn.Linear(16, 1))


PER_SAMPLE = {
    "an MLP written with tensor methods (batched)": """
def loss(p, xi, yi):
    h = (xi @ p['0.weight'].T + p['0.bias']).tanh()
    return ((h @ p['2.weight'].T + p['2.bias'] - yi) ** 2).mean()
""",
    "an MLP through functional_call and F.mse_loss (batched)": """
def loss(p, xi, yi):
    out = m.func.functional_call(model, p, (xi.unsqueeze(0),))
    return m.nn.functional.mse_loss(out, yi.unsqueeze(0))
""",
}


PER_SAMPLE["a classifier through functional_call and F.cross_entropy (batched)"] = """
def loss(p, xi, yi):
    out = m.func.functional_call(model, p, (xi.unsqueeze(0),))
    logits = out * m.tensor([1.0, -1.0, 0.5])
    return m.nn.functional.cross_entropy(logits, (yi > 0).long().view(1))
"""


@pytest.mark.parametrize("name", list(PER_SAMPLE))
def test_per_sample_gradients_of_an_mlp(name):
    def run(m):
        model = _mlp(m)
        params = {k: t.detach() for k, t in model.named_parameters()}
        m.manual_seed(1)
        x, y = m.randn(64, 8), m.randn(64, 1)
        scope = {"m": m, "model": model}
        exec(PER_SAMPLE[name], scope)  # noqa: S102
        grads = m.func.vmap(m.func.grad(scope["loss"]), in_dims=(None, 0, 0))(params, x, y)
        # each sample's gradient is the gradient of its own loss
        one = m.func.grad(scope["loss"])(params, x[5], y[5])
        return [(k, g) for k, g in grads.items()], [(k, g) for k, g in one.items()]

    e, t = run(engine), run(torch)
    parity.assert_same(e, t, exact=False, check_layout=False)
    for (_, batched), (_, single) in zip(e[0], e[1]):
        assert (batched[5] - single).abs().max().item() < 1e-6


@pytest.mark.parametrize("call", [
    lambda t: engine.nn.functional.relu(t), lambda t: engine.nn.functional.sigmoid(t),
    lambda t: engine.nn.functional.tanh(t), lambda t: engine.exp(t),
    lambda t: engine.nn.functional.linear(t, engine.ones(2, 2)),
    lambda t: engine.nn.functional.mse_loss(t, engine.ones(1, 2)),
    lambda t: engine.nn.functional.cross_entropy(t, engine.tensor([0])),
    lambda t: engine.add(t, 1), lambda t: engine.add(2, t), lambda t: engine.cat([t]),
    lambda t: engine.matmul(engine.ones(2, 2), t), lambda t: engine.clamp(engine.ones(2), min=t),
    lambda t: engine.where(engine.ones(2) > 0, t, 1.0)])
def test_a_real_torch_tensor_gets_the_engines_type_error(call):
    """A torch.Tensor has __torch_function__ too: vmap's hand-over must not take it (it
    recursed); the engine refuses it as it refuses any non-tensor."""
    with pytest.raises(TypeError):  # (not RecursionError)
        call(torch.ones(1, 2))


# Shapes that depend on the values: torch refuses to batch them (each sample's mask picks
# its own number of elements; nonzero's rows likewise); the engine's per-sample loop would
# have answered, so it refuses with torch's words first. A mask that is not batched is fine.
DYNAMIC_SHAPES = [
    "m.func.vmap(lambda x: x[x > 0])(t)", "m.func.vmap(lambda x: x[x > 0].sum())(t)",
    "m.func.vmap(lambda x, k: x[k])(t, t > 0)", "m.func.vmap(lambda k: t[0][k])(t > 0)",
    "m.func.vmap(lambda x: t[0][x > 0])(t)", "m.func.vmap(lambda x: x[:, x[0] > 0])(w)",
    "m.func.vmap(lambda x: x[0, x[0] > 0])(w)", "m.func.vmap(lambda x: x[..., x[0] > 0])(w)",
    "m.func.vmap(lambda x: x.masked_fill(x > 0, 1.)[x > 0])(t)",
    "m.func.vmap(m.func.vmap(lambda x: x[x > 0]))(t[None])",
    "m.func.vmap(m.func.grad(lambda x: x[x > 0].sum()))(t)",
    "m.func.vmap(lambda x: x[x > 0])(t.view(6))",
    "m.func.vmap(lambda x: m.nonzero(x))(t)", "m.func.vmap(lambda x: x.nonzero())(t)",
    "m.func.vmap(lambda x: x.nonzero(as_tuple=True))(t)",
    # not batched: the same mask for every sample
    "m.func.vmap(lambda x: x[mask])(t)", "m.func.vmap(lambda x: x[m.tensor([True, False, True])])(t)",
    "m.func.vmap(lambda x: m.where(x > 0, x, 0.))(t)", "m.func.vmap(lambda x: x[:, mask])(w)",
]


@pytest.mark.parametrize("source", DYNAMIC_SHAPES)
def test_batched_masks_and_nonzero_refused_as_torch(source):
    def call(m, t):
        env = {"m": m, "t": t, "w": t[:, None].expand(2, 2, 3), "mask": m.tensor([True, False, True])}
        return eval(source, env)

    parity.run_both(call, parity.engine.tensor([[1.0, -2.0, 3.0], [-1.0, 2.0, 0.5]]))
