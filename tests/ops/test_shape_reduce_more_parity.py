"""var_mean/std_mean, aminmax, nanmean, roll, tile, meshgrid, diff and trace against torch 2.15:
values, dtypes, layout, reprs and errors (parity.run_both over shapes, dtypes and call
forms), then grad_fn names and gradients (float64, against torch and by gradcheck)."""
import warnings

import numpy as np
import pytest

import engine
import parity
from engine.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

MOMENT_CALLS = {
    "all": lambda m, f, x: f(x),
    "dim": lambda m, f, x: f(x, 0),
    "dim -1 keepdim": lambda m, f, x: f(x, -1, keepdim=True),
    "dims tuple": lambda m, f, x: f(x, (0, -1)),
    "unbiased positional": lambda m, f, x: f(x, 0, False),
    "unbiased alone": lambda m, f, x: f(x, False),
    "correction": lambda m, f, x: f(x, dim=0, correction=0),
    "correction 2 keepdim": lambda m, f, x: f(x, None, correction=2, keepdim=True),
    "empty list": lambda m, f, x: f(x, []),
    "dim out of range": lambda m, f, x: f(x, 5),
    "both unbiased and correction": lambda m, f, x: f(x, 0, unbiased=True, correction=1),
}
NEEDS_A_DIM = {"dim", "dim -1 keepdim", "dims tuple", "unbiased positional", "correction"}


