# ruff: noqa: E501 (tables of cases, one per line)
"""Fuzz round nine (seeds 2400000:2420000, unpinned on an AVX-512 CPU): each mismatch fixed as a
class, against torch 2.15.

- 2402665: an out= that must be resized takes the layout torch's structured kernels give their
  result (TensorIterator's, which follows the inputs'): a permuted input's out= is permuted.
  Composite ops (kron, nan_to_num of integers) resize it row-major. Every op with out= over
  permuted, transposed, expanded, channels-last and sliced inputs.
- Found on the way: cat of channels-last inputs is channels-last (torch's suggested memory
  format of the inputs); lerp, clamp_min and clamp_max take out= (with torch's dtype rules);
  remainder and the bitwise ops refuse out= with a number input (their Number-self overload has
  none).
"""
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


def layouts(m):
    base = m.arange(24, dtype=m.float32).reshape(2, 3, 4) / 7 - 1
    return {"permuted": base.permute(2, 0, 1), "transposed": base[0].t(),
            "expanded": (m.arange(3.0) - 1).reshape(3, 1).expand(3, 4),
            "channels last": (m.arange(48.0).reshape(1, 3, 4, 4) / 50).to(memory_format=m.channels_last),
            "sliced": base[:, ::2, :], "row-major": base}


OUT_CALLS = {
    "add": "m.add(x, 1, out=o)", "add broadcast": "m.add(x, m.ones(x.shape[-1]), out=o)",
    "sub alpha": "m.sub(x, x, alpha=2, out=o)", "mul": "m.mul(x, 2, out=o)",
    "div": "m.div(x, m.tensor(0.5), out=o)", "div trunc": "m.div(x, m.tensor(0.0), rounding_mode='trunc', out=o)",
    "div floor": "m.div(x, 0.3, rounding_mode='floor', out=o)", "true_divide": "m.true_divide(x, 2, out=o)",
    "floor_divide": "m.floor_divide(x, 0.3, out=o)", "remainder": "m.remainder(x, 0.7, out=o)",
    "fmod": "m.fmod(x, 0.7, out=o)", "pow": "m.pow(x, 2, out=o)", "pow number base": "m.pow(2, x, out=o)",
    "atan2": "m.atan2(x, x + 1, out=o)", "maximum": "m.maximum(x, x.flip(0), out=o)",
    "fmax": "m.fmax(x, x.flip(0), out=o)", "hypot": "m.hypot(x, 2 * x, out=o)",
    "copysign": "m.copysign(x, -1, out=o)", "xlogy": "m.xlogy(x, x.abs(), out=o)",
    "exp": "m.exp(x, out=o)", "neg": "m.neg(x, out=o)", "abs": "m.abs(x, out=o)",
    "sigmoid": "m.sigmoid(x, out=o)", "erf": "m.erf(x, out=o)", "logit": "m.logit(x, 0.1, out=o)",
    "nan_to_num": "m.nan_to_num(x, out=o)", "clamp": "m.clamp(x, -0.5, 0.5, out=o)",
    "clamp tensor": "m.clamp(x, x * 0, out=o)", "clamp_min": "m.clamp_min(x, 0, out=o)",
    "clamp_max tensor": "m.clamp_max(x, x.flip(0), out=o)",
    "lerp": "m.lerp(x, x * 2, 0.5, out=o)", "lerp tensor weight": "m.lerp(x, x * 2, x, out=o)",
    "addcmul": "m.addcmul(x, x, x, value=2, out=o)", "addcdiv": "m.addcdiv(x, x, x + 3, out=o)",
    "where": "m.where(x > 0, x, x * 2, out=o)", "cumsum": "m.cumsum(x, 1, out=o)",
    "cumprod": "m.cumprod(x, 0, out=o)", "logcumsumexp": "m.logcumsumexp(x, -1, out=o)",
    "softmax": "m.softmax(x, 0, out=o)", "log_softmax": "m.log_softmax(x, 1, out=o)",
    "sum dim": "m.sum(x, 1, out=o)", "mean keepdim": "m.mean(x, 0, keepdim=True, out=o)",
    "amax": "m.amax(x, 1, out=o)", "prod": "m.prod(x, 1, out=o)", "std": "m.std(x, 1, out=o)",
    "logsumexp": "m.logsumexp(x, 1, out=o)", "norm": "m.norm(x, 2, 1, out=o)",
    "max dim": "m.max(x, 1, out=(o, m.zeros(0, dtype=m.int64)))",
    "sort": "m.sort(x, 1, out=(o, m.zeros(0, dtype=m.int64)))",
    "topk": "m.topk(x, 2, 0, out=(o, m.zeros(0, dtype=m.int64)))",
    "cummax": "m.cummax(x, 0, out=(o, m.zeros(0, dtype=m.int64)))",
    "cat": "m.cat([x, x], 0, out=o)", "stack": "m.stack([x, x], 1, out=o)",
    "diff": "m.diff(x, dim=0, out=o)", "tril": "m.tril(x, out=o)",
    "gather": "m.gather(x, 0, m.zeros_like(x, dtype=m.int64), out=o)",
    "index_select": "m.index_select(x, 1, m.tensor([0, 1]), out=o)",
    "masked_select": "m.masked_select(x, x > 0, out=o)",
    "matmul": "m.matmul(x, x.transpose(-1, -2), out=o)", "kron": "m.kron(x, x, out=o)",
    "integer nan_to_num": "m.nan_to_num((x * 4).long(), out=o.long())",
    "integer abs": "m.abs((x * 4).long(), out=o.long())",
    "bitwise_and": "m.bitwise_and((x * 4).int(), 3, out=o.int())",
    "eq": "m.eq(x, 0.5, out=o.bool())", "logical_not": "m.logical_not(x, out=o.bool())",
    "signbit": "m.signbit(x, out=o.bool())",
    "bucketize": "m.bucketize(x, m.tensor([0.0, 0.5]), out=o.long())",
}


