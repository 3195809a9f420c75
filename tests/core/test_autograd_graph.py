"""Autograd's graph against torch 2.15: multi-output views, indexing, in-place writes,
saved tensors, hooks and their order, autograd.functional, grad modes, memory.

Each snippet runs once with ``m = torch`` and once with ``m = engine``; what it leaves
in ``r`` (tensors, node names, numbers, error messages) must be the same.
"""
import gc
import sys
import weakref

import pytest

import engine
import parity
from engine.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch


def _plain(value):
    """Something comparable across the two libraries (tensors become their facts)."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        return ("tensor", str(value.dtype), tuple(value.shape), value.tolist(),
                value.requires_grad)
    if hasattr(value, "name") and callable(value.name):
        return value.name()
    if isinstance(value, BaseException):
        return (type(value).__name__, str(value).splitlines()[0] if str(value) else "")
    return value


def names(t):
    """A tensor's grad_fn name and the names of the nodes it points to."""
    node = t.grad_fn
    if node is None:
        return None
    return node.name(), [None if n is None else n.name() for n, _ in node.next_functions]


def error(fn):
    try:
        fn()
    except Exception as caught:  # noqa: BLE001 - comparing what each library raises
        return caught
    return None


PRELUDE = """
x = m.tensor([[1., 2., 3.], [4., 5., 6.]], dtype=m.float64, requires_grad=True)
v = m.tensor([10., 20., 30.], dtype=m.float64, requires_grad=True)
w = m.arange(6., dtype=m.float64).view(2, 3)
"""


def _run(code, m):
    scope = {"m": m, "names": names, "error": error}
    exec(PRELUDE + code, scope)  # noqa: S102 - the same snippet for both libraries
    return _plain(scope["r"])


def _same(code):
    expected, got = _run(code, torch), _run(code, engine)
    assert got == expected


# ====================================================================== 1. multi-output views
MULTI_OUTPUT = {
    "split": "ps = x.split(2, 1)",
    "split with sizes": "ps = x.split([1, 2], 1)",
    "split as a function": "ps = m.split(x, 2, 1)",
    "split zero-size piece": "ps = x.split([0, 2])",
    "chunk": "ps = x.chunk(2)",
    "chunk uneven": "ps = x.chunk(2, 1)",
    "unbind": "ps = x.unbind(1)",
    "unbind rows": "ps = x.unbind()",
    "iterating": "ps = tuple(x)",
}


@pytest.mark.parametrize("name", list(MULTI_OUTPUT))
def test_multi_output_views_share_one_node(name):
    _same(MULTI_OUTPUT[name] + """
node = ps[0].grad_fn
saved = {a: getattr(node, a) for a in ("_saved_split_size", "_saved_split_sizes",
                                       "_saved_self_sym_sizes") if hasattr(node, a)}
r = [names(ps[0]), [p.output_nr for p in ps], all(p.grad_fn is node for p in ps),
     [tuple(p.shape) for p in ps], [p.stride() for p in ps], [p.storage_offset() for p in ps],
     saved, node._saved_dim]
(ps[-1] * 2).sum().backward()          # only the last piece: zeros for the others
r.append(x.grad.clone())
x.grad = None
sum((p * (i + 1)).sum() for i, p in enumerate(ps)).backward()
r.append(x.grad)
""")


def test_multi_output_gradients_against_finite_differences():
    x = engine.rand(3, 4, dtype=engine.float64, requires_grad=True)
    for fn in (lambda a: a.split(3, 1)[1] ** 2, lambda a: a.split([1, 3], 1)[1].exp(),
               lambda a: a.unbind(1)[2] * a.unbind(1)[0], lambda a: a.chunk(2)[0] ** 3):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


# ====================================================================== 2. indexing
GETITEM = ["x[m.tensor([0, 0, 1])]", "x[:, [1, 1, 2]]", "x[x > 2]", "x[0, [1, 1]]",
           "x[[0, 1], [2, 2]]", "x[[1, 0], :, None]", "x[..., [0]]",
           "x[m.tensor([True, False])]", "x[1:, m.tensor([[0, 2], [2, 2]])]",
           "x[[[0]], 1:, None]"]


@pytest.mark.parametrize("index", GETITEM)
def test_advanced_indexing_scatters_gradients_back(index):
    _same(f"""
y = {index}
node = y.grad_fn
r = [names(y), tuple(y.shape), y.stride(), node._saved_self_sym_sizes,
     [None if i is None else i for i in node._saved_indices]]
(y * m.arange(y.numel(), dtype=m.float64).view(y.shape)).sum().backward()
r.append(x.grad)
""")


def _indexed(m, index_of, change_index=None, writes=False, retain_graph=False):
    """Backward twice through x[index] (or y[index] = values); the index tensors are saved
    tensors: freed by the first backward, and checked for in-place changes."""
    x = m.ones(2, 3, requires_grad=True)
    index = index_of(m)
    if writes:
        y = x * 1
        y[index] = m.full(y[index].shape, 5., requires_grad=True)
    else:
        y = x[index]
    if change_index is not None:
        change_index(index)
    y.sum().backward(retain_graph=retain_graph)
    y.sum().backward()
    return x.grad


SAVED_INDICES = {
    "x[index]": dict(index_of=lambda m: m.tensor([0, 1, 1])),
    "x[mask]": dict(index_of=lambda m: m.tensor([True, False])),
    "x[rows, cols]": dict(index_of=lambda m: (m.tensor([0, 1]), m.tensor([2, 2]))),
    "x[:, index]": dict(index_of=lambda m: (slice(None), m.tensor([0, 2]))),
    "x[list]": dict(index_of=lambda m: [1, 0]),
    "retain_graph": dict(index_of=lambda m: m.tensor([0, 1, 1]), retain_graph=True),
    "index changed": dict(index_of=lambda m: m.tensor([0, 1]), change_index=lambda i: i.add_(0)),
    "int32 index changed": dict(index_of=lambda m: m.tensor([0, 1], dtype=m.int32),
                                change_index=lambda i: i.add_(0)),
    "mask changed": dict(index_of=lambda m: m.tensor([True, False]),
                         change_index=lambda i: i.logical_not_()),
    "y[index] = values": dict(index_of=lambda m: m.tensor([0, 1]), writes=True),
    "y[mask] = values": dict(index_of=lambda m: m.tensor([[True, False, True]] * 2),
                             writes=True),
    "y[index] = values, index changed": dict(index_of=lambda m: m.tensor([0, 1]), writes=True,
                                            change_index=lambda i: i.mul_(1)),
}


