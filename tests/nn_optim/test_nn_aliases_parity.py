"""torch.* names of nn functions (torch.dropout, torch.layer_norm, torch.batch_norm, torch.kl_div
...) and x.prelu / x.hardshrink against torch 2.15: values, grad_fn names, gradients, torch's
C++ signatures (all positional, an int reduction whose default torch's binding reads as 0)
and the errors of a wrong call, including what only F.'s Python checks refuse."""
import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _tensor(shape, seed=0, dtype="float64", low=-2, high=2):
    return parity.make_tensor(shape, dtype, seed, low=low, high=high)


def _with_gradients(m, fn, *inputs):
    """fn's result, its grad_fn's name and the gradients of its sum (seeded: dropout)."""
    inputs = [x.detach().requires_grad_(x.is_floating_point()) for x in inputs]
    m.manual_seed(0)
    out = fn(m, *inputs)
    differentiable = [x for x in inputs if x.requires_grad]
    if not out.requires_grad:
        return out, None
    grads = m.autograd.grad(out.sum(), differentiable, allow_unused=True)
    return out, out.grad_fn.name(), grads


X = (2, 3, 4)
CASES = {
    # name: (function of m and the inputs, input shapes, exact)
    "dropout": (lambda m, x: m.dropout(x, 0.4, True), [X], True),
    "dropout eval": (lambda m, x: m.dropout(x, 0.4, False), [X], True),
    "dropout p=1": (lambda m, x: m.dropout(x, 1.0, True), [X], True),
    "dropout keywords": (lambda m, x: m.dropout(input=x, p=0.4, train=True), [X], True),
    "dropout tensor p": (lambda m, x: m.dropout(x, m.tensor(0.4, dtype=m.float64), True), [X],
                         True),
    "layer_norm tensor eps": (lambda m, x: m.layer_norm(x, [4], eps=m.tensor(1)), [X], False),
    "dropout_": (lambda m, x: m.dropout_(x * 1, 0.4, True), [X], True),
    "feature_dropout": (lambda m, x: m.feature_dropout(x, 0.5, True), [(4, 3, 2)], True),
    "feature_dropout_": (lambda m, x: m.feature_dropout_(x * 1, 0.5, True), [(4, 3)], True),
    "alpha_dropout": (lambda m, x: m.alpha_dropout(x, 0.3, True), [X], True),
    "alpha_dropout_": (lambda m, x: m.alpha_dropout_(x * 1, 0.3, True), [X], True),
    "feature_alpha_dropout": (lambda m, x: m.feature_alpha_dropout(x, 0.3, True), [(4, 3, 2)],
                              True),
    "feature_alpha_dropout_": (lambda m, x: m.feature_alpha_dropout_(x * 1, 0.3, True),
                               [(4, 3, 2)], True),
    "layer_norm": (lambda m, x, w, b: m.layer_norm(x, [4], w, b, 1e-3), [X, (4,), (4,)], False),
    "layer_norm default": (lambda m, x: m.layer_norm(x, (3, 4)), [X], False),
    "layer_norm cudnn": (lambda m, x: m.layer_norm(x, [4], None, None, 1e-5, False), [X], False),
    "group_norm": (lambda m, x, w, b: m.group_norm(x, 3, w, b), [(2, 6, 5), (6,), (6,)], False),
    "group_norm one value per group": (lambda m, x: m.group_norm(x, 2), [(1, 2)], False),
    "batch_norm training": (lambda m, x, w, b: m.batch_norm(
        x, w, b, None, None, True, 0.1, 1e-5, False), [X, (3,), (3,)], False),
    "batch_norm one value per channel": (lambda m, x: m.batch_norm(
        x, None, None, None, None, True, 0.1, 1e-5, False), [(1, 3)], False),
    "batch_norm eps 0": (lambda m, x: m.batch_norm(
        x, None, None, None, None, True, 0.1, 0.0, True), [X], False),
    "batch_norm running": (lambda m, x, mean, var: m.batch_norm(
        x, None, None, mean.detach(), var.detach().abs(), False, 0.1, 1e-5, True),
        [X, (3,), (3,)], False),
    "instance_norm": (lambda m, x: m.instance_norm(
        x, None, None, None, None, True, 0.1, 1e-5, False), [(2, 3, 5)], False),
    "instance_norm one position": (lambda m, x: m.instance_norm(
        x, None, None, None, None, True, 0.1, 1e-5, False), [(2, 3, 1)], False),
    "embedding": (lambda m, w: m.embedding(w, m.tensor([[1, 0], [4, 1]])), [(5, 3)], True),
    "embedding padding_idx": (lambda m, w: m.embedding(w, m.tensor([1, 0, 1]), 1), [(5, 3)],
                              True),
    "embedding negative padding_idx": (lambda m, w: m.embedding(w, m.tensor([4, 3]), -1),
                                       [(5, 3)], True),
    "embedding scale_grad_by_freq": (lambda m, w: m.embedding(
        w, m.tensor([1, 1, 2]), -1, True), [(5, 3)], True),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 2), [(2, 3, 5, 4)], True),
    "max_pool2d stride padding": (lambda m, x: m.max_pool2d(x, 3, 2, 1, 1, True),
                                  [(2, 3, 5, 4)], True),
    "max_pool2d empty stride": (lambda m, x: m.max_pool2d(x, (2, 1), ()), [(3, 5, 4)], True),
    "max_pool3d": (lambda m, x: m.max_pool3d(x, 2, (), 1, 1, True), [(2, 3, 5, 4)], True),
    "conv2d": (lambda m, x, w: m.conv2d(x, w, None, 1, 1), [(1, 2, 5, 5), (3, 2, 3, 3)], False),
    "conv1d same": (lambda m, x, w: m.conv1d(x, w, padding="same"), [(1, 2, 5), (3, 2, 3)],
                    False),
    "cosine_similarity": (lambda m, a, b: m.cosine_similarity(a, b, 0), [X, X], False),
    "pairwise_distance": (lambda m, a, b: m.pairwise_distance(a, b, 1.5), [(3, 4), (3, 4)],
                          False),
    "pixel_shuffle": (lambda m, x: m.pixel_shuffle(x, 2), [(1, 8, 2, 3)], True),
    "pixel_unshuffle": (lambda m, x: m.pixel_unshuffle(x, 2), [(1, 2, 4, 6)], True),
    "prelu": (lambda m, x, w: m.prelu(x, w), [X, (3,)], True),
    "x.prelu": (lambda m, x, w: x.prelu(w), [X, (1,)], True),
    "hardshrink": (lambda m, x: m.hardshrink(x, 0.7), [X], True),
    "x.hardshrink": (lambda m, x: x.hardshrink(lambd=1), [X], True),
    "x.hardshrink default": (lambda m, x: x.hardshrink(), [X], True),
    "celu": (lambda m, x: m.celu(x, 2.0), [X], False),
    "celu default": (lambda m, x: m.celu(x), [X], False),
    "celu_": (lambda m, x: m.celu_(x * 1, 0.5), [X], False),
    "selu": (lambda m, x: m.selu(x), [X], False),
    "selu_": (lambda m, x: m.selu_(x * 1), [X], False),
    "threshold": (lambda m, x: m.threshold(x, 0.1, 20), [X], True),
    "threshold_": (lambda m, x: m.threshold_(x * 1, 0.1, -3.5), [X], True),
    "kl_div": (lambda m, a, b: m.kl_div(a, b.exp()), [X, X], False),
    "kl_div mean": (lambda m, a, b: m.kl_div(a, b, 1, log_target=True), [X, X], False),
    "kl_div sum": (lambda m, a, b: m.kl_div(a, b.exp(), 2), [X, X], False),
    "kl_div 3": (lambda m, a, b: m.kl_div(a, b.exp(), 3), [X, X], False),
    "bce_with_logits": (lambda m, a, b: m.binary_cross_entropy_with_logits(a, b.sigmoid()),
                        [X, X], False),
    "bce_with_logits weights": (lambda m, a, b, w: m.binary_cross_entropy_with_logits(
        a, b.sigmoid(), w.detach(), w.detach().abs(), 1), [X, X, (4,)], False),
    "hinge_embedding_loss": (lambda m, a: m.hinge_embedding_loss(
        a, m.tensor([1.0, -1.0, 1.0, -1.0], dtype=a.dtype)), [X], False),
    "hinge_embedding_loss sum": (lambda m, a: m.hinge_embedding_loss(
        a, m.tensor([1.0, -1.0, 1.0, -1.0], dtype=a.dtype), 0.5, 2), [X], False),
    "margin_ranking_loss": (lambda m, a, b, t: m.margin_ranking_loss(a, b, t.sign(), 0.2, 1),
                            [(3, 4), (3, 4), (3, 4)], False),
    "margin_ranking_loss broadcast": (lambda m, a, b, t: m.margin_ranking_loss(
        a, b, t.sign()), [(3, 4), (4,), (4,)], False),
    "cosine_embedding_loss": (lambda m, a, b: m.cosine_embedding_loss(
        a, b, m.tensor([1.0, -1.0, 1.0], dtype=a.dtype), 0.1), [(3, 4), (3, 4)], False),
    "cosine_embedding_loss mean": (lambda m, a, b: m.cosine_embedding_loss(
        a, b, m.tensor([1.0, -1.0, 1.0], dtype=a.dtype), 0.0, 1), [(3, 4), (3, 4)], False),
    "poisson_nll_loss": (lambda m, a, b: m.poisson_nll_loss(a, b.abs(), True, False, 1e-8, 1),
                         [X, X], False),
    "poisson_nll_loss full": (lambda m, a, b: m.poisson_nll_loss(
        a.abs(), b.abs() * 3, False, True, 1e-8, 0), [X, X], False),
    "triplet_margin_loss": (lambda m, a, p, n: m.triplet_margin_loss(a, p, n),
                            [(3, 4), (3, 4), (3, 4)], False),
    "triplet_margin_loss swap mean": (lambda m, a, p, n: m.triplet_margin_loss(
        a, p, n, 0.5, 1.0, 1e-6, True, 1), [(3, 4), (3, 4), (3, 4)], False),
    "triplet_margin_loss margin 0": (lambda m, a, p, n: m.triplet_margin_loss(
        a, p, n, -1.0), [(3, 4), (3, 4), (3, 4)], False),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_values_nodes_and_gradients(case, dtype):
    fn, shapes, exact = CASES[case]
    inputs = [_tensor(shape, seed, dtype) for seed, shape in enumerate(shapes)]
    parity.run_both(_with_gradients, fn, *inputs, exact=exact)


