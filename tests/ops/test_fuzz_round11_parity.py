"""Fuzz round eleven (seeds 2900000 and on, pinned to AVX2) and the scans it led to, against
torch 2.15: what a node keeps for backward, and the legacy constructors of a tensor.

- 2931834: sgn's node keeps its input and its result, as torch's does (its formula, for
  complex numbers, reads both), so changing either in place before a backward through it is
  caught: abs's gradient with create_graph=True goes through sgn.
- A scan of every public function, functional and method under saved_tensors_hooks: aminmax
  keeps its two results as results (an in-place change names aminmax's node, not the later
  one); torch.Tensor(t), torch.FloatTensor(t) and t.new(u) return an alias recorded as
  AliasBackward0 (torch.Tensor of any dtype, the typed ones and new() of theirs only, with
  torch's TensorOptions message), and torch.Tensor(sizes) takes the default dtype.
"""
import math
import warnings

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


_outcome = parity.outcome  # (what code leaves in r, or its error)


KEPT_BY_SIGN_NODES = [
    "y = x.sgn()\nwith m.no_grad(): x.mul_(2)\ny.sum().backward()",
    "y = x.sgn()\ny.add_(1)\ny.sum().backward()",
    "b, = m.autograd.grad(x.abs().sum(), x, create_graph=True)\n"
    "with m.no_grad(): x.add_(1)\nb.sum().backward()",
    "b, = m.autograd.grad(m.nn.functional.l1_loss(x, m.zeros(3)), x, create_graph=True)\n"
    "with m.no_grad(): x.add_(1)\nb.sum().backward()",
    "y = x.sign()\nwith m.no_grad(): x.mul_(2)\ny.sum().backward(); r = x.grad",
    "y = x.sgn()\nr = [y.grad_fn._saved_self is x, y.grad_fn._saved_result.tolist()]",
    "y = x.sgn()\ny.sum().backward()\nr = y.grad_fn._saved_self",
    "mn, mx = x.aminmax()\nmn.mul_(2)\n(mn + mx).backward()",
    "mn, mx = x.aminmax()\nmx.add_(1)\n(mn + mx).backward()",
    "mn, mx = x.aminmax(dim=0)\nr = [mn.grad_fn._saved_min.tolist(), "
    "mx.grad_fn._saved_max.tolist(), mx.grad_fn._saved_self is x]",
    "mn, mx = x.aminmax()\n(mn * 2 + mx).backward()\nr = x.grad",
    # an output after the first, changed in place: torch names its number
    "U, S, Vh = m.linalg.svd(m.stack([x, x.flip(0) * 2]), full_matrices=False)\nVh.mul_(2)\n"
    "(S.sum() + Vh.sum()).backward()",
    "U, S, Vh = m.linalg.svd(m.stack([x, x.flip(0) * 2]), full_matrices=False)\nS.mul_(2)\n"
    "(S.sum() + U.sum()).backward()",
    "mantissa, exponent = x.frexp()\nexponent.add_(1)\nmantissa.sum().backward()",
    "sign, logabsdet = m.linalg.slogdet(m.outer(x, x) + m.eye(3))\nsign.mul_(1)\n"
    "logabsdet.backward()",
    "values, indices = x.cummax(0)\nvalues.mul_(2)\nvalues.sum().backward(); r = x.grad",
]


@pytest.mark.parametrize("code", KEPT_BY_SIGN_NODES)
def test_what_sgn_and_aminmax_keep_for_backward(code):
    def run(m):
        x = m.tensor([2.0, -1.0, 0.0], requires_grad=True)
        return _outcome(m, code, {"x": x})

    parity.run_both(run, check_inputs=False)


def test_saved_tensors_hooks_see_what_sgn_and_aminmax_keep():
    def run(m):
        x = m.tensor([[2.0, -1.0], [0.5, 3.0]], requires_grad=True)
        log = []

        def pack(t):
            log.append((tuple(t.shape), t is x, t.requires_grad))
            return t

        with m.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            x.sgn()
            x.aminmax()
            x.aminmax(dim=1, keepdim=True)
        return log

    parity.run_both(run, check_inputs=False)