@pytest.mark.parametrize("name", list(SAVED_INDICES))
def test_indexing_saves_its_index_tensors(name):
    parity.run_both(lambda m: _indexed(m, **SAVED_INDICES[name]))


def test_saved_indices_are_freed_by_backward():
    def run(m):
        x = m.ones(2, 3, requires_grad=True)
        y = x[:, [0, 2]]
        before = (y.grad_fn._saved_indices, y.grad_fn._saved_self_sym_sizes)
        y.sum().backward()
        return before, y.grad_fn._saved_self_sym_sizes, y.grad_fn._saved_indices

    parity.run_both(run)


def test_the_gradient_of_indexing_is_an_index_put():
    def run(m):
        x = m.tensor([1., 2., 3.], requires_grad=True)
        (g,) = m.autograd.grad((x[[0, 0, 2]] ** 2).sum(), x, create_graph=True)
        node = g.grad_fn
        saved = (node.name(), node._saved_accumulate, node._saved_indices)
        g.sum().backward()
        return g, saved, x.grad

    parity.run_both(run)


def test_indexing_gradients_against_finite_differences():
    x = engine.rand(3, 4, dtype=engine.float64, requires_grad=True)
    index = engine.tensor([0, 2, 0])
    for fn in (lambda a: a[index] ** 2, lambda a: a[a > 0.5] ** 2,
               lambda a: a[:, [1, 1]] * a[0, :2]):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


WRITES = {
    "y[0] = v": "y = x * 2; y[0] = v",
    "y[0] = number": "y = x * 2; y[0] = 5.",
    "y[1:, 1:] = number": "y = x * 2; y[1:, 1:] = 5.",
    "y[0][1] = number": "y = x * 1; y[0][1] = 7.",
    "y[mask] = number": "y = x * 2; y[y > 4] = 0.",
    "y[mask] = v": "y = x * 2; y[m.tensor([True, False])] = v.unsqueeze(0)",
    "y[index] = v": "y = x * 2; y[m.tensor([1, 0])] = v",
    "y[0, index] = values": "y = x * 1; y[0, [0, 2]] = v[:2] * 3",
    "y[index, index] = values": "y = x * 1; y[[0, 1], [1, 2]] = v[1:]",
    "y[mask] *= 2": "y = x * 1; y[y > 3] *= 2",
    "zeros[0] = f(x)": "y = m.zeros(2, 3, dtype=m.float64); y[0] = x[1] * 2",
    "zeros[:, 1].copy_(x)": "y = m.zeros(2, 3, dtype=m.float64); y[:, 1].copy_(x[:, 2])",
    "copy_": "y = x * 2; y.copy_(v)",
    "copy_ of a view": "y = x * 2; y[0].copy_(v)",
    "copy_ broadcast": "y = x * 2; y.copy_(v[:1])",
    "copy_ from float32": "y = x * 2; y.copy_(v.float())",
    "in-place on a view": "y = x * 2; y[:, 0].mul_(2)",
    "in-place with a tensor on a view": "y = x * 2; y[:, 1] += v[:2]",
    "in-place through a transposed view": "y = x * 1; y.t()[0].mul_(5)",
    "in-place on a view of a view": "y = x * 1; y.view(3, 2)[0].zero_()",
    "unary in-place on a view": "y = x * 1; y[1].sigmoid_()",
    "value read from the same base": "y = x.clone(); y[:, 0] = y[:, 1] + 2",
    "in-place on the base, view read after": "y = x * 2; z = y[0]; y.mul_(3); y = z",
    "in-place on one view, another read": "y = x * 2; z = y[0]; u = y[0, :2]; z.mul_(3); "
                                          "y = u",
    "in-place on one view, disjoint view": "y = x * 2; z = y[0]; u = y[1]; z.mul_(3); "
                                           "y = u * 1 + y.sum()",
    "the modified view itself": "y = x * 2; z = y[:, 1]; z.exp_(); y = z",
    "zero_": "y = x * 1; y.zero_()",
    "fill_ number": "y = x * 1; y.fill_(2.)",
    "fill_ tensor": "y = x * 1; y.fill_(v[0])",
    "uniform_": "y = x * 1; y.uniform_(); y = y * 0",
    "normal_": "y = x * 1; y.normal_(); y = y * 0",
    "random_": "y = x * 1; y.random_(3); y = y * 0",
    "bernoulli_": "y = x * 1; y.bernoulli_(0.5); y = y * 0",
    "exponential_": "y = x * 1; y.exponential_(); y = y * 0",
    "cauchy_": "y = x * 1; y.cauchy_(); y = y * 0",
    "log_normal_": "y = x * 1; y.log_normal_(); y = y * 0",
    "geometric_": "y = x * 1; y.geometric_(0.5); y = y * 0",
    "unsqueeze_": "y = x * 2; y.unsqueeze_(0)",
    "t_": "y = x * 2; y.t_()",
    "transpose_": "y = x * 2; y.transpose_(0, 1)",
    "squeeze_(dim)": "y = (x * 2).unsqueeze(0); y.squeeze_(0)",
    "squeeze_()": "y = (x * 2).unsqueeze(0); y.squeeze_()",
}


@pytest.mark.parametrize("name", list(WRITES))
def test_writes_into_tensors_of_a_graph(name):
    _same(WRITES[name] + """
seen = names(y)
(y * m.arange(1., y.numel() + 1, dtype=m.float64).view(y.shape)).sum().backward()
r = [seen, y.detach(), y.requires_grad, y.is_leaf, x.grad, v.grad]
""")


