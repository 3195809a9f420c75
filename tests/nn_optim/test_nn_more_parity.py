"""engine.nn's further activations, distances, losses and layers against torch 2.15.

The piecewise-linear activations (hardtanh, relu6, hardswish, hardsigmoid, the shrinks,
threshold, prelu) and the ones torch writes as compositions (softsign, softmin, normalize,
cosine_similarity, pairwise_distance) are compared bit for bit in float32 and float16; the
smooth ones (selu, celu, glu, logsigmoid, mish) compute in float64 and round once, within
torch.testing's tolerance of torch's vectorised kernels (engine/ops/README.md). Each also:
grad_fn name and saved values, the gradient at the kinks, in-place variants, empty and 0-d
tensors, integer inputs, errors, gradcheck in float64, the module's repr and state_dict.
"""
import math
import warnings

import pytest

import engine
from engine.autograd import gradcheck, gradgradcheck

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

# name: (call, exact in float32/float64, saved attributes)
ACTIVATIONS = {
    "hardtanh": (lambda F, x: F.hardtanh(x), True, ["max_val", "min_val", "self"]),
    "hardtanh -2 0.5": (lambda F, x: F.hardtanh(x, -2.0, 0.5), True, ["max_val", "min_val"]),
    "relu6": (lambda F, x: F.relu6(x), True, ["max_val", "min_val", "self"]),
    "hardswish": (lambda F, x: F.hardswish(x), True, ["self"]),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), True, ["self"]),
    "softshrink": (lambda F, x: F.softshrink(x), True, ["lambd", "self"]),
    "softshrink 1.5": (lambda F, x: F.softshrink(x, 1.5), True, ["lambd"]),
    "hardshrink": (lambda F, x: F.hardshrink(x), True, ["lambd", "self"]),
    "hardshrink 1": (lambda F, x: F.hardshrink(x, 1.0), True, ["lambd"]),
    "threshold": (lambda F, x: F.threshold(x, 0.5, -3.0), True, ["self", "threshold"]),
    "softsign": (lambda F, x: F.softsign(x), True, []),
    "softmin": (lambda F, x: F.softmin(x, 1), False, []),
    "prelu": (lambda F, x: F.prelu(x, x.new_full((1,), 0.25)), True, ["self", "weight"]),
    "selu": (lambda F, x: F.selu(x), False, ["alpha", "input_scale", "scale", "self"]),
    "celu": (lambda F, x: F.celu(x), False, ["alpha", "self"]),
    "celu 0.7": (lambda F, x: F.celu(x, 0.7), False, ["alpha"]),
    "glu": (lambda F, x: F.glu(x), False, ["dim", "self"]),
    "glu 0": (lambda F, x: F.glu(x, 0), False, ["dim"]),
    "logsigmoid": (lambda F, x: F.logsigmoid(x), False, ["buffer", "self"]),
    "mish": (lambda F, x: F.mish(x), False, ["self"]),
    "tanhshrink": (lambda F, x: F.tanhshrink(x), False, []),
}


def _tensor(shape=(4, 10), dtype="float32", seed=0):
    """Values from -6 to 6 with the kinks in: signed zeros, +-0.5, +-1, +-3, 6 and nan."""
    x = parity.make_tensor(shape, dtype, seed, low=-6, high=6)
    if shape == (4, 10):
        x[0, :10] = engine.tensor([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, 1.5])
        x[1, :3] = engine.tensor([float("nan"), -2.0, 0.25])
    return x


def _run(name, x, exact, **tolerance):
    call, _, saved = ACTIVATIONS[name]

    def fn(m, x):
        out = call(m.nn.functional, x)
        node = out.grad_fn
        values = [getattr(node, "_saved_" + s) for s in saved]
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, node.name(), values, x.grad

    parity.run_both(fn, x.requires_grad_(), exact=exact, **tolerance)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_values_nodes_and_gradients(name, dtype):
    _run(name, _tensor(dtype=dtype), ACTIVATIONS[name][1])


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_half_precision(name):
    # float16 computes in float32 and rounds once, as torch's kernels do
    _run(name, _tensor(dtype="float16"), ACTIVATIONS[name][1], rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (3, 33), (40, 2)])
@pytest.mark.parametrize("name", [n for n in ACTIVATIONS if not n.startswith(("glu", "softmin"))])
def test_shapes(name, shape):
    # 33 and 80 elements: some in torch's SIMD steps, a tail in its scalar loop
    _run(name, _tensor(shape, seed=len(shape)), ACTIVATIONS[name][1])


@pytest.mark.parametrize("name", ["softshrink", "hardswish", "hardtanh", "threshold"])
def test_strided_inputs(name):
    call = ACTIVATIONS[name][0]
    x = _tensor((8, 40), seed=3)
    parity.run_both(lambda m, x: call(m.nn.functional, x.t()), x)
    parity.run_both(lambda m, x: call(m.nn.functional, x[:, ::3]), x)
    parity.run_both(lambda m, x: call(m.nn.functional, x.half()[:, 1:]), x)


@pytest.mark.parametrize("name", [n for n in ACTIVATIONS if ACTIVATIONS[n][2]
                                  and " " not in n and n != "prelu"])
def test_gradcheck(name):
    call = ACTIVATIONS[name][0]
    # away from the kinks (0, +-0.5, +-1, +-3)
    x = (engine.linspace(-4.4, 4.4, 24, dtype=engine.float64) + 0.013).view(3, 8)
    assert gradcheck(lambda x: call(engine.nn.functional, x), (x.requires_grad_(),))
    if not ACTIVATIONS[name][1]:
        assert gradgradcheck(lambda x: call(engine.nn.functional, x), (x,))