def _quiet(fn):
    def run(m, *args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (warnings: test_degrees_of_freedom_warning)
            return fn(m, *args)
    return run


@pytest.mark.parametrize("call", list(MOMENT_CALLS))
@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("shape", parity.SHAPES + [(4, 5, 3)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_var_mean_std_mean(dtype, shape, name, call):
    if call in NEEDS_A_DIM and not shape:
        pytest.skip("a 0-d tensor's dim 0 is tested by 'dim out of range' forms")
    x = parity.make_tensor(shape, dtype, low=-3, high=3)
    parity.run_both(_quiet(lambda m, x: MOMENT_CALLS[call](m, getattr(m, name), x)), x,
                    exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((5,), None), ((3, 7), 1), ((4, 6), 0), ((2, 3, 4), (0, 2))])
def test_var_mean_bits_replay_welford(shape, dim, dtype):
    """Short rows: torch's Welford loop, replayed, gives its very bits."""
    x = parity.make_tensor(shape, dtype, low=-3, high=3)
    parity.run_both(lambda m, x: m.var_mean(x, dim), x)
    parity.run_both(lambda m, x: m.std_mean(x, dim, keepdim=True), x)


def test_var_mean_of_integers_and_non_contiguous():
    parity.run_both(lambda m, x: m.var_mean(x), parity.make_tensor((3,), "int64"))
    x = parity.make_tensor((4, 6), "float32").mT
    parity.run_both(lambda m, x: m.std_mean(x, 0), x)
    parity.run_both(lambda m, x: m.var_mean(x[:, ::2], 1, keepdim=True), x)
    parity.run_both(lambda m, x: x.var_mean(), x)  # (no such method in torch either)


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_degrees_of_freedom_warning(name):
    for shape, kwargs in [((), {}), ((3,), {"correction": 3}), ((0,), {})]:
        x = parity.make_tensor(shape, "float32")
        messages = []
        for m in (engine, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                getattr(m, name)(parity._convert(x, "torch" if m is torch else "engine"),
                                 **kwargs)
            messages.append([str(w.message) for w in caught])
        assert messages[0] == messages[1]


AMINMAX_CALLS = {
    "all": lambda m, x: m.aminmax(x),
    "all keepdim": lambda m, x: m.aminmax(x, keepdim=True),
    "dim": lambda m, x: m.aminmax(x, dim=0),
    "dim -1 keepdim": lambda m, x: x.aminmax(dim=-1, keepdim=True),
    "positional dim": lambda m, x: m.aminmax(x, 0),
    "dim out of range": lambda m, x: m.aminmax(x, dim=4),
}


@pytest.mark.parametrize("call", list(AMINMAX_CALLS))
@pytest.mark.parametrize("shape", parity.SHAPES)
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_aminmax(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    parity.run_both(AMINMAX_CALLS[call], x)


def test_aminmax_out_non_contiguous_and_nan():
    x = parity.make_tensor((4, 6), "float32").mT
    parity.run_both(lambda m, x: m.aminmax(x, dim=1), x)
    y = engine.tensor([[1.0, float("nan")], [-0.0, 0.0]])
    parity.run_both(lambda m, y: m.aminmax(y, dim=1), y)
    parity.run_both(lambda m, y: m.aminmax(y), y)
    parity.run_both(lambda m, y: m.aminmax(y, dim=0, out=(m.empty(0), m.empty(0))), y)


NANMEAN_CALLS = {
    "all": lambda m, x: m.nanmean(x),
    "dim": lambda m, x: m.nanmean(x, 0),
    "dims keepdim": lambda m, x: x.nanmean((0, -1), True),
    "dtype": lambda m, x: m.nanmean(x, dim=-1, dtype=m.float64),
    "out": lambda m, x: m.nanmean(x, -1, out=m.empty(0, dtype=x.dtype)),
}


@pytest.mark.parametrize("call", list(NANMEAN_CALLS))
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (0,), (2, 0)])
@pytest.mark.parametrize("dtype", ["int64", "float16", "float32", "float64"])
def test_nanmean(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    if dtype.startswith("float") and x.numel() > 1:
        x.view(-1)[1] = float("nan")
    parity.run_both(NANMEAN_CALLS[call], x, exact=False)


SHAPE_CALLS = {
    "roll": lambda m, x: m.roll(x, 1),
    "roll dims": lambda m, x: m.roll(x, (1, -2), (0, -1)),
    "roll method keyword": lambda m, x: x.roll(shifts=-1, dims=0),
    "roll misaligned": lambda m, x: m.roll(x, (1, 2), 0),
    "roll no shifts": lambda m, x: m.roll(x, ()),
    "roll dims beyond": lambda m, x: m.roll(x, (1, 1), (1, 5)),
    "tile": lambda m, x: m.tile(x, (2,)),
    "tile more dims": lambda m, x: m.tile(x, (2, 1, 2)),
    "tile method varargs": lambda m, x: x.tile(1, 2),
    "tile int": lambda m, x: m.tile(x, 2),
    "diff": lambda m, x: m.diff(x),
    "diff n dim": lambda m, x: m.diff(x, 2, 0),
    "diff prepend append": lambda m, x: x.diff(dim=-1, prepend=x, append=x),
    "diff negative order": lambda m, x: m.diff(x, -1),
    "trace": lambda m, x: m.trace(x),
    "trace method": lambda m, x: x.trace(),
    "diagonal": lambda m, x: m.diagonal(x),
    "diagonal offset dims": lambda m, x: x.diagonal(1, -1, 0),
    "diagonal below": lambda m, x: m.diagonal(x, offset=-1),
    "diagonal far": lambda m, x: m.diagonal(x, 7),
    "diagonal same dims": lambda m, x: m.diagonal(x, 0, 1, 1),
}


@pytest.mark.parametrize("call", list(SHAPE_CALLS))
@pytest.mark.parametrize("shape", parity.SHAPES + [(3, 5)])
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_shape_ops(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    parity.run_both(SHAPE_CALLS[call], x)
    if len(shape) == 2 and x.numel():
        parity.run_both(SHAPE_CALLS[call], x.mT)  # non-contiguous input


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(3,), (4,)], [(2,), (), (3,)], [(0,), (2,)], [(3,)]])
def test_meshgrid(shapes, indexing):
    tensors = [parity.make_tensor(s, "float32", seed=i) for i, s in enumerate(shapes)]
    parity.run_both(lambda m, *ts: m.meshgrid(*ts, indexing=indexing), *tensors,
                    check_sharing=True)
    parity.run_both(lambda m, ts: m.meshgrid(ts, indexing=indexing), tensors)


def test_meshgrid_errors_and_warning():
    x, y = parity.make_tensor((3,), "float32"), parity.make_tensor((2,), "int64")
    parity.run_both(lambda m, x, y: m.meshgrid(x, y, indexing="ij"), x, y)
    parity.run_both(lambda m, x: m.meshgrid(x, indexing="yx"), x)
    parity.run_both(lambda m: m.meshgrid(indexing="ij"))
    parity.run_both(lambda m, x: m.meshgrid(x.reshape(1, 3), indexing="ij"), x,
                    match="torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:")
    script = ("import warnings, {m} as torch\nwarnings.simplefilter('always')\n"
              "x = torch.arange(3.)\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    torch.meshgrid(x, x); torch.meshgrid(x, x)\n"
              "print([str(i.message) for i in w])\n")
    import subprocess
    import sys
    outputs = [subprocess.run([sys.executable, "-c", script.format(m=m)], capture_output=True,
                              text=True, check=True).stdout for m in ("engine", "torch")]
    assert outputs[0] == outputs[1] and "indexing argument" in outputs[0]


SELECTION_CALLS = {
    "median": lambda m, x: m.median(x),
    "median dim": lambda m, x: m.median(x, 0),
    "median keepdim method": lambda m, x: x.median(dim=-1, keepdim=True),
    "median out": lambda m, x: m.median(x, -1, out=(m.empty(0, dtype=x.dtype),
                                                    m.empty(0, dtype=m.int64))),
    "median dim out of range": lambda m, x: m.median(x, 3),
    "nanmedian": lambda m, x: m.nanmedian(x),
    "nanmedian dim": lambda m, x: x.nanmedian(-1),
    "kthvalue": lambda m, x: m.kthvalue(x, 1),
    "kthvalue dim keepdim": lambda m, x: m.kthvalue(x, 2, 0, True),
    "kthvalue method": lambda m, x: x.kthvalue(k=2, dim=-1),
    "kthvalue k out of range": lambda m, x: m.kthvalue(x, 9),
    "mode": lambda m, x: m.mode(x),
    "mode dim keepdim": lambda m, x: x.mode(0, keepdim=True),
    "mode out": lambda m, x: m.mode(x, out=(m.empty(0, dtype=x.dtype), m.empty(0, dtype=m.int64))),
}


@pytest.mark.parametrize("call", list(SELECTION_CALLS))
@pytest.mark.parametrize("shape", parity.SHAPES + [(5, 20), (3, 40)])
@pytest.mark.parametrize("dtype", parity.DTYPES)
def test_median_kthvalue_mode(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    if dtype not in ("bool", "uint8", "int8") and x.numel():  # ties: few distinct values
        x = (x.double().abs() % 3).to(x.dtype)
    if dtype.startswith("float") and x.numel() > 4:
        x.view(-1)[3] = float("nan")
    parity.run_both(SELECTION_CALLS[call], x)
    if len(shape) == 2 and x.numel():
        parity.run_both(SELECTION_CALLS[call], x.mT)


def test_selection_ties_and_nans_against_torch():
    """Random rows with few distinct values and nans: the very index torch picks."""
    rng = np.random.default_rng(1)
    for trial in range(300):
        n = int(rng.integers(1, 70))
        row = rng.integers(0, 5, n).astype(np.float32)
        if trial % 4 == 0:
            row[rng.integers(0, n, max(1, n // 5))] = np.nan
        k = int(rng.integers(1, n + 1))
        x = engine.tensor(row)
        parity.run_both(lambda m, x, k=k: m.kthvalue(x, k), x)
        parity.run_both(lambda m, x: m.mode(x), x)
        parity.run_both(lambda m, x: m.median(x, 0), x)
        parity.run_both(lambda m, x: m.nanmedian(x, 0), x)


QUANTILE_CALLS = {
    "all": lambda m, x: m.quantile(x, 0.3),
    "dim": lambda m, x: m.quantile(x, 0.75, 0),
    "last dim keepdim": lambda m, x: x.quantile(0.5, -1, True),
    "q tensor": lambda m, x: m.quantile(x, m.tensor([0.1, 0.5, 1.0], dtype=x.dtype), dim=-1),
    "q one element": lambda m, x: m.quantile(x, m.tensor([0.4], dtype=x.dtype)),
    "q 0-d tensor keepdim": lambda m, x: m.quantile(x, m.tensor(0.4, dtype=x.dtype),
                                                   keepdim=True),
    "int q": lambda m, x: m.quantile(x, 1),
    "out": lambda m, x: m.quantile(x, 0.5, 0, out=m.empty(0, dtype=x.dtype)),
    "out of range": lambda m, x: m.quantile(x, 1.5),
    "q values out of range": lambda m, x: m.quantile(x, m.tensor([0.5, -0.5], dtype=x.dtype)),
    "q of another dtype": lambda m, x: m.quantile(x, m.tensor([0.5], dtype=m.float64)),
    "bad interpolation": lambda m, x: m.quantile(x, 0.5, interpolation="middle"),
}


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("call", list(QUANTILE_CALLS))
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 3, 4), (0,), (2, 0)])
@pytest.mark.parametrize("dtype", ["int64", "float16", "float32", "float64"])
def test_quantile(dtype, shape, call, name, interpolation):
    x = parity.make_tensor(shape, dtype, low=-3, high=3)
    if dtype.startswith("float") and x.numel() > 3:
        x = x.round()
        x.view(-1)[2] = float("nan")

    def run(m, x):
        with _renamed(m, name, interpolation):
            return QUANTILE_CALLS[call](m, x)
    parity.run_both(run, x)
    if len(shape) == 2 and x.numel():
        parity.run_both(run, x.mT)


class _renamed:
    """m.quantile is m.nanquantile and takes ``interpolation`` while the call runs."""

    def __init__(self, m, name, interpolation):
        self.m, self.name, self.interpolation = m, name, interpolation

    def __enter__(self):
        self.saved = self.m.quantile
        function = getattr(self.m, self.name)
        interpolation = self.interpolation

        def quantile(*args, **kwargs):
            kwargs.setdefault("interpolation", interpolation)
            return function(*args, **kwargs)
        self.m.quantile = quantile

    def __exit__(self, *exc):
        self.m.quantile = self.saved


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_gradient_goes_where_torchs_does(name, interpolation):
    """Few distinct values and nans: the element of a tie that receives the gradient is the
    one std::nth_element (one q, contiguous rows) or the sort (otherwise) left there."""
    rng = np.random.default_rng(5)
    for trial in range(60):
        shape = [(13,), (4, 7), (3, 20)][trial % 3]
        values = rng.integers(0, 4, shape).astype(np.float64)
        if trial % 2:
            values.reshape(-1)[rng.integers(0, values.size, 2)] = np.nan
        q = [0.3, 0.5, 0.9, [0.2, 0.7]][trial % 4]
        dim = [None, -1, 0][trial % 3]
        grads = []
        for m in (engine, torch):
            x = m.tensor(values, requires_grad=True)
            source = x.mT if trial % 5 == 0 and x.dim() == 2 else x
            qq = m.tensor(q, dtype=m.float64) if isinstance(q, list) else q
            result = getattr(m, name)(source, qq, dim, interpolation=interpolation)
            result.sum().backward()
            grads.append((x.grad.numpy().copy(), result.detach().numpy().copy()))
        np.testing.assert_array_equal(grads[0][1], grads[1][1])
        np.testing.assert_array_equal(grads[0][0], grads[1][0])


TENSORDOT_CASES = [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (3, 4, 5), ([1, 2], [0, 1])), ((3, 4), (4, 5), 1),
    ((3, 4), (4, 5), 0), ((4,), (4,), 1), ((3, 4), (3, 4), 2), ((), (), 0), ((), (3,), 0),
    ((3, 4), (4, 3), ([0, 1], [1, 0])), ((2, 3, 4), (3, 5), ([1], [0])), ((4,), (4, 1), 1),
    ((1, 4), (4, 1), 1), ((0, 3), (3, 2), 1), ((2, 0), (0, 3), 1), ((3, 4), (4, 5), 3),
    ((3, 4), (4, 5), -1), ((3, 4), (4, 5), ([0], [0])), ((3, 4), (4, 5), ([1], [0, 1])),
    ((3, 4), (4, 5), (1, 0)), ((3, 4), (4, 5), [[1], [5]]), ((3, 4), (4, 5), 1.5),
    ((3, 4), (4, 5), ([1, 1], [0, 0])), ((3, 4), (4, 5), ([-1], [-2])),
    ((2, 3), (1, 5), ([1], [0])), ((1, 2), (1, 3), ([0], [0])), ((4, 1), (4, 1), 1),
    ((), (), ([0], [0])),
]


@pytest.mark.parametrize("case", range(len(TENSORDOT_CASES)))
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32", "float64"])
def test_tensordot(dtype, case):
    shape_a, shape_b, dims = TENSORDOT_CASES[case]
    a, b = parity.make_tensor(shape_a, dtype, low=-3, high=3), \
        parity.make_tensor(shape_b, dtype, seed=1, low=-3, high=3)
    parity.run_both(lambda m, a, b: m.tensordot(a, b, dims), a, b, exact=False)
    parity.run_both(lambda m, a, b: m.tensordot(a, b, dims=dims), a.mT if a.dim() == 2 else a,
                    b, exact=False)


def test_tensordot_dims_as_a_tensor_out_and_dtypes():
    a, b = parity.make_tensor((3, 4), "float32"), parity.make_tensor((4, 5), "float32", seed=1)
    parity.run_both(lambda m, a, b: m.tensordot(a, b, m.tensor([[1], [0]])), a, b, exact=False)
    parity.run_both(lambda m, a, b: m.tensordot(a, b, m.tensor(1)), a, b, exact=False)
    parity.run_both(lambda m, a, b: m.tensordot(a, b, 1, out=m.empty(0)), a, b, exact=False)
    parity.run_both(lambda m, a, b: m.tensordot(a, b, 1, out=m.empty(0, dtype=m.float64)), a, b)
    parity.run_both(lambda m, a, b: m.tensordot(a, b.int(), 1), a, b)
    parity.run_both(lambda m, a, b: m.functional.tensordot(a, b), a, b.reshape(2, 10))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(4,), (4,)]), ("ii->i", [(3, 3)]), ("ij->ji", [(3, 4)]),
    ("...ij->...ji", [(2, 3, 4)]), ("ij,jk", [(3, 4), (4, 5)]), ("ij", [(3, 4)]),
    ("ba", [(3, 4)]), ("i,j->ij", [(3,), (4,)]), ("bij->b", [(2, 3, 4)]), ("ij->", [(3, 4)]),
    ("ii", [(3, 3)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("bqk,bkd->bqd", [(2, 3, 5), (2, 5, 4)]), ("ij,ij->i", [(3, 4), (3, 4)]),
    ("i,ij,j->", [(3,), (3, 4), (4,)]), ("...i,...i->...", [(2, 3), (3,)]),
    ("i j , j k -> i k", [(3, 4), (4, 5)]), ("ij,kl->ijkl", [(2, 3), (1, 2)]),
    ("iij->j", [(2, 2, 3)]), ("ij,jk->ik", [(0, 4), (4, 5)]), ("i,i", [(0,), (0,)]),
    ("ij,jk", [(3, 4), (5, 6)]), ("ij->k", [(3, 4)]), ("ij->ii", [(3, 4)]), ("i.j", [(3, 4)]),
    ("i1", [(3, 4)]), ("ii", [(2, 3)]), ("...i,...i", [(2, 3), (4, 3)]), ("ij,jk", [(3, 4)]),
    ("ij", [(3, 4), (3, 4)]), ("i", [(3, 4)]), ("ij->i1", [(3, 4)]), ("a...b...", [(3, 4)]),
]


@pytest.mark.parametrize("case", range(len(EINSUM_CASES)))
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_einsum(dtype, case):
    equation, shapes = EINSUM_CASES[case]
    operands = [parity.make_tensor(s, dtype, seed=i, low=-3, high=3) for i, s in enumerate(shapes)]
    parity.run_both(lambda m, *ops: m.einsum(equation, *ops), *operands, exact=False)
    parity.run_both(lambda m, ops: m.einsum(equation, ops), operands, exact=False)
    if operands[0].dim() == 2 and len(shapes) == 1:
        parity.run_both(lambda m, x: m.einsum(equation, x.mT), operands[0], exact=False)


def test_einsum_sublists_and_errors():
    a, b = parity.make_tensor((3, 4), "float32"), parity.make_tensor((4, 5), "float32", seed=1)
    parity.run_both(lambda m, a, b: m.einsum(a, [0, 1], b, [1, 2], [0, 2]), a, b, exact=False)
    parity.run_both(lambda m, a, b: m.einsum(a, [0, 1], b, [1, 2]), a, b, exact=False)
    parity.run_both(lambda m, a: m.einsum(a, [Ellipsis, 1], [1]), a, exact=False)
    parity.run_both(lambda m, a: m.einsum("ij", a, 3), a)
    parity.run_both(lambda m: m.einsum("ij"))
    parity.run_both(lambda m, a, b: m.functional.einsum("ij,jk", a, b), a, b, exact=False)


STACK_CALLS = {
    "atleast_1d": lambda m, *ts: m.atleast_1d(*ts),
    "atleast_2d list": lambda m, *ts: m.atleast_2d(list(ts)),
    "atleast_3d": lambda m, *ts: m.atleast_3d(*ts),
    "atleast_1d one": lambda m, *ts: m.atleast_1d(ts[0]),
    "atleast_3d one": lambda m, *ts: m.atleast_3d(ts[-1]),
    "column_stack": lambda m, *ts: m.column_stack(ts),
    "dstack": lambda m, *ts: m.dstack(list(ts)),
    "row_stack": lambda m, *ts: m.row_stack(ts),
    "vstack": lambda m, *ts: m.vstack(ts),
    "column_stack out": lambda m, *ts: m.column_stack(ts, out=m.empty(0, dtype=ts[0].dtype)),
    "dstack empty list": lambda m, *ts: m.dstack([]),
    "column_stack a tensor": lambda m, *ts: m.column_stack(ts[0]),
}


@pytest.mark.parametrize("call", list(STACK_CALLS))
@pytest.mark.parametrize("shapes", [[()], [(3,)], [(2, 3)], [(3,), (3,)], [(), ()],
                                    [(2, 3, 4), (2, 3, 1)], [(0,), (0,)], [(2, 1), (2,)]])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_atleast_and_stacks(dtype, shapes, call):
    tensors = [parity.make_tensor(s, dtype, seed=i) for i, s in enumerate(shapes)]
    parity.run_both(STACK_CALLS[call], *tensors, check_sharing=True)


ROT90_CALLS = {
    "default": lambda m, x: m.rot90(x), "twice": lambda m, x: m.rot90(x, 2),
    "back": lambda m, x: x.rot90(-1), "three dims swapped": lambda m, x: m.rot90(x, 3, [1, 0]),
    "four": lambda m, x: m.rot90(x, 4), "last dims": lambda m, x: m.rot90(x, 1, (-1, -2)),
    "one dim": lambda m, x: m.rot90(x, 1, [0]), "same dims": lambda m, x: m.rot90(x, 1, [0, 0]),
    "dims apart by ndim": lambda m, x: m.rot90(x, 1, [0, -2]),
    "out of range": lambda m, x: m.rot90(x, 1, [0, 5]),
}


@pytest.mark.parametrize("call", list(ROT90_CALLS))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (0, 2)])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_rot90(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    parity.run_both(ROT90_CALLS[call], x)
    if len(shape) >= 2 and x.numel():
        parity.run_both(ROT90_CALLS[call], x.mT)


MORE_CALLS = {
    "cummax": lambda m, x: m.cummax(x, 0), "cummin method": lambda m, x: x.cummin(-1),
    "cummax out": lambda m, x: m.cummax(x, 0, out=(m.empty(0, dtype=x.dtype),
                                                  m.empty(0, dtype=m.int64))),
    "cummin dim out of range": lambda m, x: m.cummin(x, 3),
    "take": lambda m, x: m.take(x, m.tensor([0, -1])),
    "take 2-d index": lambda m, x: x.take(m.tensor([[0], [0]])),
    "take empty index": lambda m, x: m.take(x, m.tensor([], dtype=m.int64)),
    "take out of range": lambda m, x: m.take(x, m.tensor([7])),
    "take float index": lambda m, x: m.take(x, m.tensor([0.0])),
    "diag_embed": lambda m, x: m.diag_embed(x), "diag_embed offset": lambda m, x: x.diag_embed(1),
    "diag_embed dims": lambda m, x: m.diag_embed(x, -1, 0, -1),
    "diag_embed same dims": lambda m, x: m.diag_embed(x, 0, 1, 1),
    "block_diag": lambda m, x: m.block_diag(x, x, m.ones(1, 2, dtype=x.dtype)),
    "cartesian_prod": lambda m, x: m.cartesian_prod(x, x),
    "cartesian_prod one": lambda m, x: m.cartesian_prod(x),
}


@pytest.mark.parametrize("call", list(MORE_CALLS))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (0,), (2, 0)])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_more_ops(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    if dtype == "float32" and x.numel() > 2:
        x = x.round()
        x.view(-1)[1] = float("nan")
    parity.run_both(MORE_CALLS[call], x)
    if len(shape) >= 2 and x.numel():
        parity.run_both(MORE_CALLS[call], x.mT)


@pytest.mark.parametrize("offset", [0, 2, -1, -5])
def test_triangle_indices(offset):
    for rows, columns in [(3, 3), (3, 5), (5, 2), (0, 3), (1, 1)]:
        parity.run_both(lambda m, r=rows, c=columns: m.tril_indices(r, c, offset))
        parity.run_both(lambda m, r=rows, c=columns: m.triu_indices(r, c, offset, dtype=m.int32))
    parity.run_both(lambda m: m.tril_indices(3, 3, dtype=m.float32))
    parity.run_both(lambda m: m.triu_indices(-1, 3))


SEARCH_CALLS = {
    "bucketize": lambda m, x, b: m.bucketize(x, b),
    "bucketize right int32": lambda m, x, b: m.bucketize(x, b, out_int32=True, right=True),
    "bucketize number": lambda m, x, b: m.bucketize(3, b),
    "bucketize 2-d boundaries": lambda m, x, b: m.bucketize(x, b.reshape(1, -1)),
    "searchsorted": lambda m, x, b: m.searchsorted(b, x),
    "searchsorted side": lambda m, x, b: m.searchsorted(b, x, side="right"),
    "searchsorted opposites": lambda m, x, b: m.searchsorted(b, x, right=True, side="left"),
    "searchsorted sorter": lambda m, x, b: m.searchsorted(b.flip(0), x,
                                                          sorter=m.arange(b.numel() - 1, -1, -1)),
    "searchsorted out": lambda m, x, b: m.searchsorted(b, x, out=m.empty(0, dtype=m.int64)),
    "isin": lambda m, x, b: m.isin(x, b), "isin invert": lambda m, x, b: m.isin(x, b, invert=True),
    "isin numbers": lambda m, x, b: (m.isin(x, 3), m.isin(3, b)),
}


@pytest.mark.parametrize("call", list(SEARCH_CALLS))
@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (0,)])
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_search(dtype, shape, call):
    x = parity.make_tensor(shape, dtype, low=-4, high=8)
    if dtype != "int64" and x.numel() > 1:
        x = x.round()
        x.view(-1)[1] = float("nan")
    boundaries = parity.make_tensor((4,), "float32").sort().values.round() if dtype != "int64" \
        else engine.tensor([-2, 0, 0, 3, 7])
    parity.run_both(SEARCH_CALLS[call], x, boundaries)