def test_writes_against_finite_differences():
    x = engine.rand(3, 4, dtype=engine.float64, requires_grad=True)
    index = engine.tensor([0, 2])

    def put(a):
        y = a * 1
        y[index] = a[1] ** 2
        return y

    def masked(a):
        y = a * 1
        y[a > 0.5] = 0.
        return y

    def copied(a):
        y = engine.zeros(3, 4, dtype=engine.float64)
        y.copy_(a[0] ** 2)
        return y

    def view_inplace(a):
        y = a * 1
        y[:, 1].mul_(y[:, 2].clone())
        return y

    for fn in (put, masked, copied):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))
    assert gradcheck(view_inplace, (x,))


WRITE_ERRORS = {
    "setitem on a leaf": "x[0] = 5.",
    "mask setitem on a leaf": "x[x > 2] = 0.",
    "copy_ into a leaf": "x.copy_(v)",
    "copy_ into a view of a leaf": "x[0].copy_(v)",
    "fill_ on a leaf": "x.fill_(1.)",
    "unsqueeze_ on a leaf": "x.unsqueeze_(0)",
    "detach_ of a view": "y = x * 2; y[0].detach_()",
    "requires_grad_(False) on a non-leaf view": "(x * 2)[0].requires_grad_(False)",
    ".data = ints on a tensor that requires grad": "v.data = m.tensor([1, 2, 3])",
    "mul_ reading a view it changes": "y = x * 1; y[:, 1].mul_(y[:, 2]); y.sum().backward()",
    "saved input changed in place": "y = x * 1; z = y.log(); y.mul_(2); z.sum().backward()",
    "saved output changed in place": "y = x.exp(); y.add_(1); y.sum().backward()",
}


@pytest.mark.parametrize("name", list(WRITE_ERRORS))
def test_write_errors_match_torch(name):
    code = WRITE_ERRORS[name]
    expected = _run(f"r = error(lambda: exec({code!r}, globals()))", torch)
    got = _run(f"r = error(lambda: exec({code!r}, globals()))", engine)
    assert expected is not None, "torch raised nothing"
    assert got == expected


OTHER_CHANGES = {
    "detach_": "y = x * 2; y.detach_(); r = [names(y), y.requires_grad, y.is_leaf, y._version]",
    "requires_grad_ on a view": "a = m.ones(3); b = a[:2]; b.requires_grad_(); "
                                "(b * 3).sum().backward(); "
                                "r = [b.requires_grad, b.is_leaf, a.requires_grad, b.grad]",
    "requires_grad_ on a non-leaf view": "z = (x * 2)[0]; r = [z.requires_grad_() is z, "
                                         "names(z)]",
    ".data = on a leaf": "w2 = m.ones(2, requires_grad=True); w2.data = m.zeros(3); "
                         "r = [w2, w2.requires_grad, w2._version, w2.is_leaf]",
    ".data = on a non-leaf": "y = x * 2; y.data = m.zeros(3, dtype=m.float64); "
                             "r = [y.detach(), names(y)]",
    "version counts": "y = x * 2; y[0] = 1.; y[y > 2] = 0.; y.copy_(v); y.unsqueeze_(0); "
                      "r = y._version",
}


@pytest.mark.parametrize("name", list(OTHER_CHANGES))
def test_detach_requires_grad_and_data(name):
    _same(OTHER_CHANGES[name])


# ---------------------------------------------------------------------- views torch refuses
# to change in place: a leaf that is a view, the views of ops that return several (unbind,
# split, chunk), views made in no_grad or inference mode. Each case runs with parity.run_both:
# same error and message, or the same results (node names as strings).
def _name(node):
    return None if node is None else node.name()


def _y(m, requires_grad=True):
    """A non-leaf 2x3 tensor (of a leaf that requires grad, by default)."""
    return m.arange(6.).view(2, 3).requires_grad_(requires_grad) * 1


def _leaf_view(m):
    """A leaf that requires grad and is a view of a tensor that does not."""
    return m.arange(4.).view(2, 2).requires_grad_()


def _several(m, pieces, make, change, index, requires_grad=True):
    """Change one of the views ``pieces(y)`` returns in place; ``make`` / ``change`` say in
    which grad mode each is done."""
    y = _y(m, requires_grad)
    with m.set_grad_enabled(make == "grad"):
        views = pieces(y)
    with m.set_grad_enabled(change == "grad"):
        views[index].add_(1)
    return (_name(views[index].grad_fn), views[index].requires_grad, _name(y.grad_fn),
            _name(views[1 - index].grad_fn))


SEVERAL_VIEWS = {
    "unbind": lambda y: y.unbind(), "unbind(1)": lambda y: y.unbind(1),
    "split": lambda y: y.split(1), "split in one piece": lambda y: y.split(2),
    "split with sizes": lambda y: y.split([1, 1]), "chunk": lambda y: y.chunk(2),
    "chunk in one piece": lambda y: y.chunk(1), "iterating": lambda y: list(y),
}


@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("make, change", [("grad", "grad"), ("no_grad", "grad"),
                                          ("grad", "no_grad"), ("no_grad", "no_grad")])
@pytest.mark.parametrize("name", list(SEVERAL_VIEWS))
def test_changing_one_of_several_views_in_place(name, make, change, index):
    parity.run_both(lambda m: _several(m, SEVERAL_VIEWS[name], make, change, index))


def test_changing_one_of_several_views_of_a_tensor_without_grad():
    parity.run_both(lambda m: _several(m, lambda y: y.unbind(), "grad", "grad", 0, False))