def outcome(m, call, layout):
    x = layouts(m)[layout]
    o = m.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = eval(call, {"m": m, "x": x, "o": o})  # noqa: S307 - the same call in both
        except Exception as error:  # noqa: BLE001 - comparing what each library raises
            return type(error).__name__, str(error).split("\n")[0]
    result = result[0] if isinstance(result, tuple) else result
    return (tuple(result.shape), result.stride(), str(result.dtype).split(".")[-1],
            result is o or result._base is o), result.detach().numpy()


@pytest.mark.parametrize("layout", ["permuted", "transposed", "expanded", "channels last", "sliced", "row-major"])
@pytest.mark.parametrize("name", OUT_CALLS)
def test_a_resized_out_takes_the_results_layout(name, layout):
    mine, theirs = outcome(engine, OUT_CALLS[name], layout), outcome(torch, OUT_CALLS[name], layout)
    assert mine[0] == theirs[0]
    if isinstance(theirs[1], str):
        assert mine[1] == theirs[1]
    else:  # (the values: the layout is the point here; float32 math may differ in the last bit)
        np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6, atol=1e-7, equal_nan=True)


CAT_INPUTS = {
    "channels last": "[c, c]", "channels last, dim 1": "[c, c], 1",
    "channels last and row-major": "[c, m.ones(1, 3, 4, 4)]",
    "row-major and channels last": "[m.ones(1, 3, 4, 4), c]",
    "channels last and a legacy empty": "[c, m.zeros(0)]",
    "channels last 3d": "[c3, c3]", "permuted 3-d": "[p, p]",
    "N111": "[m.ones(2, 1, 1, 1), m.ones(2, 1, 1, 1)]",
    "NC11 channels last": "[m.ones(2, 3, 1, 1).to(memory_format=m.channels_last)] * 2",
    "N1HW channels last": "[m.ones(2, 1, 3, 3).to(memory_format=m.channels_last)] * 2",
    "size-0 channels last": "[m.ones(0, 3, 2, 2).to(memory_format=m.channels_last)] * 2",
    "channels-last-like permute": "[m.ones(2, 4, 5, 3).permute(0, 3, 1, 2)] * 2",
    "transposed 4-d": "[m.ones(2, 3, 4, 5).transpose(1, 3)] * 2",
    "expanded channel": "[m.ones(2, 1, 4, 4).expand(2, 3, 4, 4)] * 2",
}


@pytest.mark.parametrize("name", CAT_INPUTS)
@pytest.mark.parametrize("with_out", [False, True])
def test_cat_keeps_a_shared_channels_last_layout(name, with_out):
    def run(m):
        c = m.arange(96.0).reshape(2, 3, 4, 4).to(memory_format=m.channels_last)
        c3 = m.arange(48.0).reshape(1, 3, 2, 4, 2).to(memory_format=m.channels_last_3d)
        p = m.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
        out = ", out=m.zeros(0)" if with_out else ""
        r = eval(f"m.cat({CAT_INPUTS[name]}{out})", {"m": m, "c": c, "c3": c3, "p": p})  # noqa: S307
        return tuple(r.shape), r.stride(), r.tolist()
    assert run(engine) == run(torch)


OUT_DTYPES = ["float64", "int64", "float16", "float32", "bool"]
BOUND_CALLS = {
    "lerp, number weight": "m.lerp(x, x, 0.5, out=o)",
    "lerp, tensor weight": "m.lerp(x, x, x, out=o)",
    "lerp, 0-d weight": "m.lerp(x, x, m.tensor(0.25), out=o)",
    "lerp, 0-d float64 weight": "m.lerp(x, x, m.tensor(0.25, dtype=m.float64), out=o)",
    "lerp, 0-d input and end": "m.lerp(x[0, 0], x[0, 0], x[0], out=o)",
    "lerp, 1-element weight": "m.lerp(x, x, m.tensor([0.25]), out=o)",
    "clamp_min, number": "m.clamp_min(x, 0.5, out=o)",
    "clamp_min, tensor": "m.clamp_min(x, x, out=o)",
    "clamp_max, int input, int bound": "m.clamp_max(x.int(), 2, out=o)",
    "clamp_max, int input, float bound": "m.clamp_max(x.int(), 2.5, out=o)",
    "clamp_max, bool input": "m.clamp_max(x > 1, True, out=o)",
    "clamp_min, out too big": "m.clamp_min(x, 0.5, out=m.zeros(7))",
    "clamp_min, requires grad": "m.clamp_min(x.requires_grad_(), 0.5, out=o)",
    "lerp, requires grad": "m.lerp(x, x.clone().requires_grad_(), 0.5, out=o)",
    "lerp, broadcast": "m.lerp(x, m.ones(3), 0.5, out=o)",
    "lerp, wrong shapes": "m.lerp(x, m.ones(4), 0.5, out=o)",
}