@pytest.mark.parametrize("call", [
    lambda F, y: F.hardtanh(y, inplace=True), lambda F, y: F.hardtanh_(y, -0.5, 2.0),
    lambda F, y: F.relu6(y, inplace=True), lambda F, y: F.hardswish(y, inplace=True),
    lambda F, y: F.hardsigmoid(y, inplace=True), lambda F, y: F.selu(y, inplace=True),
    lambda F, y: F.selu_(y), lambda F, y: F.celu(y, 2.0, inplace=True),
    lambda F, y: F.celu_(y), lambda F, y: F.threshold(y, 0.5, 2.0, inplace=True),
    lambda F, y: F.threshold_(y, 0.5, 2.0), lambda F, y: F.mish(y, inplace=True),
])
def test_inplace_variants(call):
    def fn(m, x):
        y = x * 1.0
        out = call(m.nn.functional, y)
        node = out.grad_fn
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out is y, y, node.name(), y._version, x.grad

    parity.run_both(fn, _tensor().requires_grad_(), exact=False)
    parity.run_both(lambda m, x: call(m.nn.functional, x), _tensor().requires_grad_())


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_integer_and_bool_inputs(name):
    call = ACTIVATIONS[name][0]
    x = parity.make_tensor((3, 4), "int64", 1)
    parity.run_both(lambda m, x: call(m.nn.functional, x), x)


@pytest.mark.parametrize("call", [
    lambda F, x: F.hardtanh(x, 2.0, 1.0), lambda F, x: F.softshrink(x, -1.0),
    lambda F, x: F.softshrink(x.double(), -0.5), lambda F, x: F.softshrink(x.half(), -2),
    lambda F, x: F.celu(x, 0.0), lambda F, x: F.glu(x[:, :3]), lambda F, x: F.glu(x[0, 0]),
    lambda F, x: F.glu(x, 2), lambda F, x: F.hardtanh(x.bool()),
    lambda F, x: F.prelu(x, x.new_ones(3)), lambda F, x: F.prelu(x[0, 0], x.new_ones(4)),
    lambda F, x: F.prelu(x, x.new_ones(4, 1)), lambda F, x: F.prelu(x, x.new_ones(1).double()),
    lambda F, x: F.prelu(x.long(), x.new_ones(1).long()),
    lambda F, x: F.hardtanh([1.0]), lambda F, x: F.prelu(x, [1.0]),
])
def test_errors(call):
    parity.run_both(lambda m, x: call(m.nn.functional, x), _tensor((2, 4)))


@pytest.mark.parametrize("input_shape, weight_shape", [
    ((2, 4), (1,)), ((2, 4), (4,)), ((2, 4, 3), (4,)), ((2, 4, 3, 2), ()), ((5,), (1,)),
    ((), (1,)), ((), ()), ((0, 4), (4,)), ((3, 1), (1,)),
])
def test_prelu_weights(input_shape, weight_shape):
    def fn(m, x, w):
        x.requires_grad_()
        w.requires_grad_()
        out = m.nn.functional.prelu(x, w)
        m.manual_seed(0)
        out.backward(m.randn(out.shape))
        return out, out.grad_fn.name(), [n.name() if n else None for n, _ in
                                         out.grad_fn.next_functions], x.grad, w.grad

    weight = parity.make_tensor(weight_shape, "float32", 2, low=-1, high=1)
    parity.run_both(fn, _tensor(input_shape, seed=1), weight, exact=False)
    x = _tensor((2, 4, 3), dtype="float64", seed=2).requires_grad_()
    w = engine.tensor([0.1, -0.2, 0.3, 0.25], dtype=engine.float64, requires_grad=True)
    assert gradcheck(engine.nn.functional.prelu, (x + 0.01, w))


def _pair(shape1=(4, 5), shape2=(4, 5), dtype="float32"):
    return (parity.make_tensor(shape1, dtype, 1, low=-3, high=3),
            parity.make_tensor(shape2, dtype, 2, low=-3, high=3))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("call", [
    lambda F, a, b: F.normalize(a), lambda F, a, b: F.normalize(a, 1.0, 0),
    lambda F, a, b: F.normalize(a, dim=-1, eps=10.0), lambda F, a, b: F.cosine_similarity(a, b),
    lambda F, a, b: F.cosine_similarity(a, b, 0, 1e-3),
    lambda F, a, b: F.cosine_similarity(a, b[:1]), lambda F, a, b: F.pairwise_distance(a, b),
    lambda F, a, b: F.pairwise_distance(a, b, 1.0, 0.0, True),
    lambda F, a, b: F.pairwise_distance(a, b[0], 3.0),
    lambda F, a, b: F.pairwise_distance(a, a),
    lambda F, a, b: F.cosine_similarity(a, a * 0),
])
def test_distances(call, dtype):
    def fn(m, a, b):
        a.requires_grad_()
        b.requires_grad_()
        out = call(m.nn.functional, a, b)
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, out.grad_fn.name(), a.grad, b.grad

    tolerance = {"rtol": 2e-3, "atol": 1e-3} if dtype == "float16" else {}
    parity.run_both(fn, *_pair(dtype=dtype), exact=False, **tolerance)


@pytest.mark.parametrize("call", [
    lambda F, a, b: F.cosine_similarity(a, b[:3]), lambda F, a, b: F.pairwise_distance(a, b[:3]),
    lambda F, a, b: F.normalize(a, dim=3), lambda F, a, b: F.cosine_similarity(a, b, 2),
    lambda F, a, b: F.cosine_similarity(a.long(), b.long()),
    lambda F, a, b: F.cosine_similarity(a.long(), b),
    lambda F, a, b: F.pairwise_distance(a.long(), b),
    lambda F, a, b: F.cosine_similarity(a[:0], b[:0]),
    lambda F, a, b: F.pairwise_distance(a[:0], b[:0]),
    lambda F, a, b: F.normalize(a[:0]), lambda F, a, b: F.pairwise_distance(a[0, 0], b[0, 0]),
])
def test_distance_edges_and_errors(call):
    parity.run_both(lambda m, a, b: call(m.nn.functional, a, b), *_pair(), exact=False)