IN_PLACE_ON_VIEWS = {
    # a leaf that is a view (of a tensor that does not require grad)
    "setitem on a leaf that is a view": lambda m: _leaf_view(m).__setitem__(0, 5.),
    "add_ on a leaf that is a view": lambda m: _leaf_view(m).add_(1),
    "zero_ on a view of a leaf that is a view": lambda m: _leaf_view(m)[0].zero_(),
    "copy_ into a leaf that is a view": lambda m: _leaf_view(m).copy_(m.ones(2, 2)),
    "a leaf that is a view, under no_grad": lambda m: _no_grad(m, lambda: _leaf_view(m).add_(1)),
    "a view of a tensor without grad times one with": lambda m: _times_leaf(m, m.zeros(3)[:2]),
    # the outputs of unbind, split, chunk
    "unbind, then one multiplied by a leaf": lambda m: _times_leaf(m, m.ones(2, 3).unbind()[0]),
    "a view of an unbind output": lambda m: _y(m).unbind()[0][1:].add_(1),
    "setitem on an unbind output": lambda m: _y(m).unbind()[0].__setitem__(0, 3.),
    "index_put on an unbind output": lambda m: _y(m).unbind()[0].__setitem__(
        m.tensor([0]), 3.),
    "zero_ on an unbind output": lambda m: _y(m).unbind()[0].zero_(),
    "copy_ into an unbind output": lambda m: _y(m).unbind()[0].copy_(m.ones(3)),
    "fill_ on an unbind output": lambda m: _y(m).unbind()[0].fill_(2),
    "t_ on a split output": lambda m: _y(m).split(1)[0].t_(),
    "base changed, then a piece read": lambda m: _base_changed(m, lambda p: _name(p.grad_fn)),
    "base changed, then a piece used": lambda m: _base_changed(m, lambda p: p.sum().backward()),
    "another view of the base changed": lambda m: _detached_sibling_changed(m),
    # views made in no_grad (or inference) mode
    "no_grad view: requires_grad, is_leaf, repr": lambda m: _no_grad_view(m, lambda v: (
        v.requires_grad, _name(v.grad_fn), v.is_leaf, repr(v))),
    "no_grad view of a leaf": lambda m: _no_grad_view(m, lambda v: (
        v.requires_grad, v.is_leaf), base=m.ones(2, 3, requires_grad=True)),
    "no_grad view changed in place": lambda m: _no_grad_view(m, lambda v: v.add_(1)),
    "no_grad view of a leaf changed": lambda m: _no_grad_view(
        m, lambda v: v.add_(1), base=m.ones(2, 3, requires_grad=True)),
    "no_grad view multiplied by a leaf": lambda m: _no_grad_view(m, lambda v: _times_leaf(m, v)),
    "no_grad view of a tensor without grad, times a leaf": lambda m: _no_grad_view(
        m, lambda v: _times_leaf(m, v), base=m.ones(2, 3)),
    "no_grad view of a tensor without grad, changed": lambda m: _no_grad_view(
        m, lambda v: (v.add_(1), v.requires_grad), base=m.ones(2, 3)),
    "no_grad view, base changed, then read": lambda m: _no_grad_view(
        m, lambda v, y: (y.add_(1), v.grad_fn), with_base=True),
    "no_grad view, base changed, then used": lambda m: _no_grad_view(
        m, lambda v, y: (y.add_(1), v * 2), with_base=True),
    "no_grad view, base changed under no_grad": lambda m: _no_grad_view(
        m, lambda v, y: (_no_grad(m, lambda: y.add_(1)), v.grad_fn), with_base=True),
    "a view of a no_grad view, made under no_grad": lambda m: _no_grad_view(
        m, lambda v: v[1:], of_view=True),
    "a view of a no_grad view, changed": lambda m: _no_grad_view(m, lambda v: v[1:].add_(1)),
    "a view of a no_grad view, read": lambda m: _no_grad_view(
        m, lambda v: (v[1:].requires_grad, _name(v[1:].grad_fn))),
    "a result of a no_grad view": lambda m: _no_grad_view(m, lambda v: (
        _name((v * 2).grad_fn), [_name(n) for n, _ in (v * 2).grad_fn.next_functions])),
    "backward through a no_grad view": lambda m: _backward_through_no_grad_view(m),
    "backward from a no_grad view": lambda m: _no_grad_view(
        m, lambda v: v.backward(m.ones(3)), base=m.ones(2, 3, requires_grad=True)),
    "hook and retain_grad on a no_grad view": lambda m: _no_grad_view(m, lambda v: (
        v.register_hook(lambda g: g) and None, v.retain_grad(), v.retains_grad)),
    "a no_grad view made to require grad": lambda m: _requires_grad_after(m),
    "a no_grad view made to require grad, changed": lambda m: _requires_grad_after(m, True),
    "inference_mode view changed in place": lambda m: _inference_view(m, _y(m)),
    "inference_mode view of a tensor without grad, times a leaf": lambda m: _inference_view(
        m, m.ones(2, 3), times_leaf=True),
    # the versions a view's history follows
    "a view changed under no_grad is a piece of its base": lambda m: _changed_under_no_grad(
        m, lambda y: y[0]),
    "another view changed under no_grad": lambda m: _changed_under_no_grad(m, lambda y: y[1]),
    "a view changed in place": lambda m: _view_changed(m),
    "a view of a parameter after a step": lambda m: _view_after_step(m),
    # results that are tensors of their own, not views made in no_grad mode inside the op
    "topk's values changed in place": lambda m: _own_values(m, lambda y: y.topk(2)),
    "sort's values changed in place": lambda m: _own_values(m, lambda y: y.sort()),
    "max(dim)'s values changed in place": lambda m: _own_values(m, lambda y: y.max(0)),
    # printing a view whose grad_fn torch refuses to rebuild shows grad_fn=<Invalid>
    "printed after a change under no_grad": lambda m: _printed_after_change(m, lambda p: p[0]),
    "a transposed view printed": lambda m: _printed_after_change(m, lambda p: p.t()),
    # view(dtype) shares memory and version counter but is not a view for autograd
    "view(dtype)": lambda m: _dtype_view(m, grad=True),
    "view(dtype) under no_grad": lambda m: _dtype_view(m, grad=False),
}


def _printed_after_change(m, view_of):
    p = m.nn.Parameter(m.ones(2, 3))
    with m.no_grad():
        view = view_of(p)
        view.mul_(2)
    return repr(view), p


def _dtype_view(m, grad):
    x = m.ones(2, 2, requires_grad=True)
    with m.set_grad_enabled(grad):
        views = [(x * 1).view(d) for d in (m.float32, m.int32, m.float16)]
    seen = [(v.requires_grad, v.grad_fn, v._base is None) for v in views]
    views[1].add_(1)  # an int view of a leaf
    return seen, views[1].grad_fn, x._version, x.view(m.int32)._version