LEGACY_CONSTRUCTIONS = [
    "r = m.Tensor(f)", "r = m.Tensor(i)", "r = m.Tensor(d)", "r = m.FloatTensor(i)",
    "r = m.LongTensor(f)", "r = m.HalfTensor(f)", "r = m.BoolTensor(i)", "r = m.DoubleTensor(d)",
    "r = m.ByteTensor(i)", "r = f.new(i)", "r = f.new(d)", "r = i.new(i)",
    "r = [m.Tensor(f) is f, m.Tensor(f)._base is f, f.new(f)._base is f]",
    "r = m.Tensor(x)", "r = [m.Tensor(x).is_leaf, m.Tensor(x).grad_fn.name()]",
    "r = m.Tensor(x[0]).grad_fn.name()", "y = m.Tensor(f); y.add_(1); r = [f, f._version]",
    "(m.Tensor(x) * 2).sum().backward(); r = x.grad", "r = m.Tensor(f, device='cpu')",
    "r = f.new(f, device='cpu')", "r = m.FloatTensor(f, device='cpu')",
    "with m.no_grad(): y = m.Tensor(x)\nr = [y.grad_fn, y.requires_grad, y._base is x]",
    "m.set_default_dtype(m.float64)\ntry:\n    r = [m.Tensor(2).dtype, m.Tensor([1]).dtype, "
    "m.FloatTensor([1]).dtype, f.new([1]).dtype, m.Tensor(f).dtype]\n"
    "finally:\n    m.set_default_dtype(m.float32)",
]


@pytest.mark.parametrize("code", LEGACY_CONSTRUCTIONS)
def test_legacy_constructors_of_a_tensor(code):
    def run(m):
        names = {"i": m.tensor([1, 2]), "f": m.tensor([1.0, 2.0]),
                 "d": m.tensor([1.0, 2.0], dtype=m.float64),
                 "x": m.tensor([[0.5, -1.25], [2.0, 3.0]], requires_grad=True)}
        return _outcome(m, code, names)

    parity.run_both(run, check_inputs=False)


# frexp: new in the engine (the version check on its kept exponent needs it)
FREXP_VALUES = [0.0, -0.0, 1e-45, 3e38, float("inf"), float("-inf"), float("nan"), 5.5, -0.3,
                6e-8, 1e-300, 1e300, 65504.0, 1.0, -2.0, 0.75, 7e-39]
FREXP_CODE = [
    "r = m.frexp(t)", "r = t.frexp()", "r = m.frexp(input=t).exponent", "r = m.frexp(t)[0]",
    "r = [m.frexp(t).mantissa.stride(), m.frexp(t.flip(0)).exponent.dtype]",
    "r = m.frexp(t, out=(m.empty(0, dtype=t.dtype), m.empty(0, dtype=m.int32)))",
    "r = m.frexp(t, out=(m.empty(0, dtype=m.float64 if t.dtype != m.float64 else m.float32), "
    "m.empty(0, dtype=m.int32)))",
    "r = m.frexp(t, out=(m.empty(0, dtype=t.dtype), m.empty(0, dtype=m.int64)))",
    "r = m.frexp(t, out=(m.empty(0, dtype=t.dtype),))", "r = m.frexp(t, out=m.empty(0))",
    "r = m.frexp(t, out=(m.empty(0, dtype=t.dtype), 3))", "r = m.frexp(t.int())",
    "r = m.frexp(t > 0)",
    "x = t.clone().requires_grad_()\nmt, e = m.frexp(x)\nmt.sum().backward()\n"
    "r = [x.grad, mt.grad_fn.name(), e.requires_grad, e.grad_fn]",
    "x = t.clone().requires_grad_()\ng, = m.autograd.grad(m.frexp(x)[0].sum(), x, "
    "create_graph=True)\nr = [g, g.requires_grad]",
    "x = t.clone().requires_grad_()\nmt, e = m.frexp(x)\ne.add_(1)\nmt.sum().backward()",
    "x = t.clone().requires_grad_()\nr = m.frexp(x, out=(m.empty(0, dtype=t.dtype), "
    "m.empty(0, dtype=m.int32)))",
    "r = m.func.jvp(lambda a: m.frexp(a)[0], (t,), (m.ones_like(t),))",
    "r = m.frexp(t[:0].reshape(0, 1))", "r = m.frexp(t[7])",
]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("code", FREXP_CODE)
def test_frexp(code, dtype):
    def run(m):
        t = m.tensor(FREXP_VALUES, dtype=getattr(m, dtype))
        return _outcome(m, code, {"t": t})

    parity.run_both(run, check_inputs=False)


