"""Fuzz round seventeen (seeds 3820000 and on, pinned to AVX2) against torch 2.15.

- 3830981: where with a uint8 condition warned at every call; torch warns once per process
  (TORCH_WARN_ONCE). Tested as a class: every warning the engine gives as torch's, called
  twice in a fresh process, warns as often as torch's the second time.
"""
import math
import subprocess
import sys

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


# Each statement gives one of torch's warnings (from C++ or Python); some torch gives once
# per process, the others at every call.
WARNING_STATEMENTS = {
    "where, uint8 condition": "m.where(m.tensor([1, 0], dtype=m.uint8), 1., 2.)",
    "uint8 index": "m.arange(3.)[m.tensor([1, 0, 1], dtype=m.uint8)]",
    "index_put_ of an expanded tensor": "m.zeros(1).expand(3).index_put_((m.tensor([0]),), "
                                        "m.tensor(1.))",
    "index_fill_ of an expanded tensor": "m.zeros(1).expand(3).index_fill_(0, m.tensor([0]), 1.)",
    "masked_fill_ of an expanded tensor": "m.zeros(1).expand(3).masked_fill_(m.tensor([True, "
                                          "False, False]), 1.)",
    "the scale-first overload of add": "m.zeros(2).add(2, m.ones(2))",
    "var without degrees of freedom": "m.tensor([1.]).var()",
    "out= resized": "m.add(m.ones(3), 1, out=m.zeros(2))",
    "arange's out= resized": "m.arange(3, out=m.zeros(2))",
    "cross without dim": "m.cross(m.ones(3, 3), m.ones(3, 3))",
    "a list of arrays": "m.tensor([np.zeros(2), np.zeros(2)])",
    "x.T of a 0-d tensor": "m.tensor(1.).T",
    "x.T of a 1-d tensor": "m.ones(2).T",
    "x.mT of a 0-d tensor": "m.tensor(1.).mT",
    "x.H of a 0-d tensor": "m.tensor(1.).H",
    "a list as an index": "m.ones(2, 2)[[0, slice(None)]]",
    "float() of a tensor that requires grad": "float(m.tensor(1., requires_grad=True))",
    "randint beyond float32's integers": "m.randint(0, 2 ** 25, (2,), dtype=m.float32)",
    "meshgrid without indexing": "m.meshgrid(m.ones(2), m.ones(2))",
    "searchsorted of a non-contiguous sequence": "m.searchsorted(m.arange(6.).view(2, 3).t()"
                                                 ".contiguous().t(), m.ones(2, 1))",
    "a read-only array": "m.as_tensor(np.broadcast_to(np.ones(2), (2, 2)))",
    "padding='same' with an even kernel": "m.nn.functional.conv1d(m.ones(1, 1, 5), "
                                          "m.ones(1, 1, 2), padding='same')",
    "backward with create_graph": "x = m.ones(2, requires_grad=True); (x * x).sum()"
                                  ".backward(create_graph=True)",
    "the .grad of a non-leaf": "x = m.ones(2, requires_grad=True); (x * 2).grad",
    "tensor() of a tensor": "m.tensor(m.ones(2))",
    "asarray of a tensor that requires grad": "m.asarray(m.ones(2, requires_grad=True))",
    "the gradient layout contract": "p = m.ones(2, 2, requires_grad=True); "
                                    "p.grad = m.zeros(2, 2).t(); (p * 1).sum().backward()",
}

# Every statement twice, in one fresh process per module (the warnings differ, so one
# statement's once-per-process warning does not silence another's).
_COUNT_TWICE = """
import sys, warnings
import numpy as np
import {module} as m
counts = {{}}
for name, statement in eval(sys.argv[1]).items():
    counts[name] = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(statement)
        counts[name].append(len(caught))
print(repr(counts))
"""


@pytest.fixture(scope="module")
def warnings_counted():
    return {module: eval(subprocess.run(
        [sys.executable, "-c", _COUNT_TWICE.format(module=module), repr(WARNING_STATEMENTS)],
        capture_output=True, text=True, check=True).stdout) for module in ("torch", "engine")}


@pytest.mark.parametrize("name", WARNING_STATEMENTS)
def test_a_warning_given_once_per_process_is_given_once(name, warnings_counted):
    """fuzz 3830981: the second call warns as often as torch's second call (and the first
    warns in both)."""
    assert warnings_counted["torch"][name][0] >= 1
    assert warnings_counted["engine"][name] == warnings_counted["torch"][name]