def _own_values(m, op):
    values = op(m.arange(6.).requires_grad_() * 1).values
    values.add_(1)
    return values, values._base is None


def _no_grad(m, fn):
    with m.no_grad():
        return fn()


def _times_leaf(m, view):
    view.mul_(m.full(view.shape, 2., requires_grad=True))
    return _name(view.grad_fn), _name(view._base.grad_fn), view._base


def _base_changed(m, use):
    x = m.ones(2, 3, requires_grad=True)
    y = x * 1
    pieces = y.unbind()
    y.add_(1)
    return use(pieces[0]), x.grad


def _detached_sibling_changed(m):
    pieces = _y(m).unbind()
    pieces[0].detach().add_(1)
    return _name(pieces[1].grad_fn)


def _no_grad_view(m, use, base=None, with_base=False, of_view=False):
    y = _y(m) if base is None else base
    with m.no_grad():
        view = y[0][:] if of_view else y[0]
        if of_view:
            view = use(view)
            return view.requires_grad, _name(view.grad_fn)
    return use(view, y) if with_base else use(view)


def _backward_through_no_grad_view(m):
    x = m.ones(2, 3, requires_grad=True)
    y = x * 1
    with m.no_grad():
        view = y[0]
    (view * 2).sum().backward()
    return x.grad, view.grad


def _requires_grad_after(m, change=False):
    with m.no_grad():
        w = m.ones(3, 2).t()
    w.requires_grad_()
    if change:
        w.add_(1)
    (w * 2).sum().backward()
    return w.grad, w.is_leaf


def _inference_view(m, base, times_leaf=False):
    with m.inference_mode():
        view = base[0]
    if times_leaf:
        return _times_leaf(m, view)
    return view.requires_grad, view.is_inference(), view.add_(1)


def _changed_under_no_grad(m, changed):
    x = m.ones(2, 3, requires_grad=True)
    y = x * 1
    view = y[0]
    with m.no_grad():
        changed(y).add_(1)
    names_ = _name(view.grad_fn), _name(y.grad_fn)
    view.sum().backward()
    return names_, x.grad


def _view_changed(m):
    x = m.ones(2, 3, requires_grad=True)
    y = x * 1
    view = y[0]
    view.mul_(2)
    names_ = _name(view.grad_fn), _name(y.grad_fn), view._version
    y.sum().backward()
    return names_, x.grad


def _view_after_step(m):
    p = m.ones(2, 3, requires_grad=True)
    view = p[0]
    with m.no_grad():
        p.sub_(1)
    name = _name(view.grad_fn)
    view.sum().backward()
    return name, p.grad


@pytest.mark.parametrize("name", list(IN_PLACE_ON_VIEWS))
def test_in_place_on_views_follows_torch(name):
    parity.run_both(IN_PLACE_ON_VIEWS[name])


# ====================================================================== 3. saved tensors
SAVED = {
    "mul": "x * v", "div": "x / v", "pow scalar": "x ** 2", "pow tensor": "x ** v",
    "number ** x": "2 ** x", "exp": "x.exp()", "sigmoid": "x.sigmoid()",
    "sum dim": "x.sum(1)", "sum keepdim": "x.sum(0, keepdim=True)", "sum": "x.sum()",
    "mean": "x.mean()", "view": "x.view(3, 2)", "transpose": "x.transpose(0, 1)",
    "select": "x[1]", "slice": "x[:, 1:]", "slice stop": "x[0:1]", "slice past the end":
    "x[0:10]", "strided slice": "x[:, ::2]", "narrow": "x.narrow(1, 1, 2)",
    "unsqueeze": "x.unsqueeze(0)", "permute": "x.permute(1, 0)", "expand": "v.expand(2, 3)",
    "squeeze dim": "x.unsqueeze(0).squeeze(0)", "squeeze dims": "x.unsqueeze(0).squeeze((0,))",
    "squeeze": "x.unsqueeze(0).squeeze()", "t": "x.t()",
    # a number the node keeps as it is, shown as torch keeps it (a 0-d tensor)
    "mul number": "x * 2", "number mul": "3 * x", "div number": "x / 4",
    "parameter mul number": "m.nn.Parameter(w) * 5",
    "mul float": "x * 2.5", "div float": "x / 0.1", "float sub": "1.5 - x",
    "mul bool": "x * True", "add float alpha": "x.add(2.5, alpha=2)",
}
ATTRIBUTES = ["_saved_self", "_saved_other", "_saved_result", "_saved_exponent", "_saved_dim",
              "_saved_keepdim", "_saved_self_sym_sizes", "_saved_dim0", "_saved_dim1",
              "_saved_index", "_saved_start", "_saved_end", "_saved_step", "_saved_dims"]


@pytest.mark.parametrize("name", list(SAVED))
def test_saved_attributes(name):
    _same(f"""
node = ({SAVED[name]}).grad_fn
r = {{}}
for attribute in {ATTRIBUTES!r}:
    if hasattr(node, attribute):
        value = getattr(node, attribute)
        r[attribute] = (value, value is x, value is v) if hasattr(value, "dtype") else value
r = [node.name(), r]
""")


def test_saved_tensors_after_backward():
    _same("""
y = (x * v).sum()
mul = y.grad_fn.next_functions[0][0]
s = x.exp().sum(1)
total = s.sum()
total.backward()
y.backward()
r = [error(lambda: mul._saved_self), error(lambda: mul._saved_other), s.grad_fn._saved_dim,
     s.grad_fn._saved_keepdim, error(lambda: s.grad_fn.next_functions[0][0]._saved_result),
     error(lambda: mul._saved_nothing)]
y2 = (x * v).sum()
y2.backward(retain_graph=True)
r.append(y2.grad_fn.next_functions[0][0]._saved_other)
""")


