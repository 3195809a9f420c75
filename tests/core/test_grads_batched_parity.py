"""``torch.autograd.grad(..., is_grads_batched=True)`` against torch 2.15: a batch of
cotangents (dim 0 of each ``grad_outputs`` tensor) through one backward walk
(engine/core/cotangents.py). Each node kind is covered: an elementwise formula run on the
batch as it is, a node's ``batched_backward`` (views, reductions, matrix products), and a
node without either, run once per sample. Values, dtypes, shapes, strides, what requires
grad, a second derivative (``create_graph``), and torch's errors."""
import pytest

from tests import parity

# f(x) for x of shape (2, 3), float64, values in (0.2, 0.9): every elementwise formula
UNARY = ["x.sin()", "x.cos()", "x.tan()", "x.tanh()", "x.sigmoid()", "x.exp()", "x.exp2()",
         "x.expm1()", "x.log()", "x.log2()", "x.log10()", "x.log1p()", "x.sqrt()", "x.rsqrt()",
         "x.reciprocal()", "x.neg()", "x.abs()", "x.relu()", "(x - 0.5).relu()", "x.asin()",
         "x.acos()", "x.atan()", "x.sinh()", "x.cosh()", "x.floor()", "x.sign()", "x.round()",
         "x.clamp(0.3, 0.6)", "x.clamp(min=0.5)", "x.clamp(max=0.5)", "x ** 2.5", "2.0 ** x",
         "x.lgamma()", "x.digamma()", "m.nan_to_num(x)", "x.frac()", "x.trunc()", "1 - x",
         "x / 3", "x * 2", "x + 1"]
# f(x, y) with x (2, 3) and y (3,), both differentiated: broadcasting summed back per sample
BINARY = ["x + y", "x - y", "x * y", "x / y", "x ** y", "m.atan2(x, y)", "x.fmod(y)",
          "x.remainder(y)", "m.lerp(x, y, 0.3)", "m.lerp(x, y, x)", "m.addcmul(x, x, y)",
          "m.addcdiv(x, x, y)", "y - x", "m.maximum(x, y)", "m.where(x > 0.5, x, y)",
          "m.clamp(x, min=y)", "y.expand(2, 3) * x"]
# the rest: views, reductions, matrix products (batched_backward), others (per sample)
OTHER = ["x.sum()", "x.sum(0)", "x.sum(1, keepdim=True)", "x.sum((0, 1))", "x.mean()",
         "x.mean(1)", "x.mean(0, keepdim=True)", "x.view(3, 2)", "x.reshape(6)", "x.t()",
         "x.T", "x.transpose(0, 1)", "x.transpose(-1, -2)", "x.permute(1, 0)",
         "x.unsqueeze(1)", "x.unsqueeze(-1).squeeze()", "x.unsqueeze(0).squeeze(0)",
         "x[1]", "x[:, 1:]", "x[:, ::2]", "x[0, 2]", "x.select(1, 1)", "x.expand(4, 2, 3)",
         "x.flatten()", "x @ y", "x.mv(y)", "x @ x.t()", "x.mm(x.t())", "x.t() @ x",
         "y @ x.t()", "y.dot(y.sin())", "m.matmul(x.unsqueeze(0), x.t())",
         "m.nn.functional.linear(x, x, y[:2])", "m.addmm(y[:2], x, x.t())",
         "x.cumsum(1)", "x.softmax(1)", "x.log_softmax(0)", "x.max(1).values", "x.sort(1)[0]",
         "m.cat([x, y.unsqueeze(0)])", "m.stack([x, x.cos()])", "x.flip(0)",
         "x.index_select(1, m.tensor([2, 0]))", "x.norm()", "x.prod(1)", "x.var(1)",
         "m.nn.functional.mse_loss(x, y.expand(2, 3))"]
PRELUDE = ("x = (m.arange(6, dtype=m.float64).reshape(2, 3) / 8 + 0.2).requires_grad_()\n"
           "y = (m.arange(3, dtype=m.float64) / 5 + 0.3).requires_grad_()\n")


