"""Fuzz round eighteen (seeds 4060000 and on, pinned to AVX2) against torch 2.15.

- 4071034: the second-order forward derivative of a float16 softmax, 6 float16 ulps from
  torch's: the engine derived softmax's tangent from its backward, computed in float32 and
  rounded once; torch has a formula of its own, out * (t - logsumexp's tangent), op by op.
  Tested as a class: softmax's, log_softmax's and div's forward formulas (the sweep that
  followed found true division's too) in every floating dtype, bit for bit, first and second
  order, with tangents of zeros, broadcasting and numbers.
- The sweep of torch's argument parser that followed the leads of round seventeen: Tensor.to
  and nn.Module.to read their arguments as torch's three overloads do (``x.to(True)`` is
  ``x.to(torch.bool)``, ``x.to(1.5)`` float64, ``x.to("cpu", True)`` refused); numpy 2's
  ``np.bool`` is no bool to torch's parser; contiguous and is_contiguous refuse
  ``memory_format=None``; x.float() ... x.bool() and x.type() take ``memory_format=``.
"""
import functools
import subprocess
import sys
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


# ---------------------------------------------------------------- Tensor.to and Module.to
TO_CALLS = [
    "()", "(None,)", "(None, None)", "(None, m.float64)", "(m.float64,)", "(m.float16, None)",
    "(1.5,)", "(2.5, False, True)", "(1.5, copy=True)", "(True,)", "(False, True)",
    "(True, non_blocking=True, copy=True)", "(np.float32(1.5),)", "(np.float64(1.5),)",
    "(np.bool_(False),)", "(np.int64(1),)", "(1,)", "(0,)", "(-1,)", "(1.5, 1.5)",
    "(None, True)", "('cpu', True)", "('cpu', None, True)", "(True, m.float64)",
    "('cpu', m.float64, True, True, True)", "(m.float64, 'cpu')", "(x, m.float64)",
    "(dtype=1.5)", "(device=1.5)", "(m.float64, device='cpu')", "(x, dtype=m.float64)",
    "(memory_format=None)", "(m.float64, memory_format=1)", "(m.float64, non_blocking=1)",
    "(m.float64, copy=np.bool_(True))", "(m.float64, True, np.bool_(True))",
    "(device=None, dtype=None)", "(foo=1)", "(float,)", "(int,)", "(bool, True)",
    "(m.device('cpu'), float)", "('cpu', dtype=m.int32)", "(m.float64, dtype=m.int32)",
    "(m.tensor(1),)", "(m.tensor(True),)", "(x, True)", "(x, non_blocking=True)", "([1],)",
    "(m.float64, True, True)", "(m.int32, copy=True)", "('cpu', m.int32, False, True)",
    "(memory_format=m.contiguous_format)", "(m.float64, memory_format=m.preserve_format)",
    "(m.float64, True, True, memory_format=m.contiguous_format, foo=1)",
    "('cpu', m.float64, True, True, memory_format=1)", "('cuda',)",
]


@pytest.mark.parametrize("call", TO_CALLS)
def test_tensor_to_reads_its_arguments_as_torchs_overloads(call):
    parity.assert_same_snippet(
        "import numpy as np\nx = m.arange(6.).reshape(2, 3)\n"
        f"r = error(lambda: x.to{call})\n"
        f"r = r if r is not None else (str(x.to{call}.dtype), x.to{call} is x)")


MODULE_TO_CALLS = [
    "(1.5,)", "(True,)", "(1.5, 1.5)", "(m.float64, copy=True)",
    "(m.ones(1, dtype=m.float64),)", "(foo=1)", "('cpu', m.float64)", "(m.int32,)",
    "(memory_format=m.channels_last)", "(None,)", "(device=None, dtype=m.float64, "
    "non_blocking=True)", "(m.float64, 'cpu')", "(m.float16,)", "(dtype=m.float64)",
]


@pytest.mark.parametrize("call", MODULE_TO_CALLS)
def test_module_to_reads_its_arguments_as_tensor_to(call):
    parity.assert_same_snippet(
        f"layer = m.nn.Linear(2, 2)\nr = error(lambda: layer.to{call})\n"
        f"r = r if r is not None else (str(layer.to{call}.weight.dtype), str(layer.bias.dtype))")


def test_module_to_lays_out_its_four_dimensional_tensors_in_the_format_asked_for():
    for m in (torch, engine):
        layer = m.nn.Conv2d(3, 4, 2)
        layer.to(memory_format=m.channels_last)
        assert layer.weight.stride() == (12, 1, 6, 3)
        assert layer.bias.stride() == (1,)