# ====================================================================== 4. hooks and order
def _hook_log(m, build):
    """Run ``build(m)``'s graph backward, logging tensor hooks (t), node pre-hooks (p) and
    node hooks (n) of every named tensor, in the order they run."""
    log = []
    tensors, root = build(m)
    for key, t in tensors.items():
        t.register_hook(lambda g, key=key: log.append(("t", key)))
        if t.grad_fn is not None:
            t.grad_fn.register_hook(lambda gi, go, key=key: log.append(("n", key)))
            t.grad_fn.register_prehook(lambda go, key=key: log.append(("p", key)))
    root.backward()
    return log


def _article(m):
    x = m.tensor([1.0], requires_grad=True)
    w = m.tensor([2.0], requires_grad=True)
    a = x + w
    b = w + 1
    y = a * b
    return dict(x=x, w=w, a=a, b=b, y=y), y


def _diamond(m):
    x = m.tensor([1.0, 2.], requires_grad=True)
    a = x * 2
    b = a.exp()
    c = a.sin()
    d = b + c
    return dict(x=x, a=a, b=b, c=c, d=d), d.sum()


def _shared_input(m):
    x = m.tensor([1.0, 2.], requires_grad=True)
    w = m.tensor([3.0, 4.], requires_grad=True)
    a = x * w
    b = a * w
    c = b + x
    return dict(x=x, w=w, a=a, b=b, c=c), c.sum()


def _leaf_ready_early(m):
    # v's AccumulateGrad is made first but its gradient is complete right away: torch
    # stores it at once, before the exp chain runs
    v = m.tensor([1.0], requires_grad=True)
    x = m.tensor([1.0], requires_grad=True)
    a = x.exp().exp()
    return dict(v=v, x=x, a=a), (v + a).sum()


def _three_leaves(m):
    a1, a2, a3 = (m.tensor([1.0], requires_grad=True) for _ in range(3))
    return dict(a1=a1, a2=a2, a3=a3), (a1 * a2 * a3).sum()


def _stacked_three(m):
    a1, a2, a3 = (m.tensor([1.0], requires_grad=True) for _ in range(3))
    return dict(a1=a1, a2=a2, a3=a3), m.stack([a3, a1, a2]).sum()


def _split_pieces(m):
    x = m.tensor([1.0, 2., 3., 4.], requires_grad=True)
    p, q = x.split(2)
    return dict(x=x, p=p, q=q), (p.exp() + q * 2).sum()


@pytest.mark.parametrize("build", [_article, _diamond, _shared_input, _leaf_ready_early,
                                   _three_leaves, _stacked_three, _split_pieces],
                         ids=lambda f: f.__name__.strip("_"))
def test_hooks_run_in_torchs_order(build):
    assert _hook_log(engine, build) == _hook_log(torch, build)


HOOKS = {
    "retain_grad runs after every hook": """
log = []
a = x * 2
a.register_hook(lambda g: log.append(("first", a.grad)))
a.retain_grad()
a.register_hook(lambda g: (log.append(("second", a.grad)), g * 10)[1])
(a * 3).sum().backward()
r = [log, a.grad, x.grad]""",
    "several hooks on a leaf, replace and remove": """
log = []
h1 = v.register_hook(lambda g: g * 2)
h2 = v.register_hook(lambda g: (log.append(g.clone()), g + 1)[1])
(v * 3).sum().backward()
r = [log, v.grad.clone()]
h1.remove(); v.grad = None
(v * 3).sum().backward()
r += [log, v.grad]""",
    "hook on a non-leaf replaces the gradient": """
y = x * 2
y.register_hook(lambda g: g * 0 + 1)
(y * 5).sum().backward()
r = x.grad""",
    "node prehook and hook replace gradients": """
y = x * 2
z = y * 3
y.grad_fn.register_prehook(lambda go: (go[0] * 100,))
z.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
z.sum().backward()
r = x.grad""",
    "removed node hook": """
log = []
y = x * 2
h = y.grad_fn.register_hook(lambda gi, go: log.append(1))
h.remove()
y.sum().backward()
r = log""",
    "hook sees the summed gradient of a shared tensor": """
log = []
y = x * 2
y.register_hook(lambda g: log.append(g.clone()))
(y * 3 + y * 4).sum().backward()
r = log""",
    "hook on a split piece": """
log = []
p, q = x.split([1, 1])
q.register_hook(lambda g: log.append(g.clone()))
(p.sum() + (q * 3).sum()).backward()
r = [log, x.grad]""",
    "hook on an unused split piece sees None": """
log = []
p, q = x.split([1, 1])
q.register_hook(lambda g: log.append(g))
p.sum().backward()
r = [log, x.grad]""",
}


@pytest.mark.parametrize("name", list(HOOKS))
def test_hooks_match_torch(name):
    _same(HOOKS[name])


# what a hook returns is checked as torch checks it: another shape or dtype, a non-tensor,
# a non-tuple from a node hook or a tuple of another length are refused with torch's message
def _sum_hook(g):
    return g.sum()


class _CallableHook:
    def __call__(self, g):
        return g.sum()


TENSOR_HOOKS = {
    "another shape": _sum_hook, "another shape (a lambda)": lambda g: g[:1],
    "a shape it broadcasts to": lambda g: g[None], "a bigger shape": lambda g: g.new_ones(2, 3),
    "float64": lambda g: g.double(), "float16": lambda g: g.half(),
    "int64": lambda g: g.long(), "a number": lambda g: 3, "a list": lambda g: [g],
    "a callable object": _CallableHook(), "the same shape and dtype": lambda g: g * 3,
    "None": lambda g: None,
}


@pytest.mark.parametrize("on", ["non-leaf", "leaf"])
@pytest.mark.parametrize("name", list(TENSOR_HOOKS))
def test_what_a_tensor_hook_returns_is_checked(name, on):
    def run(m):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        (y if on == "non-leaf" else x).register_hook(TENSOR_HOOKS[name])
        y.sum().backward()
        return x.grad

    parity.run_both(run)


def _hooked_mul(m, pre=None, post=None):
    x = m.ones(3, requires_grad=True)
    y = x * m.ones(3)  # MulBackward0 with two inputs, one without an edge
    if pre is not None:
        y.grad_fn.register_prehook(pre)
    if post is not None:
        y.grad_fn.register_hook(post)
    y.sum().backward()
    return x.grad