def _case(expression, inputs):
    return (PRELUDE + f"out = {expression}\n"
            "seeds = m.eye(out.numel(), dtype=m.float64).reshape(out.numel(), *out.shape)\n"
            "seeds = m.cat([seeds, seeds[:1] * 3])  # (batch = numel + 1: a batch of its own)\n"
            f"found = m.autograd.grad(out, {inputs}, seeds, is_grads_batched=True, "
            "allow_unused=True)\n"
            "r = [found, [None if g is None else g.stride() for g in found]]")


@pytest.mark.parametrize("expression", UNARY + OTHER)
def test_one_input(expression):
    parity.assert_same_snippet(_case(expression, "[x, y]"))


@pytest.mark.parametrize("expression", BINARY)
def test_two_inputs_broadcast(expression):
    parity.assert_same_snippet(_case(expression, "[x, y]"))


SNIPPETS = {
    "two outputs, chosen cotangents": PRELUDE + (
        "a, b = x.sin() * y, (x @ y).exp()\n"
        "r = m.autograd.grad([a, b], [x, y], [m.ones(4, 2, 3, dtype=m.float64), "
        "m.arange(8.0, dtype=m.float64).reshape(4, 2)], is_grads_batched=True)"),
    "a float32 cotangent for a float64 output": PRELUDE + (
        "r = m.autograd.grad(x.exp(), x, m.ones(2, 2, 3), is_grads_batched=True)"),
    "float32": (
        "x = m.tensor([[0.5, 1.0], [2.0, 3.0]], requires_grad=True)\n"
        "r = m.autograd.grad((x * x.sum(1, keepdim=True)).tanh(), x, m.eye(4).reshape(4, 2, 2), "
        "is_grads_batched=True)"),
    "create_graph: a second derivative": PRELUDE + (
        "g, = m.autograd.grad((x.sin() * y).sum(1), x, m.eye(2, dtype=m.float64), "
        "create_graph=True, is_grads_batched=True)\n"
        "r = [g, m.autograd.grad((g * g).sum(), [x, y])]"),
    "create_graph through a node run per sample": PRELUDE + (
        "g, = m.autograd.grad(x.cumsum(1).sin(), x, m.eye(6, dtype=m.float64).reshape(6, 2, 3), "
        "create_graph=True, is_grads_batched=True)\n"
        "r = [g.detach(), g.requires_grad, m.autograd.grad(g.sum(), x)]"),  # (its last node:
    # the engine's is the write into the batch, DIFFERENCES.md "The nodes of a gradient's graph")
    "retain_graph, then a plain grad": PRELUDE + (
        "out = (x * y).sum(0)\n"
        "a = m.autograd.grad(out, y, m.eye(3, dtype=m.float64), retain_graph=True, "
        "is_grads_batched=True)\n"
        "r = [a, m.autograd.grad(out.sum(), y)]"),
    "an input through a GradientEdge": PRELUDE + (
        "h = x * 2\nout = h.sin()\n"
        "r = m.autograd.grad(out, m.autograd.graph.get_gradient_edge(h), "
        "m.ones(3, 2, 3, dtype=m.float64), is_grads_batched=True)"),
    "materialize_grads: unbatched zeros": PRELUDE + (
        "r = m.autograd.grad(x * 2, [x, y], m.ones(4, 2, 3, dtype=m.float64), "
        "is_grads_batched=True, materialize_grads=True)"),
    "allow_unused": PRELUDE + (
        "r = m.autograd.grad(x * 2, [x, y], m.ones(4, 2, 3, dtype=m.float64), "
        "is_grads_batched=True, allow_unused=True)"),
    "jacrev (one backward walk)": PRELUDE + (
        "r = [m.func.jacrev(lambda a: (a @ y).tanh() * a.sum())(x), "
        "m.func.jacrev(lambda a, b: (a * b, (a @ b).sum()), argnums=(0, 1))(x, y), "
        "m.func.jacrev(lambda a: a.cumsum(0).sin(), chunk_size=2)(y)]"),
    # (found on the way: with a matrix that requires grad, matmul folds the batch even with
    # grad off, and checked the shapes of a @ b when a was the smaller as b's: a wrong error)
    "matmul in no_grad: a matrix that requires grad times a batch": (
        "x = m.ones(2, 3, requires_grad=True)\nv = m.ones(3, requires_grad=True)\n"
        "with m.no_grad():\n"
        "    r = [x @ m.ones(10, 3, 4), error(lambda: x @ m.ones(10, 2, 4)), v @ m.ones(4, 3, 2),"
        " error(lambda: v @ m.ones(10, 2, 4)), x @ m.ones(5, 4, 3).mT]"),
    # errors, in torch's order
    "error: a cotangent without its batch dim": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x * 2, x, m.ones(2, 3), is_grads_batched=True))"),
    "error: a wrong sample shape": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x * 2, x, m.ones(4, 3, 2), is_grads_batched=True))"),
    "error: an empty batch": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x * 2, x, m.ones(0, 3), is_grads_batched=True))"),
    "error: a scalar output's implicit cotangent": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x.sum(), x, is_grads_batched=True))"),
    "error: a 0-d cotangent": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x.sum(), x, m.tensor(1.0), is_grads_batched=True))"),
    "error: batch sizes differ": PRELUDE + (
        "r = error(lambda: m.autograd.grad([x * 2, x.sum()], x, [m.ones(2, 2, 3), m.ones(3)], "
        "is_grads_batched=True))"),
    "error: an unused input": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x * 2, [x, y], m.ones(4, 2, 3, dtype=m.float64), "
        "is_grads_batched=True))"),
    "error: an input that does not require grad": PRELUDE + (
        "r = error(lambda: m.autograd.grad(x * 2, [x, m.ones(2)], "
        "m.ones(4, 2, 3, dtype=m.float64), is_grads_batched=True))"),
    "error: an output without grad_fn": PRELUDE + (
        "r = error(lambda: m.autograd.grad(m.ones(3), [x], m.ones(4, 3), is_grads_batched=True))"),
    "error: a second walk without retain_graph": PRELUDE + (
        "out = x.exp()\nm.autograd.grad(out, x, m.ones(2, 2, 3, dtype=m.float64), "
        "is_grads_batched=True)\n"
        "r = error(lambda: m.autograd.grad(out, x, m.ones(2, 2, 3, dtype=m.float64), "
        "is_grads_batched=True))"),
    # hooks see one sample's gradient (torch's vmap): a hook using its whole gradient gives
    # per-sample values, never the batch's (the engine calls it once per sample, torch once)
    "a tensor hook that sums its gradient": PRELUDE + (
        "h = x * y\nh.register_hook(lambda g: g + g.sum())\n"
        "r = m.autograd.grad(h.exp(), x, m.arange(24.0, dtype=m.float64).reshape(4, 2, 3), "
        "is_grads_batched=True)"),
    "a node's pre-hook and post-hook": PRELUDE + (
        "h = x * y\nh.grad_fn.register_prehook(lambda gs: (gs[0] * gs[0].sum(),))\n"
        "h.grad_fn.register_hook(lambda gi, go: (gi[0] - gi[0].mean(), gi[1]))\n"
        "r = m.autograd.grad(h.sin(), [x, y], m.arange(24.0, dtype=m.float64).reshape(4, 2, 3), "
        "is_grads_batched=True)"),
    "a hook's shape": PRELUDE + (
        "h = x * 2\nshapes = []\nh.register_hook(lambda g: shapes.append(tuple(g.shape)))\n"
        "m.autograd.grad(h, x, m.ones(4, 2, 3, dtype=m.float64), is_grads_batched=True)\n"
        "r = sorted(set(shapes))"),
    # torch's grad() returns and leaves h.grad a vmap wrapper that raises when read; the
    # engine raises the same error at once (DIFFERENCES.md)
    "error: retain_grad under a batch": PRELUDE + (
        "h = x * 2\nh.retain_grad()\n"
        "r = error(lambda: (m.autograd.grad(h * 1, x, m.ones(4, 2, 3, dtype=m.float64), "
        "is_grads_batched=True), repr(h.grad)))"),
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_grads_batched(name):
    parity.assert_same_snippet(SNIPPETS[name])