@pytest.mark.parametrize("case", ["layer_norm", "group_norm", "batch_norm training",
                                  "instance_norm", "kl_div mean", "bce_with_logits",
                                  "triplet_margin_loss swap mean", "hardshrink", "prelu"])
def test_gradcheck(case):
    fn, shapes, _ = CASES[case]
    inputs = [_tensor(shape, seed).requires_grad_() for seed, shape in enumerate(shapes)]
    assert engine.autograd.gradcheck(lambda *xs: fn(engine, *xs), tuple(inputs))


ERRORS = {
    "dropout missing train": lambda m, x: m.dropout(x, 0.5),
    "dropout inplace keyword": lambda m, x: m.dropout(x, 0.5, True, inplace=True),
    "dropout int train": lambda m, x: m.dropout(x, 0.5, 1),
    "dropout p requiring grad": lambda m, x: m.dropout(x, m.tensor(0.5, requires_grad=True),
                                                       True),
    "dropout p of one element": lambda m, x: m.dropout(x, m.tensor([0.5]), True),
    "dropout p range": lambda m, x: m.dropout(x, 1.5, False),
    "dropout p negative int": lambda m, x: m.feature_dropout(x, -1, False),
    "dropout too many": lambda m, x: m.alpha_dropout(x, 0.5, True, 2),
    "dropout not a tensor": lambda m, x: m.dropout([1.0], 0.5, True),
    "feature_dropout 1-d": lambda m, x: m.feature_dropout(x[0, 0], 0.5, True),
    "layer_norm int shape": lambda m, x: m.layer_norm(x, 4),
    "layer_norm missing": lambda m, x: m.layer_norm(x),
    "layer_norm wrong shape": lambda m, x: m.layer_norm(x, [3]),
    "layer_norm keyword": lambda m, x: m.layer_norm(x, [4], elementwise_affine=True),
    "batch_norm missing": lambda m, x: m.batch_norm(x, None, None, None, None, True),
    "batch_norm evaluation": lambda m, x: m.batch_norm(x, None, None, None, None, False, 0.1,
                                                       1e-5, False),
    "batch_norm F order": lambda m, x: m.batch_norm(x, None, None, training=True),
    "group_norm 1-d": lambda m, x: m.group_norm(x[0, 0], 2),
    "group_norm 0-d": lambda m, x: m.group_norm(x[0, 0, 0], 2),
    "group_norm groups": lambda m, x: m.group_norm(x, 2),
    "instance_norm no stats": lambda m, x: m.instance_norm(x, None, None, None, None, False,
                                                           0.1, 1e-5, False),
    "embedding list": lambda m, x: m.embedding(x[0], [1, 2]),
    "embedding float indices": lambda m, x: m.embedding(x[0], x[0]),
    "kl_div string reduction": lambda m, x: m.kl_div(x, x, "mean"),
    "kl_div log_target positional": lambda m, x: m.kl_div(x, x, 1, True),
    "bce_with_logits broadcast target": lambda m, x: m.binary_cross_entropy_with_logits(
        x, x[0].sigmoid()),
    "poisson_nll_loss missing": lambda m, x: m.poisson_nll_loss(x, x),
    "triplet dims": lambda m, x: m.triplet_margin_loss(x[0], x[0], x),
    "cosine_embedding_loss dims": lambda m, x: m.cosine_embedding_loss(x, x, x[0, 0]),
    "hardshrink int": lambda m, x: m.hardshrink(m.ones(3, dtype=m.int64)),
    "x.hardshrink string": lambda m, x: x.hardshrink("a"),
    "hardshrink string": lambda m, x: m.hardshrink(x, "a"),
    "hardshrink keyword": lambda m, x: m.hardshrink(x, lamb=1),
    "x.prelu dtypes": lambda m, x: x.prelu(m.ones(1, dtype=m.float64)),
    "prelu channels": lambda m, x: m.prelu(x, m.ones(2)),
    "celu string": lambda m, x: m.celu(x, "a"),
    "selu extra": lambda m, x: m.selu(x, 1.0),
    "threshold missing": lambda m, x: m.threshold(x, 0.5),
    "max_pool2d missing": lambda m, x: m.max_pool2d(x),
    "max_pool2d return_indices": lambda m, x: m.max_pool2d(x, 2, return_indices=True),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    parity.run_both(ERRORS[case], _tensor(X, dtype="float32"))


@pytest.mark.parametrize("reduction", [0, 1, 2, 3])
def test_bce_with_logits_takes_an_input_that_broadcasts_to_the_targets_shape(reduction):
    """(torch's backward then refuses the gradient of the smaller input, the engine's sums it:
    engine/nn/torch_functions.py says so)"""
    parity.run_both(lambda m, a, b: m.binary_cross_entropy_with_logits(a, b, None, None,
                                                                       reduction),
                    _tensor((4,)), _tensor(X, 1, low=0, high=1), exact=False)


OUT = {
    "hardshrink": lambda m, x, out: m.hardshrink(x, 0.7, out=out),
    "threshold": lambda m, x, out: m.threshold(x, 0.1, 20, out=out),
    "x.hardshrink": lambda m, x, out: x.hardshrink(out=out),
    "hardshrink grad": lambda m, x, out: m.hardshrink(x.requires_grad_(), out=out),
    "threshold double out": lambda m, x, out: m.threshold(x, 0.1, 20, out=out.double()),
    "celu": lambda m, x, out: m.celu(x, out=out),
}


@pytest.mark.parametrize("case", list(OUT))
def test_out(case):
    """torch.hardshrink and torch.threshold take out= (their methods, and celu, do not)"""
    parity.run_both(lambda m, x, out: (OUT[case](m, x, out), out), _tensor(X, dtype="float32"),
                    _tensor((2,), 1, dtype="float32"))


def test_an_unreduced_loss_is_the_default_as_torch_reads_it():
    """torch's Python binding cannot read the C++ default Reduction::Mean: it takes 0."""
    x, y = _tensor((3, 4)), _tensor((3, 4), 1)
    for name in ("kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss"):
        parity.run_both(lambda m, a, b, name=name: getattr(m, name)(a, b), x, y)
    assert engine.kl_div(engine.ones(2), engine.ones(2)).shape == (2,)


# ====================================================================== pdist
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [2.0, 0.0, 1.0, float("inf"), 0.5, 3.0, 1.5])
@pytest.mark.parametrize("shape", [(4, 3), (6, 17), (1, 3), (0, 3), (3, 0), (5, 1)])
def test_pdist(shape, p, dtype):
    x = _tensor(shape, 0, dtype)
    if shape == (4, 3):  # equal rows and equal columns: distances and differences of 0
        x[3] = x[0]
        x[2, 1] = x[1, 1]
    # (torch's kernel adds the columns in vector lanes: sums of many columns differ in the
    # last bits; counts and maxima do not)
    exact = p in (0.0, float("inf")) or (p in (1.0, 2.0) and shape[1] < 8)
    parity.run_both(lambda m, x: m.pdist(x, p), x, exact=exact)
    if shape[0]:  # (torch's backward of pdist over no rows crashes the process)
        parity.run_both(_with_gradients, lambda m, x: m.nn.functional.pdist(x, p), x,
                        exact=False)