def test_distance_gradcheck():
    a, b = (t.double().requires_grad_() for t in _pair())
    F = engine.nn.functional
    assert gradcheck(lambda a, b: F.cosine_similarity(a, b), (a, b))
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, 3.0), (a, b))
    assert gradcheck(lambda a: F.normalize(a, 1.5), (a,))


def test_module_reprs_and_outputs():
    def fn(m, x):
        nn = m.nn
        layers = [nn.Hardtanh(), nn.Hardtanh(-2, 3, True), nn.ReLU6(), nn.ReLU6(True),
                  nn.Hardswish(), nn.Hardswish(True), nn.Hardsigmoid(), nn.Hardsigmoid(True),
                  nn.SELU(), nn.SELU(inplace=True), nn.CELU(), nn.CELU(2.0, True),
                  nn.GLU(), nn.GLU(0), nn.LogSigmoid(), nn.Mish(), nn.Mish(True), nn.Softsign(),
                  nn.Tanhshrink(), nn.Softshrink(), nn.Softshrink(1), nn.Hardshrink(0.3),
                  nn.Threshold(0.1, 20), nn.Threshold(0.1, 20.0, True), nn.Softmin(1),
                  nn.PReLU(), nn.PReLU(10, init=0.1)]
        return ([repr(layer) for layer in layers], [layer(x.clone()) for layer in layers],
                [list(layer.state_dict()) for layer in layers])

    parity.run_both(fn, _tensor(), exact=False)


def test_module_constructors():
    def fn(m):
        nn = m.nn
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer = nn.Hardtanh(min_value=-2, max_value=4)
        prelu = nn.PReLU(3, 0.5, dtype=m.float64)
        softmin = nn.Softmin()
        return (repr(layer), [(str(w.message), w.category.__name__) for w in caught],
                prelu.weight, prelu.init, prelu.num_parameters, softmin.dim,
                repr(nn.CosineSimilarity()), repr(nn.PairwiseDistance(1, 1e-3, True)),
                nn.PairwiseDistance(1).norm, repr(nn.Unflatten(1, (2, 5))),
                repr(nn.Unflatten(1, [2, 5])), repr(nn.Unflatten(-1, m.Size([5, 2]))),
                repr(nn.ZeroPad2d(2)), repr(nn.ZeroPad2d((1, 2, 3, 4))),
                repr(nn.ConstantPad1d(2, 3.5)), repr(nn.ConstantPad1d((1, 0), 1)),
                repr(nn.ConstantPad2d((1, 2, 3, 4), 1.0)), repr(nn.ConstantPad2d(1, -1)))

    parity.run_both(fn)
    for call in [lambda nn: nn.Hardtanh(1, 1), lambda nn: nn.Unflatten(1, 4),
                 lambda nn: nn.Unflatten(1, (2, 2.0))]:
        parity.run_both(lambda m, call=call: call(m.nn))


def test_layer_modules_forward():
    def fn(m, x, y):
        nn = m.nn
        layers = [nn.Unflatten(1, (2, 5)), nn.Unflatten(-1, (5, -1)), nn.ZeroPad2d(1),
                  nn.ZeroPad2d((1, 0, 2, -1)), nn.ConstantPad1d(2, 3.5),
                  nn.ConstantPad2d((0, 1, 1, 0), -1.0)]
        outs = [layer(x) for layer in layers]
        cos, dist = nn.CosineSimilarity(0), nn.PairwiseDistance(keepdim=True)
        return outs, cos(x, y), dist(x, y), [o.grad_fn.name() for o in outs]

    x = _tensor().requires_grad_()
    parity.run_both(fn, x, parity.make_tensor((4, 10), "float32", 5), exact=False)


# ====================================================================== losses
def _graph(tensor):
    """The names of every node behind tensor, depth first (torch's order of inputs)."""
    names, stack, seen = [], [tensor.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name().replace("torch::autograd::", ""))
        stack.extend(reversed([next_node for next_node, _ in node.next_functions]))
    return names


def _scores(shape=(4, 5), dtype="float32", seed=1):
    return parity.make_tensor(shape, dtype, seed, low=-2, high=2)


def _signs(shape, seed=2):
    return parity.make_tensor(shape, "float32", seed, low=-1, high=1).sign().masked_fill_(
        parity.make_tensor(shape, "float32", seed).eq(0), 1.0)