# ldexp of a float64 or float16 input: torch raises a 0-d tensor 2.0 of the input's dtype to
# the power other, so a 0-d other computes in their common dtype; then mul's own rounding
# (fuzz 5001289: float64 x and a 0-d float16 exponent)
@pytest.mark.parametrize("input_dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("other_dtype", ["float16", "float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("shapes", [((2,), ()), ((), ()), ((2,), (1,)), ((), (1,))], ids=str)
def test_ldexp_with_a_zero_dim_exponent(shapes, other_dtype, input_dtype):
    values = [0.999, -0.3, 2.7, 0.1, -4.33, 1000.0, -17.5, float("nan"), float("inf")]

    def run(m):
        results = []
        for value in values:
            x = m.full(shapes[0], 0.75, dtype=getattr(m, input_dtype))
            exponent = value if "float" in other_dtype else 3
            y = m.full(shapes[1], exponent, dtype=getattr(m, other_dtype))
            results.append(m.ldexp(x, y))
        return results

    parity.run_both(run)


# histc's "range of [nan, nan]": a single nan keeps its own sign, more give -nan (fuzz 5001426)
@pytest.mark.parametrize("code", [
    "t = m.tensor([nan])", "t = m.tensor([-nan])", "t = m.tensor([nan, nan])",
    "t = m.tensor([-nan, 1.0])", "t = m.tensor([0.0]) / m.tensor([0.0])",
    "t = m.tensor([nan], dtype=m.float64)", "t = m.tensor([-nan], dtype=m.float16)",
    "t = m.tensor([nan] * 20)"])
def test_histc_of_nan_names_its_sign(code):
    def run(m):
        scope = {"m": m, "nan": float("nan")}
        exec(code, scope)
        return _outcome(m, "r = m.histc(t, 3, min=1, max=1)", {"t": scope["t"]})

    parity.run_both(run, check_inputs=False)


# each node shows the _saved_ attributes torch's shows (its own bookkeeping stays hidden);
# aminmax's results as min and max, pairwise_distance's order as p (scan of every function)
SAVED_ATTRIBUTE_CALLS = [
    "m.aminmax(v)", "v.aminmax(dim=0)", "v.exp()", "v.sigmoid()", "v.sgn()", "v.sign()",
    "v.round()", "v.round(decimals=1)", "v.var()", "v.std(0)", "v.mean(0)", "m.var_mean(v)",
    "m.std_mean(v, 0)", "v.unbind(0)", "m.block_diag(v, v)", "m.floor_divide(v, 2.0)",
    "m.nn.functional.pairwise_distance(v, v.flip(0))", "m.frexp(v)", "m.Tensor(v)",
    "v.sort(0)", "v.max(0)", "v.norm()", "m.cdist(v, v)", "v.clamp(0, 1)", "v.pow(2)",
    "m.linalg.svd(v, full_matrices=False)", "v.cummax(0)", "v.prod(0)", "v.logsumexp(0)",
]


@pytest.mark.parametrize("call", SAVED_ATTRIBUTE_CALLS)
def test_nodes_show_torchs_saved_attributes(call):
    def run(m):
        v = m.tensor([[0.5, -1.25, 2.0], [3.0, 0.25, -2.0]], requires_grad=True)
        results = eval(call, {"m": m, "v": v})
        shown = []
        for result in results if isinstance(results, tuple) else (results,):
            node = getattr(result, "grad_fn", None)
            if node is None:
                shown.append(None)
                continue
            names = [a for a in dir(node) if a.startswith("_saved_") and a != "_saved_names"]
            shown.append(sorted(a for a in names if _readable(node, a)))
        return shown

    parity.run_both(run, check_inputs=False)


def _readable(node, name):
    try:
        getattr(node, name)
    except AttributeError:
        return False
    return True


# each operand kept only for the gradients that read it, as torch keeps it: with one operand
# not requiring grad, changing the other in place before backward is caught exactly where
# torch catches it (hypot, copysign, nextafter, ldexp kept more; gather kept less: its input)
KEEPING_BINARY = {
    "mul": "a * b", "div": "a / b", "pow": "a ** b", "atan2": "m.atan2(a, b)",
    "hypot": "m.hypot(a, b)", "maximum": "m.maximum(a, b)", "fmin": "m.fmin(a, b)",
    "xlogy": "m.xlogy(a, b)", "copysign": "m.copysign(a, b)", "logaddexp": "m.logaddexp(a, b)",
    "logaddexp2": "m.logaddexp2(a, b)", "lerp": "m.lerp(a, b, 0.3)", "lerp_t": "m.lerp(a, b, b)",
    "where": "m.where(a > 0, a, b)", "matmul": "a @ b", "mm": "m.mm(a, b)",
    "cdist": "m.cdist(a, b)", "addcmul": "m.addcmul(a, a, b)", "addcdiv": "m.addcdiv(a, a, b)",
    "clamp_t": "a.clamp(min=b)", "fmod": "m.fmod(a, b)", "remainder": "m.remainder(a, b)",
    "ldexp": "m.ldexp(a, b)", "float_power": "m.float_power(a, b)",
    "mse": "m.nn.functional.mse_loss(a, b)", "smooth_l1": "m.nn.functional.smooth_l1_loss(a, b)",
    "bce_logits": "m.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid())",
    "kl_div": "m.nn.functional.kl_div(a, b, reduction='batchmean')",
    "cosine_similarity": "m.nn.functional.cosine_similarity(a, b)",
    "linear": "m.nn.functional.linear(a, b)", "kron": "m.kron(a, b)",
    "cross": "m.linalg.cross(a, b)", "nextafter": "m.nextafter(a, b)",
    "gather": "a * b.gather(0, m.tensor([[0, 1, 2]]))",
    "solve": "m.linalg.solve(a + 3 * m.eye(3), b)",
    "addmm": "m.addmm(a, a, b)", "addr": "m.addr(a, a[0], b[0])", "diff": "a.diff(0) @ b",
    "heaviside": "m.heaviside(a, b)", "softmax_mul": "a.softmax(0) * b",
}


@pytest.mark.parametrize("changed", ["the other", "itself"])
@pytest.mark.parametrize("grad_of", ["a", "b"])
@pytest.mark.parametrize("name", list(KEEPING_BINARY))
def test_an_operand_changed_before_backward(name, grad_of, changed):
    def run(m):
        a = m.tensor([[0.5, -1.25, 2.0], [3.0, 0.25, -2.0], [1.5, -0.5, 0.75]],
                     requires_grad=grad_of == "a")
        b = m.tensor([[1.5, 0.75, -0.5], [2.0, -3.0, 1.0], [-1.0, 2.5, 0.5]],
                     requires_grad=grad_of == "b")
        code = (f"y = {KEEPING_BINARY[name]}\nwith m.no_grad():\n    "
                f"{'ab'[(grad_of == 'a') == (changed == 'itself')]}.mul_(2)\n"
                "y.sum().backward()\nr = [a.grad, b.grad]")
        return _outcome(m, code, {"a": a, "b": b})

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(run, check_inputs=False)


# diff(n=0): torch's copy of the input (zeros_like, then copy_: version 1, CopyBackwards),
# prepend and append checked but left out (the engine returned the input itself)
DIFF_CODE = ["r = x.diff(0)", "r = m.diff(x, n=0, dim=0)", "r = x.t().diff(0)",
             "r = x.diff(0, prepend=x)", "r = x.diff(0, append=x[:1])",
             "r = x.diff(0, 0, append=x[:1])",
             "r = x.diff(0, prepend=x[0])", "r = x.diff(1, append=x[:1])", "r = x.diff(5, 0)",
             "r = x[:, ::2].diff(0)", "r = (x > 0).diff(0)", "r = x.diff(0, 5)",
             "r = x.diff(0, 5, prepend=x)", "r = x[:, :0].diff(0)",
             "d = x.diff(0)\nwith m.no_grad(): d.add_(1)\nr = [x, x._version, d._version]",
             "d = x.diff(0)\nd.sum().backward()\nr = [x.grad, d.grad_fn.name()]"]


@pytest.mark.parametrize("code", DIFF_CODE)
def test_diff_of_order_zero_is_a_copy(code):
    def run(m):
        x = m.tensor([[0.5, -1.25, 2.0], [3.0, 0.25, -2.0]], requires_grad=True)
        return _outcome(m, code, {"x": x})

    parity.run_both(run, check_inputs=False)


# cat and stack read their inputs' histories before comparing shapes, as torch's autograd
# does: a view made in inference mode or no_grad whose base changed since raises first
# (fuzz 5101160)
STALE_VIEW_JOINS = ["m.stack([b, m.ones(4)])", "m.cat([b, m.ones(4)])",
                    "m.cat([m.ones(2, 2), b], 1)", "m.stack([b, b])", "m.cat([b, b]).sum()"]


@pytest.mark.parametrize("mode", ["inference_mode", "no_grad"])
@pytest.mark.parametrize("call", STALE_VIEW_JOINS)
def test_joining_a_stale_view(call, mode):
    def run(m):
        y = m.tensor([[2.0, -2.0, -0.75], [3.0, -0.75, 1.5], [-0.75, -0.75, -2.0]],
                     dtype=m.float64, requires_grad=True)
        with getattr(m, mode)():
            b = y.permute(1, 0)
        with m.no_grad():
            y[2] = 4.0
        return _outcome(m, f"r = {call}", {"b": b})

    parity.run_both(run, check_inputs=False)


# torch.asarray of a tensor: requires_grad defaults to the tensor's own (torch 2.15; it says
# so once a process), so the tensor itself comes back unchanged, a conversion or a copy
# keeps its graph, and only an explicit requires_grad=False detaches (or unsets a leaf's)
ASARRAY_CODE = ["a = m.asarray(x)", "a = m.asarray(y)", "a = m.asarray(n)",
                "a = m.asarray(x, dtype=m.float64)", "a = m.asarray(x, copy=True)",
                "a = m.asarray(x, copy=False)", "a = m.asarray(x, requires_grad=False)",
                "a = m.asarray(x, requires_grad=True)", "a = m.asarray(y, requires_grad=False)",
                "a = m.asarray(n, requires_grad=True)", "a = m.asarray(y, dtype=m.float64)",
                "a = m.asarray(y, copy=True)", "with m.no_grad(): a = m.asarray(x)",
                "a = m.asarray(x.detach().numpy())"]


@pytest.mark.parametrize("code", ASARRAY_CODE)
def test_asarray_keeps_requires_grad(code):
    def run(m):
        x = m.tensor([[0.5, -1.25], [3.0, 0.25]], requires_grad=True)
        names = {"x": x, "y": x * 2, "n": m.tensor([1.0, 2.0])}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (once a process: which test warns depends)
            exec(code, {"m": m, **names}, names)
        a = names["a"]
        return [a is names["x"], a is names["y"], a is names["n"], a.requires_grad, a.is_leaf,
                a.grad_fn and a.grad_fn.name(), x.requires_grad, a]

    parity.run_both(run, check_inputs=False)


# Number and float parameters refuse a tensor of more than one element (or one that requires
# grad) in torch's words, naming the position where it came by position (the functionals
# written in Python pass theirs on by position); nan_to_num(None) is nan_to_num(0.0);
# torch.normal(mean tensor) draws with std 1; x.tile() needs dims (a scan of every function)
NUMBER_PARAMETER_CALLS = [
    "F.elu(x, t0)", "F.elu(x, t1)", "F.elu(x, tg)", "F.elu(x, alpha=t1)", "F.elu(x, 'a')",
    "F.elu(x, None)", "F.elu(x, np.float32(2.0))", "F.leaky_relu(x, t0)", "F.leaky_relu(x, t1)",
    "F.leaky_relu(x, negative_slope=t1)", "F.hardshrink(x, t1)", "F.hardshrink(x, lambd=t1)",
    "F.softshrink(x, lambd=t1)", "F.softplus(x, t1)", "F.softplus(x, 1, threshold=t1)",
    "F.softplus(x, beta=t1)", "F.celu(x, t1)", "F.celu(x, alpha=t1)", "F.threshold(x, t1, 0.0)",
    "F.threshold(x, 0.0, value=t1)", "F.rrelu(x, t1)", "F.rrelu(x, lower=t1)",
    "m.nan_to_num(x, t0)", "m.nan_to_num(x, t1)", "m.nan_to_num(x, ti)",
    "m.nan_to_num(x, posinf=t1)", "x.nan_to_num(t1)", "x.nan_to_num(neginf='a')",
    "x.nan_to_num(None, None, None)", "m.celu(x, alpha=t1)", "m.hardshrink(x, lambd=t1)",
    "x.hardshrink(t1)", "m.threshold(x, t1, 0.0)", "m.rrelu(x, lower=t1)",
    "m.normal(xg)", "m.normal(mean=xg)", "m.normal(2.0)", "m.normal('a')", "m.normal(None)",
    "m.normal(2, 3)", "m.normal(xg.detach(), out=m.empty(2, 2))", "x.tile()", "x.tile(foo=2)",
    "x.tile(dims=(2,))", "x.tile(2, dims=3)", "x.tile(2, 2)",
]


@pytest.mark.parametrize("call", NUMBER_PARAMETER_CALLS)
def test_number_parameters_as_torchs_parser_reads_them(call):
    def run(m):
        m.manual_seed(0)
        names = {"m": m, "F": m.nn.functional, "np": np,
                 "x": m.tensor([[0.5, -1.25], [3.0, -2.0]]), "t0": m.tensor(2.0),
                 "t1": m.tensor([2.0]), "tg": m.tensor(2.0, requires_grad=True),
                 "ti": m.tensor(2), "xg": m.tensor([[0.0, 1.0], [2.0, -1.0]], requires_grad=True)}
        result = _outcome(m, f"r = {call}", names)
        return [result, result.grad_fn.name()] if getattr(result, "grad_fn", None) else result

    parity.run_both(run, check_inputs=False)


# int, bool, float, Number, Tensor and tuple-of-ints parameters given what torch's parser
# refuses (a tensor for an int, an int for a bool...): torch's TypeError, with the position
# where it came by position; broadcast_to's keyword is size; roll takes a 0-d int tensor
TYPED_CALLS = [
    "m.diff(x, t)", "x.diff(t)", "m.diff(x, 1, t)", "m.diff(x, n=t)", "m.diff(x, prepend=2)",
    "m.diff(x, 1, -1, 2)", "m.diff(x, t0)", "m.chunk(x, t)", "x.chunk(t)", "x.chunk(2, t)",
    "x.chunk(chunks=t)", "x.chunk(t0)", "m.unsafe_chunk(x, t)", "m.histc(x, t)", "x.histc(t)",
    "m.histc(x, 4, t)", "m.histc(x, bins=2.5)", "m.rot90(x, t)", "x.rot90(t)",
    "m.rot90(x, 1, 0)", "m.rot90(x, 1, [0, t0])", "m.randperm(t)", "m.randperm(t0)",
    "m.randperm(2.5)", "m.svd(x, t)", "x.svd(t)", "m.svd(x, 1)", "m.svd(x, True, 2)",
    "m.logit(x, t)", "x.logit(t)", "m.logit(x, eps=t)", "m.logit(x, None)", "m.pdist(x, t)",
    "F.pdist(x, t)", "m.tril_indices(t, 2)", "m.triu_indices(2, t)", "m.tril_indices(2, 2, 1.5)",
    "m.roll(x, t)", "x.roll(t)", "m.roll(x, 1, t)", "m.roll(x, 1)", "m.roll(x, [1, 2], [0, 1])",
    "m.roll(x, t0)", "m.broadcast_to(x, 2)", "m.broadcast_to(x, t)", "x.broadcast_to(t)",
    "m.broadcast_to(x, size=2)", "F.one_hot(i, t)", "F.one_hot(i, num_classes=t)",
    "F.one_hot(i, t0)", "F.pixel_shuffle(x[None], t)", "F.pixel_unshuffle(x[None], t)",
    "m.pixel_shuffle(x[None], 2.0)", "m.kron(x, 2)", "x.kron(2)", "m.cdist(x, 2)",
    "m.cdist(x, t, t)", "m.cdist(x, x2=2)", "m.bincount(i, 2)", "i.bincount(2)",
    "m.bincount(i, minlength=t)", "m.bincount(i, None, 2)"]


@pytest.mark.parametrize("call", TYPED_CALLS)
def test_typed_parameters_as_torchs_parser_reads_them(call):
    def run(m):
        names = {"m": m, "F": m.nn.functional,
                 "x": m.tensor([[0.5, -1.25, 2.0], [3.0, 0.25, -2.0]]),
                 "t": m.tensor([[1.5, 0.75, -0.5], [2.0, -3.0, 1.0]]), "t0": m.tensor(1),
                 "i": m.tensor([1, 0, 2])}
        return _outcome(m, f"r = {call}", names)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(run, check_inputs=False)


# x.eq_(y) & co on a tensor in a graph: torch records EqBackward0 (a number) or EqBackward1 (a
# tensor), so x's gradient through the comparison is 0; the engine kept x's old node, and its
# gradient flowed through as if x were unchanged (a silently wrong gradient; scan of every
# in-place method); the long names (greater_, less_equal_...) exist
COMPARED_IN_PLACE = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_",
                     "less_equal_", "greater_equal_", "not_equal_"]


