"""Fuzz round twenty (seeds 4560000 and on, pinned to AVX2; the signatures family's kinds
left from round nineteen) against torch 2.15.

- unique of floats holding both -0.0 and 0.0 (fuzz 5545774): torch's CPU kernel sorts the
  flattened input (its unstable sort: std::sort's order of ties past 16 elements) and keeps
  the first of each run of equal values, so which zero it keeps depends on where they stand;
  numpy's unique kept another one.
- std / var of float16 reduced to one number into a float32 or float64 out= (fuzz 5534875):
  torch computes in out's dtype and takes its whole-tensor kernel, which has no float16 case:
  "std_var_all: Unsupported dtype Half", after resizing out and warning of the degrees of
  freedom; the engine computed a value.
- The int_tensors family (new this round: ints, sizes, dims and numbers given as tensors):
  x.tile(torch.tensor([2])) takes its ints one by one as torch's parser does (a one-element
  integer tensor, of any shape, starts them), x.tile(dims=2) is refused; arange's start,
  end or step that is no Number (a tensor of one dimension, one that requires grad) is
  torch's invalid combination (its own words for one argument); a Number is never a tensor
  that requires grad (full, full_like, new_full, fill_diagonal_), and one given by keyword
  has no position in the message; dropout's p and train as its C++ operators take them (a
  float, a bool); std/var's correction=torch.tensor(True) is 1; size/stride/cat/stack of a
  0-d tensor read the dim's type first; tensor_split's, fill_'s and index_fill's checks in
  torch's order; masked_fill, index_fill and fill of an integer tensor with a value that
  requires grad: "Autograd not support dtype"; a float16 0-d tensor given for a Number or
  a float (norm's p, renorm, pairwise_distance, cosine_similarity's eps ...) is read as
  its value, 3.0, not float16's arithmetic (a silently wrong norm: 1.81686 against
  1.81712); lerp's gradient with a bool weight is torch's error of two bool tensors (only
  when self needs one); repeat's backward as torch's steps (a dim repeated once is left as
  it is: the gradient of x.tile(1) is the expanded gradient itself, strides 0).
"""
import itertools
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


# ------------------------------------------------------------------ unique's zero of two signs
@pytest.mark.parametrize("seed", range(120))
def test_unique_keeps_the_zero_torch_keeps(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 70))
    values = rng.choice([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf], size=n)
    values[rng.integers(0, n)] = -0.0  # (at least one of each zero, mostly)
    values[rng.integers(0, n)] = 0.0
    shape = (n,) if seed % 2 else (1, n)
    for dtype in ("float32", "float64", "float16"):
        for sorted_ in (True, False):
            results = []
            for m in (torch, engine):
                x = m.tensor(values.reshape(shape), dtype=getattr(m, dtype))
                if seed % 3 == 0:  # (a strided view: torch sorts its contiguous copy)
                    x = m.tensor(np.repeat(values, 2).reshape(shape[:-1] + (2 * n,)),
                                 dtype=getattr(m, dtype))[..., ::2]
                out, inverse, counts = m.unique(x, sorted=sorted_, return_inverse=True,
                                                return_counts=True)
                data = np.asarray(out.tolist(), dtype=np.float64)
                results.append((np.signbit(data).tolist(), np.isnan(data).tolist(),
                                np.nan_to_num(data).tolist(), inverse.tolist(), counts.tolist()))
            assert results[1] == results[0], (dtype, sorted_)


def test_unique_of_the_fuzz_program():
    """fuzz 5545774's values: -0.0 at 3 and 6, 0.0 at 5; torch keeps -0.0."""
    for m in (torch, engine):
        x = m.tensor([6.25, -0.5, 1.0, -0.0, -0.5, 0.0, -0.0, 0.25])
        assert str(x.unique(False).tolist()) == "[-0.5, -0.0, 0.25, 1.0, 6.25]"


# ------------------------------------------------- std / var of float16 into a wider out=
SHAPES_AND_DIMS = [((3,), {}), ((1,), {}), ((), {}), ((0,), {}), ((2, 3), {}),
                   ((2, 3), {"keepdim": True}), ((2, 3), {"dim": None}), ((2, 3), {"dim": []}),
                   ((2, 3), {"dim": (0, 1)}), ((2, 3), {"dim": 0}), ((1, 3), {"dim": 1}),
                   ((3, 1), {"dim": 0}), ((1, 3), {"dim": 0}), ((1, 1), {"dim": 0}),
                   ((3,), {"dim": 0, "keepdim": True}), ((2, 3, 4), {"dim": (0, 2)}),
                   ((1,), {"correction": 0}), ((2,), {"correction": 2}),
                   ((1,), {"dim": [0], "correction": 1}), ((3,), {"dim": 0, "unbiased": True})]