@pytest.mark.parametrize("dtype", OUT_DTYPES)
@pytest.mark.parametrize("name", BOUND_CALLS)
def test_lerp_and_clamp_bounds_take_out(name, dtype):
    code = (f"x = m.arange(6.0).reshape(2, 3) / 2\no = m.zeros(0, dtype=m.{dtype})\n"
            f"r = error(lambda: {BOUND_CALLS[name]}) or facts(o)")
    parity.assert_same_snippet(code, warnings_too=True)


NUMBER_FIRST = ["remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                "bitwise_right_shift"]


@pytest.mark.parametrize("name", NUMBER_FIRST)
@pytest.mark.parametrize("call", ["m.{name}(2, x, out=x)", "m.{name}(2, other=x, out=x)",
                                  "m.{name}(2, x)", "m.{name}(x, 2, out=x)", "x.{name}(2)"])
def test_a_number_input_takes_no_out(name, call):
    parity.assert_same_snippet("x = m.arange(4).reshape(2, 2)\n"
                               f"r = error(lambda: {call.format(name=name)}) or facts(x)",
                               warnings_too=True)


TO_FORMAT = {
    "transposed, contiguous_format": ("m.ones(3, 4).t()", "contiguous_format"),
    "(2, 3, 1, 1), channels_last": ("m.ones(2, 3, 1, 1)", "channels_last"),
    "(1, 3, 1, 1), channels_last": ("m.ones(1, 3, 1, 1)", "channels_last"),
    "(2, 1, 1, 1), channels_last": ("m.ones(2, 1, 1, 1)", "channels_last"),
    "(2, 1, 3, 3), channels_last": ("m.ones(2, 1, 3, 3)", "channels_last"),
    "channels last, channels_last": ("m.ones(2, 3, 4, 4).to(memory_format=m.channels_last)", "channels_last"),
    "channels last, contiguous_format": ("m.ones(2, 3, 4, 4).to(memory_format=m.channels_last)", "contiguous_format"),
    "permuted like channels last": ("m.ones(2, 4, 5, 3).permute(0, 3, 1, 2)", "channels_last"),
    "sliced channels last": ("m.ones(2, 3, 4, 8).to(memory_format=m.channels_last)[..., ::2]", "channels_last"),
    "5-d, channels_last_3d": ("m.ones(2, 3, 2, 2, 2)", "channels_last_3d"),
    "5-d channels last 3d, contiguous": ("m.ones(2, 3, 2, 2, 2).to(memory_format=m.channels_last_3d)", "contiguous_format"),
    "expanded, contiguous_format": ("m.ones(3, 1).expand(3, 4)", "contiguous_format"),
    "size 0, channels_last": ("m.ones(0, 3, 2, 2)", "channels_last"),
}


@pytest.mark.parametrize("name", TO_FORMAT)
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_to_a_memory_format_aliases_when_the_strides_suggest_it(name, dtype):
    make, fmt = TO_FORMAT[name]
    dtype = "" if dtype is None else f"m.{dtype}, "
    parity.assert_same_snippet(f"x = {make}\ny = x.to({dtype}memory_format=m.{fmt})\n"
                               "r = [y is x, y.stride(), y.is_contiguous(), facts(y)]")


# within the last bit of float32/float64 (a row's sum is added in numpy's order, not torch's:
# engine/ops/README.md), exact in float16
ULPS = {"float16": 0, "float32": 2.4e-7, "float64": 4.5e-16}


@pytest.mark.parametrize("out_dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("in_dtype", ["bool", "int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("shape, dim", [((3,), -1), ((4, 5), 1), ((2, 3, 4), (0, 2)), ((0, 3), 0), ((), 0), ((3, 2), (0, 1))])
def test_logsumexp_into_out_rounds_exp_to_the_inputs_dtype(in_dtype, out_dtype, shape, dim):
    values = np.random.default_rng(1).standard_normal(shape) * 5

    def run(m):
        x = m.tensor(values.tolist())
        x = (x > 0) if in_dtype == "bool" else x.to(getattr(m, in_dtype))
        o = m.zeros(0, dtype=getattr(m, out_dtype))
        r = m.logsumexp(x, dim, out=o)
        return r is o, str(o.dtype), tuple(o.shape), o.numpy().astype(np.float64)
    mine, theirs = run(engine), run(torch)
    assert mine[:3] == theirs[:3]
    np.testing.assert_allclose(mine[3], theirs[3], rtol=ULPS[out_dtype], atol=0)


def test_logsumexp_of_a_half_tensor_into_float64_as_found():
    parity.assert_same_snippet("x = m.tensor([True, False, False])\np = m.zeros(0, dtype=m.float64)\n"
                               "q = m.logsumexp(input=x.half(), dim=-1, out=p)\nr = [q is p, p.item()]")


def _rows_with_nans_and_zeros(seed, n, m, dtype):
    rng = np.random.default_rng(seed)
    values = rng.choice([np.nan, 0.0, -0.0, 1.0, -1.0, 2.5], size=(n, m),
                        p=[0.2, 0.15, 0.15, 0.2, 0.2, 0.1])
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("seed, n, m, dim", [(0, 2, 2, 0), (1, 4, 2, 0), (2, 5, 1, 0), (3, 17, 2, 0),
                                             (4, 40, 3, 0), (5, 64, 1, 0), (6, 33, 2, 1), (7, 6, 3, -1),
                                             (8, 100, 2, 0), (9, 3, 4, -2)])
def test_unique_rows_with_nan_and_signed_zeros_in_torchs_order(seed, n, m, dim, dtype):
    values = _rows_with_nans_and_zeros(seed, n, m, dtype)
    if dim in (1, -1):
        values = values.T.copy()

    def run(lib):
        u, inverse, counts = lib.unique(lib.from_numpy(values.copy()), return_inverse=True,
                                        return_counts=True, dim=dim)
        return u.numpy(), inverse.tolist(), counts.tolist()
    mine, theirs = run(engine), run(torch)
    np.testing.assert_array_equal(mine[0], theirs[0])
    assert np.array_equal(np.signbit(mine[0]), np.signbit(theirs[0]))
    assert mine[1:] == theirs[1:]


def test_unique_with_a_nan_row_as_found():
    parity.assert_same_snippet("x = m.tensor([[float('nan'), float('nan')], [0.6351, 0.9154]])\n"
                               "r = [str(t) for t in x.unique(True, return_inverse=True, dim=-2)]")


# torch gives the gradient layout contract's warning once per process (TORCH_WARN_ONCE): each
# case runs in a process of its own, the same program under torch and then the engine.
LAYOUT_CONTRACT = {
    "size-1 dim of stride 0 (as found, seed 2419069)":
        "x = m.zeros((2, 0), dtype=m.float64)\nz = x.unsqueeze(1)\nz.requires_grad_()",
    "row-major": "z = m.ones(2, 3, requires_grad=True)",
    "transposed": "z = m.ones(3, 2).t().requires_grad_()",
    "sliced (not dense)": "z = m.ones(4, 3)[::2].requires_grad_()",
    "expanded size-1": "z = m.ones(3, 1)[:, :1].expand(3, 1).requires_grad_()",
    "unsqueezed row": "z = m.ones(3).unsqueeze(0).requires_grad_()",
}
SECOND_GRADIENT = {"in place": "z.sum().backward()\nz.sum().backward()",
                   "create_graph": "z.sum().backward(create_graph=True)\n(z * 2).sum().backward(create_graph=True)"}
CONTRACT_CASES = [(leaf, SECOND_GRADIENT[second]) for leaf in LAYOUT_CONTRACT for second in SECOND_GRADIENT]
CONTRACT_CASES.append(("row-major", "z.sum().backward()\nz.backward(m.ones(3, 2).t())"))

LAYOUT_CONTRACT_PROGRAM = """
import json, sys, warnings
import torch, engine
found = []
for m in (torch, engine):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(sys.argv[1] + "\\n" + sys.argv[2], {"m": m})
    found.append([str(w.message) for w in caught])
print(json.dumps(found))
"""


@pytest.mark.parametrize("leaf, second", CONTRACT_CASES)
def test_the_gradient_layout_contract_warning(leaf, second):
    ran = subprocess.run([sys.executable, "-c", LAYOUT_CONTRACT_PROGRAM, LAYOUT_CONTRACT[leaf],
                          second], capture_output=True, text=True, check=True)
    theirs, mine = json.loads(ran.stdout)
    assert mine == theirs


EXPANDED = {"row expanded": ("m.tensor([[3.0, 1.0, 2.0]]).expand(4, 3)", 0),
            "column expanded": ("m.tensor([[3.0], [1.0], [2.0]]).expand(3, 4)", 1),
            "a 0-d tensor expanded": ("m.ones(()).expand(5)", 0),
            "with a nan": ("m.tensor([[3.0, float('nan'), 2.0]]).expand(4, 3)", 0),
            "a sum's gradient": ("m.autograd.grad((w := m.ones(3, 3, requires_grad=True)).sum(), w)[0]", 1)}


@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("name", EXPANDED)
def test_median_along_an_expanded_dimension_is_the_median_of_the_values(name, op):
    """notebooks/DIFFERENCES.md: torch 2.15 reads beyond the tensor here; the engine gives
    what torch gives for a contiguous copy."""
    make, dim = EXPANDED[name]
    mine = getattr(eval(make, {"m": engine}), op)(dim)  # noqa: S307
    theirs = getattr(eval(make, {"m": torch}).contiguous(), op)(dim)  # noqa: S307
    assert str(mine.values) == str(theirs.values) and mine.indices.tolist() == theirs.indices.tolist()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 13, 16, 17, 33, 70])