COUNT_CALLS = {
    "bincount": lambda m, x: m.bincount(x), "bincount minlength": lambda m, x: x.bincount(None, 9),
    "bincount weights": lambda m, x: m.bincount(x, weights=m.linspace(0, 1, x.numel())),
    "bincount double weights": lambda m, x: m.bincount(
        x, m.linspace(0, 1, x.numel(), dtype=m.float64)),
    "bincount int weights": lambda m, x: m.bincount(x, m.ones_like(x)),
    "bincount negative minlength": lambda m, x: m.bincount(x, minlength=-1),
    "histc": lambda m, x: m.histc(x.float()), "histc bins": lambda m, x: x.double().histc(4),
    "histc range": lambda m, x: m.histc(x.float(), 5, 1, 6),
    "histc of ints": lambda m, x: m.histc(x), "histc no bins": lambda m, x: m.histc(x.float(), 0),
    "histc reversed": lambda m, x: m.histc(x.float(), 3, 5, 1),
}


@pytest.mark.parametrize("call", list(COUNT_CALLS))
@pytest.mark.parametrize("shape", [(), (7,), (2, 3), (0,)])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32"])
def test_counts(dtype, shape, call):
    x = parity.make_tensor(shape, dtype, low=0, high=9)
    parity.run_both(COUNT_CALLS[call], x)