def _std_var_into(m, name, shape, out_dtype, out_size, kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = m.zeros(out_size, dtype=getattr(m, out_dtype))
        try:
            result = getattr(m, name)(m.ones(shape, dtype=m.float16), out=out, **kwargs)
            outcome = ("value", str(result.dtype), str(result.tolist()), result is out)
        except Exception as error:  # noqa: BLE001 (the outcome compared)
            outcome = (type(error).__name__, str(error))
    # the order of torch's warnings: out resized, then the degrees of freedom
    return outcome, tuple(out.shape), [str(w.message) for w in caught]


@pytest.mark.parametrize("shape, kwargs", SHAPES_AND_DIMS, ids=str)
@pytest.mark.parametrize("out_dtype", ["float16", "float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("name", ["std", "var"])
def test_std_var_of_float16_into_a_wider_out(name, shape, kwargs, out_dtype):
    for out_size in (0, 5):
        outcomes = [_std_var_into(m, name, shape, out_dtype, out_size, kwargs)
                    for m in (torch, engine)]
        if outcomes[0][0][0] == "RuntimeError" and "Half" in outcomes[0][0][1]:
            assert outcomes[1] == outcomes[0]
        else:  # (elsewhere the engine warns of the degrees of freedom before resizing)
            assert outcomes[1][:2] == outcomes[0][:2]
            assert sorted(outcomes[1][2]) == sorted(outcomes[0][2])


# ----------------------------------------------------------- ints and numbers as tensors
FORMS = ["{v}", "torch.tensor({v})", "torch.tensor([{v}])", "torch.tensor([[{v}]])",
         "torch.tensor({v}, dtype=torch.int32)", "torch.tensor({v}, dtype=torch.uint8)",
         "torch.tensor({v}.0)", "torch.tensor([{v}.0])", "torch.tensor(True)",
         "torch.tensor([{v}, {v}])", "torch.tensor([], dtype=torch.long)",
         "torch.tensor({v}.5, requires_grad=True)", "torch.tensor({v}, dtype=torch.float16)",
         "torch.tensor([{v}.0], dtype=torch.float64)"]


def _outcome(m, source, x_source):
    env = {"torch": m}
    env["x"] = eval(x_source, env)  # noqa: S307 (the test's own sources)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = eval(source, env)  # noqa: S307
        except Exception as error:  # noqa: BLE001 (the outcome compared)
            return type(error).__name__, str(error).split("\n")[0]
    if isinstance(result, m.Tensor):
        return ("tensor", str(result.dtype).split(".")[-1], tuple(result.shape),
                result.stride(), str(result.tolist()), result.requires_grad)
    if isinstance(result, (tuple, list)):
        return "sequence", [(tuple(t.shape), str(t.tolist())) if isinstance(t, m.Tensor) else t
                            for t in result]
    return "value", repr(result)


CALLS_2D = [
    "x.tile({t})", "x.tile({t}, 1)", "x.tile(1, {t})", "torch.tile(x, {t})", "x.tile(dims={t})",
    "x.tile(({t},))", "torch.arange({t})", "torch.arange({t}, 5)", "torch.arange(0, 4, {t})",
    "torch.arange(end={t})", "torch.arange(0, end={t})",
    "torch.arange({t}, 5, dtype=torch.float64)",
    "torch.arange({t}, 4, out=torch.zeros(0))", "torch.full_like(x, {t})",
    "torch.full_like(x, fill_value={t})", "x.fill_diagonal_({t})", "torch.full((2,), {t})",
    "torch.full((2,), fill_value={t})", "x.new_full((2,), {t})",
    "x.new_full((2,), fill_value={t})", "torch.nn.functional.dropout(x, {t}, False)",
    "torch.nn.functional.dropout(x, p={t}, training=False)",
    "torch.nn.functional.alpha_dropout(x, {t})", "torch.nn.functional.dropout1d(x, {t})",
    "x.std(0, correction={t})", "x.var(correction={t})", "x.tensor_split({t}, 2)",
    "x.tensor_split({t})", "x.requires_grad_().fill_({t})", "x.fill_({t})",
    "x.index_fill({t}, torch.tensor([0]), torch.tensor([[0.0]]))",
    "x.index_fill({t}, torch.tensor([[0]]), 1.0)", "x.index_fill(5, {t}, 1.0)",
    "x.index_fill_(0, {t}, torch.tensor([2.0]))", "x.long().masked_fill(x > 0, {t})",
    "x.bool().index_fill(0, torch.tensor([0]), {t})", "torch.fill(x.long(), {t})",
    "x.norm({t})", "torch.norm(x, {t})", "x.norm({t}, dim=0)", "torch.linalg.vector_norm(x, {t})",
    "torch.linalg.norm(x, {t})", "torch.nn.functional.normalize(x, {t})",
    "torch.dist(x, x * 2, {t})", "torch.renorm(x, {t}, 0, 1.0)", "torch.cdist(x, x * 2, {t})",
    "torch.nn.functional.pairwise_distance(x, x * 2, {t})",
    "torch.nn.functional.pairwise_distance(x, x * 2, eps={t})",
    "torch.nn.functional.cosine_similarity(x, x * 2, 1, {t})",
    "torch.nn.functional.pdist(x, {t})", "x.lerp(x * 2, {t})",
    # round twenty's second pass (the family's nn.functional, creation and activation calls)
    "torch.eye({t})", "torch.eye(2, {t})", "torch.eye({t}, 2)", "torch.eye(n={t}, m=2)",
    "torch.nn.functional.pad(x, (1,), value={t})",
    "torch.nn.functional.pad(x, (1, 1), 'constant', {t})",
    "torch.nn.functional.pad(x, ({t},), value=torch.tensor([1.0]))",
    "torch.nn.functional.pad(x, (1, {t}), 3)", "torch.linspace({t}, 1, 3)",
    "torch.linspace(0, {t}, steps=3)", "torch.logspace({t}, 1, 3)", "torch.linspace(0, 1, {t})",
    "x.bernoulli({t})", "torch.bernoulli(x, p={t})", "torch.nn.functional.hardtanh(x, {t}, 2.0)",
    "torch.nn.functional.hardtanh(x, -1.0, {t})", "torch.nn.functional.hardtanh(x, min_val={t})",
    "torch.nn.functional.threshold(x.bool(), 0.5, {t})", "torch.randint(0, 5, ({t}, 0))",
    "torch.randint(5, ({t}, 0))", "x.quantile({t})", "x.quantile(2.0 + {t})",
    "torch.full(({t}, 1), torch.tensor(2.0, requires_grad=True))", "torch.full(({t}, 1), 'a')",
    "x.rot90(1, (0, {t}))", "x.rot90({t}, (0, 5))", "x.rot90(1, (-1, {t}))",
    "x.take_along_dim(torch.zeros_like(x, dtype=torch.long), {t})",
    "x.sum().take_along_dim(torch.zeros((), dtype=torch.long), {t})",
    "x.bool().clamp_({t})", "x.long().clamp_(torch.tensor([[1.0]]) + {t})",
    "torch.nn.functional.unfold(x.long().reshape(1, 1, 2, 3), ({t}, 1))",
    "torch.nn.functional.fold(x.long().reshape(1, 1, 6), (2, 3), ({t}, 1))",
    "torch.nn.functional.celu(x.bool(), alpha={t})", "torch.nn.functional.elu(x * 0, -{t})",
    "torch.nn.functional.elu(x * -0.0, -{t})", "torch.nn.functional.softplus(x, {t} * 0)",
]
CALLS_0D = ["x.size({t})", "x.stride({t})", "torch.cat([x, x], {t})", "torch.stack([x, x], {t})",
            "torch.cat([x, x], dim={t})", "x.size(dim={t})"]


@pytest.mark.parametrize("value", ["1", "3", "0"])
@pytest.mark.parametrize("call", CALLS_2D)
def test_ints_and_numbers_given_as_tensors(call, value):
    x_source = "torch.tensor([[1.0, 2.0, -1.5], [0.5, 3.0, 1.0]])"
    for form in FORMS:
        if "quantile" in call and "requires_grad" in form:
            continue  # (q that requires grad: a documented difference, DIFFERENCES.md)
        source = call.replace("{t}", form.replace("{v}", value))
        assert _outcome(engine, source, x_source) == _outcome(torch, source, x_source), source


@pytest.mark.parametrize("call", CALLS_0D)
def test_dims_given_as_tensors_to_a_0d_tensor(call):
    for value in ("0", "-1", "2"):
        for form in FORMS:
            source = call.replace("{t}", form.replace("{v}", value))
            assert _outcome(engine, source, "torch.tensor(2.0)") == \
                _outcome(torch, source, "torch.tensor(2.0)"), source


@pytest.mark.parametrize("name", ["dropout", "dropout1d", "dropout2d", "dropout3d",
                                  "alpha_dropout", "feature_alpha_dropout"])
@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_reads_p_and_train_as_its_operators(name, inplace):
    """the same drops for a 0-d tensor p (read as a float) as for the float, seeded"""
    for p, train in (("torch.tensor([0.5])", True), ("0.5", 1), ("torch.tensor(0.5)", True),
                     ("torch.tensor([0.5])", False), ("0.5", "torch.tensor(True)"),
                     ("torch.tensor(0.5, requires_grad=True)", True), ("0.3", True),
                     ("torch.tensor(2.0)", True), ("torch.tensor([0.5, 0.5])", True)):
        source = f"torch.nn.functional.{name}(x.clone(), {p}, {train}, inplace={inplace})"
        outcomes = []
        for m in (torch, engine):
            m.manual_seed(0)
            outcomes.append(_outcome(m, source, "torch.ones(2, 3, 4)"))
        assert outcomes[1] == outcomes[0], source


@pytest.mark.parametrize("weight", ["torch.tensor(True)", "torch.tensor(0.5)"])
@pytest.mark.parametrize("grads", [(True, True), (False, True), (True, False)])
def test_lerp_gradient_with_a_bool_weight(weight, grads):
    code = f"""
x = m.arange(0.0, 3.0, requires_grad={grads[0]})
e = m.ones(3, requires_grad={grads[1]})
y = x.lerp(e, {weight.replace('torch', 'm')})
r = repr(m.autograd.grad(y.sum(), [t for t in (x, e) if t.requires_grad]))"""
    assert parity.outcome(engine, code) == parity.outcome(torch, code)


@pytest.mark.parametrize("seed", range(60))
def test_repeat_backward_takes_torchs_steps(seed):
    """values bit for bit and the gradient's layout (a dim repeated once is left as it is)"""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(0, 4))
    shape = tuple(int(n) for n in rng.integers(0 if seed % 7 == 0 else 1, 4, ndim))
    repeats = tuple(int(r) for r in rng.choice([1, 1, 2, 3, 0] if seed % 5 == 0 else
                                               [1, 1, 2, 3], ndim + int(rng.integers(0, 3))))
    repeats = repeats or (1,)
    values = rng.standard_normal(shape).astype(np.float32)
    padded = (1,) * (len(repeats) - ndim) + shape
    weights = rng.standard_normal(tuple(r * n for r, n in zip(repeats, padded)))
    results = []
    for m in (torch, engine):
        x = m.tensor(values, requires_grad=True)
        y = x.repeat(*repeats) if seed % 2 else x.tile(repeats)
        grad = m.tensor(weights, dtype=m.float32) if seed % 3 else m.ones(()).expand(y.shape)
        (gradient,) = m.autograd.grad(y, x, grad)
        results.append((np.asarray(gradient.tolist(), np.float32).tobytes(),
                        gradient.stride(), tuple(gradient.shape)))
    assert results[1] == results[0], (shape, repeats)


NLL_INPUTS = {"2-d": ("torch.ones(2, 3{d})", "torch.tensor([0, 1])"),
              "1-d": ("torch.ones(3{d})", "torch.tensor(1)"),
              "image": ("torch.ones(2, 3, 1, 1{d})", "torch.tensor([[[0]], [[1]]])"),
              "3-d": ("torch.ones(2, 3, 2{d})", "torch.tensor([[0, 1], [1, 2]])"),
              "empty": ("torch.ones(0, 3{d})", "torch.tensor([], dtype=torch.long)")}


@pytest.mark.parametrize("dtype", ["", ", dtype=torch.float64", ", dtype=torch.int64",
                                   ", dtype=torch.bool", ", dtype=torch.float16",
                                   ", dtype=torch.uint8"])
@pytest.mark.parametrize("kind", list(NLL_INPUTS))
def test_nll_loss_checks_weight_and_dtypes(kind, dtype):
    """an integer input was a silently wrong loss (nll_loss of int64 ones: -1.0), a weight of
    the wrong shape or dtype one too; torch refuses them"""
    x_source, target = NLL_INPUTS[kind]
    for weight in ("None", "torch.ones(4)", "torch.ones(1, 3)", "torch.arange(1.0, 4.0)",
                   "torch.ones(2)", "torch.ones(3, dtype=torch.float64)",
                   "torch.ones(3, dtype=torch.int64)", "torch.ones(3, requires_grad=True)"):
        for reduction in ("'mean'", "'none'", "'sum'"):
            for loss in ("nll_loss", "cross_entropy"):
                source = (f"torch.nn.functional.{loss}(x, {target}, weight={weight}, "
                          f"reduction={reduction})")
                x = x_source.replace("{d}", dtype)
                assert _outcome(engine, source, x) == _outcome(torch, source, x), source


@pytest.mark.parametrize("call", ["x.diag(1)", "x.diag(-2)", "torch.diagflat(x)",
                                  "torch.diagflat(x, 1)", "torch.diag_embed(x, 1)",
                                  "x.reshape(2, 2).diag()", "torch.diagflat(x.reshape(2, 2))"])
def test_diag_gradients_are_views_of_the_gradient(call):
    """diag's backward is the gradient's diagonal, a view (strides 0 under sum()), no copy"""
    code = f"""
x = m.tensor([3.0, 0.25, -0.5, 2.0], requires_grad=True)
y = {call.replace('torch', 'm')}
g1 = m.autograd.grad(y.sum(), x)[0]
g2 = m.autograd.grad(y, x, m.arange(float(y.numel())).reshape(y.shape))[0]
h = m.autograd.grad(m.autograd.grad((y * y).sum(), x, create_graph=True)[0].sum(), x)[0]
r = repr([(g.tolist(), g.stride(), g.storage_offset()) for g in (g1, g2, h)])"""
    assert parity.outcome(engine, code) == parity.outcome(torch, code)


def test_in_place_fills_of_integer_tensors_stay_the_documented_difference():
    """x.masked_fill_/index_fill_/fill_ of an integer x with a value that requires grad:
    torch records a node on the integer tensor, the engine nothing (DIFFERENCES.md); not in
    place both refuse it ("Autograd not support dtype")"""
    for m in (torch, engine):
        index = m.tensor([0])
        for fill, expected in ((lambda x, v: x.masked_fill_(x > 0, v), [2, 2, 2]),
                               (lambda x, v: x.fill_(v), [2, 2, 2]),
                               (lambda x, v, i=index: x.index_fill_(0, i, v), [2, 2, 3])):
            x = m.tensor([1, 2, 3])
            assert fill(x, m.tensor(2.5, requires_grad=True)).tolist() == expected
            assert x.requires_grad is (m is torch)
        for fill in (lambda x, v: x.masked_fill(x > 0, v), lambda x, v, f=m.fill: f(x, v),
                     lambda x, v, i=index: x.index_fill(0, i, v)):
            with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
                fill(m.tensor([1, 2, 3]), m.tensor(2.5, requires_grad=True))


# ----------------------------------------------------------------- losses of other dtypes
LOSSES = ["mse_loss(x, y)", "l1_loss(x, y)", "smooth_l1_loss(x, y)", "huber_loss(x, y)",
          "binary_cross_entropy(x, y)", "binary_cross_entropy_with_logits(x, y)", "kl_div(x, y)",
          "poisson_nll_loss(x, y)", "hinge_embedding_loss(x, y)", "soft_margin_loss(x, y)",
          "multilabel_soft_margin_loss(x, y)", "cosine_embedding_loss(x, y, m.tensor([1, -1]))",
          "margin_ranking_loss(x[0], y[0], m.tensor([1, -1, 1]))", "triplet_margin_loss(x, y, x)",
          "multi_margin_loss(x, m.tensor([0, 1]))", "cross_entropy(x, y)",
          "mse_loss(x, y, reduction='none')", "huber_loss(x, y, reduction='sum', delta=0.5)",
          "smooth_l1_loss(x, y, beta=0.5)", "binary_cross_entropy(x, y, weight=y[0])"]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8", "float16", "float64"])
def test_losses_of_integer_and_other_dtypes(loss, dtype):
    """an integer input gave a loss where torch's kernels refuse the dtype (binary_cross_entropy
    of int64 ones: 66.7, huber_loss: 0.33, mse_loss(reduction='none') an int64 tensor), or a
    dtype torch's in-place steps would not keep (soft_margin_loss, margin_ranking_loss)"""
    for target_dtype in (dtype, "float32"):
        code = f"""
x = m.tensor([[1, 0, 1], [0, 1, 1]]).to(m.{dtype})
y = m.tensor([[0, 1, 1], [1, 1, 0]]).to(m.{target_dtype})
r = m.nn.functional.{loss}
r = (r.tolist(), str(r.dtype))"""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert parity.outcome(engine, code) == parity.outcome(torch, code), target_dtype


@pytest.mark.parametrize("loss", ["mse_loss(x, y)", "smooth_l1_loss(x, y, beta=0.5)",
                                  "huber_loss(x, y)", "huber_loss(x, y, reduction='sum', "
                                  "delta=0.5)", "l1_loss(x, y)", "soft_margin_loss(x, y)",
                                  "binary_cross_entropy(x.sigmoid(), y.sigmoid(), weight=w)"])
@pytest.mark.parametrize("dtypes", [("float32", "float32", "float32"),
                                    ("float64", "float64", "float32"),
                                    ("float16", "float32", "float32"),
                                    ("float32", "float64", "float64"),
                                    ("float64", "float32", "float16")])
def test_losses_of_mixed_float_dtypes_and_their_gradients(loss, dtypes):
    """huber_loss computes a float16 input with a float32 target (its backward refuses them:
    "Found dtype Float but expected Half"); the target's gradient of huber and smooth_l1 is
    their formula with the two swapped (0.0 where they are equal, not -0.0)"""
    code = f"""
x = m.tensor([[1.5, -0.25, 1.0], [0.5, 2.0, -1.0]], dtype=m.{dtypes[0]}, requires_grad=True)
y = m.tensor([[0.5, 1.0, 1.0], [-1.0, 1.0, 0.0]], dtype=m.{dtypes[1]}, requires_grad=True)
w = m.tensor([0.5, 2.0, 1.0], dtype=m.{dtypes[2]})
r = m.nn.functional.{loss}
grads = m.autograd.grad(r.sum(), (x, y), allow_unused=True)
r = repr((round(float(r.sum()), 3), str(r.dtype), [(str(g.dtype), [round(v, 2) for v in
          g.flatten().tolist()], [math.copysign(1, v) for v in g.flatten().tolist()])
          for g in grads]))"""
    names = {"math": __import__("math")}
    assert parity.outcome(engine, code, names) == parity.outcome(torch, code, names)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_hardtanh_of_integers_converts_its_bounds_as_torch(dtype):
    """torch's kernel converts the bounds through int64 (a float cut toward 0), clips one past
    the dtype's range on its own side and refuses one past it on the other; the engine's
    numpy conversion raised OverflowError (uint8, -1), or gave float results"""
    for low, high in ((-1, 1), (-1.0, 1.0), (0, 300), (-300, 100), (2.5, 3.7), (250, 300),
                      (-3.5, -2.5), (-300, -200), (1e20, 2e20), (-1, -1e20), (-2.7, 2.7),
                      (True, 3)):
        for call in ("m.nn.functional.hardtanh(x, LOW, HIGH)",
                     "m.nn.functional.hardtanh(x.clone(), LOW, HIGH, True)",
                     "m.nn.Hardtanh(LOW, HIGH)(x)", "m.nn.functional.relu6(x)"):
            code = f"""
x = m.tensor([0, 1, 2, 100, -5]).to(m.{dtype})
r = {call.replace('LOW', repr(low)).replace('HIGH', repr(high))}
r = (r.tolist(), str(r.dtype), r._version)"""
            assert parity.outcome(engine, code) == parity.outcome(torch, code), (low, high, call)


POOLS = ["avg_pool1d(x, 2)", "avg_pool2d(x[None], 1)", "avg_pool2d(x[None], 5)",
         "adaptive_avg_pool1d(x, 1)", "adaptive_avg_pool1d(x, 2)",
         "adaptive_avg_pool2d(x[None], 1)", "adaptive_avg_pool2d(x[None], (1, 2))",
         "adaptive_avg_pool2d(x[None], (1, -2))", "adaptive_avg_pool2d(x[None][:, :, :0], (1, 2))",
         "max_pool1d(x, 2)", "local_response_norm(x, 2)", "avg_pool3d(x[None, None], 1)"]


@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "int8", "int16",
                                   "float16"])