@pytest.mark.parametrize("other", ["v", "0.5", "m.tensor(0.5)", "w", "True", "i"])
@pytest.mark.parametrize("op", COMPARED_IN_PLACE)
def test_an_in_place_comparison_cuts_the_gradient(op, other):
    def run(m):
        b = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        names = {"m": m, "b": b, "v": m.tensor([0.5, 0.0, 2.0]), "i": m.tensor([0, -1, 3]),
                 "w": m.tensor([0.5, 0.0, 2.0], requires_grad=True)}
        code = (f"x = b * 1\nr = x.{op}({other})\nx.sum().backward()\n"
                f"r = [r, r is x, r.grad_fn.name(), len(r.grad_fn.next_functions), b.grad, "
                f"names_w.grad]")
        names["names_w"] = names["w"]
        return _outcome(m, code, names)

    parity.run_both(run, check_inputs=False)


@pytest.mark.parametrize("code", [
    "n = m.tensor([0.5, -1.0, 2.0])\nn.eq_(w)\nr = [n, n.grad_fn.name()]",
    "k = m.tensor([1, 2, 3])\nr = k.eq_(m.tensor([1, 0, 3]))",
    "with m.no_grad():\n    x = b * 1\n    x.gt_(0)\nr = x.grad_fn",
    "x = b * 1\ng, = m.autograd.grad(x.gt_(0).sum(), b, create_graph=True)\n"
    "r = [g, g.requires_grad]",
    "b.lt_(0)", "m.tensor([1.0, 2.0]).less_(m.tensor([1.0, 2.0, 3.0]))",
    "r = m.func.jvp(lambda a: (a * 2).gt_(1.0) * a, (b.detach(),), (m.ones(3),))",
])
def test_in_place_comparisons_elsewhere(code):
    def run(m):
        names = {"b": m.tensor([0.5, -1.0, 2.0], requires_grad=True),
                 "w": m.tensor([0.5, 0.0, 2.0], requires_grad=True)}
        return _outcome(m, code, names)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(run, check_inputs=False)