# name: (call(F, a, b, c, **kw), a, b, c)
LOSSES = {
    "kl_div": (lambda F, a, b, c, **kw: F.kl_div(a.log_softmax(1), b.softmax(1), **kw),),
    "kl_div zeros": (lambda F, a, b, c, **kw: F.kl_div(a, b.relu(), **kw),),
    "kl_div log_target": (lambda F, a, b, c, **kw: F.kl_div(a, b, log_target=True, **kw),),
    "margin_ranking_loss": (lambda F, a, b, c, **kw: F.margin_ranking_loss(
        a, b, c, **kw),),
    "margin_ranking_loss 0.5": (lambda F, a, b, c, **kw: F.margin_ranking_loss(
        a, b, c, 0.5, **kw),),
    "hinge_embedding_loss": (lambda F, a, b, c, **kw: F.hinge_embedding_loss(a, c, **kw),),
    "hinge_embedding_loss 2": (lambda F, a, b, c, **kw: F.hinge_embedding_loss(
        a, c, margin=2.0, **kw),),
    "soft_margin_loss": (lambda F, a, b, c, **kw: F.soft_margin_loss(a, c, **kw),),
    "multilabel_soft_margin_loss": (lambda F, a, b, c, **kw: F.multilabel_soft_margin_loss(
        a, (c > 0).float(), **kw),),
    "multilabel_soft_margin_loss weight": (lambda F, a, b, c, **kw:
                                           F.multilabel_soft_margin_loss(
                                               a, (c > 0).float(), b[0].detach().abs(), **kw),),
    "cosine_embedding_loss": (lambda F, a, b, c, **kw: F.cosine_embedding_loss(
        a, b, c[:, 0], **kw),),
    "cosine_embedding_loss 0.3": (lambda F, a, b, c, **kw: F.cosine_embedding_loss(
        a, b, c[:, 0], 0.3, **kw),),
    "poisson_nll_loss": (lambda F, a, b, c, **kw: F.poisson_nll_loss(a, b.abs() * 2, **kw),),
    "poisson_nll_loss full": (lambda F, a, b, c, **kw: F.poisson_nll_loss(
        a.abs(), b.abs() * 2, False, True, **kw),),
    "triplet_margin_loss": (lambda F, a, b, c, **kw: F.triplet_margin_loss(
        a, b, c, **kw),),
    "triplet_margin_loss swap p1": (lambda F, a, b, c, **kw: F.triplet_margin_loss(
        a, b, c * 2, 0.5, 1, swap=True, **kw),),
    "multi_margin_loss": (lambda F, a, b, c, **kw: F.multi_margin_loss(
        a, a.new_tensor([0, 1, 4, 2]).long(), **kw),),
    "multi_margin_loss p2 weight": (lambda F, a, b, c, **kw: F.multi_margin_loss(
        a, a.new_tensor([3, 1, 0, 2]).long(), 2, 0.7, b[0].detach().abs(), **kw),),
}
GAUSSIAN = {
    "gaussian_nll_loss": lambda F, a, b, c, **kw: F.gaussian_nll_loss(a, b, c.abs(), **kw),
    "gaussian_nll_loss float var full": lambda F, a, b, c, **kw: F.gaussian_nll_loss(
        a, b, 0.5, True, **kw),
    "gaussian_nll_loss var short": lambda F, a, b, c, **kw: F.gaussian_nll_loss(
        a, b, c[:, 0].abs(), **kw),
    "gaussian_nll_loss var column": lambda F, a, b, c, **kw: F.gaussian_nll_loss(
        a, b, c[:, :1].abs(), eps=0.1, **kw),
}
ALL_LOSSES = {**{name: entry[0] for name, entry in LOSSES.items()}, **GAUSSIAN}


def _loss_inputs(dtype="float32"):
    return _scores(dtype=dtype), _scores(dtype=dtype, seed=3), _signs((4, 5)).to(
        getattr(engine, dtype))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("name", list(ALL_LOSSES))
def test_loss_values_graphs_and_gradients(name, reduction):
    call = ALL_LOSSES[name]
    if reduction == "batchmean" and not name.startswith("kl_div"):
        parity.run_both(lambda m, a, b, c: call(m.nn.functional, a, b, c, reduction="bad"),
                        *_loss_inputs())
        return

    def fn(m, a, b, c):
        for t in (a, b, c) if "soft_margin" not in name else (a, b):
            t.requires_grad_()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call(m.nn.functional, a, b, c, reduction=reduction)
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return (out, _graph(out), [[n and n.name() for n, _ in out.grad_fn.next_functions]],
                [str(w.message) for w in caught], a.grad, b.grad, c.grad)

    parity.run_both(fn, *_loss_inputs(), exact=False)


@pytest.mark.parametrize("name", list(ALL_LOSSES))
def test_loss_float64_gradcheck_and_parity(name):
    call = ALL_LOSSES[name]

    def fn(m, a, b, c):
        a.requires_grad_()
        out = call(m.nn.functional, a, b, c, reduction="sum")
        out.backward()
        return out, a.grad

    inputs = _loss_inputs("float64")
    parity.run_both(fn, *inputs, exact=False)
    a, b, c = inputs
    a = (a + 0.013).requires_grad_()  # (off the kinks of the hinges)
    assert gradcheck(lambda a: call(engine.nn.functional, a, b, c, reduction="sum"), (a,))


@pytest.mark.parametrize("size_average, reduce", [(None, False), (False, None), (True, True),
                                                  (False, True), (True, False)])
@pytest.mark.parametrize("name", [n for n in LOSSES if " " not in n])
def test_loss_legacy_arguments(name, size_average, reduce):
    call = ALL_LOSSES[name]

    def fn(m, a, b, c):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call(m.nn.functional, a, b, c, size_average=size_average, reduce=reduce)
        return out, [(str(w.message), w.category.__name__) for w in caught]

    parity.run_both(fn, *_loss_inputs(), exact=False)