def test_pools_of_integer_dtypes(pool, dtype):
    """avg_pool2d's kernel takes int64 but no other integer dtype (the engine averaged them);
    adaptive_avg_pool to one element is a mean (its refusal of bool)"""
    code = f"""
x = m.tensor([[[1, 0, 2], [0, 1, 3]]]).to(m.{dtype})
r = m.nn.functional.{pool}
r = (r.tolist(), str(r.dtype))"""
    assert parity.outcome(engine, code) == parity.outcome(torch, code)


# ----------------------------------------------------- two wrong arguments of nn.functional
TWO_FAULTS = [
    "m.nn.functional.max_pool1d(x, A, B)", "m.nn.functional.max_pool1d(x, 2, A, B)",
    "m.nn.functional.max_pool1d(x, 2, 1, A, B)", "m.nn.functional.avg_pool1d(x, A, B)",
    "m.nn.functional.max_pool2d(x[None], A, B)",
    "m.nn.functional.avg_pool2d(x[None], A, padding=B)",
    "m.nn.functional.unfold(x[None], A, B)", "m.nn.functional.fold(x, A, B)",
    "m.nn.functional.nll_loss(x.reshape(2, -1), m.tensor([0, 1]), ignore_index=A, reduction=B)",
    "m.nn.functional.cross_entropy(x.reshape(2, -1), m.tensor([0, 1]), ignore_index=A, "
    "label_smoothing=B)", "m.nn.functional.max_pool1d(x, A, dilation=B)",
    "m.nn.functional.pad(x, A, value=B)",
    "m.nn.functional.embedding(m.tensor([0]), x.reshape(-1, 2), padding_idx=A, max_norm=B)",
    "m.nn.functional.layer_norm(x, A, eps=B)",
    "m.nn.functional.group_norm(x.reshape(1, 2, 6), A, eps=B)",
    "m.max_pool1d(x, A, B)", "m.max_pool1d_with_indices(x, 2, A, B)[0]",
    "m.nn.functional.mse_loss(x, x, reduction=A)", "m.nn.functional.l1_loss(x, x, reduction=B)",
]
FAULTY = ["1", "'a'", "m.tensor([2])", "m.tensor(1.5)", "(1, 'a')", "None", "m.tensor(True)",
          "2.5", "[1, 1]", "0", "-1", "'elementwise_mean'", "2"]