MODES = {"inference_mode": "m.inference_mode()", "no_grad": "m.no_grad()",
         "set_grad_enabled(False)": "m.set_grad_enabled(False)", "recording": None}
FIRST_VIEWS = {**{name: "x[0]" for name in MODES}, "unbind": "x.unbind(0)[0]"}


def _made_in(mode, statement, name):
    if MODES.get(mode) is None:
        return f"{name} = {statement}\n"
    return f"with {MODES[mode]}:\n    {name} = {statement}\n"


@pytest.mark.parametrize("third", [None, *MODES])
@pytest.mark.parametrize("second", MODES)
@pytest.mark.parametrize("first", FIRST_VIEWS)
def test_a_view_of_a_view_made_in_inference_mode_says_so(first, second, third):
    """fuzz 3858575: a view made under no_grad of a view made in inference_mode (of a tensor
    that requires grad) names inference mode when changed in place, as torch's creation meta
    (inference mode, once there, stays)."""
    code = "x = m.ones(2, 2, requires_grad=True) * 1\n"
    code += _made_in("recording" if first == "unbind" else first, FIRST_VIEWS[first], "y")
    code += _made_in(second, "y[:]", "w")
    if third is not None:
        code += _made_in(third, "w[:1]", "w")
    code += ("r = [error(lambda: w.__setitem__(0, 0.5)), w.requires_grad, w.is_leaf]\n"
             "r.append(error(lambda: w.mul_(2)))\n")
    parity.assert_same_snippet(code)