# more of torch's parser, found by the signatures family now giving arguments of wrong types:
# movedim/moveaxis, masked_fill, repeat_interleave, pow and div list their overloads (notes
# never match a Number); split hands anything but an int to split_with_sizes; narrow, gather,
# index_select, flatten, isclose, unique, norm name the argument; a 0-d integer tensor is read
# as an int wherever an int goes (topk, argmax, min(dim=), unique(dim=))
WRONG_TYPED_CALLS = [
    "x.movedim(0, 2.5)", "m.movedim(x, 0, 'a')", "x.movedim('a', 1)", "x.moveaxis(0, 'a')",
    "m.moveaxis(x, 0, 1)", "m.movedim(x, source=0, destination=1)",
    "m.masked_fill(x, 'a', 1)", "x.masked_fill('a', 1)", "m.masked_fill(x, x > 0, 'a')",
    "x.clone().masked_fill_('a', 1)", "m.masked_fill(x, 1, 2.5)",
    "x.masked_fill(1, m.tensor(2.0))", "x.unique(sorted='a')", "x.unique(sorted=2.5, dim=0)",
    "x.unique(dim='a', sorted='b')", "x.unique(return_inverse=1)",
    "m.unique(x, return_counts=m.ones(2))", "x.unique(return_counts=m.tensor(1))",
    "x.unique(dim=m.tensor(1))", "x.unique(dim=m.tensor(0), return_inverse=True)",
    "m.repeat_interleave(x, 'a')", "x.repeat_interleave('a')", "x.repeat_interleave(2.5, 0)",
    "m.repeat_interleave(x, 2.0, output_size=3)", "x.repeat_interleave(2, dims=0)",
    "m.repeat_interleave(x, m.tensor(2), True)", "x.div(x, rounding_mode=m.ones(2))",
    "m.div(x, 2, rounding_mode=3)", "x.pow('a')", "m.pow(x, 'a')", "x.pow(None)",
    "m.pow(2, x)", "x.norm(keepdim='a')", "x.norm(dim=m.ones(2))", "x.norm(2, 'a')",
    "x.norm(p='a')", "x.norm(dim=m.tensor(0))", "x.norm(2, 0, 1)", "x.norm(m.ones(2), None, True)",
    "x.norm(m.tensor(2.0))", "x.norm(dtype=m.tensor(1))", "x.norm(dtype=float)",
    "m.linalg.vector_norm(x, dtype=m.tensor(1))", "m.split(z, 'a')", "z.split(2.5)",
    "z.split([1, 'a'])", "z.split(True)", "z.split(m.tensor(1))", "z.split((1, 2.0))",
    "z.split(None)", "m.split(z, 2, dim='a')", "m.split(z, [2, 2], True)",
    "m.narrow(x, 1, m.ones(2), 1)", "m.narrow(x, 1, m.tensor(0.0), 1)",
    "x.narrow(1, m.tensor(1), 1)", "x.narrow(0, 0, 'a')", "m.narrow(x, 0, 0, 'a')",
    "x.narrow(True, 0, 1)", "m.clamp((1, 2), min=-1.0, max=1.0)", "m.gather(x, 0, True)",
    "x.gather(0, True)", "m.gather(x, True, m.tensor([[0]]))", "m.index_select(x, 0, True)",
    "x.index_select(m.ones(2), m.tensor([0]))", "x.index_select(2.5, m.tensor([0]))",
    "x.flatten(0, 2.5)", "x.flatten(end_dim=2.5)", "x.flatten(m.ones(2))", "m.flatten(x, 'a')",
    "x.isclose(x, rtol=m.ones(2))", "x.isclose(x, 0.1, 0.1, 'a')",
    "m.isclose(x, x, m.ones(2))", "x.isclose(x, rtol=m.tensor(0.1))",
    "x.isclose(0.5, rtol=0.1, equal_nan=2.5)", "m.topk(x, m.tensor(1), 1)",
    "m.argmax(x, m.tensor(1))", "x.min(dim=m.tensor(1), keepdim=False)", "x.min(m.tensor(1))",
    "y.min(dim=m.tensor(1))", "x.topk(k=m.tensor(2))", "m.topk(input=x, k=m.tensor(2))",
    "x.argmin(dim=m.tensor(0))", "x.topk(m.tensor(1.0))", "m.diff(x, axis=-1)",
    "x.histc(m.tensor(2), max=5)", "y.div('a', rounding_mode='trunc')",
    "m.div(y, 'a', rounding_mode='floor')", "y.div('a')",
    "m.gather(y, True, m.tensor([0]), out=m.zeros(0))",
    "m.index_select(y, True, m.tensor([0]), out=m.zeros(0))",
    "m.rsub(y, m.tensor(2.0), alpha=m.ones(2))", "m.rsub(y, 2.0, alpha=m.tensor(2.0))",
    "m.rsub(y, 2.0, alpha='a')", "m.repeat_interleave(y, True, dim=-1)",
    "m.repeat_interleave(y, True, -1)", "y.repeat_interleave(True, dim=0)",
    "x.repeat_interleave(2, 1)", "x.repeat_interleave(m.tensor([1, 2]), dim=0)",
    "x.repeat_interleave(2, 0, 1)", "x.repeat_interleave(2, 0, dim=1)",
    "x.repeat_interleave(2, axis=0)", "m.repeat_interleave(x, 2, 0, 1)",
]