@pytest.mark.parametrize("template", TWO_FAULTS)
def test_two_wrong_arguments_fail_as_in_torch(template):
    """torch's parser checks every argument's type in order, then reads its lists of ints
    right to left (the C++ call its generated code makes evaluates its arguments so): the
    last list that fails to unpack is the error; a float parameter's wrong type comes before
    another list's elements; torch's parser takes None for a list whose default is empty"""
    for first, second in itertools.product(FAULTY, FAULTY):
        code = f"""
x = m.arange(12.0).reshape(1, 2, 6)
r = {template.replace('A', first).replace('B', second)}
r = (tuple(r.shape), str(r.dtype), round(r.sum().item(), 4))"""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert parity.outcome(engine, code) == parity.outcome(torch, code), code


@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8", "float32"])
def test_clamp_of_bool_with_two_tensor_bounds(dtype):
    """two tensor bounds: torch's one clamp kernel, not compiled for bool (one bound is
    maximum's or minimum's, which are)"""
    for low, high in (("m.tensor(True)", "m.tensor(True)"), ("True", "True"),
                      ("m.tensor(True)", "None"), ("None", "m.tensor(False)"),
                      ("m.tensor([True, False, True])", "m.tensor(False)"),
                      ("m.tensor(True)", "m.tensor(1)")):
        for call in ("p.clamp(LOW, HIGH)", "p.clip(LOW, HIGH)", "p.clone().clamp_(LOW, HIGH)"):
            code = f"""
p = m.tensor([False, True, True]).to(m.{dtype})
r = {call.replace('LOW', low).replace('HIGH', high)}
r = (r.tolist(), str(r.dtype))"""
            assert parity.outcome(engine, code) == parity.outcome(torch, code), code


