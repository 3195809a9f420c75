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
import warnings

import numpy as np

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


_outcome = parity.outcome  # (what code leaves in r, or its error)


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


NORM_INPUTS = ["m.arange(6.).reshape(2, 3) - 2", "m.ones(2, 3, dtype=m.int64)", "m.ones(3)",
               "m.arange(24.).reshape(2, 3, 4) - 5", "m.zeros(0, 3)", "m.ones(())",
               "m.ones(2, 2, dtype=m.float16)", "m.zeros(2, 0, 3)"]
NORM_CALLS = [
    # torch.norm: a string order other than "fro" over at most two dims is linalg.matrix_norm
    "x.norm('nuc')", "m.norm(x, 'nuc', (0, 1), True)", "x.norm('nuc', 0)", "x.norm('a')",
    "x.norm('fro', (0, 1, 2))", "x.norm('fro', (0, 0))", "x.norm(None, (0, 1, 2))",
    "x.norm(p='nuc', dim=(1, 0), dtype=m.float64)", "x.norm((0, 1))", "x.norm(float('inf'), 0)",
    "x.norm(-1)", "x.norm(-1, 0)", "x.norm(-0.5, (0,))", "x.norm(float('-inf'), -1)",
    # linalg.norm: None is the vector 2-norm, a number with two dims a matrix norm
    "m.linalg.norm(x)", "m.linalg.norm(x, None, (0, 0))", "m.linalg.norm(x, 2, (0, 1, 2))",
    "m.linalg.norm(x, 'fro')", "m.linalg.norm(x, 2)", "m.linalg.norm(x, 1, (1, 0))",
    "m.linalg.norm(x, 'fro', 0)", "m.linalg.norm(x, 'fro', 'a')", "m.linalg.norm(x, -2, (0, 1))",
    # linalg.matrix_norm: torch's order of checks, the largest of no values is 0
    "m.linalg.matrix_norm(x)", "m.linalg.matrix_norm(x, 'nuc')", "m.linalg.matrix_norm(x, 3)",
    "m.linalg.matrix_norm(x, 0.5)", "m.linalg.matrix_norm(x, 'fro', 0)",
    "m.linalg.matrix_norm(x, 1, (0, 0))", "m.linalg.matrix_norm(x, 1, (1, 0))",
    "m.linalg.matrix_norm(x, float('inf'), (0, 1), True)", "m.linalg.matrix_norm(x, -1)",
    "m.linalg.matrix_norm(x, 2, dtype=m.float64)", "m.linalg.matrix_norm(x, 'nuc', dtype=m.int64)",
    "m.linalg.matrix_norm(x, 'fro', dtype=m.float16)", "m.linalg.matrix_norm(x, -2)",
    "m.linalg.matrix_norm(x, 'nuc', [0.5, 1])",
    # linalg.vector_norm: torch's parser, and no identity for an empty inf or negative norm
    "m.linalg.vector_norm(x, None)", "m.linalg.vector_norm(x, ord='fro')",
    "m.linalg.vector_norm(x, x)", "m.linalg.vector_norm(x, (0, 1))",
    "m.linalg.vector_norm(x, -1, ())", "m.linalg.vector_norm(x, -1, 0, dtype=m.int64)",
    "m.linalg.vector_norm(x, float('inf'), (0, 0))", "m.linalg.vector_norm(x, 2, input=x)",
]


def _norm_outcome(m, call, source):
    try:
        result = eval(call, {"m": m, "x": eval(source, {"m": m})})
    except Exception as error:  # (the same error, word for word)
        return (type(error).__name__, str(error))
    return (result.dtype, tuple(result.shape), result.stride(), result.requires_grad,
            [round(v, 4) for v in result.double().flatten().tolist()])


@pytest.mark.parametrize("source", NORM_INPUTS)
@pytest.mark.parametrize("call", NORM_CALLS)
def test_norms_dispatch_and_check_as_torch(call, source):
    results = [_norm_outcome(m, call, source) for m in (torch, parity.engine)]
    assert str(results[1]) == str(results[0])