@pytest.mark.parametrize("call", WRONG_TYPED_CALLS)
def test_wrongly_typed_arguments_as_torchs_parser_reads_them(call):
    def run(m):
        names = {"m": m, "x": m.tensor([[1.0, 2.0], [3.0, 4.0]]), "z": m.ones(4),
                 "y": m.tensor([1.0, 2.0])}
        return _outcome(m, f"r = {call}", names)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(run, check_inputs=False)


# a whole tensor's min and max of more than one element with a nan are -nan (torch's vector
# minimum marks it with every bit set; histc's message prints the sign, fuzz 3022966); a
# masked fill of an expanded tensor without elements does not warn (fuzz 3037924); std and
# var refuse an out= that cannot hold the result before their degrees-of-freedom warning
# (fuzz 3038398)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("values", [[1.0, float("nan")], [float("nan")], [float("nan"), 1.0],
                                    [1.0, 2.0, float("nan"), 4.0], [float("nan")] * 20],
                         ids=str)
def test_the_nan_a_whole_tensor_min_and_max_return(values, dtype):
    def run(m):
        t = m.tensor(values, dtype=getattr(m, dtype))
        low, high = t.min().item(), t.max().item()
        names = {"t": t, "low": low}
        return [math.copysign(1, low), math.copysign(1, high),
                _outcome(m, "r = m.histc(t.float(), 5, low, low)", names)]

    parity.run_both(run, check_inputs=False)