@pytest.mark.parametrize("call", [
    "b.as_strided((B,), (1,), B0)", "b.as_strided((B,), (1,), 0)", "b.as_strided((2,), (B,), B0)",
    "b.narrow(0, B, B)", "b.new_zeros((B,))", "m.full((B,), 1.0)",
    "b.view(B, -1)", "b.expand(B, 2, 3)", "m.randint(B, (2,))", "b.as_strided((2, B), (B, 1))",
    "b.narrow(0, 0, B)"])
def test_bool_tensors_for_symints_fail_right_to_left(call):
    """fuzz 4652987: a bool tensor in a SymInt list and another for a SymInt: torch reads the
    arguments right to left, so the last one's error (the SymInt's internal assert, the
    list's failed check) is the one raised"""
    code = f"""
b = m.ones(2, 3)
r = {call.replace('B0', 'm.tensor(False)').replace('B', 'm.tensor(True)')}
r = (tuple(r.shape), r.stride())"""
    assert parity.outcome(engine, code) == parity.outcome(torch, code)


@pytest.mark.parametrize("call", [
    "x.repeat_interleave('a', None)", "x.repeat_interleave('a')",
    "x.repeat_interleave('a', dim=None)", "m.repeat_interleave(x, 'a', None)",
    "x.repeat_interleave(2, None, output_size='b')", "x.repeat_interleave(2.5, None)",
    "x.repeat_interleave(2, 'a')", "x.repeat_interleave(None, None)",
    "x.repeat_interleave(2, output_size=m.tensor(6))",
    "x.repeat_interleave(m.tensor([2]), output_size=6.0)",
    "m.repeat_interleave(x, 2, dim=None, output_size='c')",
    "x.repeat_interleave(2, dim=0, output_size=6)"])