@pytest.mark.parametrize("call", [
    "m.linalg.matrix_norm(x, 'nuc')", "x.norm('nuc')", "m.linalg.matrix_norm(x, 2)",
    "m.linalg.matrix_norm(x, -2, (1, 0), True)", "m.linalg.norm(x, 'nuc', (0, 1))"])
def test_the_nuclear_and_spectral_norms_gradients(call):
    results = []
    for m in (torch, parity.engine):
        x = m.tensor([[1.0, 2.0, 0.0], [0.0, 3.0, 1.0]], dtype=m.float64, requires_grad=True)
        y = eval(call, {"m": m, "x": x})
        y.sum().backward()
        results.append((y.grad_fn.name(), [round(v, 10) for v in y.flatten().tolist()],
                        [round(v, 10) for v in x.grad.flatten().tolist()]))
    assert results[1] == results[0]


@pytest.mark.parametrize("code", [
    "function, method = m.norm(input=x), x.norm(input=x)", "m.norm()", "m.norm(x, input=x)",
    "m.norm(p=2)", "r = m.norm(input=x, p=1).item()", "x.norm(out=m.empty(0))",
])
def test_norms_first_argument_as_torchs_python_functions(code):
    assert _outcome(parity.engine, code, {"x": parity.engine.ones(2)}) == \
        _outcome(torch, code, {"x": torch.ones(2)})


THIRD_DERIVATIVES = [
    # the sum of a 0-d tensor (exp(x @ x).sum()) records its expand, whose backward is
    # torch's sum_to to (): a sum even of one element (fuzz 3108012)
    ("b = (x @ x).exp().sum().log()", [2.0, 2.0]),
    ("b = (x * x).sum().exp().sum()", [0.5, -0.25]),
    ("b = x.sum().expand(()).sin()", [0.5, 1.5]),
    ("b = (x @ x).sum().log().sum() * x", [3.0, 4.0]),
    ("b = x.dot(x).expand(()).exp().sum().expand(2) * x", [0.25, -0.5]),
]


@pytest.mark.parametrize("program, values", THIRD_DERIVATIVES)
def test_derivatives_through_a_sum_of_zero_dims(program, values):
    results = []
    for m in (torch, parity.engine):
        x = m.tensor(values, requires_grad=True)
        scope = {"m": m, "x": x}
        exec(program, scope)
        derivatives, value = [], scope["b"]
        for _ in range(4):
            value, = m.autograd.grad(value.sum(), x, create_graph=True, allow_unused=True)
            derivatives.append((value.tolist(), value.grad_fn and value.grad_fn.name(),
                                _graph_names(value.grad_fn)))
        results.append(derivatives)
    assert results[1] == results[0]


def _graph_names(node):
    """The names of every node under ``node``, sorted (the graph's shape, not its order)."""
    seen, stack, names = set(), [node], []
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        names.append(current.name())
        stack.extend(next_node for next_node, _ in current.next_functions)
    return sorted(names)


SORT_SHAPES = [(17,), (40,), (3, 20), (20, 3), (2, 5, 30), (16,), (2, 17), (40000,)]
SORT_DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "int16", "bool"]


SORT_WAYS = ["", ", stable=False", ", stable=True", "argsort", "transposed", "expanded", "nan"]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype, how", [(dtype, how) for dtype in SORT_DTYPES for how in SORT_WAYS
                                        if how != "nan" or dtype.startswith("float")])