@pytest.mark.parametrize("call", [
    lambda F, a, b, c: F.kl_div(a[:0], b[:0], reduction="batchmean"),
    lambda F, a, b, c: F.kl_div(a[0, 0], b[0, 0], reduction="batchmean"),
    lambda F, a, b, c: F.kl_div(a, b[0], reduction="sum"),
    lambda F, a, b, c: F.kl_div(a, b[:3], reduction="sum"),
    lambda F, a, b, c: F.margin_ranking_loss(a, b, c[0]),
    lambda F, a, b, c: F.margin_ranking_loss(a, b[:3], c),
    lambda F, a, b, c: F.margin_ranking_loss(a[:0], b[:0], c[:0]),
    lambda F, a, b, c: F.hinge_embedding_loss(a[:0], c[:0]),
    lambda F, a, b, c: F.soft_margin_loss(a, c[:2]),
    lambda F, a, b, c: F.soft_margin_loss(a[:0], c[:0]),
    lambda F, a, b, c: F.soft_margin_loss(a, c.requires_grad_()),
    lambda F, a, b, c: F.multilabel_soft_margin_loss(a, c, reduction="bad"),
    lambda F, a, b, c: F.cosine_embedding_loss(a, b, c),
    lambda F, a, b, c: F.cosine_embedding_loss(a, b, c[0, 0]),
    lambda F, a, b, c: F.cosine_embedding_loss(a[0], b[0], c[:, 0]),
    lambda F, a, b, c: F.cosine_embedding_loss(a[0], b[0], c[0, 0]),
    lambda F, a, b, c: F.poisson_nll_loss(a, b, reduction="bad"),
    lambda F, a, b, c: F.gaussian_nll_loss(a, b, -1.0),
    lambda F, a, b, c: F.gaussian_nll_loss(a, b, c),
    lambda F, a, b, c: F.gaussian_nll_loss(a, b, c.abs()[:2]),
    lambda F, a, b, c: F.gaussian_nll_loss(a, b, c.abs(), reduction="bad"),
    lambda F, a, b, c: F.triplet_margin_loss(a, b, c, margin=0),
    lambda F, a, b, c: F.triplet_margin_loss(a, b, c[0]),
    lambda F, a, b, c: F.triplet_margin_loss(a[0], b[0], c[0]),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([0, 1, 5, 2]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([0, 1]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([0, 1, 2, 2]).long(), p=3),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([0, 1, 2, 2]).long(),
                                           weight=b),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([0, 1, 2, 2]).long(),
                                           weight=b[0, :3]),
    lambda F, a, b, c: F.multi_margin_loss(a[0], a.new_tensor([3]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a[0], a.new_tensor(3).long(), reduction="none"),
    # (no samples with reduction mean or sum is not compared: torch returns whatever its
    # uninitialised result held, a different number each time)
    lambda F, a, b, c: F.multi_margin_loss(a[:0], a.new_tensor([]).long(), reduction="none"),
    lambda F, a, b, c: F.multi_margin_loss(a[0, :0], a.new_tensor([]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a[None], a.new_tensor([0]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a.long(), a.new_tensor([0, 1, 2, 2]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a[0], a.new_tensor([0, 1]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a[0, 0], a.new_tensor([0]).long(), reduction="none"),
    lambda F, a, b, c: F.multi_margin_loss(a[:1], a.new_tensor(2).long(), reduction="none"),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([[0], [1], [2], [2]]).long()),
    lambda F, a, b, c: F.multi_margin_loss(a, a.new_tensor([0, 1, 2, 2])),
])
def test_loss_edges_and_errors(call):
    parity.run_both(lambda m, a, b, c: call(m.nn.functional, a, b, c), *_loss_inputs(),
                    exact=False)


def test_loss_modules():
    def fn(m, a, b, c):
        nn = m.nn
        t = c[:, 0]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layers = [
                (nn.KLDivLoss(reduction="batchmean"), (a.log_softmax(1), b.softmax(1))),
                (nn.KLDivLoss(reduction="sum", log_target=True), (a, b)),
                (nn.KLDivLoss(size_average=False), (a, b.abs())),
                (nn.MarginRankingLoss(0.5), (a, b, c)),
                (nn.HingeEmbeddingLoss(2.0, reduction="sum"), (a, c)),
                (nn.SoftMarginLoss(reduce=False), (a, c)),
                (nn.MultiLabelSoftMarginLoss(b[0].abs()), (a, (c > 0).float())),
                (nn.CosineEmbeddingLoss(0.2), (a, b, t)),
                (nn.PoissonNLLLoss(False, True, eps=1e-3), (a.abs(), b.abs())),
                (nn.GaussianNLLLoss(full=True, eps=0.1), (a, b, c.abs())),
                (nn.TripletMarginLoss(0.5, 1.0, swap=True, reduction="none"), (a, b, c)),
                (nn.MultiMarginLoss(2, 0.5, b[0].abs()), (a, a.new_tensor([0, 1, 4, 2]).long())),
            ]
            outs = [layer(*inputs) for layer, inputs in layers]
        return ([repr(layer) for layer, _ in layers], [layer.reduction for layer, _ in layers],
                [list(layer.state_dict()) for layer, _ in layers], outs,
                [str(w.message) for w in caught])

    parity.run_both(fn, *_loss_inputs(), exact=False)
    parity.run_both(lambda m: m.nn.TripletMarginLoss(0))
    parity.run_both(lambda m: m.nn.MultiMarginLoss(3))
    parity.run_both(lambda m: m.nn.MultiMarginLoss(weight=m.ones(2, 2)))


@pytest.mark.parametrize("name", list(ALL_LOSSES))
def test_loss_half_precision(name):
    call = ALL_LOSSES[name]
    parity.run_both(lambda m, a, b, c: call(m.nn.functional, a, b, c, reduction="none"),
                    *_loss_inputs("float16"), exact=False, rtol=2e-3, atol=1e-3)


# ====================================================================== norms, pixel shuffle
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape, groups, affine", [
    ((2, 4, 3), 2, True), ((2, 6, 2, 3), 3, True), ((3, 4), 4, False), ((2, 4, 5), 1, False),
    ((0, 4, 3), 2, True), ((2, 4, 0), 2, True), ((1, 2, 3, 3), 1, True),
])
def test_group_norm(shape, groups, affine, dtype):
    def fn(m, x, w, b):
        x.requires_grad_()
        w.requires_grad_()
        b.requires_grad_()
        out = m.nn.functional.group_norm(x, groups, w if affine else None,
                                         b if affine else None, 1e-3)
        saved = [getattr(out.grad_fn, "_saved_" + s) for s in ("N", "C", "HxW", "group")]
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, _graph(out), saved, x.grad, w.grad, b.grad

    tolerance = {"rtol": 3e-3, "atol": 3e-3} if dtype == "float16" else {}
    parity.run_both(fn, parity.make_tensor(shape, dtype, 1, low=-3, high=3),
                    parity.make_tensor((shape[1],), dtype, 2, low=0.5, high=2),
                    parity.make_tensor((shape[1],), dtype, 3, low=-1, high=1),
                    exact=False, **tolerance)


def test_group_norm_gradcheck_and_errors():
    x = parity.make_tensor((2, 4, 3), "float64", 1, low=-3, high=3).requires_grad_()
    w = parity.make_tensor((4,), "float64", 2, low=0.5, high=2).requires_grad_()
    b = parity.make_tensor((4,), "float64", 3).requires_grad_()
    group_norm = engine.nn.functional.group_norm
    assert gradcheck(lambda x, w, b: group_norm(x, 2, w, b), (x, w, b))
    assert gradgradcheck(lambda x, w, b: group_norm(x, 2, w, b), (x, w, b))
    for call in [lambda F, x: F.group_norm(x, 3), lambda F, x: F.group_norm(x, 2, x[0, :, 0]),
                 lambda F, x: F.group_norm(x, 2, x.new_ones(3)),
                 lambda F, x: F.group_norm(x, 2, None, x.new_ones(3)),
                 lambda F, x: F.group_norm(x[0, 0], 1), lambda F, x: F.group_norm(x[:1, :1, :1], 1),
                 lambda F, x: F.group_norm(x.long(), 2),
                 lambda F, x: F.group_norm(x, 2, x.new_ones(4).double())]:
        parity.run_both(lambda m, x, call=call: call(m.nn.functional, x),
                        parity.make_tensor((2, 4, 3), "float32", 1, low=-3, high=3),
                        exact=False)


@pytest.mark.parametrize("shape, size", [((2, 5, 3), 2), ((2, 5, 3), 3), ((1, 3, 4), 5),
                                         ((0, 3, 4), 2), ((2, 5), 2), ((1, 3, 2, 2), 2),
                                         ((2, 5, 3, 4), 3), ((2, 4, 3, 2, 2), 4)])
def test_local_response_norm(shape, size):
    def fn(m, x):
        x.requires_grad_()
        out = m.nn.functional.local_response_norm(x, size, alpha=0.1, beta=0.5, k=2.0)
        if out.requires_grad:
            out.backward(m.ones(out.shape))
        return out, _graph(out) if out.grad_fn else None, x.grad

    parity.run_both(fn, parity.make_tensor(shape, "float32", 1, low=-3, high=3), exact=False)


@pytest.mark.parametrize("shape, factor, name", [
    ((1, 8, 2, 3), 2, "pixel_shuffle"), ((2, 3, 9, 1, 2), 3, "pixel_shuffle"),
    ((4, 2, 2), 1, "pixel_shuffle"), ((0, 4, 2, 2), 2, "pixel_shuffle"),
    ((1, 2, 4, 6), 2, "pixel_unshuffle"), ((3, 6, 3), 3, "pixel_unshuffle"),
    ((1, 3, 2, 2), 2, "pixel_shuffle"), ((4, 2), 2, "pixel_shuffle"),
    ((1, 1, 3, 4), 2, "pixel_unshuffle"), ((1, 1, 4, 3), 2, "pixel_unshuffle"),
    ((1, 4, 2, 2), 0, "pixel_shuffle"), ((1, 4, 2, 2), -1, "pixel_unshuffle"),
])
def test_pixel_shuffle(shape, factor, name):
    def fn(m, x):
        x.requires_grad_()
        out = getattr(m.nn.functional, name)(x, factor)
        moved = getattr(m.nn.functional, name)(x.detach().transpose(-1, -2), factor)
        m.manual_seed(0)
        if out.numel():  # (torch's backward of an empty batch fails on a shape check)
            out.backward(m.randn(out.shape))
        return out, moved, _graph(out), x.grad

    parity.run_both(fn, parity.make_tensor(shape, "float32", 1))


def test_norm_and_shuffle_modules():
    def fn(m, x):
        nn = m.nn
        layers = [nn.GroupNorm(2, 4), nn.GroupNorm(1, 4, 1e-3, affine=False),
                  nn.GroupNorm(4, 4, bias=False), nn.LocalResponseNorm(2),
                  nn.LocalResponseNorm(3, 1e-2, 0.5, 2.0), nn.PixelShuffle(2),
                  nn.PixelUnshuffle(1)]
        return ([repr(layer) for layer in layers], [layer(x) for layer in layers],
                [layer.state_dict() for layer in layers])

    parity.run_both(fn, parity.make_tensor((2, 4, 6), "float32", 1), exact=False)
    parity.run_both(lambda m: m.nn.GroupNorm(3, 4))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 2), (1, 2, 3)])