def test_repeat_interleave_refusals_list_what_was_given(call):
    """fuzz 4675533: a dim of None given by position (or by keyword) is in torch's list of
    the arguments; an output_size that is no int is refused, not ignored"""
    code = f"""
x = m.ones(3)
r = {call}
r = tuple(r.shape)"""
    assert parity.outcome(engine, code) == parity.outcome(torch, code)


@pytest.mark.parametrize("pair", [("[False, True]", "[True]"), ("[0, 1]", "[True]"),
                                  ("[False, True]", "[1]"), ("[0.0, 1.0]", "[True]"),
                                  ("[False, True]", "[[True]]"), ("[False, True]", "True")])
def test_searchsorted_and_bucketize_of_bools(pair):
    """bool boundaries and bool values: torch's kernel has no bool case (found by a sweep of
    every function over pairs of dtypes); an integer or float one on either side is fine"""
    for call in ("m.searchsorted(s, v)", "m.bucketize(v, s)",
                 "m.bucketize(v, s, right=True, out_int32=True)"):
        if "bucketize" in call and pair[1] == "True":
            continue  # (bucketize takes a tensor or a number first: torch's Scalar overload)
        code = f"""
s = m.tensor({pair[0]})
v = m.tensor({pair[1]}) if '{pair[1]}' != 'True' else True
r = {call}.tolist()"""
        assert parity.outcome(engine, code) == parity.outcome(torch, code), call


