"""batch_norm of float16 input (engine/nn/functional_norm_half.py) against torch 2.15, bit
for bit: F.batch_norm, torch.batch_norm, nn.BatchNorm1d/2d, F.instance_norm and
nn.InstanceNorm1d/2d.

torch computes a float16 batch_norm in float32 in one of three loops, chosen by the input's
layout: each channel's planes in 8 vector lanes (row-major images), rows of channels
(channels-last memory, and (N, C) input), TensorIterator's loops (transposed or sliced
input). The cases below take each, with counts of more than a thousand elements per channel
(the lanes' order and the tail of each plane show there), in training (the running
statistics updated in place) and evaluation, with float16 parameters or float32 ones (the
"mixed" case: running statistics kept in float32), weight, bias and running statistics
given or None. Compared: the output (values, dtype, strides), torch's saved mean and invstd,
the running statistics, num_batches_tracked, the gradients of the input, weight and bias
(also their values under create_graph), and torch's errors word for word.

Left out of the bit for bit comparisons (notebooks/DIFFERENCES.md): an input laid out
otherwise than row-major or channels-last takes its mean from torch.mean, whose float32
sums the engine adds in torch's order up to 32,768 elements only (with float32 parameters:
the mean is float32); in evaluation with float32 running statistics, that layout's
1 / sqrt(running_var + eps) comes from torch.sqrt, MKL's in torch (not correctly rounded),
the engine's correctly rounded; second derivatives (create_graph) follow the engine's formula.
"""
import numpy as np
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def one_torch_thread():
    """torch adds the rows of (N, C) and channels-last input on each of its threads apart;
    the engine adds them as torch does on one"""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _values(shape, seed, low=-3.0, high=5.0, dtype="float16"):
    return parity.make_values(shape, dtype, seed, low=low, high=high)


def _laid_out(m, values, layout):
    """A tensor of ``m`` holding ``values``, laid out as ``layout``: row-major, transposed
    (its last two dims swapped in memory), strided (every other element of a longer last
    dim) or channels_last (NHWC / NDHWC memory)."""
    if layout == "contiguous":
        return m.from_numpy(values.copy())
    if layout == "transposed":
        return m.from_numpy(np.ascontiguousarray(np.swapaxes(values, -1, -2))).transpose(-1, -2)
    if layout == "strided":
        wide = np.zeros(values.shape[:-1] + (2 * values.shape[-1],), values.dtype)
        wide[..., ::2] = values
        return m.from_numpy(wide)[..., ::2]
    order = (0, *range(2, values.ndim), 1)
    inverse = [int(d) for d in np.argsort(order)]
    return m.from_numpy(np.ascontiguousarray(values.transpose(order))).permute(*inverse)


def _batch_norm_everything(m, values, layout, params, grad, training, momentum=0.3,
                           eps=1e-3, grad_layout=None, create_graph=False):
    """F.batch_norm's output, torch's saved statistics, the running statistics afterwards
    and the gradients of the input and of the weight and bias given"""
    x = _laid_out(m, values, layout).requires_grad_()
    w, b, rm, rv = (None if p is None else m.from_numpy(p.copy()) for p in params)
    leaves = [x] + [p.requires_grad_() for p in (w, b) if p is not None]
    out = m.nn.functional.batch_norm(x, rm, rv, w, b, training, momentum, eps)
    saved = [out.grad_fn._saved_result1, out.grad_fn._saved_result2]
    g = _laid_out(m, grad, grad_layout or layout)
    grads = m.autograd.grad(out, leaves, g, create_graph=create_graph)
    if create_graph:  # (the values; the nodes behind them are not torch's)
        grads = [grad.detach() for grad in grads]
    return [out, *saved, rm, rv, *grads]


def _params(channels, dtype, seed, given="wbs"):
    """weight, bias, running_mean, running_var of ``dtype`` (those whose letter is in
    ``given``: w, b, s)"""
    weight = _values((channels,), seed, -2, 2, dtype) if "w" in given else None
    bias = _values((channels,), seed + 1, -2, 2, dtype) if "b" in given else None
    stats = "s" in given
    mean = _values((channels,), seed + 2, -1, 1, dtype) if stats else None
    var = _values((channels,), seed + 3, 0.5, 3, dtype) if stats else None
    return weight, bias, mean, var


def _assert_same_run(*args, **kwargs):
    expected = _batch_norm_everything(torch, *args, **kwargs)
    got = _batch_norm_everything(engine, *args, **kwargs)
    parity.assert_same(got, expected)


