"""An int given as a numpy integer or as a tensor, to every operation that takes ints, as
torch's argument parser (python_arg_parser.cpp) reads it; see engine/fidelity/signatures.py.

- an ``int`` parameter (a dim, chunks, n of diff, steps of linspace) takes a Python int (not
  a bool), a numpy integer, a 0-d integer tensor (not bool);
- a ``SymInt`` one (select's index, narrow's start and length, topk's k, eye's n, split's
  size) an integer tensor of one element of any shape too, and a bool tensor of one element,
  which passes the type check and then fails the conversion with torch's RuntimeError;
- a list (``int[]``, ``SymInt[]``: dims, sizes, shifts, padding) is one when its first
  element is an int or an integer or bool tensor of one element; then each element is read:
  a bool tensor is 1 in an ``int[]``, torch's RuntimeError in a ``SymInt[]``; a list with a
  size (``int[1] dim`` of sum, ``SymInt[1] shifts`` of roll) takes one such value alone.

Each operation is called with each kind of value in each place it takes an int (a table, read
from torch's schemas: ``torch._C._jit_get_schemas_for_operator``); results and errors (type
and message) compared.
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch

# the kinds of values, as code of ``n`` (the int the case wants) and of ``m`` (the library)
VALUES = {
    "int": "{n}",
    "numpy int": "np.int64({n})",
    "numpy int32": "np.int32({n})",
    "bool": "True",
    "numpy bool": "np.bool_(True)",
    "0-d int64": "m.tensor({n})",
    "0-d int32": "m.tensor({n}, dtype=m.int32)",
    "0-d uint8": "m.tensor({n}, dtype=m.uint8)",
    "0-d bool": "m.tensor(True)",
    "0-d float": "m.tensor(float({n}))",
    "0-d float requiring grad": "m.tensor(float({n}), requires_grad=True)",
    "(1,) int64": "m.tensor([{n}])",
    "(1,) bool": "m.tensor([True])",
    "(1, 1) int64": "m.tensor([[{n}]])",
    "(2,) int64": "m.tensor([{n}, {n}])",
}

SETUP = ("import numpy as np\nF = m.nn.functional\nx = m.arange(24.).reshape(2, 3, 4)\n"
         "g = m.manual_seed(0)\n")

# (call, n): ``V`` is where the value goes; what the call leaves is compared (its shape alone
# where the values are random or uninitialized: ``.shape``)
CALLS = [
    # views and shapes
    ("x.narrow(V, 0, 1)", 2), ("x.narrow(2, V, 1)", 2), ("x.narrow(2, 0, V)", 2),
    ("m.narrow(x, 2, 1, V)", 2),
    ("x.select(V, 0)", 2), ("x.select(2, V)", 2), ("m.select(x, 1, V)", 2),
    ("x.view(V, -1)", 2), ("x.view(-1, V)", 2), ("x.view((V, -1))", 2), ("x.view([-1, V])", 2),
    ("x.reshape(V, -1)", 2), ("x.reshape((-1, V))", 2), ("m.reshape(x, (V, -1))", 2),
    ("m.ones(1).expand(V, 2)", 2), ("m.ones(1).expand((2, V))", 2),
    ("m.ones(1).broadcast_to((V, 2))", 2), ("m.broadcast_to(m.ones(1), (2, V))", 2),
    ("x.repeat(V, 1, 1)", 2), ("x.repeat((1, V, 1))", 2),
    ("x.tile((V,))", 2), ("x.tile(1, V)", 2), ("m.tile(x, (V, 1))", 2),
    ("x.unflatten(2, (V, -1))", 2), ("x.unflatten(V, (1, -1))", 2),
    ("x.flatten(V)", 1), ("x.flatten(0, V)", 1), ("m.flatten(x, V)", 1),
    ("x.transpose(V, 0)", 2), ("x.transpose(0, V)", 2), ("x.swapaxes(V, 0)", 2),
    ("x.swapdims(0, V)", 2), ("m.transpose(x, V, 1)", 2),
    ("x.diagonal(V)", 1), ("x.diagonal(0, V, 2)", 1), ("m.diagonal(x, 0, 1, V)", 2),
    ("x.movedim(V, 0)", 2), ("x.movedim((V,), (0,))", 2), ("x.moveaxis(V, 0)", 2),
    ("x.permute(0, V, 2)", 1), ("x.permute((V, 0, 2))", 1), ("m.permute(x, (0, 2, V))", 1),
    ("x.unsqueeze(V)", 2), ("m.unsqueeze(x, V)", 2),
    ("m.ones(2, 1, 3).squeeze(V)", 1), ("m.ones(2, 1, 3).squeeze((V, 0))", 1),
    ("x.flip(V)", 2), ("x.flip((V,))", 2), ("x.flip(0, V)", 2), ("m.flip(x, (V, 0))", 2),
    ("x.roll(V, 2)", 2), ("x.roll(1, V)", 2), ("x.roll((V, 1), (2, 1))", 2),
    ("x.roll((1, 1), (V, 1))", 2), ("m.roll(x, V)", 2),
    ("x.rot90(V)", 2), ("x.rot90(1, (V, 1))", 2),
    ("x.as_strided((V,), (1,))", 2), ("x.as_strided((1,), (V,))", 2),
    ("x.as_strided((1,), (1,), V)", 2), ("m.as_strided(x, (2, V), (1, 1))", 2),
    ("x.unfold(2, V, 1)", 2), ("x.unfold(V, 1, 1)", 2), ("x.unfold(2, 1, V)", 2),
    ("x.sum_to_size(V, 3, 4)", 1), ("x.sum_to_size((1, 3, V))", 1),
    ("x.unbind(V)", 2), ("m.unbind(x, V)", 2),
    ("x.unsqueeze_(V)", 2), ("x.transpose_(V, 0)", 2), ("m.ones(2, 1, 3).squeeze_(V)", 1),
    ("x.size(V)", 2), ("x.stride(V)", 2),
    # splits
    ("x.split(V, 2)", 2), ("x.split([V, 2], 2)", 2), ("x.split(1, V)", 2),
    ("m.split(x, V, 2)", 2), ("x.split_with_sizes([V, 2], 2)", 2),
    ("x.chunk(V, 2)", 2), ("x.chunk(2, V)", 2), ("m.chunk(x, V, 2)", 2),
    ("x.tensor_split(V, 2)", 2), ("x.tensor_split((V,), 2)", 2), ("x.tensor_split(2, V)", 2),
    ("x.hsplit(V)", 1), ("x.dsplit(V)", 2), ("x.vsplit(V)", 2), ("x.dsplit([V])", 2),
    # factories
    ("m.zeros(V, 2)", 2), ("m.zeros(2, V)", 2), ("m.zeros((2, V))", 2), ("m.zeros(V)", 2),
    ("m.zeros(size=(V,))", 2), ("m.ones(V)", 2), ("m.ones([V, 1])", 2),
    ("m.full((V,), 1.5)", 2), ("m.full((1, V), 1.5)", 2),
    ("m.empty(V).shape", 2), ("m.empty((1, V)).shape", 2), ("m.randn(V).shape", 2),
    ("m.rand(2, V).shape", 2), ("m.empty_strided((V,), (1,)).shape", 2),
    ("m.empty_strided((2,), (V,)).shape", 2),
    ("x.new_zeros(V, 2)", 2), ("x.new_ones((V,))", 2), ("x.new_empty(V).shape", 2),
    ("x.new_full((V,), 2.0)", 2), ("x.new_full((1, V), 2.0)", 2),
    ("m.eye(V)", 2), ("m.eye(2, V)", 2), ("m.linspace(0, 1, V)", 2), ("m.logspace(0, 1, V)", 2),
    ("m.linspace(0, 1, steps=V)", 2),
    ("m.randint(V, (3,))", 1), ("m.randint(0, V, (3,))", 1), ("m.randint(1, (V,))", 2),
    ("m.randperm(V)", 1), ("m.tril_indices(V, 2)", 2), ("m.triu_indices(2, 2, V)", 1),
    ("m.ones(3).multinomial(V).shape", 2), ("m.multinomial(m.ones(3), V).shape", 2),
    ("x.random_(V)", 1), ("x.random_(0, V)", 1), ("m.randint_like(x, V)", 1),
    ("m.normal(0.0, 1.0, (V,)).shape", 2), ("m.arange(V)", 2),
    # reductions and scans along a dim
    ("x.sum(V)", 2), ("x.sum((V, 0))", 2), ("m.sum(x, V)", 2), ("x.sum(dim=V)", 2),
    ("x.mean(V)", 2), ("x.nansum(V)", 2), ("x.prod(V)", 2), ("x.std(V)", 2), ("x.var(V)", 2),
    ("m.var_mean(x, V)", 2), ("m.std_mean(x, (V,))", 2), ("x.amax(V)", 2), ("x.amin((V,))", 2),
    ("x.logsumexp(V)", 2), ("x.count_nonzero(V)", 2), ("x.count_nonzero((V,))", 2),
    ("x.all(V)", 2), ("x.any(V)", 2), ("x.argmax(V)", 2), ("x.argmin(V)", 2),
    ("x.max(V)", 2), ("x.min(V)", 2), ("x.median(V)", 2), ("x.nanmedian(V)", 2),
    ("x.mode(V)", 2), ("x.aminmax(dim=V)", 2), ("x.norm(dim=V)", 2),
    ("x.cumsum(V)", 2), ("x.cumprod(V)", 2), ("x.cummax(V)", 2), ("x.cummin(V)", 2),
    ("x.logcumsumexp(V)", 2), ("x.sort(V)", 2), ("x.argsort(V)", 2), ("x.softmax(V)", 2),
    ("x.log_softmax(V)", 2), ("F.softmax(x, V)", 2), ("F.log_softmax(x, V)", 2),
    ("F.softmin(x, V)", 2), ("m.softmax(x, V)", 2), ("m.cumsum(x, V)", 2), ("x.nanmean(V)", 2),
    ("m.max(x, V)", 2), ("x.diff(V)", 2), ("x.diff(1, V)", 2),
    ("x.topk(V)", 2), ("x.topk(1, V)", 2), ("m.topk(x, V)", 2), ("x.topk(k=V)", 2),
    ("x.kthvalue(V)", 2), ("x.kthvalue(1, V)", 2), ("m.kthvalue(x, 1, V)", 2),
    ("m.unique(x, dim=V)", 2), ("x.unique_consecutive(dim=V)", 2),
    ("x.quantile(0.5, V)", 2), ("x.renorm(2, V, 1.0)", 2),
    ("m.linalg.vector_norm(x, dim=V)", 2),
    # triangles and diagonals
    ("x.tril(V)", 2), ("x.triu(V)", 2), ("m.tril(x, V)", 2), ("x.tril_(V)", 2),
    ("m.diag(m.ones(3), V)", 2), ("m.diag_embed(m.ones(3), V)", 1),
    ("m.diagflat(m.ones(2), V)", 1),
    # indexing along a dim
    ("x.index_select(V, m.tensor([0]))", 2), ("x.gather(V, m.zeros(2, 3, 4, dtype=m.int64))", 2),
    ("x.scatter(V, m.zeros(1, 1, 1, dtype=m.int64), 0.0)", 2),
    ("x.index_fill(V, m.tensor([0]), 0.0)", 2),
    ("x.index_add(V, m.tensor([0]), m.ones(2, 3, 1))", 2),
    ("x.index_copy(V, m.tensor([0]), m.ones(2, 3, 1))", 2),
    ("x.scatter_add(V, m.zeros(1, 1, 1, dtype=m.int64), m.ones(1, 1, 1))", 2),
    ("x.take_along_dim(m.zeros(1, 1, 1, dtype=m.int64), V)", 2),
    ("m.stack([x, x], V)", 2), ("m.cat([x, x], V)", 2),
    ("x.repeat_interleave(V)", 2), ("x.repeat_interleave(V, 2)", 2),
    ("x.repeat_interleave(m.tensor([1, 2, 1]), V)", 1), ("x.repeat_interleave(2, dim=V)", 2),
    # other int parameters
    ("x.round(decimals=V)", 2), ("m.bincount(m.tensor([0, 1]), minlength=V)", 2),
    ("x.histc(V)", 2),
    ("m.eye(2).matrix_power(V)", 2), ("F.pad(x, (V, 0))", 2), ("F.pad(x, (0, V, 1, 1))", 2),
    ("F.one_hot(m.tensor([0, 1]), V)", 2), ("F.pixel_shuffle(m.ones(1, 4, 1, 1), V)", 2),
    ("F.pixel_unshuffle(m.ones(1, 1, 2, 2), V)", 2),
    ("F.channel_shuffle(m.ones(1, 4, 1, 1), V)", 2),
    ("m.tensordot(x, x, ([V], [V]))", 2),
    ("F.cosine_similarity(x, x, V)", 2), ("F.local_response_norm(m.ones(1, 2, 2), V)", 2),
    ("F.glu(m.ones(2, 4), V)", 1), ("F.group_norm(m.ones(1, 2, 2), V)", 2),
    ("F.layer_norm(x, (V,))", 4), ("F.normalize(x, dim=V)", 2),
    ("F.max_pool1d(m.ones(1, 1, 4), V)", 2), ("F.avg_pool2d(m.ones(1, 1, 4, 4), V)", 2),
    ("F.adaptive_avg_pool2d(m.ones(1, 1, 4, 4), V)", 2), ("F.max_pool2d(m.ones(1, 1, 4, 4), V)", 2),
    ("F.avg_pool1d(m.ones(1, 1, 4), V)", 2), ("F.adaptive_avg_pool1d(m.ones(1, 1, 4), V)", 2),
    ("F.max_pool2d(m.ones(1, 1, 4, 4), 2, V)", 1),
    ("F.avg_pool2d(m.ones(1, 1, 4, 4), 2, padding=V)", 1),
    ("F.unfold(m.ones(1, 1, 3, 3), V)", 2), ("F.fold(m.ones(1, 4, 4), (3, 3), V)", 2),
    ("F.conv1d(m.ones(1, 2, 4), m.ones(2, 1, 1), groups=V)", 2),
    ("F.conv1d(m.ones(1, 1, 4), m.ones(1, 1, 1), stride=V)", 2),
    ("F.cross_entropy(m.ones(2, 3), m.tensor([0, 1]), ignore_index=V)", 1),
    ("F.nll_loss(m.ones(2, 3), m.tensor([0, 1]), ignore_index=V)", 1),
    ("F.embedding(m.tensor([0, 1]), m.ones(3, 2), padding_idx=V)", 1),
]

CASES = {f"{call.replace('V', '<' + kind + '>')}": (call, value.format(n=n))
         for call, n in CALLS for kind, value in VALUES.items()}


def _outcome(m, call, value):
    return parity.snippet_facts(parity.outcome(m, SETUP + "r = " + call.replace("V", value)))


@pytest.mark.parametrize("case", CASES)
def test_an_int_argument_is_read_as_torchs_parser_reads_it(case):
    call, value = CASES[case]
    assert _outcome(engine, call, value) == _outcome(torch, call, value)


# sizes that pass the end of the dimension: torch's slices are clamped to it, the sum is checked
# after them (fuzz 5552565: the engine's piece beyond the end was numpy's ValueError)
SPLITS = ["m.split(m.randn(0), [1, 0])", "m.split(m.ones(3), [4, 0])", "m.ones(3).split([2, 2])",
          "m.split(m.ones(3), [4, -1])", "m.ones(2, 3).split_with_sizes([1, 3, 1], 1)"]


@pytest.mark.parametrize("call", SPLITS)
def test_split_sizes_past_the_end_are_torchs_error(call):
    assert _outcome(engine, call, "") == _outcome(torch, call, "")