@pytest.mark.parametrize("code", [
    "w = x.expand(2, 0, 3)\nw[w < 0] = True\nr = w",
    "e = m.zeros(1, 0).expand(3, 0)\ne.masked_fill_(e > 0, 1.0)\nr = e",
    "e = m.zeros(1, 0).expand(3, 0)\ne.index_fill_(1, m.tensor([], dtype=m.long), 2.0)\nr = e",
    "w = x.expand(2, 3).clone()\nw[w < 0] = 1.0\nr = w",
    "p = m.zeros(0, dtype=m.int64)\nm.std(input=c, dim=-1, keepdim=True, out=p)",
    "p = m.zeros(0, dtype=m.int64)\nm.var(c, -1, keepdim=True, out=p)",
    "p = m.zeros(0, dtype=m.int64)\ntry:\n    m.std(y, 0, out=p)\nfinally:\n    r = p.shape",
    "r = m.std(c, dim=-1, out=m.zeros(0))",
])
def test_warnings_and_refusals_in_torchs_order(code):
    def run(m):
        names = {"x": m.tensor([[1.0, -2.0, 3.0]]), "c": m.tensor([[0.5]]),
                 "y": m.tensor([[1.0, 2.0, 4.0], [0.5, 3.0, 1.0]])}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = _outcome(m, code, names)
        return [result, [str(w.message) for w in caught]]

    parity.run_both(run, check_inputs=False)