def test_histc_bins_of_random_floats():
    """Elements on and near the bins' edges land in torch's bins (edges in the dtype)."""
    for seed in range(60):
        rng = np.random.default_rng(seed)
        values = rng.standard_normal(int(rng.integers(1, 300))).astype(np.float32)
        if seed % 3 == 0:
            values = np.round(values * 4) / 4
        bins = int(rng.integers(1, 40))
        limits = [(), (float(values.min()), float(values.max())), (-1.0, 1.0)][seed % 3]
        parity.run_both(lambda m, x, b=bins, edges=limits: m.histc(x, b, *edges),
                        engine.tensor(values))


SPLIT_CALLS = {
    "sections": lambda m, x: m.tensor_split(x, 3),
    "sections dim": lambda m, x: x.tensor_split(2, -1),
    "indices": lambda m, x: m.tensor_split(x, [1, 4]), "unordered": lambda m, x: m.tensor_split(
        x, (3, 1), dim=-1),
    "negative and beyond": lambda m, x: m.tensor_split(x, [-2, 10]),
    "no indices": lambda m, x: m.tensor_split(x, []),
    "tensor sections": lambda m, x: m.tensor_split(x, m.tensor(2)),
    "tensor indices": lambda m, x: m.tensor_split(x, m.tensor([1, 2])),
    "float tensor": lambda m, x: m.tensor_split(x, m.tensor([1.0])),
    "zero sections": lambda m, x: m.tensor_split(x, 0),
    "vsplit": lambda m, x: m.vsplit(x, 2), "vsplit list": lambda m, x: x.vsplit([1]),
    "hsplit": lambda m, x: m.hsplit(x, 2), "hsplit list": lambda m, x: x.hsplit([1, 2]),
    "dsplit": lambda m, x: m.dsplit(x, 2), "dsplit list": lambda m, x: m.dsplit(x, [3]),
}