def test_pdist_gradcheck_and_errors():
    for p in (2.0, 1.5, 3.0):
        x = _tensor((4, 3)).requires_grad_()
        assert engine.autograd.gradcheck(lambda x, p=p: engine.pdist(x, p), (x,))
        assert engine.autograd.gradgradcheck(lambda x, p=p: engine.pdist(x, p), (x,))
    x = _tensor((4, 3), dtype="float32")
    for call in (lambda m, x: m.pdist(x, -1), lambda m, x: m.pdist(x[0]),
                 lambda m, x: m.pdist(x[None]), lambda m, x: m.pdist(x.long()),
                 lambda m, x: m.pdist(x.half()), lambda m, x: m.pdist(x[:1].half()),
                 lambda m, x: m.pdist([1.0]), lambda m, x: x.pdist(),
                 lambda m, x: m.pdist(x[:, :0].half(), 0.0)):
        parity.run_both(call, x)
    nan = engine.tensor([[0.0, float("nan"), 1.0], [0.0, 0.0, 2.0], [1.0, 1.0, 1.0]])
    for p in (0.0, 1.0, 2.0, float("inf"), 0.5, 1.5, 3.0):
        parity.run_both(lambda m, x, p=p: m.pdist(x, p), nan)
        parity.run_both(_with_gradients, lambda m, x, p=p: m.pdist(x, p), nan, exact=False)