@pytest.mark.parametrize("shape", SORT_SHAPES, ids=str)
def test_sort_leaves_ties_where_torchs_std_sort_does(shape, dtype, how, descending):
    """fuzz 3130305: torch's sort without stable=True is std::sort of (value, index) pairs:
    past 16 values its partitions reorder equal values (a long 1-d integer tensor sorted up
    goes to a stable radix sort, a dimension of stride 0 keeps its order)."""
    values = np.random.default_rng(sum(shape) + len(dtype)).integers(-3, 4, shape)
    results = []
    for m in (torch, parity.engine):
        x = m.tensor(values.tolist(), dtype=getattr(m, dtype))
        if how == "nan":
            x.view(-1)[::7] = float("nan")
        if how == "transposed":
            x = x.transpose(0, -1)
        if how == "expanded":
            x = x[..., :1].expand(*x.shape[:-1], 20)
        if how == "argsort":
            results.append(m.argsort(x, 0, descending).tolist())
            continue
        stable = how if how.startswith(",") else ""
        result = eval(f"m.sort(x, dim=-1, descending={descending}{stable})", {"m": m, "x": x})
        results.append((result.indices.tolist(), result.values.tolist()))
    assert str(results[1]) == str(results[0])


@pytest.mark.parametrize("code", [
    "r = m.msort(x).tolist()", "r = x.msort().tolist()", "m.msort(x, 0)", "m.msort(1)",
    "r = m.msort(x, out=m.empty(0)).tolist()", "r = m.msort(x[0]).tolist()",
    "y = m.msort(x.requires_grad_())\ny.sum().backward()\nr = [y.grad_fn.name(), x.grad.tolist()]",
])
def test_msort(code):
    names = [{"x": m.tensor([[3.0, 1.0], [1.0, 2.0], [0.0, 2.0]])} for m in (torch, parity.engine)]
    assert _outcome(parity.engine, code, names[1]) == _outcome(torch, code, names[0])