@pytest.mark.parametrize("call", [
    "layer_norm(x, (2,), p, p)", "group_norm(x.reshape(1, 2, 2), 1, p, p)",
    "batch_norm(x, p.clone(), p.clone().abs(), training=False)",
    "batch_norm(x, p.clone(), p.clone().abs(), training=True)",
    "batch_norm(x, m.zeros(2, dtype=x.dtype), m.ones(2, dtype=x.dtype), p, p)"])
def test_norms_of_mixed_dtypes(call):
    """torch's check_mixed_data_type: with a parameter of another dtype than the input's,
    every parameter must be float32, then the input float16 (the engine checked the input
    first, or gave one message for both)"""
    for dx, dp in itertools.product(["float32", "float64", "float16", "int64"], repeat=2):
        code = f"""
x = m.tensor([[0.5, -1.0], [2.0, 0.25]]).to(m.{dx})
p = m.tensor([1.0, 0.5]).to(m.{dp})
r = m.nn.functional.{call}
r = (str(r.dtype), tuple(r.shape))"""
        assert parity.outcome(engine, code) == parity.outcome(torch, code), (dx, dp)


@pytest.mark.parametrize("p", ["'a'", "'fro'", "'nuc'", "2", "None"])
def test_norm_of_a_named_p_goes_to_matrix_norm_first(p):
    """torch.norm hands a p named by a string (but "fro" over at most two dims) on to
    matrix_norm at once: its parser's errors (F.normalize(x, 'a', (1, 'a')) names
    linalg_matrix_norm), out= too"""
    for dim in ("(1, 'a')", "(0, 1, 'a')", "('a',)", "[1, 'b']", "1", "None", "(0, 1)",
                "(1, 2)", "(0, 1, 2)"):
        for call in ("m.nn.functional.normalize(x, P, D)", "x.norm(P, D)", "x.norm(P, D, 'x')",
                     "m.norm(x, p=P, dim=D)", "m.norm(x, P, D, out=m.zeros(0))"):
            if p == "None" and "normalize" in call:
                call = "m.nn.functional.normalize(x, dim=D)"
            code = f"""
x = m.arange(12.0).reshape(1, 2, 6)
r = {call.replace('P', p).replace('D', dim)}
r = (tuple(r.shape), round(float(r.sum()), 3))"""
            assert parity.outcome(engine, code) == parity.outcome(torch, code), code