# ---------------------------------------------------------------- numpy's bool
NUMPY_BOOL_CALLS = [
    "x.sum(0, B)", "m.sum(x, 0, B)", "x.sum(0, keepdim=B)", "x.mean(0, B)", "x.max(0, B)",
    "x.sort(0, B)", "x.sort(descending=B)", "x.std(0, B)", "x.var(0, B)", "x.all(0, B)",
    "x.argmax(0, B)", "x.topk(1, largest=B)", "x.unique(B)", "x.isclose(x, 0.1, 0.1, B)",
    "m.multinomial(x[0], 2, B)", "m.unique_consecutive(x, B)", "x.norm(2, 0, B)",
    "x.cumsum(0).argsort(0, B)", "x.logsumexp(0, B)", "x.to(m.float64, B)",
    "x.requires_grad_(B)", "x.clamp(B)", "x.add(B)", "x.masked_fill(x > 0, B)",
]


@pytest.mark.parametrize("call", NUMPY_BOOL_CALLS)
def test_numpy_bool_is_no_bool_to_torchs_parser(call):
    parity.assert_same_snippet(f"import numpy as np\nB = np.bool_(True)\nx = m.ones(2, 2)\n"
                               f"r = error(lambda: {call})\n"
                               f"r = r if r is not None else {call}")


# ---------------------------------------------------------------- memory formats
FORMAT_CALLS = [
    "x.contiguous(memory_format=None)", "x.is_contiguous(memory_format=None)",
    "x.t().is_contiguous(memory_format=m.preserve_format)",
    "x.t().contiguous(memory_format=m.preserve_format)",
    "x.contiguous(memory_format=m.channels_last)", "x.is_contiguous(memory_format=1)",
    "x.float(1)", "x.float(memory_format=1)", "x.float(m.contiguous_format)",
    "x.float(None)", "x.float(foo=1)", "x.long(memory_format=m.channels_last)",
    "x.type(m.float64, memory_format=1)", "x.type(m.float64, foo=1)",
    "x.type(m.int32, True, True)", "x.type(m.int32, dtype=m.int32)",
    "x.type(m.int32, 1)", "x.type(m.int32, non_blocking=1)", "x.type(m.int32, None)",
    "x.type(None, 1)", "x.type(None, True)", "x.type(non_blocking=True)",
    "x.type(None, memory_format=1)", "x.type(m.int32, non_blocking=m.ones(2, 2).max(0))",
    "x.type(1.5)",
    "str(x.type(m.int32, non_blocking=True).dtype)", "str(x.type(dtype=m.int32).dtype)",
    "x.type(memory_format=m.contiguous_format)", "x.float(memory_format=None) is x",
    "y.float(memory_format=m.contiguous_format) is y",
    "y.float(memory_format=m.preserve_format) is y",
    "y.float(memory_format=m.channels_last) is y",
    "y.double(memory_format=m.contiguous_format).stride()", "y.double().stride()",
    "y.half(memory_format=m.preserve_format).stride()",
    "y.bool(memory_format=m.channels_last).stride()",
    "y.type(m.float64, memory_format=m.contiguous_format).stride()",
    "y.type(m.float32, memory_format=m.contiguous_format) is y",
    "y.int(memory_format=None).stride()", "x.t().float(memory_format=m.contiguous_format)"
    ".stride()", "z.short(memory_format=m.channels_last).stride()",
    "z.char(memory_format=m.contiguous_format).is_contiguous()",
]


@pytest.mark.parametrize("call", FORMAT_CALLS)
def test_memory_formats_as_torchs_conversions_take_them(call):
    parity.assert_same_snippet(
        "x = m.ones(2, 3)\ny = m.ones(2, 3, 4, 5).permute(0, 2, 3, 1)\n"
        "z = m.arange(120.).reshape(2, 3, 4, 5)\n"
        f"r = error(lambda: {call})\nr = r if r is not None else {call}")


# ---------------------------------------------------------------- forward formulas
FORWARD_EXPRESSIONS = [
    "a.softmax(0)", "a.softmax(-1)", "a.log_softmax(0)", "a.log_softmax(-1)",
    "m.softmax(a, 1, dtype=m.float64)", "m.nn.functional.softmax(a * b, dim=0)",
    "a.sum().softmax(0)", "a[0].log_softmax(0)", "(a / b).softmax(-1) / b",
    "a / b", "m.div(a, b, rounding_mode=None)", "m.div(a, b, rounding_mode='floor')",
    "m.div(a, b, rounding_mode='trunc')", "a / 3.0", "3.0 / b", "m.true_divide(a, b)",
    "a.clone().div_(b)", "a / b[0]", "a[0] / b", "m.div(a, 2.5, rounding_mode=None)",
    "m.div(a, b[:, :1], rounding_mode=None)", "a.div(b.sum())",
    # (torch has no forward formula for cdist: its error, which the engine's derived one hid)
    "m.cdist(a, b)", "m.cdist(a, b[:2], p=1)", "m.cdist(a, b, p=-1)",
    "m.cdist(a, b, compute_mode='use_mm_for_euclid_dist')", "m.cdist(a, b[:, :2])",
]
# exp's last bit differs in float32 and float64 (numpy's exp is not torch's SLEEF one): the
# softmax family is compared bit for bit in float16, where both compute exp in float32 and
# round it, and to 2 ulps elsewhere
_EXACT_ALWAYS = ("/", "div")