@pytest.mark.parametrize("make", ["unbind", "no_grad", "inference"])
@pytest.mark.parametrize("write", ["copy_", "fill_", "setitem", "slice", "add_"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_copy_into_a_view_without_gradients_is_not_recorded(dtype, write, make):
    """fuzz 3127748: torch's copy_ into a bool or integer tensor records nothing, so an
    unbind output (or a view made in no_grad mode) may be written from a tensor that requires
    grad; fill_, a slice's copy and add_ still refuse."""
    code = {"unbind": "v = m.zeros(3, 4, dtype=d).unbind(0)[0]",
            "no_grad": "b = m.zeros(3, 4, dtype=d)\nwith m.no_grad():\n    v = b[0]",
            "inference": "with m.inference_mode():\n    v = m.zeros(3, 4, dtype=d)[0]"}[make]
    code += "\nloss = (m.tensor([[-1.0], [-2.0]], requires_grad=True) * 2).sum()\n"
    code += {"copy_": "v.copy_(loss)", "fill_": "v.fill_(loss)", "setitem": "v[0] = loss",
             "slice": "v[0:2] = loss", "add_": "v.add_(loss)"}[write]
    code += "\nr = [v.tolist(), v.requires_grad, v.grad_fn is None]"
    results = [_outcome(m, code, {"d": getattr(m, dtype)}) for m in (torch, parity.engine)]
    assert results[1] == results[0]


SAVING_CALLS = {
    "mul": ("m.mul(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "div": ("m.div(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "atan2": ("m.atan2(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "lerp": ("m.lerp(a, b, c)", [(2, 1, 1), (1, 3, 1), (1, 1, 4)]),
    "addcmul": ("m.addcmul(a, b, c)", [(2, 1, 1), (1, 3, 1), (1, 1, 4)]),
    "addcdiv": ("m.addcdiv(a, b, c)", [(2, 1, 1), (1, 3, 1), (1, 1, 4)]),
    "xlogy": ("m.xlogy(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "mm": ("m.mm(a, b)", [(2, 3), (3, 4)]),
    "bmm": ("m.bmm(a, b)", [(2, 2, 3), (2, 3, 4)]),
    "addmm": ("m.addmm(a, b, c)", [(2, 4), (2, 3), (3, 4)]),
    "matmul": ("m.matmul(a, b)", [(2, 3), (3, 4)]),
    "fmax": ("m.fmax(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "pow": ("m.pow(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "clamp": ("m.clamp(a, b, c)", [(2, 1, 1), (1, 3, 1), (1, 1, 4)]),
    "hypot": ("m.hypot(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "maximum": ("m.maximum(a, b)", [(2, 1, 1), (1, 3, 1)]),
    "layer_norm": ("m.nn.functional.layer_norm(a, (3,), b, c)", [(2, 3), (3,), (3,)]),
    "linear": ("m.nn.functional.linear(a, b, c)", [(2, 3), (4, 3), (4,)]),
}


@pytest.mark.parametrize("name", list(SAVING_CALLS))
def test_saved_tensors_are_checked_in_torchs_order(name):
    """fuzz 3143794, 3143945: torch's generated nodes unpack their saved tensors sorted by
    name (other before self, mat2 before self, end before self before weight), the outputs
    after: the first one changed in place is the one its error names, and unpack hooks run
    in that order."""
    code, shapes = SAVING_CALLS[name]
    results = []
    for m in (torch, parity.engine):
        tensors = [(m.rand(shape, generator=None) + 1).requires_grad_() for shape in shapes]
        result = eval(code, {"m": m, **dict(zip("abc", tensors))})
        with m.no_grad():
            for tensor in tensors:
                tensor.add_(1)
        try:
            m.autograd.grad(result.sum(), tensors, allow_unused=True)
            results.append("no error")
        except RuntimeError as error:
            results.append(str(error))
    assert results[1] == results[0]


@pytest.mark.parametrize("name", list(SAVING_CALLS))
def test_unpack_hooks_run_in_torchs_order(name):
    code, shapes = SAVING_CALLS[name]
    logs = []
    for m in (torch, parity.engine):
        log = []
        tensors = [(m.ones(shape) * (i + 2)).requires_grad_() for i, shape in enumerate(shapes)]

        def pack(tensor, log=log):
            log.append(("pack", tuple(tensor.shape)))
            return tensor

        def unpack(tensor, log=log):
            log.append(("unpack", tuple(tensor.shape)))
            return tensor

        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            result = eval(code, {"m": m, **dict(zip("abc", tensors))})
        result.sum().backward()
        logs.append(log)
    assert logs[1] == logs[0]


KEYWORD_CALLS = [
    "m.sub(x, other='a')", "x.sub(other='a', alpha=1)", "m.mul(x, other='a')", "x.mul(other='a')",
    "m.add(x, other=None)", "m.atan2(x, other='a')", "m.maximum(x, other='a')",
    "m.div(x, other='a')", "x.div(other='a')", "m.matmul(x, other='a')", "x.mm(mat2='a')",
    "x.bmm(mat2='a')", "m.outer(x[0], vec2='a')", "m.hypot(x, other='a')", "x.add_(other='a')",
    "m.where(x > 0, x, other='a')", "m.where(x > 0, input=x, other='a')",
    "m.lerp(x, end='a', weight=0.5)", "m.lerp(x, x, weight='a')", "m.eq(x, other='a')",
    "x.eq(other='a')", "m.copysign(x, other='a')", "m.logical_and(x, other='a')",
    "x.softmax(dim=1.5)", "m.softmax(x, dim='a')", "x.cumsum(dim=1.5)", "x.flip(dims=1.5)",
    "x.narrow(dim=0, start=1.5, length=1)", "x.unsqueeze(dim=1.5)", "x.argmax(dim=1.5)",
    "x.topk(k=1.5)", "x.gather(dim=0, index=1.5)", "x.index_select(dim=0, index=1.5)",
    "m.stack(tensors=[x], dim=1.5)",
]
BINARY_TENSOR_OR_NUMBER = ["fmod", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
                           "bitwise_left_shift", "bitwise_right_shift"]
BINARY_FORMS = ["m.{o}(x, 'a')", "m.{o}(x, other='a')", "x.{o}('a')", "x.{o}(other='a')",
                "x.{o}_('a')", "x.{o}_(other='a')", "m.{o}(x, None)", "m.{o}('a', x)",
                "r = m.{o}(2, x)", "r = m.{o}(x, 2)", "r = m.{o}(x, x)", "m.{o}(x, 'a', out=x)",
                "r = m.{o}(x, 2, out=m.empty(0, dtype=x.dtype))", "r = m.{o}(input=x, other=2)",
                "x.{o}(x, 2)", "m.{o}(x)", "m.{o}(x, [1, 2])", "m.{o}(x, (1.5, x))",
                "r = m.{o}(x, m.tensor(2))", "r = m.{o}(m.tensor(2), x)", "m.{o}(2, 3)"]


@pytest.mark.parametrize("code", KEYWORD_CALLS)
def test_arguments_given_by_keyword_have_no_position(code):
    """torch's messages give an argument's position only when it was given by position, and
    list keywords by name (read from the learner's call)."""
    names = [{"x": m.ones(2, 2)} for m in (torch, parity.engine)]
    assert _outcome(parity.engine, code, names[1]) == _outcome(torch, code, names[0])


@pytest.mark.parametrize("form", BINARY_FORMS)
@pytest.mark.parametrize("op", BINARY_TENSOR_OR_NUMBER)
def test_binary_ops_of_a_tensor_or_a_number_parse_as_torch(op, form):
    code = form.format(o=op)
    names = [{"x": m.tensor([5, 7], dtype=m.int32)} for m in (torch, parity.engine)]
    results = [_outcome(m, code, n) for m, n in zip((torch, parity.engine), names)]
    assert str(results[1]) == str(results[0])


SIZE_KEYWORD_CALLS = [
    "r = x.view(size=(6,)).shape", "r = x.view(size=[3, -1]).shape",
    "r = str(x.view(dtype=m.int32).dtype)",
    "x.view(6, size=(6,))", "x.view(size=6)", "x.view(dtype=m.int32, size=(6,))",
    "x.view(size=None)", "x.view(dtype=1)", "x.view()",
    "r = x.reshape(shape=(6,)).shape", "r = m.reshape(x, shape=[-1]).shape",
    "x.reshape(6, shape=(6,))",
    "x.reshape(shape=6)", "x.reshape(shape=None)", "m.reshape(x, (6,), shape=(6,))",
    "r = x.expand(size=[2, 2, 3]).shape", "r = x.expand(2, 2, 3, implicit=True).shape",
    "x.expand(size=4)", "x.expand(2, 3, size=(2, 3))", "x.expand(2, 2, 3, implicit=1)",
    "r = x.repeat(repeats=[2, 2]).shape", "x.repeat(repeats=2)", "x.repeat(repeats=None)",
    "x.repeat(2, repeats=(2,))",
    "r = m.dot(x[0], tensor=x[1]).item()", "r = m.dot(input=x[0], tensor=x[1]).item()",
    "m.dot(x[0], tensor='a')", "m.dot(x[0], 'a')",
    "r = m.swapaxes(x, axis0=0, axis1=1).shape", "r = x.swapdims(dim0=1, dim1=0).shape",
    "m.swapaxes(x, 'a', 1)", "x.swapdims(0, 1.5)", "m.swapaxes(x, 0)",
    "r = m.swapaxes(x, 0, 1).grad_fn.name()",
    "x.pow(exponent='a')", "m.pow('a', x)", "m.pow(2, 3)", "x.pow_('a')", "m.pow(x, 'a', out=x)",
    "m.pow(x, exponent=[1])", "r = m.pow(m.tensor(2.0), exponent=x).grad_fn.name()",
    "m.true_divide(x, 'a')", "m.true_divide(x, other='a')", "x.true_divide('a')",
    "r = m.true_divide(2, x).tolist()", "r = m.true_divide(x, 2, out=m.empty(2, 3)).tolist()",
    "m.addmm(x, mat1='a', mat2=x.T)", "m.addmm(x, 'a', x.T)", "x.addmm('a', x.T)",
    "m.addmv(x[0], 'a', x[0])", "m.addmv(x[:, 0], mat=x, vec=None)",
    "x.masked_fill(mask=1.5, value=1)", "m.cat(tensors=1.5)", "m.cat(1.5)",
    "m.div(x, other='a', rounding_mode='floor')",
]


@pytest.mark.parametrize("code", SIZE_KEYWORD_CALLS)
def test_sizes_and_operands_given_by_keyword(code):
    """torch's keyword names for sizes (view(size=), reshape(shape=), expand(size=),
    repeat(repeats=)), dot's tensor=, swapaxes' axis0=, and the lists and positions of the
    messages when such arguments are wrong."""
    names = [{"x": m.ones(2, 3, requires_grad=True)} for m in (torch, parity.engine)]
    assert _outcome(parity.engine, code, names[1]) == _outcome(torch, code, names[0])


UNARY_BACKWARD_OPS = ["tanh", "sigmoid", "exp", "log", "sqrt", "sin", "reciprocal", "relu",
                      "erf", "softmax", "log_softmax", "gelu", "silu", "elu", "softplus", "mish"]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", UNARY_BACKWARD_OPS)
def test_gradients_of_a_transposed_input_are_laid_out_as_torchs(op, dtype, create_graph):
    """fuzz 3177906: float16 tanh's gradient, computed in float32 and rounded once, laid out
    as torch's kernel lays it out on its operands (the gradient of a sum: stride 0)."""
    results = []
    for m in (torch, parity.engine):
        x = (m.arange(12.0, dtype=getattr(m, dtype)).reshape(3, 4) / 16 + 0.25).requires_grad_()
        f = getattr(m, op, None) or getattr(m.nn.functional, op)
        y = f(x.t(), 0) if op.endswith("softmax") else f(x.t())
        first, = m.autograd.grad(y.sum(), x, create_graph=create_graph, retain_graph=True)
        second, = m.autograd.grad(y, x, m.ones(3, 4, dtype=getattr(m, dtype)).t())
        results.append((first.stride(), second.stride()))
    assert results[1] == results[0]


PARSER_CALLS = [
    # sizes one by one or as one list: torch's parser's messages (fuzz family signatures)
    "x.expand(1.5)", "x.expand(2, 1.5)", "x.expand('a', 2)", "x.reshape(2, 'a')",
    "x.reshape('a')", "x.view(2, 'a')", "x.view(1.5)", "r = x.reshape(m.tensor(6)).shape",
    "r = x.view(m.tensor(6)).shape", "x.expand(m.tensor([2, 3]))", "x.reshape([2, 'a'])",
    "x.view([2, None])", "x.reshape(True, 6)", "r = x.reshape(6, True).shape",
    "r = x.reshape(2, m.tensor(3)).shape", "x.view(2, m.tensor(3.0))", "x.view(None)",
    "x.view(True)", "x.reshape(True)", "m.reshape(x, 6)", "m.reshape(x, m.tensor(6))",
    "r = x.reshape(-1).shape", "x.unflatten(1, 'a')", "x.unflatten(1, 3)",
    "x.unflatten(dim=1, sizes=3)", "x.repeat(m.tensor(2))", "x.repeat(m.tensor([2, 2]))",
    "x.repeat(2, 1.5)", "x.repeat((2, 1), 2)", "x.repeat(True, 2)",
    "r = x.repeat(2, True).shape",
    # a 0-d tensor's expand to a negative size, and movedim's dims
    "m.tensor(1.0).expand(-1)", "m.tensor(1.0).expand(-1, 2)", "m.tensor(2.0).movedim(1, -1)",
    "m.movedim(m.tensor(2.0), [0, 0], [0, -1])", "r = m.tensor(2.0).movedim(0, -1).shape",
    # numpy's axis= with a 0-d integer tensor; torch.norm's dim as a list of one
    "r = x.argmin(axis=m.tensor(1)).tolist()", "r = x.prod(axis=m.tensor(1)).tolist()",
    "m.norm(x, p='fro', dim=True)", "x.norm(2, True)",
    # div's operands may be numbers; sub's parser before its bool check
    "m.div(x, -0.3, rounding_mode=2.5, out=m.empty(0))", "x.bool().sub('a')",
    "m.sub(x.bool(), None)", "m.gather(x, m.tensor(1), m.tensor([0]), out=b)",
    # numpy's names listed as the learner wrote them (fuzz 3327592)
    "x.repeat_interleave('a', axis=-1)", "m.repeat_interleave(x, 'a', axis=0)",
    "x.repeat_interleave(repeats='a', dim=0)",
]


@pytest.mark.parametrize("code", PARSER_CALLS)
def test_torchs_parser_on_sizes_dims_and_operands(code):
    names = [{"x": m.ones(2, 3), "b": m.zeros(0)} for m in (torch, parity.engine)]
    results = [_outcome(m, code + "\nr = [r, b.shape] if 'r' in dir() else b.shape", n)
               for m, n in zip((torch, parity.engine), names)]
    assert str(results[1]) == str(results[0])


@pytest.mark.parametrize("code", [
    "r = m.func.jacrev(lambda a: (a * a).sum(-1, keepdim=True) * a)(p)",
    "r = m.func.grad(lambda a: (a * a).sum())(p)",
    "r = m.func.vjp(lambda a: a * 3, p)[1](m.ones(2, 3))[0]",
    "r = m.func.jacfwd(lambda a: a * a)(p)",
    "r = m.func.hessian(lambda a: (a ** 3).sum())(p)",
])
def test_function_transforms_of_an_inference_tensor(code):
    """fuzz 5423449: torch's transforms differentiate a tensor made in inference_mode (they
    wrap it in a tensor of their own); the engine's set requires_grad on it and was refused."""
    results = []
    for m in (torch, parity.engine):
        with m.inference_mode():
            p = m.tensor([[0.5, -2.0, -2.0], [1.0, -2.0, 2.0]])
        r = _outcome(m, code + "\nr = [r.tolist(), r.is_inference(), r.requires_grad]",
                     {"p": p})
        results.append(r)
    assert results[1] == results[0]


LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
          "binary_cross_entropy_with_logits", "poisson_nll_loss", "kl_div"]


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("input_dtype", ["float32", "float64"])
@pytest.mark.parametrize("target_dtype", ["bool", "uint8", "int32", "int64", "float16",
                                          "float32", "float64"])
@pytest.mark.parametrize("loss", LOSSES)
def test_losses_of_a_target_of_another_dtype(loss, target_dtype, input_dtype, reduction):
    """fuzz 3244294: MSELoss of a bool target runs in torch (its kernel promotes); huber_loss
    and kl_div refuse other dtypes, binary_cross_entropy_with_logits computes in target's
    dtype (a float16 loss, integer targets refused), soft_margin_loss in input's (log1p:
    exp(-20) is 2.1e-09, not 0), smooth_l1_loss in their common dtype."""
    results = []
    for m in (torch, parity.engine):
        x = m.tensor([[0.5], [1.5], [-1.0], [20.0]], dtype=getattr(m, input_dtype),
                     requires_grad=True)
        t = m.tensor([[1], [0], [1], [1]]).to(getattr(m, target_dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = getattr(m.nn.functional, loss)(x, t, reduction=reduction)
                g, = m.autograd.grad(r.sum(), x)
            except Exception as error:  # noqa: BLE001 - the same error, word for word
                results.append((type(error).__name__, str(error)))
                continue
        results.append((str(r.dtype), r.double().flatten().tolist(), str(g.dtype),
                        g.double().flatten().tolist()))
    if loss == "soft_margin_loss" and (target_dtype, input_dtype) == ("float64", "float32"):
        # (torch's backward rounds its in-place steps to float32: the last bit of one value)
        assert str(results[1][:3]) == str(results[0][:3])
        assert np.allclose(results[1][3], results[0][3], rtol=1e-6, atol=0, equal_nan=True)
        return
    assert str(results[1]) == str(results[0])  # (nan as nan, -0.0 as -0.0)