# ====================================================================== the three loops
# shape -> the layouts it is compared in (counts of elements per channel: up to 3,200)
SHAPES = {
    (64, 5): ["contiguous", "transposed", "strided"],          # rows (N, C)
    (300, 19): ["contiguous", "transposed"],                    # rows, a vector of 16 and more
    (4, 3, 37): ["contiguous", "transposed", "strided"],       # planes: 2 vectors and a tail
    (2, 3, 1100): ["contiguous", "strided"],                    # planes: 2,200 per channel
    (4, 5, 7, 9): ["contiguous", "transposed", "channels_last"],
    (2, 3, 40, 40): ["contiguous", "channels_last"],            # 3,200 per channel
    (3, 20, 6, 7): ["channels_last", "strided"],                # rows of 20 channels
    (2, 17, 3, 4, 5): ["contiguous", "channels_last"],          # channels_last_3d
    (5, 4, 1, 1): ["contiguous"],                               # NC11: rows
}
# (left out: evaluation with float32 running statistics of an input laid out otherwise than
# row-major or channels-last, whose 1 / sqrt(running_var + eps) torch takes from torch.sqrt,
# MKL's: not correctly rounded, where the engine's is)
CASES = [(shape, layout, training, params_dtype)
         for shape, layouts in SHAPES.items() for layout in layouts
         for training in (True, False) for params_dtype in ("float16", "float32")
         if training or params_dtype == "float16" or layout not in ("transposed", "strided")]


@pytest.mark.parametrize("shape, layout, training, params_dtype", CASES,
                         ids=[f"{c[0]}-{c[1]}-{'training' if c[2] else 'eval'}-{c[3]}"
                              for c in CASES])
def test_values_statistics_and_gradients(shape, layout, training, params_dtype):
    channels = shape[1]
    for seed, given in ((0, "wbs"), (10, "s"), (20, "wb"), (30, "bs")):
        if not training and "s" not in given:
            continue
        if params_dtype == "float32" and given == "s" and not training:
            continue  # (the same as "wbs" with weight 1 and bias 0)
        values = _values(shape, seed, -2 + seed / 10, 6)
        grad = _values(shape, seed + 1, -4, 4)
        _assert_same_run(values, layout, _params(channels, params_dtype, seed + 2, given),
                         grad, training)


@pytest.mark.parametrize("params_dtype", ["float16", "float32"])
@pytest.mark.parametrize("shape, layout, grad_layout", [
    ((6, 5, 40), "contiguous", "transposed"), ((6, 5, 40), "transposed", "contiguous"),
    ((4, 3, 5, 6), "contiguous", "channels_last"), ((4, 3, 5, 6), "channels_last", "contiguous"),
    ((4, 18, 5, 6), "channels_last", "channels_last"), ((80, 6), "strided", "strided")])
def test_gradients_of_other_layouts(shape, layout, grad_layout, params_dtype):
    """the gradient laid out otherwise than the input: torch's TensorIterator loops (the
    dot product in the order of both operands' memory, float16 arithmetic)"""
    params = _params(shape[1], params_dtype, 3)
    _assert_same_run(_values(shape, 1), layout, params, _values(shape, 2, -3, 3), True,
                     grad_layout=grad_layout)


@pytest.mark.parametrize("training, params_dtype", [(True, "float16"), (True, "float32"),
                                                    (False, "float16")])
def test_parameters_that_are_strided_views(training, params_dtype):
    """a weight or a running statistic that is not contiguous sends even a row-major input
    through TensorIterator's loops (float16 arithmetic with float16 parameters). (Evaluation
    with float32 ones is left out: torch.sqrt of the running variance, MKL's in torch.)"""
    def fn(m, values, grad):
        x = m.from_numpy(values.copy()).requires_grad_()
        w, b, rm, rv = (m.from_numpy(np.repeat(p, 2))[::2] for p in _params(5, params_dtype,
                                                                                 21))
        w.requires_grad_()
        out = m.nn.functional.batch_norm(x, rm, rv, w, b, training, 0.2)
        return [out, rm, rv, *m.autograd.grad(out, (x, w), m.from_numpy(grad))]

    for shape in [(6, 5, 30), (40, 5)]:
        values, grad = _values(shape, 22), _values(shape, 23, -2, 2)
        parity.assert_same(fn(engine, values, grad), fn(torch, values, grad))


def test_gradient_of_a_sum():
    """out.sum()'s gradient is an expanded tensor (strides 0): TensorIterator's loops (the
    input's gradient is a residue of roundings: each step's)"""
    values = _values((8, 3, 50), 5, 0, 9)

    def fn(m, params_dtype):
        x = m.from_numpy(values.copy()).requires_grad_()
        w, b, rm, rv = (m.from_numpy(p.copy()) for p in _params(3, params_dtype, 4))
        w.requires_grad_()
        out = m.nn.functional.batch_norm(x, rm, rv, w, b, True)
        out.sum().backward()
        return out, x.grad, w.grad, rm, rv

    for params_dtype in ("float16", "float32"):
        parity.assert_same(fn(engine, params_dtype), fn(torch, params_dtype))