@pytest.mark.parametrize("order", ["first", "second"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("expression", FORWARD_EXPRESSIONS)
def test_forward_derivatives_follow_torchs_formulas(expression, dtype, order):
    rng = np.random.default_rng(4071034)
    exact = (dtype == "float16" and "float64" not in expression) or any(
        mark in expression for mark in _EXACT_ALWAYS) and "softmax" not in expression
    for trial in range(6):
        values = [(rng.standard_normal((3, 4)) * 2).astype(dtype) for _ in range(2)]
        tangents = [rng.standard_normal((3, 4)).astype(dtype) for _ in range(2)]
        if trial == 0:  # tangents of zeros: the sign of a zero result is torch's too
            tangents[1][:] = 0
            tangents[0][0] = 0
        outer = None if order == "first" else [rng.standard_normal((3, 4)).astype(dtype)
                                               for _ in range(2)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch.func's first call warns of jit)
            expected = parity.forward_tangent(torch, expression, values, tangents, outer)
            got = parity.forward_tangent(engine, expression, values, tangents, outer)
        precision = 1e-12 if dtype == "float64" or "float64" in expression else 2e-5
        parity.assert_same_tangent(got, expected, exact, precision)  # (inexact: exp's last
        # bit, a few ulps, more where terms cancel)


def test_floor_division_has_a_zero_tangent_and_gradient():
    """torch.div(..., rounding_mode='floor'): zero derivatives, forward and backward (the
    engine computed it through floor_divide, whose forward derivative is not implemented)."""
    for m in (torch, engine):
        x = m.tensor([1.5, -2.5, 3.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tangent = m.func.jvp(functools.partial(m.div, other=2, rounding_mode="floor"),
                                 (x,), (m.ones(3),))[1]
        assert tangent.tolist() == [0.0, 0.0, 0.0]
        x.requires_grad_()
        m.div(x, m.tensor([2.0, 1.0, 0.5]), rounding_mode="floor").sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- what was missing
RANDOM_FILL_CALLS = [
    "x.cauchy_()", "x.cauchy_(1, 2)", "x.cauchy_(median=1, sigma=2)", "x.cauchy_(sigma=0)",
    "x.cauchy_(0, float('nan'))", "x.cauchy_(m.tensor(1.))", "x.cauchy_('a')",
    "x.cauchy_(1, 2, 3)", "x.t().cauchy_()", "h.cauchy_(3, 0.5)", "d.cauchy_()",
    "m.zeros(3, dtype=m.int64).cauchy_()", "m.zeros(1).expand(3).cauchy_()",
    "m.zeros(1).expand(3).cauchy_(sigma=0)", "m.zeros(1, dtype=m.int64).expand(3).cauchy_()",
    "x.cauchy_(generator=m.Generator().manual_seed(3))", "x[:, ::2].cauchy_()",
    "x.log_normal_()", "x.log_normal_(0.5, 0.25)", "x.log_normal_(mean=1, std=2)",
    "x.log_normal_(std=0)", "x.log_normal_(1, -1)", "x.log_normal_(800, 1)",
    "x.log_normal_(generator=1)", "x.t().log_normal_()", "d.log_normal_(0.5, 0.25)",
    "m.zeros(3, dtype=m.int64).log_normal_()", "m.zeros(0, dtype=m.int64).log_normal_()",
    "(x.log_normal_(), m.randn(3, dtype=m.float64))",
    "(m.randn(1, dtype=m.float64), x.log_normal_())",
    "x.geometric_(0.3)", "x.geometric_(p=0.5)", "x.geometric_(m.tensor(0.5))",
    "x.geometric_(0)", "x.geometric_(1)", "x.geometric_(1.5)", "x.geometric_(float('nan'))",
    "x.geometric_()", "x.geometric_('a')", "x.geometric_(0.5, 1)", "x.geometric_(p=None)",
    "m.zeros(3, dtype=m.int64).geometric_(0.5)", "m.zeros(3, dtype=m.uint8).geometric_(0.5)",
    "m.zeros(3, dtype=m.bool).geometric_(0.5)", "m.zeros(0, dtype=m.bool).geometric_(0.5)",
    "h.geometric_(0.001)", "m.zeros(20, dtype=m.int64).geometric_(0.999)",
    "m.zeros(10, dtype=m.int32).geometric_(1e-300)", "x.t().geometric_(0.3)",
    "x.uniform_(1, 2, 3)", "x.exponential_(1, 2)", "x.normal_(1, 2, 3)", "x.uniform_('a')",
    "x.uniform_(to='a')", "x.normal_(std=None)", "x.exponential_(generator=1)",
    "x.uniform_(0, 1, m.Generator())", "x.uniform_(foo=1)",
    "x.normal_(0, 1, generator=m.Generator(), foo=2)",
]


@pytest.mark.parametrize("call", RANDOM_FILL_CALLS)
def test_random_fills_draw_torchs_numbers_and_read_their_arguments_as_torch(call):
    """cauchy_, log_normal_ and geometric_ were missing; the fills' argument counts were
    Python's ("takes from 1 to 3 positional arguments but 4 were given")."""
    parity.assert_same_snippet(
        "x = m.zeros(4, 5)\nh = m.zeros(5, 7, dtype=m.float16)\n"
        "d = m.zeros(7, 3, dtype=m.float64)\nm.manual_seed(7)\n"
        f"r = error(lambda: {call})\nm.manual_seed(7)\nr = r if r is not None else {call}")


NEW_FUNCTION_CALLS = [
    "m.fill(x, 2)", "m.fill(x, m.tensor(3.))", "m.fill(x, m.tensor([3.]))",
    "m.fill(x, 2).grad_fn", "m.fill(x, m.tensor(3., requires_grad=True)).grad_fn",
    "m.fill(x.detach(), 2).stride()", "m.fill(x.detach().t(), 2).stride()",
    "m.fill(x.detach().expand(2, 2, 2), 1.).stride()", "m.fill(x, 'a')", "m.fill(x)",
    "m.fill(x, value=2)", "m.fill(2, 2)", "m.fill(input=x, value=1.)",
    "m.fill(m.zeros(2, dtype=m.int64), 2.7)", "m.fill(m.zeros(2, dtype=m.bool), 2)",
    "m.fill(m.zeros(2, dtype=m.float16), 1e6)", "m.fill(m.zeros(1, dtype=m.float16), 1e6)",
    "m.fill(m.zeros(3), m.tensor(2, dtype=m.int64))",
    "m.empty_strided((2, 3), (1, 2)).stride()",
    "str(m.empty_strided((2, 3), (1, 2), dtype=m.int64).dtype)",
    "m.empty_strided((2, 3), (1, 2), requires_grad=True).requires_grad",
    "m.empty_strided((2, 3), (1,))", "m.empty_strided((2, 3), (3, 1)).is_contiguous()",
    "m.empty_strided(2, 1)", "m.empty_strided((2,), (0,)).stride()",
    "m.empty_strided((2, 3), (-1, 2))", "m.empty_strided((-2, 3), (1, 2))",
    "m.empty_strided((2, 3), (1, 2)).untyped_storage().nbytes()",
    "m.empty_strided(size=(2,), stride=(1,)).shape",
    "m.empty_strided((2, 3), (0, 0)).untyped_storage().nbytes()",
    "m.empty_strided((2, 'a'), (1, 2))", "m.empty_strided((2, 3), [1.5, 2])",
    "m.empty_strided(m.Size([2, 3]), (1, 2)).is_leaf",
    "m.empty_strided((2, 3), (1, 2), dtype=m.int64, requires_grad=True)",
    "m.empty_strided((0, 3), (1, 2)).untyped_storage().nbytes()",
    "m.empty_strided((), ()).shape", "m.empty_strided((2, 3), (1, 2), device='cuda')",
    "m.empty_strided((2, 3), (1, 2), foo=1)",
]


@pytest.mark.parametrize("call", NEW_FUNCTION_CALLS)
def test_torch_fill_and_empty_strided(call):
    parity.assert_same_snippet("x = m.arange(4.).reshape(2, 2).requires_grad_()\n"
                               f"r = error(lambda: {call})\nr = r if r is not None else {call}")


BUFFER_STATEMENTS = [
    "r = (isinstance(m.nn.Buffer(m.ones(2)), m.nn.Buffer), isinstance(m.ones(2), m.nn.Buffer))",
    "r = (m.nn.Buffer(m.ones(2)).persistent, m.nn.Buffer(m.ones(2), persistent=False)"
    ".persistent, type(m.nn.Buffer(m.ones(2))).__name__, m.nn.Buffer())",
    "r = m.nn.Buffer(m.ones(2, requires_grad=True))",
    "t = m.ones(2); b = m.nn.Buffer(t); b[0] = 5; r = (t, b.is_leaf)",
    "r = error(lambda: m.nn.Buffer(3))",
    "r = repr(m.nn.Buffer)",
    "layer.b = m.nn.Buffer(m.ones(2)); layer.c = m.nn.Buffer(m.zeros(1), persistent=False); "
    "r = (list(layer.state_dict()), [n for n, _ in layer.named_buffers()])",
    "layer.b = m.nn.Buffer(m.ones(2)); layer.b = m.ones(3); r = (list(layer.state_dict()), "
    "layer.b)",
    "r = error(lambda: setattr(layer, 'weight', m.nn.Buffer(m.ones(2))))",
    "layer.register_buffer('d', m.nn.Buffer(m.ones(1))); r = list(layer.state_dict())",
    "layer.e = 3; r = error(lambda: setattr(layer, 'e', m.nn.Buffer(m.ones(1))))",
    "layer.c = m.nn.Buffer(m.zeros(1), persistent=False); layer.c = m.nn.Buffer(m.zeros(1)); "
    "r = list(layer.state_dict())",
]


@pytest.mark.parametrize("statement", BUFFER_STATEMENTS)
def test_nn_buffer_registers_as_torchs(statement):
    parity.assert_same_snippet("layer = m.nn.Linear(2, 2)\n" + statement)


TRANSFORMS_OF_A_NO_GRAD_VIEW = [
    "m.func.jacrev(f)(x)", "m.func.jacrev(f)(v)", "m.func.grad(lambda a: f(a).sum())(v)",
    "m.func.jacrev(m.func.jacrev(f))(v)", "m.func.grad_and_value(lambda a: f(a).sum())(v)[1]",
    "m.func.jacrev(f)(y)", "m.func.vjp(f, v)[1](m.ones(2))[0]",
]


@pytest.mark.filterwarnings("ignore::FutureWarning")  # (torch.func's first call: jit)
@pytest.mark.parametrize("call", TRANSFORMS_OF_A_NO_GRAD_VIEW)
def test_transforms_of_a_view_made_in_no_grad_mode_keep_torchs_graph(call):
    """fuzz 4097294: jacrev of a view made in no_grad mode of a tensor that requires grad;
    torch's result requires grad (its graph leads nowhere), the engine's did not."""
    parity.assert_same_snippet(
        "y = m.tensor([0.5, 0.5, -2.5], requires_grad=True)\n"
        "with m.no_grad():\n    x = y.view(-1)\n    v = y[:2]\n"
        "def f(a):\n    return a.sigmoid() * a\n"
        f"r = {call}\nr = (r, r.grad_fn and [n and n.name() for n, _ in "
        "r.grad_fn.next_functions])")


ADD_OUT_CALLS = [
    "m.add(x, False, 0.5, out=z)", "m.add(x, False, alpha=0.5)", "m.add(x, x, alpha=0.5)",
    "m.add(xf, 1, alpha=True, out=zi)", "m.add(x, 1, alpha=0.5, out=z)",
    "m.add(x, 1.5, alpha=True, out=z)", "m.add(x, True, alpha=2, out=z)",
    "m.sub(x, False, alpha=0.5, out=z)", "m.add(zi, 1, alpha=0.5, out=zi)",
    "m.sub(xf, 1.5, alpha=True, out=zi)", "m.sub(xf, 1.5, alpha='a', out=zi)",
    "m.add(xf, m.ones(3), alpha=True, out=zi)", "m.sub(x, 1.5, out=z)",
    "m.add(xf, 2, 3, out=zi)", "m.sub(xf, 2, xf, out=zi)", "m.add(zi, 2.5, out=zi)",
    "m.add(x, x, alpha=True, out=z)",
]


@pytest.mark.filterwarnings("ignore::UserWarning")  # (the deprecated scale-first overload)
@pytest.mark.parametrize("call", ADD_OUT_CALLS)
def test_add_and_sub_check_out_before_alpha(call):
    """fuzz 5501669 (signatures family): add(bools, False, 0.5, out=bools) is the deprecated
    overload, whose tensor 0.5 makes a float result: torch refuses out's dtype first."""
    parity.assert_same_snippet(
        "x = m.tensor([True, False])\nz = m.zeros(2, dtype=m.bool)\nxf = m.ones(2)\n"
        f"zi = m.zeros(2, dtype=m.int64)\nr = error(lambda: {call})\n"
        f"r = r if r is not None else {call}")


NUMPY_SCALAR_CALLS = [
    "x.prod(dim=I)", "x.prod(I)", "x.prod(np.int64(2))", "m.prod(x, I)", "x.sum(I)",
    "x.split(I)", "x.split(B)", "m.split(x, I)", "m.split(x, B, 1)", "x.split([I, 1])",
    "x.split(I, 1)", "x.chunk(I)", "x.split(2, I)", "x.split(m.tensor(1))", "x.split(1.5)",
    "x.split_with_sizes(I)", "x.split_with_sizes([1, 1])", "x.split_with_sizes([1, 2], 1)",
    "m.split_with_sizes(x, [1, 1])", "x.split_with_sizes(split_sizes=[2])",
    "x.split_with_sizes([1])", "x.split_with_sizes(2)", "x.split_with_sizes((1, True))",
    "x.unsqueeze(I)", "x.transpose(I, 0)", "x.narrow(I, 0, 1)", "x.view(I, -1)",
    "x.reshape(I, -1)", "x.expand(I, 2, 3)", "x.repeat(I, 1)", "x.flip(I)", "x.roll(I, 0)",
    "x.topk(I)", "x.topk(np.int32(2), 1)", "x.cumsum(I)", "x.softmax(I)", "x.max(I)",
    "x.argmax(I)", "x.std(I)", "x.squeeze(I)", "x.movedim(I, 0)", "x.select(I, 0)", "x[I]",
    "x.index_select(I, m.tensor([0]))", "x.diagonal(I)", "x.tile(I)", "x.permute(I, 0)",
    "x.unflatten(I, (3, 1))", "x.repeat_interleave(I)", "m.cat([x, x], I)",
    "m.stack([x, x], I)", "x.mean(I)", "x.all(I)", "x.logsumexp(I)", "x.norm(2, I)",
    "x.kthvalue(I)", "x.median(I)", "x.sort(I)", "x.unbind(I)", "x.flatten(I)",
    "x.gather(I, m.zeros(2, 1, dtype=m.long))", "m.zeros(I, 2)", "m.arange(I)",
    "m.full((I,), 2)", "m.randn(I)", "x.new_zeros(I)", "m.eye(I)", "m.linspace(0, 1, I)",
]


@pytest.mark.parametrize("call", NUMPY_SCALAR_CALLS)
def test_numpy_integers_and_bools_as_torchs_parser_reads_them(call):
    """fuzz 5504162, 5504889, 5505432 (signatures family): prod's dim and topk's k took no
    numpy integer; torch's Python split hands numpy's integers and bools to split_with_sizes
    (which the engine lacked)."""
    parity.assert_same_snippet("import numpy as np\nI = np.int64(1)\nB = np.bool_(True)\n"
                               "x = m.arange(6.).reshape(2, 3)\nm.manual_seed(0)\n"
                               f"r = error(lambda: {call})\nm.manual_seed(0)\n"
                               f"r = r if r is not None else {call}")


_DEPRECATED_ADD_WITH_OUT = """
import warnings
import {module} as m
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        m.add(m.tensor([True]), True, 0.5, out=m.zeros(1, dtype=m.bool))
    except RuntimeError as error:
        print(error)
print([str(warning.message).splitlines()[0] for warning in caught])
"""


@pytest.mark.parametrize("module", ["torch", "engine"])
def test_the_deprecated_add_warns_before_out_refuses_the_result(module):
    """fuzz 5511719: torch's parser reads (and warns of) the deprecated overload before its
    kernel refuses out's dtype (in a fresh process: the warning is given once)."""
    printed = subprocess.run([sys.executable, "-c", _DEPRECATED_ADD_WITH_OUT.format(
        module=module)], capture_output=True, text=True, check=True).stdout
    assert printed == ("result type Float can't be cast to the desired output type Bool\n"
                       "['This overload of add is deprecated:']\n")


FUNCTION_INPUT_CALLS = [
    "m.reshape(x)", "m.reshape(x, -1, shape=(2, 3))", "m.reshape(input=x, shape=(2, 3))",
    "m.reshape(x, 6)", "m.reshape(x, [2, 3])", "m.reshape(x, m.Size([6]))",
    "m.reshape(x, x.shape)", "m.reshape(x, x.view(2, 3).shape)", "m.reshape(x, x.max(0))",
    "m.reshape(x, m.tensor([6]))", "m.reshape(None, (2,))", "m.reshape(x, (2, 3), 1)",
    "m.reshape(x, 2.0)", "m.reshape(x, shape=6)", "m.reshape(x, (2, 3), shape=(2, 3))",
    "m.reshape(x, 2, 3)", "x.reshape(2, 3)", "x.reshape(2, -1, 1)", "m.reshape([1, 2], (2,))",
    "x.reshape(x.shape)", "x.reshape(-1, shape=(2, 3))", "x.reshape((6,), 1)",
    "m.reshape(x, (6.0,))", "m.unflatten(a, 0, (2, 3))", "m.unflatten(None, 0, (2, 3))",
    "m.chunk(a, 2)", "m.chunk(None, 2, 0)", "m.select(a, 0, 1)", "m.unsafe_chunk([1.0], 2)",
    "m.unsafe_split(a, 1)", "m.nn.functional.pixel_shuffle(a, 2)",
    "m.nn.functional.pixel_unshuffle(None, 2)", "m.searchsorted(a, 0)",
    "m.searchsorted([1.0, 2.0], m.tensor(1.5))",
]


@pytest.mark.parametrize("call", FUNCTION_INPUT_CALLS)
def test_torch_functions_read_their_input_as_torch(call):
    """fuzz 5515380 (signatures family): torch.unflatten of a numpy array; the sweep that
    followed (every torch.<name> given an array, a list, None): chunk, select, unsafe_chunk,
    unsafe_split, pixel_(un)shuffle, searchsorted, and torch.reshape (sizes one by one are
    the method's; torch.reshape(x, x.shape) had refused torch.Size)."""
    parity.assert_same_snippet("import numpy as np\nx = m.ones(6)\na = np.ones((2, 3))\n"
                               f"r = error(lambda: {call})\nr = r if r is not None else {call}")


PRODUCT_EXPRESSIONS = [
    "a @ b.t()", "m.mm(a, b.t())", "a[0] @ b.t()", "m.mv(a, b[0])", "m.dot(a[0], b[0])",
    "m.bmm(a[None], b.t()[None])", "m.addmm(c, a, b.t())",
    "m.addmm(c, a, b.t(), beta=0.5, alpha=2)", "m.addmv(c[0], a, b[0])",
    "m.baddbmm(c[None], a[None], b.t()[None], alpha=0.3)",
    "m.addbmm(c, a[None].expand(2, 2, 3), b.t()[None].expand(2, 3, 2))",
    "m.matmul(a[None], b.t())", "a @ b[0]", "m.ones(2, 2, dtype=a.dtype) @ a",
    "a.t() @ m.ones(2, dtype=a.dtype)", "m.func.grad(lambda a: (a @ a.t()).sum())(a)",
    "m.vdot(a[0], b[0])", "m.inner(a, b)", "m.einsum('ij,kj->ik', a, b)",
    "m.nn.functional.linear(a, m.ones(4, 3, dtype=a.dtype))",
]


def _product_tangent(m, expression, values, tangents, nested):
    a, b, c = (m.tensor(v) for v in values)
    ta, tb = (m.tensor(v) for v in tangents)

    def f(a, b):
        return eval(expression, {"m": m, "a": a, "b": b, "c": c})  # noqa: S307 - the test's
    if not nested:
        return m.func.jvp(f, (a, b), (ta, tb))[1].numpy()
    return m.func.jvp(lambda a, b: m.func.jvp(f, (a, b), (ta, tb))[1], (a, b),
                      (tb, ta))[1].numpy()


@pytest.mark.filterwarnings("ignore::FutureWarning")  # (torch.func's first call: jit)
@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("expression", PRODUCT_EXPRESSIONS)
def test_matrix_products_forward_derivatives_compute_with_zero_tangents(expression, dtype,
                                                                      nested):
    """fuzz 4129243: hessian(lambda a: (a @ a.t()).sum()) of an `a` with nans: torch's
    tangents of matrix products are t_A @ B + A @ t_B, a missing tangent a tensor of zeros
    (0 times a nan is nan); the engine's, derived from the backward, skipped the term."""
    rng = np.random.default_rng(4129243)
    for trial in range(6):
        values = [(rng.standard_normal((2, 3)) * 2).astype(dtype),
                  rng.standard_normal((2, 3)).astype(dtype),
                  rng.standard_normal((2, 2)).astype(dtype)]
        if trial % 2:
            values[0][1, 0] = np.nan
        tangents = [rng.standard_normal((2, 3)).astype(dtype) for _ in range(2)]
        if trial % 3 == 0:
            tangents[0][:] = 0
        expected = _product_tangent(torch, expression, values, tangents, nested)
        got = _product_tangent(engine, expression, values, tangents, nested)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


ONE_ELEMENT_CALLS = [
    "m.zeros(f, 2)", "m.zeros(t2, 2)", "m.zeros(oo, 2).shape", "m.zeros(u, 2).shape",
    "m.zeros((oo,)).shape", "m.zeros(o).shape", "m.zeros(oo).shape", "m.zeros(2, o).shape",
    "m.zeros((2, o)).shape", "m.zeros(o, 2).shape", "m.ones((o,))", "x.new_zeros((o, 2)).shape",
    "m.full((o, 2), 1).shape", "m.randn(o, 2).shape", "m.randint(5, (o,)).shape",
    "x.view(o, 6)", "x.view(-1, o)", "x.permute(o, 0).shape", "x.permute(0, o).shape",
    "x.sum(o).shape", "x.sum((o,)).shape", "x.sum((0, o)).shape", "x.amax((0, o)).shape",
    "x.transpose(o, 0).shape", "x.unsqueeze(o).shape", "x.narrow(0, o, 1).shape",
    "x.repeat(o, 1).shape", "x.flip(o).shape", "x.flip(0, o).shape", "x.expand(o, 2, 3).shape",
    "x[o].shape", "x.movedim(o, 0).shape", "x.roll(o, 0).shape", "x.roll(1, (0, o)).shape",
    "x.tile((1, o)).shape", "x.reshape(2, o, -1).shape", "m.arange(o)",
    "m.nn.functional.pad(x, (o, 1)).shape",
    "x.topk(o)", "x.topk(oo)", "x.topk(f)", "x.topk(z)", "x.topk(t2)", "x.topk(k=o)",
    "m.topk(x, o, 0)", "x.split(o)", "x.split(oo)", "x.split(b)", "x.split(f)", "x.split(t2)",
    "x.split(fz)", "m.split(x, o, 1)", "x.split(z)",
]


@pytest.mark.parametrize("call", ONE_ELEMENT_CALLS)
def test_integer_tensors_of_one_element_as_torchs_parser_reads_them(call):
    """An integer tensor of one element, whatever its shape, is an int where torch's parser
    reads a list of ints (its first element decides: zeros(tensor([1]), 2)), a single size
    (x.sum(tensor([1]))) or a SymInt (topk's k); torch's Python split takes int() of any
    tensor of one element."""
    parity.assert_same_snippet(
        "x = m.arange(6.).reshape(2, 3)\no = m.tensor([1])\noo = m.tensor([[1]])\n"
        "b = m.tensor([True])\nf = m.tensor([1.5])\nt2 = m.tensor([1, 1])\nz = m.tensor(1)\n"
        "u = m.tensor([1], dtype=m.uint8)\nfz = m.tensor(1.0, requires_grad=True)\n"
        f"r = error(lambda: {call})\nr = r if r is not None else {call}")


NORM_ORDER_CALLS = [
    "m.norm(x, 1, dim=(1, 'a'), keepdim=[True, 1])", "m.norm(x, 1, (1, 'a'), 1)",
    "m.norm(x, 2, (0, 'a'))", "x.norm(2, (0, 1.5), 2)", "m.norm(x, 'fro', (0, 'a'), 1)",
    "m.norm(x, 'nuc', (0, 1), 1)", "m.norm(x, 2, ('a', 0), 1)",
    "m.linalg.vector_norm(x, 2, (0, 'a'), 1)",
    "m.norm(x, 2, (0, 'a'), True, out=m.zeros(2))", "m.norm(x, 2, (0, 1), 1, out=m.zeros(2))",
]


@pytest.mark.parametrize("call", NORM_ORDER_CALLS)
def test_torch_norm_checks_every_argument_before_reading_its_dims(call):
    """fuzz 5517605 (signatures family): torch's parser checks keepdim's type before it reads
    the dims after the first (dim=(1, 'a'), keepdim=[True])."""
    parity.assert_same_snippet("x = m.ones(2, 3)\n"
                               f"r = error(lambda: {call})\nr = r if r is not None else {call}")


def test_the_sign_of_a_nan_is_the_documented_difference():
    """fuzz 4243416, documented (notebooks/DIFFERENCES.md, "The sign of a nan"): sqrt and
    log2 of a negative number are nans with the sign bit set in the engine, clear in torch;
    asin and acos beyond 1 the other way round; all print nan. If the engine ever matches
    torch here, the entry should go."""
    for name, value, engine_sign in (("sqrt", -2.75, True), ("log2", -2.75, True),
                                     ("asin", 2.0, False), ("acos", 2.0, False)):
        got = getattr(engine.tensor([value]), name)()
        expected = getattr(torch.tensor([value]), name)()
        assert repr(got) == repr(expected) == "tensor([nan])"
        assert np.signbit(got.numpy()).tolist() == [engine_sign]
        assert np.signbit(expected.numpy()).tolist() == [not engine_sign]
