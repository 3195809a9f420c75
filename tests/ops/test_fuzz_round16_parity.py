"""Fuzz round sixteen (seeds 3560000 and on, pinned to AVX2) against torch 2.15.

- 3578894: cdist(...).log()'s second derivative was nan where two points coincide: log's
  infinite gradient at a zero distance met a zero derivative in the engine's formula (inf *
  0), which torch's kernel skips. p = 0's gradient was nan there too (torch's: zeros).
- 3564908: a stale view's error (an unbind output whose base changed in place) came after
  the op's own (dot's sizes); torch's autograd reads the inputs' nodes first.
- 3667052: add and sub with out= checked alpha before out's dtype (torch: the cast first).
"""
import math

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


OUTER = {"log": lambda d: d.log(), "rsqrt": lambda d: d.rsqrt(), "sqrt": lambda d: d.sqrt(),
         "reciprocal": lambda d: d.reciprocal(), "nan_at_zero": lambda d: (d / d).nan_to_num(0.5)
         * d, "square": lambda d: d * d}
CDIST_PAIRS = {
    "scaled": ([1.5, 0.0, -2.0], 2.0),  # 0 coincides with 0 * 2
    "itself": ([0.0, 0.0, 1.0], 1.0),
    "batched": ([[1.0, 2.0], [1.0, 2.0], [0.5, -1.0]], 1.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pair", CDIST_PAIRS)
@pytest.mark.parametrize("outer", OUTER)
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
def test_cdist_derivatives_with_infinite_gradients_at_zero_distances(p, outer, pair, dtype):
    """fuzz 3578894: an infinite (or nan) gradient where a distance is 0 gives torch's
    first and second derivatives, not nan."""
    values, scale = CDIST_PAIRS[pair]
    results = []
    for m in (parity.engine, torch):
        z = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        points = z.reshape(-1, 1) if z.dim() == 1 else z.reshape(1, *z.shape)
        out = OUTER[outer](m.cdist(points, points * scale, p=p))
        first, = m.autograd.grad(out.sum(), z, create_graph=True)
        second, = m.autograd.grad(first.sum(), z, allow_unused=True)
        results.append((first, second))
    parity.assert_same(*results, exact=False, check_repr=False)


# fuzz 3564908: an op's own error (a size, a dim, an index) came before the error of a stale
# view among its inputs; torch's autograd reads the inputs' nodes first, but in the ops it
# builds from others after checking their arguments itself (outer, narrow, flatten, the
# losses' broadcasting ...) and in those without a derivative (argmax, eq ...)
STALE_VIEW_CALLS = [
    "torch.dot(a, torch.ones(3))", "torch.vdot(a, torch.ones(3))", "torch.matmul(a, torch.ones(3))",
    "a @ torch.ones(3)", "torch.mv(torch.ones(2, 3), a)", "torch.cross(a, torch.ones(2), dim=0)",
    "a.masked_fill(torch.ones(3, dtype=torch.bool), 1.0)", "a.index_select(0, torch.tensor([5]))",
    "a.gather(0, torch.tensor([5]))", "a.sum(5)", "a.mean(5)", "torch.sum(a, 5)", "a.sum((0, 0))",
    "a.float().sum(4)", "a.reshape(7)", "a.expand(3)", "a.expand_as(torch.ones(3))",
    "a.permute(1, 0)", "a.transpose(0, 2)", "a.squeeze(3)", "a.unsqueeze(4)", "a.flip(3)",
    "a.roll(1, 3)", "a.repeat(1, 0, -1)", "torch.nn.functional.softmax(a, 3)", "a.clamp()",
    "torch.max(a, 3)", "a.topk(5)", "a.sort(3)", "a.argsort(3)", "a.cumsum(3)", "a.std(3)",
    "a.norm(2, 3)", "a.split(0)", "a.unbind(3)", "a.lerp(torch.ones(3), 0.5)",
    "torch.addcmul(a, torch.ones(3), torch.ones(3))", "a.trace()", "a.remainder(torch.ones(3))",
    "a.index_add(0, torch.tensor([5]), torch.ones(1))", "a.scatter(0, torch.tensor([5]), 1.0)",
    "a.masked_select(torch.ones(3, dtype=torch.bool))", "a.take(torch.tensor([9]))",
    "a.logsumexp(3)", "a.prod(3)", "a.var(3)", "torch.var_mean(a, 3)", "a.amax(3)", "a.min(3)",
    "a.median(3)", "a.mode(3)", "a.kthvalue(5)", "a.cummax(3)", "a.as_strided((5,), (1,), 9)",
    "a.tril()", "a.diagonal(0, 0, 0)", "a.select(0, 5)", "a.unfold(0, 5, 1)", "a.rot90(1, (0, 3))",
    "torch.nn.functional.embedding(torch.tensor([0]), a)", "a.dist(torch.ones(3))",
    "torch.nn.functional.layer_norm(a, (3,))", "torch.nn.functional.normalize(a, dim=3)",
    "torch.nn.functional.glu(a, 3)", "a.clone(memory_format=torch.channels_last)",
    "a.view(7)", "a * torch.ones(3)", "torch.cat([a, torch.ones(3, 2)])",
    # torch's own checks first
    "torch.outer(a, torch.ones(3, 2))", "torch.inner(a, torch.ones(3))",
    "torch.tensordot(a, torch.ones(3), 1)", "a[5]", "a.narrow(0, 1, 5)", "a.chunk(0)",
    "a.movedim(0, 3)", "a.flatten(0, 3)", "a.unflatten(0, (3, 2))", "a.argmax(3)",
    "a.all(3)", "torch.eq(a, torch.ones(3))", "a.quantile(0.5, 3)", "a.nanmean(3)",
    "a.diff(dim=3)", "a.repeat_interleave(-1)",
    "torch.matmul(a.unsqueeze(0), torch.ones(3, 2))",
    "torch.nn.functional.mse_loss(a, torch.ones(3))",
    "torch.nn.functional.l1_loss(a, torch.ones(3))",
    "torch.nn.functional.pad(a, (1, 2, 3))", "torch.nn.functional.dropout(a, 2.0)",
    "torch.nn.functional.softmax(a, 0, dtype=torch.int64)", "torch.sum(a, 5, keepdim='x')",
    "torch.reshape(a, 6)", "torch.sub(a, other='a')",
]


@pytest.mark.parametrize("made", ["unbind", "no_grad"])
@pytest.mark.parametrize("call", STALE_VIEW_CALLS)
def test_a_stale_views_error_comes_where_torchs_does(call, made):
    """fuzz 3564908: dot of the wrong sizes on an unbind output whose base changed in place
    named the sizes; torch names the view."""
    def outcome(m):
        x = m.zeros(3, 2, requires_grad=True)
        y = x * 1
        if made == "unbind":
            a = y.unbind(0)[0]
        else:
            with m.no_grad():
                a = y[0]
        y.add_(1)
        try:
            eval(call, {"torch": m, "a": a})
        except Exception as error:  # noqa: BLE001 (the error is the outcome compared)
            return type(error).__name__, str(error).splitlines()[0]
        return "ok"
    assert outcome(parity.engine) == outcome(torch)


def test_a_view_made_and_used_without_grad_keeps_the_ops_error():
    """Under no_grad torch reads no node: the op's own error."""
    results = []
    for m in (parity.engine, torch):
        x = m.zeros(3, 2, requires_grad=True)
        y = x * 1
        a = y.unbind(0)[0]
        y.add_(1)
        with m.no_grad():
            error = parity.raised(lambda a=a: a.sum(5))
        results.append((type(error).__name__, str(error)))
    assert results[0] == results[1]
    assert results[0][0] == "IndexError"


@pytest.mark.parametrize("alpha", [True, 2.5, 2])
@pytest.mark.parametrize("out_dtype", ["int64", "float32", "bool", "int32", "float64"])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "int64"), ("bool", "bool"),
                                    ("int64", "float32"), ("bool", "int64"), ("float32", None)],
                         ids=str)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_add_and_sub_check_outs_dtype_before_alpha(op, dtypes, out_dtype, alpha):
    """fuzz 3667052: torch.add(floats, alpha=True, out=an int64 tensor) names the cast (torch's
    iterator checks out's dtype before the kernel checks alpha); out stays unresized then."""
    def outcome(m):
        x = m.ones(2, dtype=getattr(m, dtypes[0]))
        y = 3 if dtypes[1] is None else m.ones(2, dtype=getattr(m, dtypes[1]))
        w = m.zeros(0, dtype=getattr(m, out_dtype))
        try:
            getattr(m, op)(x, y, alpha=alpha, out=w)
        except Exception as error:  # noqa: BLE001 (the error is the outcome compared)
            return type(error).__name__, str(error), tuple(w.shape)
        return w.tolist(), str(w.dtype)
    assert outcome(parity.engine) == outcome(torch)