@pytest.mark.parametrize("call", list(SPLIT_CALLS))
@pytest.mark.parametrize("shape", [(), (6,), (4, 6), (2, 4, 6), (0, 2)])
@pytest.mark.parametrize("dtype", ["bool", "float32"])
def test_splits(dtype, shape, call):
    x = parity.make_tensor(shape, dtype)
    parity.run_both(SPLIT_CALLS[call], x, check_sharing=True)
    if len(shape) >= 2 and x.numel():
        parity.run_both(SPLIT_CALLS[call], x.mT, check_sharing=True)


@pytest.mark.parametrize("shapes", [[(2, 3), (2, 3)], [(3,), (2, 3)], [(2, 3), ()], [(), ()],
                                    [(2, 1, 2), (3,)], [(0, 2), (2,)]])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_kron(dtype, shapes):
    a, b = (parity.make_tensor(s, dtype, seed=i) for i, s in enumerate(shapes))
    parity.run_both(lambda m, a, b: m.kron(a, b), a, b)
    parity.run_both(lambda m, a, b: a.kron(b.float()), a, b)
    parity.run_both(lambda m, a, b: m.kron(a, b, out=m.empty(0, dtype=a.dtype)), a, b)
    if a.dim() == 2:
        parity.run_both(lambda m, a, b: m.kron(a.mT, b), a, b)  # torch's error
        parity.run_both(lambda m, a, b: m.kron(a[:, ::2], b), a, b)


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (0, 3)])
@pytest.mark.parametrize("dtype", ["int64", "float16", "float32", "float64"])
def test_logcumsumexp(dtype, shape, dim):
    x = parity.make_tensor(shape, dtype, low=-5, high=5)
    if dtype.startswith("float") and x.numel() > 3:
        x.view(-1)[1], x.view(-1)[2] = float("-inf"), float("inf")
    parity.run_both(lambda m, x: m.logcumsumexp(x, dim), x, exact=False)
    parity.run_both(lambda m, x: x.logcumsumexp(dim=dim), x, exact=False)
    parity.run_both(lambda m, x: m.logcumsumexp(x, dim, out=m.empty(0, dtype=x.dtype)), x,
                    exact=False)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_logcumsumexp_bits(dtype):
    """float32 and float16: torch's accumulator and steps, bit for bit (float64: README)."""
    for seed in range(20):
        values = (np.random.default_rng(seed).standard_normal((3, 50)) * 5).astype(dtype)
        parity.run_both(lambda m, x: m.logcumsumexp(x, 1), engine.tensor(values))