# ====================================================================== bilinear
BILINEAR = {
    "rows": ((4, 3), (4, 5), (2, 3, 5), (2,)),
    "no bias": ((4, 3), (4, 5), (2, 3, 5), None),
    "one row": ((3,), (5,), (2, 3, 5), (2,)),
    "batched": ((2, 4, 3), (2, 4, 5), (6, 3, 5), (6,)),
    "empty batch": ((0, 3), (0, 5), (2, 3, 5), (2,)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(BILINEAR))
def test_bilinear(case, dtype):
    shapes = [shape for shape in BILINEAR[case] if shape is not None]
    inputs = [_tensor(shape, seed, dtype) for seed, shape in enumerate(shapes)]

    def call(m, *xs):
        return m.bilinear(*xs) if len(xs) == 4 else m.nn.functional.bilinear(*xs)

    def path(m, *xs):  # (the first operand's: add, view, _trilinear, view)
        names, node = [], call(m, *[x.requires_grad_() for x in xs]).grad_fn
        while node is not None:
            names.append(node.name())
            node = node.next_functions[0][0] if node.next_functions else None
        return names

    parity.run_both(_with_gradients, call, *inputs, exact=False)
    parity.run_both(path, *inputs)


def test_bilinear_gradcheck_errors_and_module():
    inputs = tuple(_tensor(shape, seed).requires_grad_() for seed, shape in
                   enumerate(BILINEAR["batched"]))
    assert engine.autograd.gradcheck(engine.bilinear, inputs)
    assert engine.autograd.gradgradcheck(engine.bilinear, inputs)
    x1, x2, w, b = (_tensor(shape, seed, "float32") for seed, shape in
                    enumerate(BILINEAR["rows"]))
    for call in (lambda m, x1, x2, w, b: m.bilinear(x1, x2[:3], w),
                 lambda m, x1, x2, w, b: m.bilinear(x1, x2[0], w),
                 lambda m, x1, x2, w, b: m.bilinear(x1, x2, w[:, :2]),
                 lambda m, x1, x2, w, b: m.bilinear(x1, x2, w[:, :, :2]),
                 lambda m, x1, x2, w, b: m.bilinear(x1, x2, w, b[:1]),
                 lambda m, x1, x2, w, b: m.bilinear(x1.double(), x2, w),
                 lambda m, x1, x2, w, b: m.bilinear(x1, x2, w, b.double()),
                 lambda m, x1, x2, w, b: m.nn.functional.bilinear(x1, [1.0], w)):
        parity.run_both(call, x1, x2, w, b)

    def module(m, x1, x2):
        m.manual_seed(0)
        layers = [m.nn.Bilinear(3, 5, 2), m.nn.Bilinear(3, 5, 4, bias=False)]
        return ([repr(layer) for layer in layers], [layer.weight for layer in layers],
                layers[0].bias, [list(layer.state_dict()) for layer in layers],
                [layer(x1, x2) for layer in layers],
                parity.raised(lambda: m.nn.Bilinear(0, 5, 2)))

    parity.run_both(module, x1, x2, exact=False)


# ====================================================================== channel_shuffle
@pytest.mark.parametrize("shape, groups", [((2, 6, 3, 2), 3), ((2, 6, 3), 2), ((1, 4, 2), 4),
                                           ((2, 6, 0, 2), 2), ((0, 4, 3), 2), ((2, 5, 3), 1)])
def test_channel_shuffle(shape, groups):
    def fn(m, x):
        out = m.nn.functional.channel_shuffle(x, groups)
        return out, out.grad_fn._saved_groups

    x = _tensor(shape, dtype="float32")
    parity.run_both(_with_gradients, lambda m, x: m.channel_shuffle(x, groups), x)
    parity.run_both(fn, x.requires_grad_())
    parity.run_both(lambda m, x: m.nn.ChannelShuffle(groups)(x.detach().long()), x)


def test_channel_shuffle_errors_and_module():
    x = _tensor((2, 6, 3, 2), dtype="float32")
    for call in (lambda m, x: m.channel_shuffle(x, 4), lambda m, x: m.channel_shuffle(x[0, 0], 2),
                 lambda m, x: m.channel_shuffle(x, 0), lambda m, x: m.channel_shuffle(x, -1),
                 lambda m, x: m.channel_shuffle(x, 2.0), lambda m, x: m.channel_shuffle([1.0], 2),
                 lambda m, x: m.channel_shuffle(x, 2, out=x), lambda m, x: x.channel_shuffle(2),
                 lambda m, x: repr(m.nn.ChannelShuffle(3))):
        parity.run_both(call, x)
    x = _tensor((2, 6, 3)).requires_grad_()
    assert engine.autograd.gradcheck(lambda x: engine.channel_shuffle(x, 3), (x,))


# ====================================================================== rrelu
RRELU = {
    "F eval": lambda m, x: m.nn.functional.rrelu(x),
    "F training": lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.4, True),
    "F training no range": lambda m, x: m.nn.functional.rrelu(x, 0.2, 0.2, True),
    "F inplace training": lambda m, x: m.nn.functional.rrelu(x * 1, training=True, inplace=True),
    "F inplace eval": lambda m, x: m.nn.functional.rrelu(x * 1, inplace=True),
    "F.rrelu_": lambda m, x: m.nn.functional.rrelu_(x * 1, 0.0, 1.0, True),
    "torch": lambda m, x: m.rrelu(x, 0.1, 0.3, True),
    "torch_": lambda m, x: m.rrelu_(x * 1, training=True),
    "module": lambda m, x: m.nn.RReLU(0.2, 0.5)(x),
    "torch generator": lambda m, x: m.rrelu(x, 0.1, 0.3, True, m.Generator().manual_seed(5)),
    "torch_ generator": lambda m, x: m.rrelu_(x * 1, training=True,
                                              generator=m.Generator().manual_seed(7)),
    "module eval": lambda m, x: m.nn.RReLU().eval()(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(RRELU))
def test_rrelu(case, dtype):
    """the same seed draws the same slopes: one double per element <= 0, in order"""
    x = _tensor((3, 7), dtype=dtype)
    x[0, :3] = engine.tensor([0.0, -0.0, float("nan")])
    parity.run_both(_with_gradients, RRELU[case], x)

    def noise(m, x):
        m.manual_seed(0)
        out = RRELU[case](m, x.requires_grad_())
        return out.grad_fn._saved_noise if "eval" not in case else out.grad_fn.name()

    parity.run_both(noise, x)


def test_rrelu_errors_and_repr():
    x = _tensor((2, 3), dtype="float32")
    for call in (lambda m, x: m.nn.functional.rrelu(x, 0.5, 0.1),
                 lambda m, x: m.nn.functional.rrelu(x.long()),
                 lambda m, x: m.nn.functional.rrelu(x.long(), training=True),
                 lambda m, x: m.nn.functional.rrelu(x.half(), training=True),
                 lambda m, x: m.nn.functional.rrelu(x.half()),
                 lambda m, x: m.rrelu(x, 0.1, 0.3, 1),
                 lambda m, x: m.rrelu(x, 0.1, 0.3, True, 5),
                 lambda m, x: x.rrelu(),
                 lambda m, x: [repr(m.nn.RReLU()), repr(m.nn.RReLU(0.1, 0.3, True))]):
        parity.run_both(call, x)
    x = _tensor((3, 4)).requires_grad_()
    assert engine.autograd.gradcheck(lambda x: engine.nn.functional.rrelu(x), (x,))