NODE_HOOKS = {
    "prehook: not a tuple": dict(pre=lambda gs: gs[0]),
    "prehook: a list": dict(pre=lambda gs: [gs[0]]),
    "prehook: None in the tuple": dict(pre=lambda gs: (None,)),
    "prehook: a number in the tuple": dict(pre=lambda gs: (3,)),
    "prehook: too many": dict(pre=lambda gs: (gs[0], gs[0])),
    "prehook: another shape": dict(pre=lambda gs: (gs[0].sum(),)),
    "prehook: another dtype": dict(pre=lambda gs: (gs[0].double(),)),
    "prehook: replaced": dict(pre=lambda gs: (gs[0] * 2,)),
    "hook: not a tuple": dict(post=lambda gi, go: gi[0]),
    "hook: a list": dict(post=lambda gi, go: [gi[0], None]),
    "hook: a gradient where there was None": dict(post=lambda gi, go: (gi[0], gi[0])),
    "hook: None for all": dict(post=lambda gi, go: (None, None)),
    "hook: another shape": dict(post=lambda gi, go: (gi[0].sum(), None)),
    "hook: another dtype": dict(post=lambda gi, go: (gi[0].double(), None)),
    "hook: too few": dict(post=lambda gi, go: (gi[0],)),
    "hook: replaced": dict(post=lambda gi, go: (gi[0] * 5, None)),
}


@pytest.mark.parametrize("name", list(NODE_HOOKS))
def test_what_a_node_hook_returns_is_checked(name):
    parity.run_both(lambda m: _hooked_mul(m, **NODE_HOOKS[name]))


def test_hooks_on_other_paths_are_checked_too():
    def autograd_grad(m, target):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g.sum())
        return m.autograd.grad(y.sum(), x if target == "x" else y)

    def after_retain_grad(m):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g.sum())
        y.sum().backward()

    def unused_piece(m):
        x = m.ones(2, 3, requires_grad=True)
        first, second = (x * 1).unbind()
        second.register_hook(lambda g: m.ones(3))  # its gradient is None
        first.sum().backward()

    def leaf_node_prehook(m):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        y.grad_fn.next_functions[0][0].register_prehook(lambda gs: (gs[0].sum(),))
        y.sum().backward()

    for fn in (lambda m: autograd_grad(m, "x"), lambda m: autograd_grad(m, "y"),
               after_retain_grad, unused_piece, leaf_node_prehook):
        parity.run_both(fn)


# ---------------------------------------------------------------------- backward(gradient)
# a gradient of another dtype is cast to the output's (float64 or int for a float32 output)
@pytest.mark.parametrize("call", ["backward", "autograd.grad", "leaf.backward",
                                  "autograd.backward"])