def test_instance_norm(shape, dtype):
    def fn(m, x, w, b):
        x.requires_grad_()
        w.requires_grad_()
        mean, var = m.zeros(shape[1], dtype=x.dtype), m.ones(shape[1], dtype=x.dtype)
        out = m.nn.functional.instance_norm(x, mean, var, w, b, momentum=0.2, eps=1e-3)
        plain = m.nn.functional.instance_norm(x)
        frozen = m.nn.functional.instance_norm(x, mean, var, use_input_stats=False)
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, plain, frozen, _graph(out), mean, var, x.grad, w.grad

    parity.run_both(fn, parity.make_tensor(shape, dtype, 1, low=-3, high=3),
                    parity.make_tensor((shape[1],), dtype, 2, low=0.5, high=2),
                    parity.make_tensor((shape[1],), dtype, 3), exact=False)


def test_instance_norm_modules_and_errors():
    def fn(m, x, image):
        nn = m.nn
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layers = [nn.InstanceNorm1d(3), nn.InstanceNorm1d(3, affine=True),
                      nn.InstanceNorm1d(3, track_running_stats=True, momentum=None),
                      nn.InstanceNorm1d(5)]
            outs = [layer(x) for layer in layers] + [layers[0](x[0])]
            layers[2].eval()
            outs.append(layers[2](x))
            two_d = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
            outs += [two_d(image), two_d(image[0])]
        return ([repr(layer) for layer in [*layers, two_d]], outs,
                [layer.state_dict() for layer in [*layers, two_d]],
                [str(w.message) for w in caught])

    parity.run_both(fn, parity.make_tensor((2, 3, 4), "float32", 1, low=-3, high=3),
                    parity.make_tensor((2, 3, 2, 3), "float32", 2, low=-3, high=3), exact=False)
    x = parity.make_tensor((2, 3, 4), "float32", 1)
    for call in [lambda m, x: m.nn.InstanceNorm1d(3)(x[0, 0]),
                 lambda m, x: m.nn.InstanceNorm1d(5, affine=True)(x),
                 lambda m, x: m.nn.InstanceNorm2d(3)(x[0, 0]),
                 lambda m, x: m.nn.functional.instance_norm(x[:, :, :1]),
                 lambda m, x: m.nn.functional.instance_norm(x, use_input_stats=False)]:
        parity.run_both(call, x)