SQUEEZES = [(2, 3), (1, 3), (2, 1), (1, 1), (1,), (), (3, 1, 2, 1), (0, 1)]


@pytest.mark.parametrize("how", ["all", "dim0", "dim-1", "dims", "no_dims"])
@pytest.mark.parametrize("shape", SQUEEZES, ids=str)
def test_squeezes_gradient_is_torchs_unsqueeze_to(shape, how):
    """fuzz 3735410: squeeze's gradient was a reshape, a view even when nothing was squeezed
    (a.copy_(x) then rebased a base: AsStridedBackward0 against torch's CopyBackwards);
    torch puts the size-1 dims back one by one (UnsqueezeBackward0 under create_graph) and
    returns the gradient itself when there are none. squeeze(()) squeezed every dim (torch:
    none)."""
    def outcome(m):
        x = m.ones(shape, requires_grad=True)
        try:
            z = {"all": lambda: x.squeeze(), "dim0": lambda: x.squeeze(0),
                 "dim-1": lambda: x.squeeze(-1),
                 "dims": lambda: x.squeeze((0, -1)) if len(shape) >= 2 else x.squeeze(0),
                 "no_dims": lambda: x.squeeze(())}[how]()
        except Exception as error:  # noqa: BLE001 (the error is the outcome compared)
            return type(error).__name__, str(error)
        g = m.arange(float(z.numel())).reshape(z.shape).requires_grad_()
        a, = m.autograd.grad(z, x, g, create_graph=True)
        return (tuple(z.shape), tuple(a.shape), a.stride(), a is g, a._base is g,
                a.grad_fn.name() if a.grad_fn else None, a.tolist())
    assert outcome(parity.engine) == outcome(torch)