# x[0] = z where x[0] is exactly z's memory again (an expanded view): torch's copy_ returns
# before its overlap checks (fuzz 3052626); the inf norms of nothing have no identity: torch's
# words, not numpy's (fuzz 3043802)
@pytest.mark.parametrize("code", [
    "w = z.expand(2, 3, 2, 2)\nb = w[1:2]\nb[0] = z\nr = [z, z._version]",
    "w = z.expand(2, 3, 2, 2)\nw[1:2][0].copy_(z)", "w = z.expand(3, 2, 2)\nw.copy_(z)",
    "z.copy_(z[:])\nr = [z, z._version]", "z.t().copy_(z.t())\nr = z._version",
    "e = m.zeros(0, 3)\nr = m.norm(e, float('inf'))", "r = m.norm(m.zeros(0, 3), -float('inf'))",
    "r = m.linalg.vector_norm(m.zeros(0, 3), float('inf'))",
    "r = m.zeros(0, 3).norm(float('inf'), dim=1)", "r = m.zeros(0, 3).norm(float('inf'), dim=-2)",
    "r = m.zeros(2, 0).norm(float('inf'), dim=(1, 0))", "r = m.zeros(0, 3).norm(2)",
])
def test_copies_into_the_same_memory_and_norms_of_nothing(code):
    def run(m):
        names = {"m": m, "z": m.tensor([[1.0, 2.0], [3.0, 4.0]])}
        return _outcome(m, code, names)

    parity.run_both(run, check_inputs=False)