@pytest.mark.parametrize("momentum, eps", [(0.1, 1e-5), (1.0, 1e-3), (0.01, 0.5)])
def test_running_statistics_of_many_steps(momentum, eps):
    """the running averages in float32, rounded once to float16 (or kept in float32)"""
    def fn(m, params_dtype):
        rm = m.zeros(4, dtype=getattr(m, params_dtype))
        rv = m.ones(4, dtype=getattr(m, params_dtype))
        outs = []
        for step in range(5):
            x = m.from_numpy(_values((16, 4, 9), step, -1 - step, 3 + 2 * step))
            outs.append(m.nn.functional.batch_norm(x, rm, rv, None, None, True, momentum,
                                                   eps))
        outs.append(m.nn.functional.batch_norm(x, rm, rv, None, None, False, momentum, eps))
        return outs, rm, rv

    for params_dtype in ("float16", "float32"):
        parity.run_both(fn, params_dtype)


def test_large_values_and_the_float16_range():
    """sums beyond float16's range stay float32 inside torch's kernel (the variance of values
    of hundreds; a channel of one repeated value: invstd = 1 / sqrt(eps))"""
    values = _values((8, 3, 300), 6, -300, 300)
    values[:, 2] = 7
    for params_dtype in ("float16", "float32"):
        _assert_same_run(values, "contiguous", _params(3, params_dtype, 7), _values(
            values.shape, 8, -50, 50), True)


def test_torch_batch_norm_and_create_graph():
    """torch.batch_norm (ATen's argument order) takes the same kernels; under create_graph the
    gradients hold torch's values (its second derivative, a formula of its own, is left)"""
    values, grad = _values((4, 3, 21), 9), _values((4, 3, 21), 10, -2, 2)

    def fn(m, params_dtype):
        x = m.from_numpy(values.copy()).requires_grad_()
        w, b, rm, rv = (m.from_numpy(p.copy()) for p in _params(3, params_dtype, 11))
        w.requires_grad_()
        out = m.batch_norm(x, w, b, rm, rv, True, 0.2, 1e-4, False)
        grads = m.autograd.grad(out, (x, w), m.from_numpy(grad), create_graph=True)
        return out, rm, rv, [g.detach() for g in grads], [str(g.dtype) for g in grads]

    for params_dtype in ("float16", "float32"):
        parity.run_both(fn, params_dtype)
    for training in (True, False):
        for params_dtype in ("float16", "float32"):
            _assert_same_run(values, "contiguous", _params(3, params_dtype, 12), grad,
                             training, create_graph=True)


# ====================================================================== modules
MODULES = {
    "BatchNorm1d": ("nn.BatchNorm1d(4, momentum=0.2)", (6, 4, 30)),
    "BatchNorm1d (N, C)": ("nn.BatchNorm1d(4, affine=False)", (40, 4)),
    "BatchNorm1d cumulative": ("nn.BatchNorm1d(4, momentum=None)", (6, 4, 17)),
    "BatchNorm2d": ("nn.BatchNorm2d(4)", (3, 4, 9, 10)),
    "BatchNorm2d no stats": ("nn.BatchNorm2d(4, track_running_stats=False)", (3, 4, 5, 6)),
    "InstanceNorm1d": ("nn.InstanceNorm1d(4, affine=True, track_running_stats=True)",
                       (3, 4, 40)),
    "InstanceNorm2d": ("nn.InstanceNorm2d(4, track_running_stats=True, momentum=0.3)",
                       (2, 4, 9, 7)),
}


@pytest.mark.parametrize("params", ["half", "float32 parameters"])
@pytest.mark.parametrize("name", list(MODULES))
def test_modules_train_then_eval(name, params):
    """a float16 module (``.half()``), or a float32 one given float16 input: outputs,
    buffers (running statistics, num_batches_tracked), the parameters' gradients"""
    make, shape = MODULES[name]
    code = f"""
nn = m.nn
layer = {make}
if {params == "half"}:
    layer = layer.half()
with m.no_grad():
    for p in layer.parameters():
        p.copy_(p + m.arange(p.numel(), dtype=p.dtype) * 0.25)
outs = []
for step in range(3):
    x = m.from_numpy(first + step).requires_grad_()
    out = layer(x)
    out.backward(m.from_numpy(grad))
    outs += [out, x.grad]
layer.eval()
outs.append(layer(m.from_numpy(first)))
r = (outs, layer.state_dict(), [p.grad for p in layer.parameters()])
"""
    _outcome_same(code, first=_values(shape, 13), grad=_values(shape, 14, -2, 2))