def test_nanmedian_of_a_row_of_nans_picks_torchs_index(n):
    """torch's std::nth_element with a comparison that is always false (every element nan)
    leaves its own order: replayed."""
    parity.assert_same_snippet(f"x = m.full(({n}, 3), float('nan'))\nx[0, 2] = 1.0\n"
                               "r = [x.nanmedian(0).indices.tolist(), x.t().nanmedian(1).indices.tolist(),"
                               " x[:, 0].nanmedian(0).indices.item()]")


TENSORDOT_FULL = {
    "a strided column (as found, seed 2313432)": ("(m.arange(4.0) / 3 - 0.5).reshape(2, 2).requires_grad_()", "x[..., ::2]", 2),
    "transposed pair": ("(m.arange(12.0) / 5 - 1).reshape(3, 4).requires_grad_()", "x.t().detach().clone()", ([0, 1], [1, 0])),
    "both contiguous": ("(m.arange(12.0) / 5 - 1).reshape(3, 4).requires_grad_()", "m.ones(3, 4)", 2),
    "a size-1 dim on the left": ("(m.arange(3.0) - 1).reshape(1, 3).requires_grad_()", "m.ones(2, 3)[:1]", 2),
    "vectors": ("(m.arange(5.0) / 2 - 1).requires_grad_()", "x.flip(0).detach()", 1),
    "a strided vector": ("(m.arange(6.0) / 2 - 1).requires_grad_()", "x[::2].detach()[:3]", ([0], [0])),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("name", TENSORDOT_FULL)
def test_tensordot_to_one_number_dot_or_mul_and_sum(name, dtype):
    """torch's full contraction: dot when both permuted operands are contiguous, else
    (a.squeeze() * b.squeeze()).sum(): the nodes and the bool result as torch's."""
    make_x, make_y, dims = TENSORDOT_FULL[name]
    grad = dtype.startswith("float")
    code = (f"x = {make_x}\nx = x if {grad} else x.detach().to(m.{dtype})\ny = {make_y}\n"
            "y = y.to(x.dtype)\n"
            f"def contract():\n    return m.tensordot(x, y{'' if dims == 2 else ', ' + repr(dims)})\n"
            "r = error(contract)\nif r is None:\n    v = contract()\n    nodes = []\n"
            "    node = v.grad_fn\n    while node is not None:\n        nodes.append(node.name())\n"
            "        node = node.next_functions[0][0] if node.next_functions else None\n"
            "    r = [facts(v), nodes]")
    parity.assert_same_snippet(code)


AMAX_INPUTS = {"transposed": "m.tensor([[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]]).t()",
               "permuted": "(m.arange(24.0) % 5).reshape(2, 3, 4).permute(2, 0, 1)",
               "row-major": "m.tensor([[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]])",
               "channels last": "(m.arange(48.0) % 7).reshape(1, 3, 4, 4).to(memory_format=m.channels_last)",
               "0-d": "m.tensor(2.5)"}


@pytest.mark.parametrize("call", ["amax()", "amin()", "amax(0)", "amin(-1, keepdim=True)",
                                  "amax((0, 1))", "amin(dim=1)"])
@pytest.mark.parametrize("name", AMAX_INPUTS)
def test_amax_amin_gradients_take_the_inputs_layout(name, call):
    """torch restores the reduced dims as size 1 (no expand), so the gradient is laid out as
    the input (found beside fuzz round 8: a transposed matrix's gradient)."""
    if name == "0-d" and any(c.isdigit() for c in call):
        call = call.split("(")[0] + "()"
    parity.assert_same_snippet(f"w = {AMAX_INPUTS[name]}.requires_grad_()\n"
                               f"r = error(lambda: w.{call})\n"
                               f"if r is None:\n    g, = m.autograd.grad(w.{call}.sum(), w)\n"
                               "    r = [g.stride(), facts(g)]")


@pytest.mark.parametrize("out_dtype", [None, "float64", "float32", "float16", "int64", "bool"])
@pytest.mark.parametrize("input_dtype", ["float16", "float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("exponent_dtype", ["bool", "int32", "float32"])
def test_ldexp_of_a_bool_exponent_into_another_dtype(input_dtype, exponent_dtype, out_dtype):
    out = "" if out_dtype is None else f", out=m.zeros(0, dtype=m.{out_dtype})"
    parity.assert_same_snippet(f"x = m.tensor([1.0, 2.0, 3.0]).to(m.{input_dtype})\n"
                               f"e = m.tensor([True, False, True]).to(m.{exponent_dtype})\n"
                               f"r = error(lambda: m.ldexp(x, e{out})) or facts(m.ldexp(x, e{out}))")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(6))
def test_histc_places_elements_by_torchs_arithmetic(seed, dtype):
    """torch's kernel: (x - left) * bins / (right - left) in the dtype, truncated; an element
    on an inner edge may fall below it (fuzz 2422941: one value, its own range v - 1 .. v + 1)."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        size = int(rng.integers(0, 10))
        values = (rng.standard_normal(size) * rng.choice([1, 10, 1e-3, 1e5])).astype(dtype)
        if size and rng.random() < 0.3:
            values[:] = values[0]
        bins = int(rng.integers(1, 9))
        low, high = (0, 0) if rng.random() < 0.6 else sorted(rng.standard_normal(2).tolist())
        found = [m.histc(m.tensor(values.tolist(), dtype=getattr(m, dtype)), bins, low, high).tolist()
                 for m in (torch, engine)]
        assert found[1] == found[0], (values, bins, low, high)


def test_histc_of_one_value_as_found():
    parity.assert_same_snippet("r = [m.histc(m.tensor(v), 2).tolist() for v in (4.6893, 7.25, 0.1, -3.3, 1e5 + 0.3)]")


NUMPY_OPERANDS = {
    "x += array, no_grad, x requires grad (as found, seed 2422700)":
        "x = m.ones(1, requires_grad=True)\nwith m.no_grad():\n    x += np.ones(1, dtype=np.float32)\nr = facts(x)",
    "numpy() under no_grad": "x = m.ones(2, requires_grad=True)\nwith m.no_grad():\n    r = x.numpy().tolist()",
    "numpy() with grad": "x = m.ones(2, requires_grad=True)\nr = error(lambda: x.numpy())",
    "array / tensor": "r = facts(np.array([1.0, 3.0], dtype=np.float32) / m.tensor([2.0, 4.0]))",
    "array / tensor that requires grad": "x = m.tensor([2.0, 4.0], requires_grad=True)\nr = error(lambda: np.ones(2) / x)",
    "array / tensor, no_grad": "x = m.tensor([2.0, 4.0], requires_grad=True)\nwith m.no_grad():\n    r = facts(np.ones(2) / x)",
}


@pytest.mark.parametrize("name", NUMPY_OPERANDS)
def test_numpy_operands_and_numpy_under_no_grad(name):
    """torch's numpy() refuses a tensor that requires grad only while grad mode is on; `array /
    tensor` is torch's Python reciprocal-times, which numpy then computes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (numpy 2 on __array_wrap__, both)
        parity.assert_same_snippet("import numpy as np\n" + NUMPY_OPERANDS[name])


DEPRECATED_WITH_OUT = {
    "sub, alpha first, out=, requires grad (as found, seed 2438664)":
        "b = m.ones(2, 2, requires_grad=True)\nr = error(lambda: m.sub(b, m.tensor(2.0), 2, out=m.zeros(0)))",
    "add, alpha first, out=, requires grad": "b = m.ones(2, requires_grad=True)\nr = error(lambda: m.add(b, 2, b, out=m.zeros(0)))",
    "addcmul, value first, out=, requires grad":
        "b = m.ones(2, requires_grad=True)\nr = error(lambda: m.addcmul(b, 2, b, b, out=m.zeros(0)))",
    "sub, alpha first, out=": "b = m.ones(2)\nr = facts(m.sub(b, 3, b, out=m.zeros(0)))",
}


@pytest.mark.parametrize("name", DEPRECATED_WITH_OUT)
def test_a_deprecated_overload_warns_before_out_is_refused(name):
    """torch's parser warns of a deprecated overload before autograd refuses out= (once per
    process: each case in a process of its own, as the layout contract's)."""
    ran = subprocess.run([sys.executable, "-c", DEPRECATED_PROGRAM, DEPRECATED_WITH_OUT[name]],
                         capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(parity.__file__).parent))
    theirs, mine = json.loads(ran.stdout)
    assert mine == theirs and theirs[1], theirs  # (torch warned: the case is a real one)


DEPRECATED_PROGRAM = """
import json, sys, warnings
import torch, engine
import parity
found = []
for m in (torch, engine):
    scope, warned = parity.run_snippet(sys.argv[1], m)
    found.append([str(parity.snippet_facts(scope["r"])), warned])
print(json.dumps(found))
"""


INFERENCE_DETACHED = {
    "w.data": "w.data", "w.detach()": "w.detach()", "v.data": "v.data", "v.detach()": "v.detach()",
    "v.view(2)": "v.view(2)", "w.data.data": "w.data.data", "v[0:1]": "v[0:1]",
    "w.data.view(2)": "w.data.view(2)", "w.detach().detach()": "w.detach().detach()",
}


@pytest.mark.parametrize("make", INFERENCE_DETACHED)
@pytest.mark.parametrize("inside", [False, True])
def test_detach_and_data_of_an_inference_tensor_count_their_own_versions(make, inside):
    """torch: detach() and .data of an inference tensor made outside inference_mode are
    inference tensors with a version counter of their own (fuzz 2454917: w.data -= ...)."""
    code = ("with m.inference_mode():\n    w = m.rand(2, requires_grad=True)\n    v = m.ones(2)\n"
            + (f"with m.inference_mode():\n    d = {make}\n" if inside else f"d = {make}\n")
            + "r = [d.is_inference(), error(lambda: d._version) or d._version,\n"
              "     error(lambda: d.sub_(1)) or d._version, error(lambda: d.detach().sub_(1))]")
    parity.assert_same_snippet(code)


def test_the_gradient_step_on_an_inference_weight_as_found():
    parity.assert_same_snippet(
        "m.manual_seed(0)\nx = m.rand(1, 1)\nz = x * m.tensor(1)\nwith m.inference_mode():\n"
        "    w = m.rand(1, 1, requires_grad=True)\nb = m.mul(w, z)\nb.backward(m.full_like(b, 0.0))\n"
        "w.data -= 0.0 * w.grad\nr = [facts(w), w.grad.tolist()]")


SETITEM_NUMBER = ["y[i.int()] = 1.0", "y[i.float()] = 1.0", "y[i.float()] = m.tensor(1.0)",
                  "y[i.view(2, 1)] = 1.0", "y[i[None]] = 1.0", "y[m.tensor(1)] = 1.0",
                  "y[m.tensor(1.5)] = 1.0", "i[i] = 5", "i[i.clone()] = 5", "i[i[0:1]] = 5",
                  "i[i] = m.tensor(5)", "y[y[0].long()] = 1.0", "y[:, y[0].long()] = 2.0",
                  "y[y] = False", "y[y] = 1.0", "y[y] = m.tensor(2.0)", "y[y, 0] = 1.0",
                  "b[b] = False", "y[y.bool()] = 3.0", "y[y[0]] = 1.0", "y[:, 0][y[:, 0]] = 1",
                  "y[y] += 1", "y[[0, 1]] = y[[1, 0]]", "y[i.int(), 0] = 7", "y[i.short()] = 2",
                  "y[i.int()] = 1e40", "w[i.int()] = 1.0", "w.detach()[i.int()] = 1.0"]


@pytest.mark.parametrize("code", SETITEM_NUMBER)
def test_setitem_of_a_number_takes_torchs_path_by_the_index_dtype(code):
    """torch's x[index] = number: index_fill_ for an int64 index (which may not share x's
    memory: i[i] = 5 is refused), index_put_ of the number as a tensor otherwise (an int32
    index works; a float index's error comes after the overlap check: fuzz 2468911)."""
    parity.assert_same_snippet(
        "y = m.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])\ni = m.tensor([0, 1])\n"
        "b = m.tensor([True, False])\nw = m.ones(2, 3, requires_grad=True)\n"
        f"def run():\n    {code}\n"
        "r = error(run) or [y.tolist(), i.tolist(), b.tolist(), y._version, i._version]")


LDEXP_SHAPES = [((), (3,), "float32", "int64"), ((2, 1), (3,), "float64", "int32"),
                ((0,), (1,), "float32", "int64"), ((3,), (3,), "float32", "int64"),
                ((1,), (3,), "float16", "int64"), ((3,), (1,), "float32", "int64"),
                ((), (3,), "float32", "float32"), ((1,), (3,), "int64", "int64"),
                ((1,), (3,), "float32", "uint8"), ((1,), (3,), "float32", "bool")]


@pytest.mark.parametrize("out", [None, 0, 5])
@pytest.mark.parametrize("shapes", LDEXP_SHAPES)
def test_ldexp_warns_as_its_kernel_resizes_an_output_shaped_like_input(shapes, out):
    """torch's ldexp of a float input and an integer exponent writes into an output shaped
    like the input, then resized, with the out= warning (fuzz 2469206)."""
    a, b, ad, bd = shapes
    given = "" if out is None else f", out=m.zeros({out}, dtype=m.{ad})"
    parity.assert_same_snippet(
        f"x = m.ones({a}, dtype=m.{ad})\ne = m.ones({b}, dtype=m.{bd})\n"
        f"r = error(lambda: m.ldexp(x, e{given})) or facts(m.ldexp(x, e{given}))", warnings_too=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["a row times a matrix", "up to 4 terms", "a float32 dot"])
def test_small_products_add_term_by_term_as_torch(kind, dtype):
    """torch's kernels for small products round each term and add them in order (numpy's BLAS
    fuses them): bit for bit where that was measured to hold on every product (fuzz 2472335:
    a cancelling gradient is exactly 0, not 7e-9; 2468285: an inverse's gradient)."""
    if kind == "a float32 dot" and dtype == "float64":
        dtype = "float32"
    rng = np.random.default_rng(7)
    for _ in range(150):
        rows = 1 if kind == "a row times a matrix" else int(rng.integers(1, 4))
        terms = int(rng.integers(1, 40)) if kind != "up to 4 terms" else int(rng.integers(1, 5))
        columns = int(rng.integers(2 if kind == "a float32 dot" else 1, 16))
        a = rng.standard_normal((rows, terms)).astype(dtype)
        b = rng.standard_normal((terms, columns)).astype(dtype)
        for make in ((lambda m, x, y: m.mm(x, y)), (lambda m, x, y: x[0] @ y),
                     (lambda m, x, y: m.matmul(x, y))):
            if kind == "a float32 dot":  # (of a strided vector: contiguous ones go to BLAS)
                make = (lambda m, x, y: m.dot(x[0], y[:, 0]))  # noqa: E731
            found = [make(m, m.from_numpy(a.copy()), m.from_numpy(b.copy())).numpy()
                     for m in (torch, engine)]
            np.testing.assert_array_equal(found[1], found[0])


CANCELLING = {
    "a mean's gradient through mm (as found, seed 2472335)":
        "x = m.tensor([[0.5, 0.0], [2.0, 0.0], [-2.5, 0.0]])\nm.manual_seed(0)\n"
        "y = m.randn(2, 2, requires_grad=True)\nloss = x.mm(y).mean()\nloss.backward()\nr = y.grad.tolist()",
    "an inverse's gradient (as found, seed 2468285)":
        "z = m.tensor([[2.0, 2.0], [0.5, 4.0]], dtype=m.float64).requires_grad_()\n"
        "m.inverse(z.flip(1)).sum().backward()\nr = [str(z.grad)]",
    "float32 too": "z = m.tensor([[2.0, 2.0], [0.5, 4.0]]).requires_grad_()\n"
                   "m.inverse(z.flip(1)).sum().backward()\nr = [str(z.grad)]",
}


@pytest.mark.parametrize("name", CANCELLING)
def test_cancelling_small_products_as_found(name):
    parity.assert_same_snippet(CANCELLING[name])


RETURN_TYPES = {"cummax": "m.cummax(x, 0)", "max": "x.max(0)", "sort": "x.sort()", "aminmax": "x.aminmax()",
                "slogdet": "x.slogdet()", "inv_ex": "m.linalg.inv_ex(x)", "svd": "m.svd(x)",
                "linalg_svd": "m.linalg.svd(x)", "solve_ex": "m.linalg.solve_ex(x, x)"}


@pytest.mark.parametrize("name", RETURN_TYPES)
def test_return_types_name_themselves_as_torchs(name):
    """torch.return_types.<op> in an AttributeError and in an invalid-combination message's
    first line (fuzz 2482861: where(c, x, cummax(...)); 2491843: slogdet(...).clone())."""
    parity.assert_same_snippet(f"x = m.tensor([[2.0, 1.0], [1.0, 3.0]])\ny = {RETURN_TYPES[name]}\n"
                               "r = [str(error(f)).split(chr(10))[0] for f in\n"
                               "     (lambda: y.clone(), lambda: m.where(x > 0, x, y))]")


@pytest.mark.parametrize("op", ["bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
                                "bitwise_right_shift_", "__ilshift__", "__irshift__", "__iand__",
                                "lerp_", "gcd_", "fmod_"])
@pytest.mark.parametrize("number", [1.5, 2, True, 0.0])
def test_an_integer_in_place_op_with_a_float_number(op, number):
    """torch promotes the number first: Float can't be cast to Long, before any kernel says
    it has no Float loop (fuzz 2490352, 2498286); lerp_'s number weight is not promoted."""
    args = f"x, {number!r}" if op == "lerp_" else repr(number)
    parity.assert_same_snippet(f"x = m.tensor([[1, 1, 1], [1, 1, 1]])\nf = getattr(x, {op!r})\n"
                               f"r = error(lambda: f({args})) or facts(x)")


def test_ldexp_in_place_does_not_warn_of_a_resize():
    parity.assert_same_snippet("b = m.tensor(0.0)\nc = m.tensor([1])\n"
                               "r = error(lambda: b.clone().ldexp_(c))", warnings_too=True)


@pytest.mark.parametrize("call", ["m.zeros_like(None)", "m.rand_like(None)", "m.randn_like(2.0)",
                                  "m.randn_like(None, requires_grad=True)", "m.rand_like(None, dtype=m.float32)",
                                  "m.randint_like(None, 3)", "m.randint_like([1], 0, 3)"])
def test_random_like_of_something_not_a_tensor(call):
    """torch's parser's TypeError, not an AttributeError from inside (fuzz 2704265:
    randn_like of backward()'s None)."""
    parity.assert_same_snippet(f"r = error(lambda: {call})")


@pytest.mark.parametrize("exponent", ["int64", "bool", "float32"])
@pytest.mark.parametrize("shapes", [((0,), (3,)), ((2,), (3,)), ((2, 1), (3,))])
@pytest.mark.parametrize("out", [False, True])
def test_ldexp_of_shapes_that_do_not_broadcast(shapes, exponent, out):
    """torch's shapes error, first (fuzz 2718741: ldexp(input=tensor([]), other=[0, 1, 1]))."""
    given = ", out=m.zeros(2)" if out else ""
    parity.assert_same_snippet(f"r = error(lambda: m.ldexp(input=m.ones({shapes[0]}), "
                               f"other=m.ones({shapes[1]}, dtype=m.{exponent}){given}))")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16", "bool"])
def test_cross_entropy_names_a_wrong_target_dtype_as_torch(dtype):
    """torch's scalar type names: Float, Double, Int (fuzz 2701745: "got Float32")."""
    parity.assert_same_snippet(f"x = m.ones(2, 3)\nt = m.zeros(2, dtype=m.{dtype})\n"
                               "r = [error(lambda: m.nn.CrossEntropyLoss()(x, t)), error(lambda: m.nn.functional.nll_loss(x, t))]")


@pytest.mark.parametrize("base", ["-0.0", "0.0", "-inf", "inf", "4.0", "-4.0", "nan"])
@pytest.mark.parametrize("exponent", ["m.tensor(0.5, dtype=m.float64)", "m.tensor([0.5], dtype=m.float64)",
                                      "m.tensor(0.5, dtype=m.float64).expand(3)", "m.tensor(2.0, dtype=m.float64)",
                                      "m.tensor(-0.5, dtype=m.float64)", "m.tensor(-1.0, dtype=m.float64)",
                                      "0.5", "m.tensor(0.5)"])
def test_float64_power_by_a_tensor_is_cs_pow(base, exponent):
    """torch's tensor ** tensor calls C's pow for each element; numpy's power takes a 0-d or
    stride-0 exponent of 0.5 as sqrt: (-inf) ** tensor(0.5) was nan, torch's inf; -0.0 gave
    -0.0, torch's 0.0 (fuzz 2713808: float_power(-0.0, tensor(0.5)))."""
    parity.assert_same_snippet(
        f"x = m.tensor([float('{base}')] * 3, dtype=m.float64)\ne = {exponent}\n"
        "r = [str(m.pow(x, e)), str(m.float_power(x.float(), e)), str(m.pow(x[0], e))]")