CDIST_POINTS = {  # (x1, x2): equal coordinates, coinciding points, one column
    "one equal coordinate": ([[0.0, 1.0], [2.0, -1.0]], [[0.0, 2.0], [1.5, -1.0]]),
    "coinciding points": ([[1.0, 1.0], [0.5, 2.0]], [[1.0, 1.0], [0.0, 0.0]]),
    "one column": ([[0.0], [1.0], [-2.0]], [[0.0], [2.0], [1.0]]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("points", CDIST_POINTS)
@pytest.mark.parametrize("p", [2.25, 2.5, 2.75, 3.0, 3.5, 4.0, 1.5, 0.5])
def test_cdist_second_derivative_where_coordinates_are_equal(p, points, dtype):
    """Found beside fuzz 3849308: for 2 < p < 3 the second derivative of cdist was nan
    wherever two points have an equal coordinate (|0|^(p - 2)'s derivative, inf, times
    0), coinciding or not; torch's is finite (0 there)."""
    results = []
    for m in (parity.engine, torch):
        a, b = (m.tensor(v, dtype=getattr(m, dtype), requires_grad=True)
                for v in CDIST_POINTS[points])
        weights = m.arange(1.0, 1.0 + a.shape[0] * b.shape[0], dtype=a.dtype).reshape(
            a.shape[0], b.shape[0])
        first = m.autograd.grad((m.cdist(a, b, p=p) * weights).sum(), (a, b),
                                create_graph=True)
        second = m.autograd.grad(first[0].sum() + first[1].sum(), (a, b))
        results.append((*first, *second))
    parity.assert_same(*results, exact=False, check_repr=False)


@pytest.mark.filterwarnings("ignore::UserWarning")  # (std of one distance: no freedom)
@pytest.mark.parametrize("p", [2.25, 2.5, 3.0, 3.5])
def test_cdist_nan_gradient_where_a_difference_is_zero_stays_nan(p):
    """The same formula with a nan grad (std of one distance): torch's kernel multiplies
    it by the zero difference's term, nan, for every p of 2 and more."""
    results = []
    for m in (parity.engine, torch):
        c = m.tensor([1.5, -1.25, 2.0, 1.5], requires_grad=True)
        out = m.cdist(c.reshape(1, -1), c.reshape(1, -1).flip(1), p=p).std()
        results.append(m.autograd.grad(out, c))
    parity.assert_same(*results, check_repr=False)


# ---------------------------------------------------------------- arguments of the wrong type
NOT_TENSORS = {"a named tuple": "m.tensor([1., 2.]).aminmax()", "None": "None", "a str": "'a'",
               "an array": "np.ones(2)"}
NOT_OPS = {"manual_seed", "seed", "set_printoptions", "set_default_dtype",
           "set_default_tensor_type", "set_grad_enabled", "use_deterministic_algorithms",
           "set_num_threads", "load", "save",
           "compile", "set_anomaly_enabled", "set_default_device", "set_flush_denormal",
           "set_num_interop_threads", "set_rng_state", "broadcast_shapes"}


# (in a fresh process: some of these calls give a warning torch gives once per process)
_SWEEP = """
import inspect, sys, warnings
import numpy as np
import torch
import engine
warnings.simplefilter("ignore")
kind, not_ops = sys.argv[1], set(sys.argv[2].split(","))
names = sorted(name for name in dir(engine) if not name.startswith("_") and hasattr(torch, name)
               and name not in not_ops and inspect.isfunction(getattr(engine, name)))
differing = []
for name in names:
    outcomes = []
    for m in (torch, engine):
        try:
            getattr(m, name)(eval(kind))
            outcomes.append(None)
        except Exception as error:
            outcomes.append(type(error).__name__)
    if outcomes[0] != outcomes[1]:
        differing.append((name, *outcomes))
print(repr((len(names), differing)))
"""


@pytest.mark.parametrize("kind", NOT_TENSORS)
def test_every_function_given_something_else_than_a_tensor_fails_as_torchs(kind):
    """fuzz 3858422 (rot90 of a named tuple: an AttributeError from inside): every torch.
    function of the engine, given one argument that is not a tensor, raises what torch
    raises (or runs where torch runs)."""
    output = subprocess.run([sys.executable, "-c", _SWEEP, NOT_TENSORS[kind],
                             ",".join(sorted(NOT_OPS))], capture_output=True, text=True,
                            check=True).stdout
    count, differing = eval(output)
    assert count > 400
    assert differing == []


WRONG_TYPE_CALLS = [
    "m.rot90(m.ones(2, 2).aminmax())", "m.t(input=None)", "m.numel([1])", "m.svd('a')",
    "m.clone(None, memory_format=m.contiguous_format)", "m.unbind(None, 0)",
    "m.flatten(None, 0, 1)", "m.logical_not(np.ones(2))", "m.is_signed(None)",
    "m.atleast_1d(None)", "m.atleast_2d('a')", "m.atleast_3d(1.0)", "m.atleast_1d()",
    "m.atleast_1d(a, 1.0)", "m.atleast_1d([a, None])", "m.atleast_2d((a, b))",
    "m.atleast_1d(input=a)", "m.block_diag(a, None)", "m.block_diag([a])", "m.block_diag()",
    "m.cartesian_prod(a, 3)", "m.cartesian_prod(a.aminmax())", "m.cartesian_prod()",
    "m.broadcast_tensors([a, b])", "m.broadcast_tensors(a, None)", "m.broadcast_tensors()",
    "m.broadcast_tensors(a.aminmax())", "m.repeat_interleave(None)",
    "m.repeat_interleave(None, 2)", "m.repeat_interleave('a', 2, 0)",
    "m.repeat_interleave(input=None)", "m.repeat_interleave([1, 2])", "m.norm(None)",
    "m.norm()", "m.norm(input=None)", "m.norm(a, input=a)",
    # a second argument
    "m.bucketize(a, a.aminmax())", "m.bucketize(a, None)", "m.searchsorted(a, None)",
    "m.searchsorted(a, np.ones(2))", "m.searchsorted(a, a.aminmax())", "m.isin(a, None)",
    "m.isin(a, 'a')", "m.isin(a, a.aminmax())", "m.dsplit(a, a.aminmax())", "a.hsplit(None)",
    "a.vsplit('a')", "m.vsplit(a, 1.5)", "m.where(a > 0, None)", "m.where(a > 0, a, None)",
    "m.where(a > 0, None, a)", "m.where(a > 0)", "m.is_same_size(a, a.aminmax())",
    "a.is_same_size(None)", "a.is_set_to(a.aminmax())", "a.view(a.max(0))",
    "x.repeat_interleave(2.5, dim=2.5)", "m.repeat_interleave(x, 2.5, dim=2.5)",
    "x.repeat_interleave(2.5, 2.5)", "x.repeat_interleave(2, dim=2.5)",
    # requires_grad: a bool
    "a.requires_grad_(None)", "a.requires_grad_(1)", "a.requires_grad_(np.True_)",
    "a.requires_grad_(m.tensor(True))", "a.requires_grad_(requires_grad=1)",
    "setattr(m.ones(2), 'requires_grad', 1)", "setattr(m.ones(2), 'requires_grad', None)",
    "setattr(m.ones(2) * 1, 'requires_grad', 1)",
    "m.nn.Parameter(m.ones(2), requires_grad=1)", "m.nn.Parameter(m.ones(2), None)",
    "m.nn.Parameter(m.ones(2, dtype=m.long), 1)", "m.nn.Linear(2, 2).requires_grad_(0)",
    "m.zeros(2, requires_grad=1)", "m.ones(2, requires_grad=np.True_)",
    "m.empty(2, requires_grad=1.0)", "m.full((2,), 1., requires_grad=1)",
    "m.zeros_like(a, requires_grad=1)", "m.empty_like(a, requires_grad='a')",
    "m.tensor([1.], requires_grad=1)", "m.scalar_tensor(1., requires_grad=1)",
    "a.new_zeros(2, requires_grad=1)", "a.new_full((2,), 1., requires_grad=1)",
    "a.new_tensor([1.], requires_grad=1)", "m.asarray([1.], requires_grad=1)",
    "m.zeros(2, requires_grad=None).requires_grad",
    # random fills: numbers and a generator
    "a.uniform_(np.ones(2))", "a.uniform_(0, 'a')", "a.uniform_(None)", "a.uniform_(0, to='a')",
    "a.uniform_(0, 1, generator=1)", "a.normal_('a')", "a.normal_(0, None)",
    "a.normal_(std='a')", "a.normal_(m.ones(2))", "a.normal_(generator=1)",
    "a.exponential_(np.ones(2))", "a.exponential_(lambd=None)", "a.bernoulli_(np.ones(2))",
    "a.bernoulli_('a')", "a.bernoulli_(None)", "a.bernoulli_(0.5, generator=1)",
    "m.bernoulli(a, None)", "a.bernoulli(None)", "a.bernoulli('a')", "a.bernoulli(p=None)",
    "m.bernoulli(a, generator=1)", "a.bernoulli(generator=1)", "m.bernoulli(input=a, p=None)",
    "m.bernoulli(a, 0.5, out=m.empty(2))",
    # an overload's notes, a bound of None, flags
    "a.fill_('a')", "a.fill_(None)", "a.fill_(value='a')", "a.clamp_min(None)",
    "a.clamp_max_(None)", "m.clamp_min(a, None)", "m.clamp_max(a, 'a')", "a.squeeze(None)",
    "a.squeeze_(None)", "a.squeeze('a')", "a.float_power_(a.aminmax())",
    "a.float_power_(None)", "a.view(np.ones(2))", "x.unique_consecutive(None)",
    "m.unique_consecutive(x, x.aminmax())", "x.unique_consecutive(return_counts=1)",
    "x.unique_consecutive(np.True_)",
    # keyword-only arguments, None for device or dtype, types
    "a.contiguous(None)", "a.contiguous(1, 2)", "a.cpu(None)", "a.is_contiguous(None)",
    "a.is_contiguous(a.aminmax())", "a.is_contiguous(memory_format=a.aminmax())",
    "a.cpu(memory_format=1)", "a.contiguous(memory_format=1)", "a.to(None)",
    "a.to(None, None)", "a.to(None, m.float64)", "a.to(m.float64, None)",
    "a.to(None, None, None)", "a.type(a.aminmax())", "a.type(np.ones(2))", "a.type(1)",
    "a.type(float)", "a.type(np.float32)", "a.type(m.DoubleTensor).dtype",
    "a.type(m.FloatTensor) is a",
    # sequences of sizes: the first element decides, a bool counts after it
    "a.view((2, True))", "a.view((True, 4))", "a.reshape((4.0,))", "a.reshape([2, 2.0])",
    "a.expand((2.0, 2))", "a.view(2.0, 2)", "a.view(2, 2.0)", "a.repeat((1.0, 2))",
    "a.repeat((1, True))", "a.reshape((True, 4))", "a.tile((True,))", "a.tile((2.0,))",
    "m.tile(a, (2.5,))", "m.tile(a, dims=(2.5,))", "m.tile(a, dims=2)", "a.tile((1, True))",
    "a.tile(a.aminmax())", "a.tile('a')", "m.tile(a, None)", "a.tile([1, 'a'])",
    "m.tile(a, m.tensor([2, 1]))", "a.reshape(shape=(2.0, 2))", "a.expand(size=(2.0, 2))",
    "m.reshape(a, (2.0, 2))", "a.repeat(repeats=(1.0, 2))", "a.reshape(a.max(0))",
    "m.zeros((2, 2.0))", "m.zeros((2, True))", "m.zeros(2.0, 2)", "m.zeros(True, 2)",
    "m.zeros(2, True)", "m.zeros(2, (2,))", "m.zeros((True,))", "m.zeros(size=(2, True))",
    "m.zeros(size=(True, 2))", "m.empty(2, True)", "m.rand(2, True)", "m.randn((2, True))",
    "m.ones(m.tensor(2), True)", "m.full((2, True), 1.)", "a.new_zeros(2, True)",
    # repeat_interleave's counts
    "x.repeat_interleave()", "x.repeat_interleave(None)", "m.repeat_interleave(x, None)",
    "x.repeat_interleave(None, 0)", "m.repeat_interleave(x, repeats=None)",
    "x.repeat_interleave(repeats=None)", "m.repeat_interleave(x, None, dim=0)",
    "x.repeat_interleave(output_size=2)", "m.repeat_interleave(m.tensor([1, 2]))",
]


@pytest.mark.parametrize("call", WRONG_TYPE_CALLS)
def test_an_argument_of_the_wrong_type_gets_torchs_error(call):
    """What torch's argument parser refuses, refused in its words (found by the sweep that
    followed fuzz 3858422 and 3877534: repeat_interleave(2.5, dim=2.5) dropped the first
    2.5, the same object as the second)."""
    parity.assert_same_snippet("import numpy as np\na = m.ones(2, 2)\nb = m.ones(1)\n"
                               "x = m.ones(3, 3)\n" + f"r = error(lambda: {call})")


# Sequences of integers (dims, sizes, pads, split sizes) whose elements are not all integers:
# torch's parser looks at the first element to choose an overload (a bool is none there) and
# unpacks the others as integers, bools among them (fuzz 3904576: roll's dims, 3907850:
# torch.norm's dim, 3910131: split's sizes; the sweep that followed: pad, unflatten, aminmax)
NOT_ALL_INTS = ["(0, 'a')", "('a', 0)", "(0.5, 1)", "(1, True)", "[True, 0]", "(0, None)",
                "(1, m.tensor(0))", "(0, 1.0)"]
SEQUENCE_CALLS = [
    "x.sum({})", "x.sum(dim={})", "m.sum(x, {})", "x.mean({})", "x.amax({})", "m.amin(x, {})",
    "x.permute({})", "m.permute(x, {})", "x.flip({})", "m.flip(x, dims={})", "x.std({})",
    "x.var(dim={})", "x.logsumexp({})", "x.nansum({})", "x.count_nonzero({})",
    "x.norm(2, {})", "m.norm(x, 2, {})", "m.linalg.vector_norm(x, 2, {})", "x.roll(1, {})",
    "m.roll(x, -1, {})", "x.rot90(1, {})", "x.view({})", "x.reshape({})", "x.expand({})",
    "x.repeat({})", "x.tile({})", "m.zeros({})", "x.new_ones({})", "x.movedim({}, (0, 1))",
    "x.sum_to_size({})", "x.unflatten(1, {})", "m.unflatten(x, 1, {})", "m.tensor_split(x, {})",
    "x.split({})", "m.split(x, {})", "x.prod({})", "x.any({})", "x.all({})", "m.std_mean(x, {})",
    "m.nn.functional.pad(x, {})", "m.nn.functional.pad(x, pad={})", "x.squeeze({})",
    "x.aminmax(dim={})", "m.aminmax(x, dim={})", "x.median({})", "x.cumsum({})",
    "x.softmax({})", "x.narrow({}, 0, 1)", "x.diagonal(0, {})", "x.transpose({}, 1)",
    "x.unsqueeze({})", "m.cat([x, x], {})", "x.select({}, 0)", "x.max({})", "x.argmax({})",
    "x.topk(1, {})",
]


@pytest.mark.parametrize("sequence", NOT_ALL_INTS)
@pytest.mark.parametrize("call", SEQUENCE_CALLS)
def test_a_sequence_of_integers_with_other_elements_as_torchs_parser_reads_it(call, sequence):
    parity.assert_same_snippet("x = m.ones(2, 3)\n"
                               f"r = error(lambda: {call.format(sequence)})")


@pytest.mark.parametrize("keyword", ["keepdim=1", "dim=1.5", "dim='a'", "keepdim=None",
                                     "dim=None"])
@pytest.mark.parametrize("method", ["aminmax", "sum", "mean", "amax", "max", "argmax", "std",
                                    "var", "prod", "logsumexp", "nansum", "nanmean", "median",
                                    "mode", "all", "any", "count_nonzero", "norm", "cumsum",
                                    "softmax", "sort", "argsort", "std_mean", "squeeze",
                                    "flatten", "logcumsumexp", "unique_consecutive"])
def test_a_reductions_keywords_of_the_wrong_type(method, keyword):
    """x.aminmax(keepdim=1) ran: the method skipped the parser its function has."""
    parity.assert_same_snippet("x = m.ones(2, 3)\n"
                               f"r = error(lambda: x.{method}({keyword}))")


# torch.unique_consecutive is torch's Python boolean dispatch, which reads return_inverse at
# place 2 and return_counts at place 1: flags given by position select oddly, and what was not
# computed comes back empty (found by the extended signatures family, 5470142 and others)
UNIQUE_CONSECUTIVE_CALLS = [
    "m.unique_consecutive(b, True)", "m.unique_consecutive(b, True, True)",
    "m.unique_consecutive(b, False, True)", "m.unique_consecutive(b, True, False)",
    "m.unique_consecutive(b, False, False)", "m.unique_consecutive(b, True, False, 0)",
    "m.unique_consecutive(b, True, return_counts=False)", "m.unique_consecutive(b, False, True, 1)",
    "m.unique_consecutive(b, return_inverse=True, return_counts=True, dim=0)",
    "b.unique_consecutive(True, False)", "m.unique_consecutive(b, True, dim=0)",
    "m.unique_consecutive(b, False, True, dim=1)", "m.unique_consecutive(b, dims=0)",
    "m.unique_consecutive(b, False, False, 0)",
    "m.unique_consecutive(input=b, return_inverse=True)",
    "b.unique_consecutive()", "b.unique_consecutive(return_counts=True)",
    "b.unique_consecutive(True, True, 0)", "m.unique_consecutive(b, m.ones(2))",
    "m.unique_consecutive(b, 1, 0)", "m.unique_consecutive(b, True, False, 0, 1)",
    "m.unique_consecutive(m.tensor([]), True, True)", "m.unique_consecutive(b.float(), True)",
    "m.unique_consecutive(b, return_inverse=None)", "m.unique_consecutive(b, True, 'a')",
    "m.unique_consecutive(b, return_counts=True, dim=m.tensor(1))",
    "b.unique_consecutive(dim=m.tensor(1.))", "b.unique_consecutive(dim=True)",
    # and the keywords and sequences torch takes elsewhere
    "m.aminmax(x, axis=-2)", "x.aminmax(axis=1)", "x.aminmax(dim=1, keepdims=True)",
    "x.aminmax(axis=0, dim=1)", "x.tile(True)", "x.tile(False, 2)", "x.tile(2.0, 1)",
    "x.tile((2,), 1)", "x.tile(m.tensor(2), 1)", "x.tile(1, True)", "x.tile(m.tensor(2.), 1)",
    "x.tile(m.tensor(1))", "x.unique_consecutive(return_counts=m.ones(2))",
    "x.unflatten(m.ones(2), (2, 1))", "x.unflatten(True, (-1, 1))", "x.unflatten(1, m.ones(2))",
    "x.unflatten(1, ())", "x.unflatten(1, 0)", "x.unflatten(1, 3)", "m.unflatten(x, 1, ())",
    "m.unflatten(x, True, (3,))", "m.unflatten(x, dim=True, sizes=(3,))",
    "x.unflatten(m.tensor(1), (3, 1))", "x.unflatten(1, m.tensor([3]))",
    "x.unflatten(dim=1.5, sizes=(3,))", "m.unflatten(x, 5, None)", "x.unflatten(5, (3,))",
    "m.unflatten(x, 5, (1.5,))",
    "m.unique_consecutive(m.tensor([1, 1, 2]), True, dim=-1)",
    "m.unique_consecutive(m.tensor([1, 1, 2]), True, dim=0)",
    "m.unique_consecutive(m.tensor([1, 1, 2]), False, True, 0)",
    "m.tensor([1, 1, 2]).unique_consecutive(return_counts=True, dim=0)",
    "m.roll(x, 1, None)", "m.roll(x, m.tensor(1), dims=None)", "x.roll(1, None)",
    "m.roll(x, (1, 1), None)", "m.roll(x, None)",
    # the old overloads that take the scale first: only with tensors after it
    "m.addcmul(x, 2, x, 'a')", "m.addcmul(x, 2, 'a', x)", "x.addcmul(2, x, None)",
    "m.add(x, 2, 3)", "x.add_(2, [1.])", "m.sub(x, 2, x)", "m.sub(x, -0.3, (2.0, 1))",
    "x.add(m.tensor(2.0), 'a')", "m.add(x, m.tensor(2.0), (1, 'a'))", "m.addcdiv(x, 2, x, x)",
    # out= of div: its tensor overloads only; reshape of a torch.return_types
    "m.div(x, x.aminmax(), out=m.zeros(2, 3))", "m.div(x, 'a', out=m.zeros(2, 3))",
    "m.div(x, None, out=m.zeros(2, 3))", "m.div(x, 2, out=m.zeros(2, 3))",
    "m.div(x, x, 'floor', out=m.zeros(2, 3))", "m.reshape(x, x.aminmax())",
    "m.reshape(x, m.ones(1).max(0))", "m.norm(x, float('inf'), [True, 1], True, m.int64)",
    "m.norm(x, 2, (0, 'a'), out=m.zeros(1))", "m.norm(x, 'fro', [True, 1])",
    "x.expand('a', implicit=m.tensor(1))", "x.expand(2, 3, implicit=1)", "x.expand(implicit=1)",
    "x.expand(size=(2.0, 3), implicit=1)", "m.norm(x, (2.0, 1), (0, 0), True, m.float16)",
    "m.norm(x, (2.0, 1))", "x.norm((2.0,))", "x.add([True, 1], alpha=(1, True))",
    "m.add(x, [1], alpha='a')", "x.sub(None, alpha=None)", "m.sub(x, 'a', alpha=2)",
    "x.add(other=[1], alpha=(1,))", "x.add_([1], alpha=(1,))",
    "m.add(x, x.aminmax(), alpha=[1])",
]


@pytest.mark.parametrize("call", UNIQUE_CONSECUTIVE_CALLS)
def test_unique_consecutive_returns_what_torchs_dispatch_picks(call):
    parity.assert_same_snippet("b = m.tensor([[1, 1, 2], [2, 3, 3]])\nx = m.ones(2, 3)\n"
                               f"r = error(lambda: {call}) or {call}")


# numpy's RuntimeWarnings (overflow in an intermediate sum, a cast, a subtraction) are not
# torch's: a value past float32's or float16's range becomes inf quietly (fuzz 3995092:
# log_softmax's backward summing 3.4e38s)
EXTREME_ROWS = {
    "near float32's largest": [3.4e38, 3.0e38, -1.0, 2.0, 1e38, 3.3e38, 3.2e38, 3.1e38, 1.0],
    "both signs": [-3.4e38, 3.4e38, 0.0, 1.0, -3e38, 3e38, 2.0, 5.0, 1.0],
    "inf and nan": [math.inf, 1.0, -math.inf, 2.0, 0.0, 1.0, math.nan, 3.0, 1.0],
    "near float16's largest": [6e4, 6.5e4, -6e4, 1.0, 2.0, 3e4, 4e4, 5e4, 1.0],
}
EXTREME_OPS = {
    "sum": "t.sum()", "sum(1)": "t.sum(1)", "mean": "t.mean()", "std": "t.std()",
    "var(1)": "t.var(1)", "softmax": "t.softmax(1)", "log_softmax": "t.log_softmax(1)",
    "logsumexp": "t.logsumexp(1)", "norm": "t.norm()", "norm(dim=1)": "t.norm(dim=1)",
    "prod": "t.prod(1)", "cumsum": "t.cumsum(1)", "cumprod": "t.cumprod(1)", "exp": "t.exp()",
    "square": "(t * t)", "cube": "(t ** 3)", "sigmoid": "t.sigmoid()", "tanh": "t.tanh()",
    "mse_loss": "m.nn.functional.mse_loss(t, t * 0.5)",
    "cross_entropy": "m.nn.functional.cross_entropy(t, m.tensor([0, 1, 2]))",
    "cross_entropy sum": "m.nn.functional.cross_entropy(t, m.tensor([0, 1, 2]), "
                         "reduction='sum')",
    "layer_norm": "m.nn.functional.layer_norm(t, (3,))", "matmul": "(t @ t)",
    "max": "t.max(1)[0]", "amax": "t.amax(1)", "cdist": "m.cdist(t, t)",
    "std_mean": "m.std_mean(t, 1)[0]", "nansum": "t.nansum()", "nanmean": "t.nanmean(1)",
    "sqrt": "t.abs().sqrt()", "log": "t.abs().log()", "x / 0": "(t / (t - t))",
    "rsqrt": "t.rsqrt()", "softplus": "m.nn.functional.softplus(t)",
    "gelu": "m.nn.functional.gelu(t)", "silu": "m.nn.functional.silu(t)",
    "hypot": "m.hypot(t, t)", "logaddexp": "m.logaddexp(t, t)", "addcmul": "m.addcmul(t, t, t)",
    "lerp": "m.lerp(t, t * 2, 0.5)", "trace": "t.trace()",
    "normalize": "m.nn.functional.normalize(t)",
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("row", EXTREME_ROWS)
@pytest.mark.parametrize("op", EXTREME_OPS)
def test_extreme_values_give_torchs_warnings_only(op, row, dtype):
    code = ("t = m.tensor(VALUES, dtype=DTYPE).reshape(3, 3).requires_grad_()\n"
            f"out = error(lambda: {EXTREME_OPS[op]})\n"
            f"r = out if isinstance(out, Exception) else error(lambda: {EXTREME_OPS[op]}"
            ".sum().backward())\n")
    results = []
    for m in (torch, parity.engine):
        _, warned = parity.run_snippet(code, m, DTYPE=getattr(m, dtype),
                                       VALUES=EXTREME_ROWS[row])
        results.append(warned)
    assert results[1] == results[0]


ACTIVATIONS = {"sigmoid": "m.sigmoid(t)", "tanh": "m.tanh(t)",
               "logsigmoid": "m.nn.functional.logsigmoid(t)", "silu": "m.nn.functional.silu(t)",
               "elu": "m.nn.functional.elu(t)", "gelu": "m.nn.functional.gelu(t)",
               "log": "t.log()", "sqrt": "t.sqrt()", "rsqrt": "t.rsqrt()",
               "reciprocal": "t.reciprocal()", "softplus": "m.nn.functional.softplus(t)",
               "cube": "t.pow(3)", "erf": "t.erf()", "exp": "t.exp()", "sin": "t.sin()"}


@pytest.mark.parametrize("weights", ["sum", "arange"])
@pytest.mark.parametrize("value", [1.0, 0.3])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_derivatives_through_a_transposed_input_are_laid_out_as_torchs(activation, value,
                                                                        weights):
    """fuzz 4007743: sigmoid's second derivative through x.t() was laid out row-major where
    torch's is transposed ((gg * grad) * (1 - 2y) in torch's order); logsigmoid's gradient of
    an expanded grad is torch's empty_like(grad), row-major, whatever x's layout."""
    results = []
    for m in (torch, parity.engine):
        x = m.full((3, 4), value, requires_grad=True)
        t = x.t()
        y = eval(ACTIVATIONS[activation], {"m": m, "t": t})  # noqa: S307 - the same code
        w = m.arange(12.0).view(4, 3)
        first, = m.autograd.grad(y.sum() if weights == "sum" else (y * w).sum(), x,
                                 create_graph=True)
        second, = m.autograd.grad(first.sum() if weights == "sum" else (
            first * m.arange(12.0).view(3, 4)).sum(), x, allow_unused=True)
        results.append((first.stride(), None if second is None else second.stride(),
                        first.detach(), None if second is None else second.detach()))
    assert results[1][:2] == results[0][:2]
    parity.assert_same(results[1][2], results[0][2], exact=False, check_repr=False)
    if results[0][3] is not None:
        parity.assert_same(results[1][3], results[0][3], exact=False, check_repr=False)