def _outcome_same(code, **arrays):
    """``code`` (leaving ``r``) run with each library, the same: values and layout compared
    by parity.assert_same, an error by its type and whole message."""
    results = []
    for m in (torch, engine):
        results.append(parity.outcome(m, code, dict(arrays)))
    expected, got = results
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[0], str):
        assert got == expected, code
    else:
        parity.assert_same(got, expected)


# ====================================================================== instance_norm
# torch casts the running statistics to the weight's dtype (else the input's), repeats them,
# and copies their average back (in their own dtype) after a call with the batch's statistics
STATS_DTYPES = [("float32", "float64", None), ("float64", "float32", None),
                ("float32", "float16", None), ("float16", "float32", None),
                ("float16", "float64", None), ("float16", "float64", "float32"),
                ("float16", "float16", "float32"), ("float64", "float16", "float64"),
                ("float16", "float32", "float16")]


@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize("dtypes", STATS_DTYPES, ids=["-".join(map(str, d)) for d in STATS_DTYPES])
def test_instance_norm_with_running_statistics_of_another_dtype(dtypes, use_input_stats):
    input_dtype, stats_dtype, weight_dtype = dtypes
    code = f"""
mean, var = m.from_numpy(mean), m.from_numpy(var)
weight = None if weight is None else m.from_numpy(weight)
before = (mean._version, var._version)
x = m.from_numpy(x).requires_grad_()
out = m.nn.functional.instance_norm(x, mean, var, weight, weight, {use_input_stats}, 0.3, 1e-3)
grad = m.autograd.grad(out, x, m.ones_like(out) * 0.75 + x.detach() / 4)[0]
r = (out, mean, var, (mean._version - before[0], var._version - before[1]),
     grad if x.dtype == m.float16 else None)
"""
    weight = None if weight_dtype is None else _values((3,), 15, 0.5, 2, weight_dtype)
    _outcome_same(code, x=_values((4, 3, 21), 16, -3, 3, input_dtype),
                  mean=_values((3,), 17, -1, 1, stats_dtype),
                  var=_values((3,), 18, 0.5, 2, stats_dtype), weight=weight)


# ====================================================================== errors
ERRORS = {
    # a float16 input with float16 parameters, one of them float32: torch reads it as Half
    "running_var float32": ("x16", "h16", "h16", "h16", "f32", True),
    "bias float32, eval": ("x16", "h16", "f32", "h16", "h16", False),
    "float32 input, bias float64": ("x32", "f32", "f64", "f32", "f32", False),
    "float64 input, running_var float16": ("x64", None, None, "f64", "h16", True),
    # a strided input: TensorIterator's loop meets another dtype in an internal assert
    "strided input, bias float32": ("x16 strided", "h16", "f32", "h16", "h16", True),
    "strided input, running_var float32, eval": ("x16 strided", None, None, "h16", "f32",
                                                 False),
    # only one of the running statistics (training): F.batch_norm's ValueError
    "running_var None": ("x16", None, None, "h16", None, True),
    "running_mean None, float32": ("x32", "f32", None, None, "f32", True),
    "running_mean None, an int input": ("int", None, None, None, "f32", True),
    # an integer input laid out otherwise: torch.mean's refusal first
    "strided int input": ("int strided", None, None, None, None, True),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_refusals_word_for_word(case):
    _refused_as_torch(*ERRORS[case])


def test_the_first_parameter_given_decides_a_mixed_call():
    """torch's is_mixed_type reads the first of weight, bias, running_mean, running_var
    given: float16 there (then a float32 running statistic is read as Half and refused), or
    float32 (then each must be float32, and the input float16)"""
    for refused in [("x16", "h16", None, "f32", "f32", True),
                    ("x16", "h16", None, "f32", "f32", False),
                    ("x16", "f32", "h16", None, None, True),
                    ("x16", "f32", None, "f64", "f64", False),
                    ("x64", "f32", "f32", "f32", "f32", True)]:
        _refused_as_torch(*refused)


def _refused_as_torch(x, *arguments):
    *params, training = arguments
    code = f"""
x = m.from_numpy(x)
if {"strided" in x}:
    x = x[..., ::2]
params = [None if p is None else m.from_numpy(p) for p in params]
r = m.nn.functional.batch_norm(x, params[2], params[3], params[0], params[1], {training})
"""
    kinds = {"x16": "float16", "x32": "float32", "x64": "float64", "int": "int32"}
    x_values = _values((4, 3, 5), 19, -3, 3, "float32").astype(kinds[x.split()[0]])
    param_kinds = {"h16": "float16", "f32": "float32", "f64": "float64"}
    arrays = [None if p is None else _values((3,), 20 + i, 0.5, 2, param_kinds[p])
              for i, p in enumerate(params)]
    _outcome_same(code, x=x_values, params=arrays)