CDIST_CASES = [((3, 4), (5, 4)), ((30, 4), (5, 4)), ((2, 3, 4), (2, 5, 4)), ((1, 30, 4), (2, 5, 4)),
               ((0, 4), (5, 4)), ((3, 0), (5, 0)), ((3, 4), (5, 3)), ((4,), (5, 4)),
               ((2, 30, 4), (5, 4))]


@pytest.mark.parametrize("mode", [None, "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, float("inf"), 3.0, -1.0])
@pytest.mark.parametrize("case", range(len(CDIST_CASES)))
def test_cdist(case, p, mode):
    a, b = (parity.make_tensor(s, "float64", seed=i, low=-3, high=3)
            for i, s in enumerate(CDIST_CASES[case]))
    kwargs = {} if mode is None else {"compute_mode": mode}
    parity.run_both(lambda m, a, b: m.cdist(a, b, p, **kwargs), a, b, exact=False)
    parity.run_both(lambda m, a, b: m.cdist(a.float(), b.float(), p=p, **kwargs), a, b,
                    exact=False)


def test_cdist_errors():
    a, b = parity.make_tensor((3, 4), "float32"), parity.make_tensor((5, 4), "float32", seed=1)
    parity.run_both(lambda m, a, b: m.cdist(a.int(), b.int()), a, b)
    parity.run_both(lambda m, a, b: m.cdist(a, b.double()), a, b)
    parity.run_both(lambda m, a, b: m.cdist(a, b, compute_mode="x"), a, b)
    parity.run_both(lambda m, a, b: m.functional.cdist(a, b), a, b, exact=False)


# ====================================================================== gradients
GRADIENTS = {
    "var_mean": ((3, 4), lambda m, x: m.var_mean(x, 1)),
    "var_mean all": ((3, 4), lambda m, x: m.var_mean(x, correction=0)),
    "var_mean keepdim": ((3, 4), lambda m, x: m.var_mean(x, (0, 1), keepdim=True)),
    "std_mean": ((3, 4), lambda m, x: m.std_mean(x, 0)),
    "std_mean all": ((5,), lambda m, x: m.std_mean(x)),
    "aminmax": ((3, 4), lambda m, x: m.aminmax(x, dim=1)),
    "aminmax all": ((3, 4), lambda m, x: tuple(m.aminmax(x))),
    "aminmax ties": ((3, 4), lambda m, x: tuple(m.aminmax(x.round(), keepdim=True))),
    "nanmean": ((3, 4), lambda m, x: m.nanmean(x, 1)),
    "roll": ((3, 4), lambda m, x: m.roll(x, (1, -1), (0, 1))),
    "roll flat": ((3, 4), lambda m, x: x.roll(5)),
    "tile": ((3, 4), lambda m, x: m.tile(x, (2, 1, 3))),
    "meshgrid": ((4,), lambda m, x: m.meshgrid(x, x[:3] * 2, indexing="xy")),
    "diff": ((3, 4), lambda m, x: m.diff(x, 2, prepend=x[:, :1])),
    "trace": ((3, 4), lambda m, x: m.trace(x)),
    "median": ((3, 4), lambda m, x: m.median(x)),
    "median ties": ((3, 4), lambda m, x: m.median(x.round())),
    "median dim": ((3, 4), lambda m, x: m.median(x, 1).values),
    "nanmedian": ((3, 4), lambda m, x: m.nanmedian(x)),
    "nanmedian dim": ((3, 4), lambda m, x: m.nanmedian(x, 0, True).values),
    "kthvalue": ((3, 4), lambda m, x: m.kthvalue(x, 2, 0).values),
    "mode": ((3, 4), lambda m, x: m.mode(x.round(), 1).values),
    "quantile": ((3, 4), lambda m, x: m.quantile(x, 0.3)),
    "quantile dim": ((3, 4), lambda m, x: m.quantile(x, 0.6, 0, True)),
    "quantile q tensor": ((3, 4), lambda m, x: m.quantile(
        x, m.tensor([0.2, 0.9], dtype=m.float64), -1, interpolation="midpoint")),
    "nanquantile": ((3, 4), lambda m, x: m.nanquantile(x, 0.3, 1, interpolation="lower")),
    "tensordot": ((3, 4), lambda m, x: m.tensordot(x, x.mT.exp(), 1)),
    "tensordot all": ((3, 4), lambda m, x: m.tensordot(x, x * 2, 2)),
    "tensordot pairs": ((3, 4), lambda m, x: m.tensordot(x, x, ([0], [0]))),
    "tensordot size 1": ((3, 4), lambda m, x: m.tensordot(x, x[:1], ([0], [0]))),
    "einsum matmul": ((3, 4), lambda m, x: m.einsum("ij,kj->ik", x, x.exp())),
    "einsum diagonal": ((3, 3), lambda m, x: m.einsum("ii->i", x)),
    "einsum trace": ((3, 3), lambda m, x: m.einsum("ii", x * x)),
    "einsum batch": ((3, 4), lambda m, x: m.einsum("bi,bj->bij", x, x)),
    "einsum three": ((3, 4), lambda m, x: m.einsum("i,ij,j->", x[:, 0], x, x[0])),
    "rot90": ((3, 4), lambda m, x: m.rot90(x * 2)),
    "cummax": ((3, 4), lambda m, x: m.cummax(x.round(), 1).values),
    "cummin": ((3, 4), lambda m, x: m.cummin(x, 0).values),
    "take": ((3, 4), lambda m, x: m.take(x, m.tensor([[0, 5], [5, -1]]))),
    "diag_embed": ((3, 4), lambda m, x: m.diag_embed(x, 1, 0, 2)),
    "block_diag": ((3, 4), lambda m, x: m.block_diag(x, x[0], x[1, 1])),
    "cartesian_prod": ((3, 4), lambda m, x: m.cartesian_prod(x[0], x[1, :2])),
    "tensor_split": ((3, 4), lambda m, x: m.tensor_split(x, [1, 3], dim=1)),
    "hsplit": ((3, 4), lambda m, x: m.hsplit(x * 2, 2)),
    "kron": ((3, 4), lambda m, x: m.kron(x, x[:2, :3] * 2)),
    "logcumsumexp": ((3, 4), lambda m, x: m.logcumsumexp(x, 1)),
    "cdist": ((3, 4), lambda m, x: m.cdist(x, x[:2].exp())),
    "cdist p=1": ((3, 4), lambda m, x: m.cdist(x, x[:2] * 2, p=1)),
    "cdist p=3": ((3, 4), lambda m, x: m.cdist(x, x[:2] * 2, p=3)),
    "cdist mm": ((3, 4), lambda m, x: m.cdist(x, x[:2].exp(),
                                             compute_mode="use_mm_for_euclid_dist")),
    "logcumsumexp dim 0": ((3, 4), lambda m, x: m.logcumsumexp(x * 3, 0)),
    "rot90 three": ((3, 4), lambda m, x: m.rot90(x, 3, [1, 0])),
    "dstack": ((3, 4), lambda m, x: m.dstack([x, x * 2])),
    "dstack vectors": ((3, 4), lambda m, x: m.dstack([x[0], x[1], x[2]])),
    "column_stack": ((3, 4), lambda m, x: m.column_stack([x, x[:, 0], x * 2])),
}


def _outputs(result):
    return tuple(result) if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients(name):
    shape, fn = GRADIENTS[name]
    values = np.random.default_rng(3).uniform(-2, 2, shape) * 2
    e = engine.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    got, expected = _outputs(fn(engine, e)), _outputs(fn(torch, t))
    assert [type(r.grad_fn).__name__ for r in got] == \
        [type(r.grad_fn).__name__ for r in expected]
    weights = [np.random.default_rng(i).standard_normal(tuple(r.shape))
               for i, r in enumerate(expected)]
    sum(((r * torch.tensor(w)).sum() for r, w in zip(expected, weights))).backward()
    sum(((r * engine.tensor(w)).sum() for r, w in zip(got, weights))).backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    # each output alone (the other's gradient is None in the node)
    for i in range(len(got)):
        e.grad, t.grad = None, None
        _outputs(fn(engine, e))[i].sum().backward()
        _outputs(fn(torch, t))[i].sum().backward()
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    if "ties" in name:
        return  # (rounding has no derivative to check by finite differences)
    x = engine.tensor(values, requires_grad=True)
    assert gradcheck(lambda x: fn(engine, x), (x,))
    if not name.startswith("aminmax"):
        assert gradgradcheck(lambda x: fn(engine, x), (x,))


@pytest.mark.parametrize("name", ["var_mean", "std_mean", "aminmax", "nanmean", "roll", "tile",
                                  "diff", "trace", "median", "nanmedian", "kthvalue", "mode",
                                  "quantile", "nanquantile"])
def test_an_input_that_is_not_a_tensor(name):
    args = {"roll": (1,), "tile": ((2,),), "kthvalue": (1,), "quantile": (0.5,),
            "nanquantile": (0.5,)}.get(name, ())
    parity.run_both(lambda m: getattr(m, name)((1.0, 2.0), *args))


def test_fuzz_3104000_finds():
    """trace's gradient is written on zeros (a nan stays on the diagonal), quantile's lerp_
    and squeeze_ are in place (the result's version), roll of an empty tensor skips dims."""
    values = [[float("nan"), 0.0, 0.0], [0.0, 0.0, float("nan")]]
    grads = []
    for m in (engine, torch):
        b = m.tensor(values, requires_grad=True)
        m.trace(b).exp().backward()
        grads.append(b.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    for q in (0.0, 0.5):
        for interpolation in ("midpoint", "lower", "linear"):
            versions = [m.nanquantile(m.tensor([[1.0, 2.0, 4.0]]), q, -1, True,
                                      interpolation=interpolation)._version
                        for m in (engine, torch)]
            assert versions[0] == versions[1]
    parity.run_both(lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([0.5, 0.2]))._version)


def test_fuzz_3108000_finds():
    """isin refuses bool; tensor_split of all of a dim is still a slice; diag_embed's result
    is at version 0; logcumsumexp checks dim first; histc's nan range keeps the nan's sign;
    searchsorted/bucketize warn once about a non-contiguous operand."""
    flags = engine.tensor([[True], [False]])
    parity.run_both(lambda m, x: m.isin(x, x.flatten()[:1]), flags)
    parity.run_both(lambda m: m.isin(m.tensor([1, 2]), True))
    x = engine.tensor([], requires_grad=True)
    for m in (engine, torch):
        pieces = m.tensor_split(m.tensor([], requires_grad=True), 1, -1)
        assert type(pieces[0].grad_fn).__name__ == "SliceBackward0"
        assert m.diag_embed(m.tensor([[0.5], [1.0]]).sigmoid())._version == 0
    parity.run_both(lambda m, x: m.logcumsumexp(x.mT, 2), engine.zeros((1, 0), dtype=engine.uint8))
    parity.run_both(lambda m: m.histc(m.tensor(float("nan")), 1))
    parity.run_both(lambda m: m.histc(m.tensor([1.0, float("nan")]), 3))
    script = ("import warnings, {m} as torch\n"
              "z = torch.tensor([[-2, 4, -2], [0, 1, 2]])\n"
              "with warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n"
              "    torch.bucketize(z.mT, torch.tensor([0.0, 1.0, 2.0]))\n"
              "    torch.searchsorted(torch.tensor([0.0, 1.0, 2.0]), z.mT)\n"
              "    torch.searchsorted(torch.tensor([0.0, 1.0, 2.0])[::2], z)\n"
              "print([str(i.message) for i in w])\n")
    import subprocess
    import sys
    outputs = [subprocess.run([sys.executable, "-c", script.format(m=m)], capture_output=True,
                              text=True, check=True).stdout for m in ("engine", "torch")]
    assert outputs[0] == outputs[1] and outputs[0].count("only appear once") == 2
    del x


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_fuzz_3100000_finds(p):
    """cdist checks dims before dtypes and refuses float16 in its direct kernel; with nans
    its p=0 sum keeps them, its p=inf max skips them, and its gradients' sign keeps a nan;
    histc of a uint8 tensor whose range is a single 0 overflows torch's bin edges."""
    values = engine.tensor([[float("nan"), 1.0], [0.0, 2.0]])
    parity.run_both(lambda m, y: m.cdist(y, y * 1, p=p), values, exact=False)
    grads = []
    for m in (engine, torch):
        y = m.tensor([[float("nan"), 1.0], [0.0, 2.0], [1.0, 3.0]], requires_grad=True)
        m.cdist(y, y * 2, p=p).sum().backward()
        grads.append(y.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, equal_nan=True)
    parity.run_both(lambda m: m.cdist(m.tensor(False), m.tensor(False)))
    parity.run_both(lambda m: m.cdist(m.ones(2, 2, dtype=m.float16), m.ones(3, 2,
                                                                            dtype=m.float16)))
    parity.run_both(lambda m: m.histc(m.tensor(0, dtype=m.uint8), 1))