LINEAR_INPUTS = {"1d": "m.tensor(xs[:3])", "1d strided": "m.tensor(xs[:6])[::2]",
                 "2d": "m.tensor(xs[:6]).reshape(2, 3)",
                 "2d t": "m.tensor(xs[:6]).reshape(3, 2).t()",
                 "3d": "m.tensor(xs[:12]).reshape(2, 2, 3)",
                 "3d t": "m.tensor(xs[:12]).reshape(2, 3, 2).transpose(1, 2)",
                 "3d strided": "m.tensor(xs[:24]).reshape(2, 2, 6)[..., ::2]"}
LINEAR_BIASES = {"1d": "m.tensor(bs[:2])", "(1, 2)": "m.tensor(bs[:2]).reshape(1, 2)",
                 "strided": "m.tensor(bs[:4])[::2]", "2d": "m.tensor(bs[:4]).reshape(2, 2)",
                 "float64": "m.tensor(bs[:2], dtype=m.float64)", "0-d": "m.tensor(bs[0])",
                 "(2, 1)": "m.tensor(bs[:2]).reshape(2, 1)",
                 "(1, 1, 2)": "m.tensor(bs[:2]).reshape(1, 1, 2)"}


@pytest.mark.parametrize("bias", list(LINEAR_BIASES))
@pytest.mark.parametrize("input", list(LINEAR_INPUTS))
def test_linear_paths_as_torch(input, bias):
    """fuzz 4702925: torch's F.linear takes addmm for 2-d input, one flattened addmm when the
    input is contiguous and the bias squeezes to one contiguous dim, else matmul then an
    in-place add_ of the bias (a version more; a bias that would grow the result is refused)"""
    for grad in ("False", "True"):
        code = f"""
xs = np.random.default_rng(0).standard_normal(24).astype(np.float32)
bs = np.random.default_rng(1).standard_normal(4).astype(np.float32)
x = {LINEAR_INPUTS[input]}.requires_grad_({grad})
w = m.tensor(np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32))
w.requires_grad_({grad})
b = {LINEAR_BIASES[bias]}.requires_grad_({grad})
o = m.nn.functional.linear(x, w, b)
grads = m.autograd.grad(o.sum(), (x, w, b)) if {grad} else ()
r = repr([tuple(o.shape), o.stride(), str(o.dtype), o._version, type(o.grad_fn).__name__,
          np.asarray(o.tolist()).round(5).tolist(),
          [(tuple(g.shape), g.stride(), np.asarray(g.tolist()).round(5).tolist())
           for g in grads]])"""
        names = {"np": np}
        assert parity.outcome(engine, code, names) == parity.outcome(torch, code, names), grad