# ====================================================================== attention
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes, kwargs", [
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {}),
    (((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)), {"scale": 0.3}),
    (((3, 4), (5, 4), (5, 6)), {"is_causal": True}),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {"attn_mask": "bool"}),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {"attn_mask": "float"}),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {"attn_mask": "masked row"}),
    (((2, 3, 4), (2, 5, 4), (2, 5, 6)), {"scale": -0.5}),
    (((0, 3, 4), (0, 5, 4), (0, 5, 6)), {}),
    # torch's fused CPU kernel (4-d, one head size, no dropout): one node
    (((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)), {}),
    (((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)), {"attn_mask": "bool", "scale": 0.4}),
    (((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)), {"attn_mask": "float"}),
    (((2, 2, 3, 4), (2, 2, 3, 4), (2, 2, 3, 4)), {"is_causal": True}),
    (((2, 3, 4), (2, 5, 4), (2, 5, 4)), {}),
    (((2, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)), {}),
])
def test_scaled_dot_product_attention(shapes, kwargs, dtype):
    masks = {"bool": parity.make_tensor((3, 5), "float32", 4) > 0,
             "float": parity.make_tensor((3, 5), dtype, 4, low=-1, high=1),
             "masked row": engine.tensor([[True] * 5, [False] * 5, [True, False] * 2 + [True]])}
    kwargs = {**kwargs, **({"attn_mask": masks[kwargs["attn_mask"]]} if "attn_mask" in kwargs
                           else {})}

    def fn(m, q, k, v, **kw):
        for t in (q, k, v):
            t.requires_grad_()
        out = m.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        strided = m.nn.functional.scaled_dot_product_attention(
            q.transpose(-1, -2).contiguous().transpose(-1, -2), k, v, **kw)
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return (out, _graph(out), _graph(strided), q.grad, k.grad, v.grad,
                [t.grad.stride() for t in (q, k, v)])

    tensors = [parity.make_tensor(shape, dtype, i, low=-2, high=2)
               for i, shape in enumerate(shapes)]
    parity.run_both(fn, *tensors, exact=False, **kwargs)


def test_scaled_dot_product_attention_gradcheck_and_errors():
    q, k, v = (parity.make_tensor(shape, "float64", i, low=-2, high=2).requires_grad_()
               for i, shape in enumerate([(2, 3, 4), (2, 5, 4), (2, 5, 6)]))
    attention = engine.nn.functional.scaled_dot_product_attention
    assert gradcheck(lambda q, k, v: attention(q, k, v, is_causal=True), (q, k, v))
    assert gradgradcheck(lambda q, k, v: attention(q, k, v), (q, k, v))
    q4, k4, v4 = (parity.make_tensor(shape, "float64", i, low=-2, high=2).requires_grad_()
                  for i, shape in enumerate([(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)]))
    mask = parity.make_tensor((3, 5), "float64", 7, low=-1, high=1)
    assert gradcheck(lambda q, k, v: attention(q, k, v, mask), (q4, k4, v4))
    assert gradgradcheck(lambda q, k, v: attention(q, k, v, scale=0.3), (q4, k4, v4))
    for call in [lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                   attn_mask=q[0, :, :1] > 0),
                 lambda F, q, k, v: F.scaled_dot_product_attention(q, k[..., :3], v),
                 lambda F, q, k, v: F.scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0]),
                 lambda F, q, k, v: F.scaled_dot_product_attention(q.long(), k.long(),
                                                                   v.long()),
                 lambda F, q, k, v: F.scaled_dot_product_attention(q, k.double(), v)]:
        parity.run_both(lambda m, q, k, v, call=call: call(m.nn.functional, q, k, v),
                        *(t.detach().float() for t in (q, k, v)), exact=False)


