"""Fuzz round thirteen (seeds 3080000 and on, pinned to AVX2) against torch 2.15.

- 3096359: shapes that do not broadcast name the last bad dimension, as torch's infer_size
  scans from the right (copy_ and broadcast_tensors named the first): tested over every
  operation that broadcasts.
- 3086722: copy_ from a view of exactly the destination's elements returns before its
  overlap checks, even when those elements repeat (a stride-0 gradient).
- 3099342: torch's C++ messages name a bool tensor's type CPUBoolType (expand, embedding);
  embedding_bag brings indices and offsets to their common type before checking them.
"""
import itertools

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


def _outcome(m, code, names=None):
    scope = {"m": m, **(names or {})}
    try:
        exec(code, scope)
    except Exception as error:  # (the same error, word for word)
        return (type(error).__name__, str(error))
    return scope.get("r")


BROADCASTING_CALLS = [
    "r = a.copy_(b).shape",
    "r = [t.shape for t in m.broadcast_tensors(a, b)]",
    "r = m.broadcast_tensors(b, a, a)[0].shape",
    "r = (a + b).shape",
    "r = (a * b).shape",
    "r = m.where(a > 0, a, b).shape",
    "r = a.masked_fill(b > 0, 1.0).shape",
    "r = m.lerp(a, b, 0.5).shape",
    "r = m.addcmul(a, a, b).shape",
    "r = m.maximum(a, b).shape",
    "r = (a == b).shape",
    "r = m.atan2(a, b).shape",
    "r = a.add_(b).shape",
]
SHAPE_PAIRS = [((2, 2), (3, 3)), ((2, 2), (2, 3, 3)), ((3, 2), (3, 1, 3)), ((4, 3, 2), (5, 3, 3)),
               ((2, 3, 4), (3, 2, 4)), ((1, 2, 3), (4, 5, 3)), ((0, 3), (2, 3)),
               ((5, 1, 2), (4, 3)), ((), (2, 3)), ((2, 1), (1, 3))]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("call", BROADCASTING_CALLS)
def test_shapes_that_do_not_broadcast_name_the_last_bad_dimension(call, shapes):
    first, second = shapes
    results = [_outcome(m, call, {"a": m.ones(first), "b": m.ones(second)})
               for m in (torch, parity.engine)]
    assert results[1] == results[0]


@pytest.mark.parametrize("shapes", list(itertools.permutations(
    [(2, 2), (3, 3), (2, 1, 3), (1, 3)], 2)), ids=str)
def test_broadcast_shape_against_torchs_infer_size(shapes):
    names = {"shapes": shapes}
    code = "r = [t.shape for t in m.broadcast_tensors(*[m.zeros(s) for s in shapes])]"
    assert _outcome(parity.engine, code, names) == _outcome(torch, code, names)


SAME_DATA_COPIES = [
    # a gradient made by expanding a number: its elements repeat (stride 0)
    "y = m.ones(1, 2, requires_grad=True)\nw, = m.autograd.grad((y - 0.3).sum(), y, "
    "create_graph=True)\na = w.narrow(0, 0, 1)\na.copy_(w)\nr = [a.stride(), a._version]",
    "w = m.ones(()).expand(2, 3)\nv = w[:]\nv.copy_(w)\nr = [v.tolist(), v._version]",
    "w = m.ones(()).expand(2, 3)\nw.copy_(w)\nr = w._version",
    # not the same elements: the overlap is refused
    "w = m.ones(()).expand(2, 3)\nw.copy_(w[:, :1])",
    "w = m.ones(()).expand(2, 3)\nv = w[:, :]\nv.copy_(m.zeros(2, 3))",
    "w = m.zeros(2, 3).expand(2, 2, 3)\nv = w.transpose(0, 1)\nv.copy_(w)",
    "x = m.zeros(4)\nx[1:].copy_(x[:-1])",
    "x = m.arange(4.)\nx[:].copy_(x)\nr = [x.tolist(), x._version]",
]


@pytest.mark.parametrize("code", SAME_DATA_COPIES)
def test_copy_of_exactly_its_own_elements_returns_early(code):
    assert _outcome(parity.engine, code) == _outcome(torch, code)


TYPE_NAMED_CALLS = [
    "m.zeros(3, 1, 3, dtype=d).expand(9, 9)",
    "m.zeros(2, 3, dtype=d).expand(3)",
    "m.nn.functional.embedding(m.zeros(2, dtype=d), m.zeros(3, 2))",
    "m.nn.functional.embedding_bag(m.zeros(2, dtype=d), m.zeros(3, 2), m.tensor([0]))",
    "r = m.nn.functional.embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.zeros(1, dtype=d))"
    ".tolist()",
    "r = m.nn.functional.embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.ones(1, dtype=d))"
    ".tolist()",
    "r = m.nn.functional.embedding_bag(m.zeros(2, dtype=d), m.ones(3, 2), "
    "m.tensor([0], dtype=m.int32)).tolist()",
]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call", TYPE_NAMED_CALLS)
def test_cpp_messages_name_the_tensor_type_as_torch(call, dtype):
    results = [_outcome(m, call, {"d": getattr(m, dtype)}) for m in (torch, parity.engine)]
    assert results[1] == results[0]