def test_a_gradient_written_in_place_is_not_a_view():
    code = """
x = m.full((2, 3), 3.0, requires_grad=True)
z = x.squeeze()
a, = m.autograd.grad(z.mean(), x, create_graph=True)
a.copy_(x)
r = (a.grad_fn.name(), [n and n.name() for n, _ in a.grad_fn.next_functions], a._version)
"""
    parity.assert_same_snippet(code)


@pytest.mark.parametrize("dim", [None, 0, -1, (0, 2), (), 1])
def test_in_place_squeezes_gradient_and_node(dim):
    """x.squeeze_(dim) puts back only that dim (SqueezeBackward4), squeeze_(dims) is
    torch's SqueezeBackward5."""
    def outcome(m):
        x = m.ones((1, 4, 1), dtype=m.float64, requires_grad=True)
        y = x * 1
        y.squeeze_() if dim is None else y.squeeze_(dim)
        g = m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape)
        a, = m.autograd.grad(y, x, g, create_graph=True)
        return (tuple(y.shape), y.grad_fn.name(), tuple(a.shape), a.stride(), a.tolist(),
                sorted(k for k in dir(y.grad_fn) if k.startswith("_saved")))
    assert outcome(parity.engine) == outcome(torch)


@pytest.mark.parametrize("value", ["np.zeros(3)", "[1.0, 2.0]", "3.0"])
@pytest.mark.parametrize("call", ["torch.norm(VALUE)", "torch.norm(VALUE, dim=0)",
                                  "torch.norm(VALUE, p=1, out=torch.zeros(1))"])
def test_norm_of_what_is_not_a_tensor(call, value):
    """fuzz 3769936: torch.norm (Python) reads input.layout first: Python's AttributeError of
    an array, a list or a number."""
    import numpy as np
    results = []
    for m in (parity.engine, torch):
        error = parity.raised(lambda m=m: eval(call.replace("VALUE", value),
                                               {"torch": m, "np": np}))
        results.append((type(error).__name__, str(error)))
    assert results[0] == results[1]