def test_scaled_dot_product_attention_dropout_draws_as_torch():
    def fn(m, q, k, v):
        m.manual_seed(3)
        q.requires_grad_()
        out = m.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
        out.sum().backward()
        return out, q.grad, m.rand(2)

    parity.run_both(fn, *(parity.make_tensor(shape, "float32", i, low=-2, high=2)
                          for i, shape in enumerate([(2, 3, 4), (2, 5, 4), (2, 5, 6)])),
                    exact=False)


MHA_CASES = {
    "self": ({}, {}, "self"),
    "self need_weights=False": ({}, {"need_weights": False}, "self"),
    "batch_first per head": ({"batch_first": True}, {"average_attn_weights": False}, "self"),
    "encoder-decoder": ({}, {}, "kv"),
    "separate kdim vdim": ({"kdim": 3, "vdim": 5}, {}, "separate"),
    "no bias": ({"bias": False}, {"need_weights": False}, "separate same"),
    "bias_kv zero_attn": ({"add_bias_kv": True, "add_zero_attn": True}, {}, "self"),
    "bool attn_mask": ({}, {"attn_mask": "bool"}, "self"),
    "float attn_mask no weights": ({}, {"attn_mask": "float", "need_weights": False}, "self"),
    "key_padding_mask": ({}, {"key_padding_mask": "padding"}, "kv"),
    "causal": ({}, {"attn_mask": "causal", "is_causal": True, "need_weights": False}, "self"),
    "unbatched": ({}, {}, "unbatched"),
    "dropout": ({"dropout": 0.3}, {}, "self"),
}


@pytest.mark.parametrize("name", list(MHA_CASES))
def test_multihead_attention(name):
    options, call_options, inputs = MHA_CASES[name]

    def fn(m, x, memory, other):
        m.manual_seed(0)
        layer = m.nn.MultiheadAttention(4, 2, **options)
        masks = {"bool": m.tensor([[False, True, False], [False, False, True],
                                   [True, False, False]]),
                 "float": x[0, :, :3].detach() if x.dim() == 3 else None,
                 "causal": m.nn.Transformer.generate_square_subsequent_mask(3)
                 if hasattr(m.nn, "Transformer") and not hasattr(m, "__engine__") else
                 m.tensor([[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf],
                           [0.0, 0.0, 0.0]]),
                 "padding": m.tensor([[False, False, True, False, True]] * 2)}
        kwargs = {k: masks[v] if isinstance(v, str) else v for k, v in call_options.items()}
        if inputs == "self":
            q = k = v = x
        elif inputs == "kv":
            q, k, v = x, memory, memory
        elif inputs == "separate":
            q, k, v = x, memory[..., :3], other
        elif inputs == "separate same":
            q, k, v = x, memory[..., :4], memory[..., :4].clone()
        else:
            q = k = v = x[:, 0]
        out, weights = layer(q, k, v, **kwargs)
        m.manual_seed(1)
        out.backward(m.randn(out.shape))
        return (out, weights, _graph(out), repr(layer), list(layer.state_dict()),
                [p.grad for p in layer.parameters()], x.grad)

    x = parity.make_tensor((3, 2, 4), "float32", 1, low=-2, high=2).requires_grad_()
    parity.run_both(fn, x, parity.make_tensor((5, 2, 4), "float32", 2, low=-2, high=2),
                    parity.make_tensor((5, 2, 5), "float32", 3, low=-2, high=2), exact=False)


def test_multihead_attention_eval_and_errors():
    def fn(m, x):
        m.manual_seed(0)
        layer = m.nn.MultiheadAttention(4, 2, batch_first=True).eval()
        with m.no_grad():
            out, weights = layer(x, x, x)
        return out, weights

    parity.run_both(fn, parity.make_tensor((2, 3, 4), "float32", 1, low=-2, high=2),
                    exact=False)
    x = parity.make_tensor((3, 2, 4), "float32", 1)
    for call in [lambda m, x: m.nn.MultiheadAttention(4, 3),
                 lambda m, x: m.nn.MultiheadAttention(0, 2),
                 lambda m, x: m.nn.MultiheadAttention(4, 2)(x, x[0], x[0]),
                 lambda m, x: m.nn.MultiheadAttention(4, 2)(x[0, 0], x[0, 0], x[0, 0]),
                 lambda m, x: m.nn.MultiheadAttention(4, 2)(x, x, x, attn_mask=m.ones(2, 2)),
                 lambda m, x: m.nn.MultiheadAttention(4, 2)(x, x, x, is_causal=True),
                 lambda m, x: m.nn.MultiheadAttention(4, 2)(x, x, x, attn_mask=m.ones(
                     3, 3).long()),
                 lambda m, x: m.nn.MultiheadAttention(4, 2)(x, x, x, key_padding_mask=m.zeros(
                     2, 4, dtype=m.bool))]:
        parity.run_both(call, x)


def test_multi_margin_loss_gradient_cannot_be_differentiated_again():
    """As torch's: create_graph records the gradient, a backward through it raises loudly
    (tests/ops/test_fuzz_round15_parity.py compares the whole story with torch)."""
    x = parity.make_tensor((3, 4), "float64", 1).requires_grad_()
    loss = engine.nn.functional.multi_margin_loss(x, engine.tensor([0, 2, 1]), p=2)
    (grad,) = engine.autograd.grad(loss, x, create_graph=True)
    assert grad.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="multi_margin_loss_backward is not implemented"):
        engine.autograd.grad(grad.sum(), x)
    (plain,) = engine.autograd.grad(
        engine.nn.functional.multi_margin_loss(x, engine.tensor([0, 2, 1]), p=2), x)
    assert plain.shape == x.shape and not plain.requires_grad