@pytest.mark.parametrize("grad_dtype", ["float64", "float32", "float16", "int64", "int32",
                                        "uint8", "bool"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_a_gradient_of_another_dtype_is_cast_to_the_outputs(dtype, grad_dtype, call):
    def run(m):
        x = m.tensor([1.5, 2.25, 3.], dtype=getattr(m, dtype), requires_grad=True)
        y = x if call == "leaf.backward" else x * 1
        seen = []
        if y is not x:
            y.register_hook(lambda g: seen.append(str(g.dtype)))
        gradient = m.tensor([0.1, 2., 3.]).to(getattr(m, grad_dtype))
        if call == "autograd.grad":
            return m.autograd.grad(y, x, gradient)[0], seen
        if call == "autograd.backward":
            m.autograd.backward([y], [gradient])
        else:
            y.backward(gradient)
        return x.grad, seen

    parity.run_both(run)


def test_a_gradient_of_another_dtype_with_create_graph():
    def run(m):
        x = m.tensor([1.5, 2.], requires_grad=True)
        gradient = m.tensor([1., 1.], dtype=m.float64, requires_grad=True)
        (gx,) = m.autograd.grad(x * x, x, gradient, create_graph=True)
        return gx, gx.grad_fn.name()

    parity.run_both(run)


# ====================================================================== 5. autograd.functional
FUNCTIONAL = {
    "jacobian": "F.jacobian(lambda a: a ** 2, x1)",
    "jacobian of a scalar output": "F.jacobian(lambda a: a.sum(), x1)",
    "jacobian of a 0-d input": "F.jacobian(lambda a: a * 3, s)",
    "jacobian of two inputs": "F.jacobian(lambda a, b: (a * b).sum(), (x1, s))",
    "jacobian of two outputs": "F.jacobian(lambda a: (a.exp(), a.sum()), x1)",
    "jacobian tuple by tuple": "F.jacobian(lambda a, b: (a @ b, b.sum()), (x1[:2], y2))",
    "jacobian of an unused input": "F.jacobian(lambda a, b: a * 2, (x1, y2))",
    "jacobian strict": "F.jacobian(lambda a, b: a * 2, (x1, y2), strict=True)",
    "jacobian create_graph": "F.jacobian(lambda a: a ** 3, x1, create_graph=True)",
    "jacobian vectorize": "F.jacobian(lambda a: a ** 3, x1, vectorize=True)",
    "jacobian of a list": "F.jacobian(lambda a: a, [x1])",
    "jacobian of a number output": "F.jacobian(lambda a: 3, x1)",
    "vjp of a scalar": "F.vjp(lambda a: (a ** 2).sum(), x1)",
    "vjp needs v": "F.vjp(lambda a: a ** 2, x1)",
    "vjp": "F.vjp(lambda a: a ** 2, x1, m.ones(3, dtype=m.float64))",
    "vjp tuples": "F.vjp(lambda a, b: (a * b, b * 2), (x1, s), "
                  "(m.ones(3, dtype=m.float64), m.tensor(1., dtype=m.float64)))",
    "vjp of an unused input": "F.vjp(lambda a, b: a * 2, (x1, s), m.ones(3, dtype=m.float64))",
    "vjp strict": "F.vjp(lambda a, b: a * 2, (x1, s), m.ones(3, dtype=m.float64), "
                  "strict=True)",
    "vjp wrong v": "F.vjp(lambda a: a ** 2, x1, m.ones(2, dtype=m.float64))",
    "vjp create_graph": "F.vjp(lambda a: a ** 3, x1, m.ones(3, dtype=m.float64), "
                        "create_graph=True)",
}


@pytest.mark.parametrize("name", list(FUNCTIONAL))
def test_autograd_functional(name):
    _same(f"""
F = m.autograd.functional
x1 = m.tensor([1., 2., 3.], dtype=m.float64)
y2 = m.tensor([[0.5, 1.], [2., 3.]], dtype=m.float64)
s = m.tensor(2., dtype=m.float64)
try:
    r = {FUNCTIONAL[name]}
except Exception as caught:
    r = caught
r = [r, x1.requires_grad]
""")


def test_vjp_with_create_graph_is_differentiable():
    _same("""
F = m.autograd.functional
out, g = F.vjp(lambda a: (a ** 3).sum(), v, create_graph=True)
g.sum().backward()
r = [out, g, v.grad]
""")


# ====================================================================== 6. grad modes
GRAD_MODES = {
    "inference_mode marks new tensors": """
with m.inference_mode():
    y = x * 2; o = m.ones(2); c = x.clone(); d = x.detach()
    inside = (m.is_inference_mode_enabled(), m.is_grad_enabled())
r = [inside, [t.is_inference() for t in (y, o, c, d, x)], y.requires_grad,
     m.is_inference_mode_enabled()]""",
    "inference tensors cannot be saved": """
with m.inference_mode():
    y = x * 2
r = error(lambda: y * v)""",
    "inference tensors in a graph that saves nothing": """
with m.inference_mode():
    y = x.detach() * 2
(y + x).sum().backward()
r = x.grad""",
    "requires_grad_ on an inference tensor": """
with m.inference_mode():
    y = m.ones(2)
r = [error(lambda: y.requires_grad_()), error(lambda: y.add_(1)), y.clone().is_inference()]""",
    "inference_mode(False)": """
with m.inference_mode(False):
    r = [m.is_grad_enabled(), m.ones(1).is_inference()]""",
    "inference_mode decorator": """
@m.inference_mode()
def f(t):
    return t * 2
r = [f(x).is_inference(), f(x).requires_grad]""",
    "no_grad on methods": """
class A:
    @m.no_grad()
    def off(self, t):
        return t * 2

    @m.enable_grad()
    def on(self, t):
        return t * 2

    @m.set_grad_enabled(False)
    def off_too(self, t):
        return t * 2

with m.no_grad():
    on = A().on(x).requires_grad
r = [A().off(x).requires_grad, A.off.__name__, A().off_too(x).requires_grad, on,
     m.is_grad_enabled()]""",
    "bare no_grad decorator": """
@m.no_grad
def g(t):
    \"\"\"doubles\"\"\"
    return t * 2
r = [g(x).requires_grad, g.__name__, g.__doc__]""",
    "no_grad on a generator": """
@m.no_grad()
def gen():
    yield m.is_grad_enabled()
    yield (x * 2).requires_grad
r = [list(gen()), m.is_grad_enabled()]""",
    "set_grad_enabled as a function": """
m.set_grad_enabled(False)
r = [m.is_grad_enabled(), (x * 2).requires_grad]
m.set_grad_enabled(True)
r.append(m.is_grad_enabled())""",
    "set_grad_enabled as a context manager": """
with m.set_grad_enabled(False):
    r = [m.is_grad_enabled()]
r.append(m.is_grad_enabled())
mode = m.set_grad_enabled(False)
r.append(m.is_grad_enabled())
with mode:
    r.append(m.is_grad_enabled())
r.append(m.is_grad_enabled())""",
    "set_grad_enabled as a decorator": """
@m.set_grad_enabled(False)
def f(t):
    return t * 2
r = [m.is_grad_enabled(), f(x).requires_grad, m.is_grad_enabled()]""",
    "enable_grad inside no_grad decorator": """
@m.enable_grad()
def f(t):
    return t * 2
with m.no_grad():
    r = [f(x).requires_grad, m.is_grad_enabled()]""",
}


@pytest.mark.parametrize("name", list(GRAD_MODES))
def test_grad_modes(name):
    try:
        _same(GRAD_MODES[name])
    finally:
        engine.set_grad_enabled(True)
        torch.set_grad_enabled(True)


# ====================================================================== 7. memory and scale
def test_saved_tensors_and_nodes_are_freed_after_backward():
    x = engine.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    y[1:].mul_(2)
    z = (y.exp() * y[0]).sum()
    nodes = [weakref.ref(z.grad_fn), weakref.ref(y.grad_fn)]
    exp_node = z.grad_fn.next_functions[0][0].next_functions[0][0]
    saved = weakref.ref(exp_node._saved[0].tensor)
    z.backward()
    assert exp_node._saved == ()
    del y, z, exp_node
    gc.collect()
    assert saved() is None and all(node() is None for node in nodes)


def test_a_deep_chain_backward_is_iterative():
    """100,000 nodes deep, with room for only 150 more Python frames: backward must walk
    the graph with a loop, not one recursive call per node. (How long it takes is
    measured in bench/, never asserted here.)"""
    x = engine.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 150)
    try:
        y.backward()
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad.item() == 1.0


def test_inplace_on_a_view_of_a_transposed_base():
    # CopySlices finds the view's elements through the base's own (transposed) strides
    _same("""
t = m.arange(6., dtype=m.float64).view(3, 2).t().detach().requires_grad_()
y = t * 1
y[:, 0].mul_(3)
y[1, 1:].copy_(v[:2])
(y * w).sum().backward()
r = [y.stride(), names(y), y.detach(), t.grad, v.grad]
""")


def test_an_in_place_write_into_a_graph_runs_backward_once_unless_retained():
    """torch's CopySlices drops its node after backward, even when nothing was saved."""
    def backward_twice(m, retain):
        x = m.full((2, 1), -0.3, requires_grad=True)
        z = x.cumsum(0)
        z[:1] = 2.0
        y = x + z
        y.sum().backward(retain_graph=retain)
        y.sum().backward()
        return x.grad

    parity.run_both(backward_twice, False)
    parity.run_both(backward_twice, True)
