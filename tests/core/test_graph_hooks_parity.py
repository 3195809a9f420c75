"""Hooks around the backward walk against torch 2.15: ``register_post_accumulate_grad_hook``,
``torch.autograd.graph``'s ``register_multi_grad_hook``, ``GradientEdge`` /
``get_gradient_edge``, ``increment_version``, and the order in which every kind of hook
fires in one backward.

Each snippet runs once with ``m = torch`` and once with ``m = engine``; what it leaves in
``r`` must be the same.
"""
import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

PRELUDE = """
G = m.autograd.graph
x = m.tensor([1., 2., 3.], dtype=DTYPE, requires_grad=True)
v = m.tensor([[.5, -1., 2.], [3., .25, -2.]], dtype=DTYPE, requires_grad=True)
log = []
"""


def _same(code, dtype="float32"):
    parity.assert_same_snippet(PRELUDE + code, dtype, warnings_too=False)


# ====================================================================== the order of hooks
ORDER = {
    "every kind on one graph": """
def note(*what):
    return lambda *args: log.append(what + tuple(facts(a) for a in args
                                                 if not isinstance(a, tuple)))
x.register_post_accumulate_grad_hook(note("x post-accumulate"))
x.register_hook(note("x tensor"))
y = x * 3
acc = y.grad_fn.next_functions[0][0]
acc.register_prehook(lambda g: log.append(("acc pre", facts(g))))
acc.register_hook(lambda gi, go: log.append(("acc post", facts(gi), facts(go))))
y.register_hook(note("y tensor 1"))
y.retain_grad()
y.register_hook(note("y tensor 2"))
y.grad_fn.register_prehook(lambda g: log.append(("y pre", facts(g))))
y.grad_fn.register_hook(lambda gi, go: log.append(("y post", facts(gi), facts(go))))
z = (y * v).sum()
z.grad_fn.register_prehook(lambda g: log.append(("z pre", facts(g))))
G.register_multi_grad_hook((x, y, v), lambda gs: log.append(("multi", facts(gs))))
v.register_post_accumulate_grad_hook(note("v post-accumulate"))
z.backward()
r = [log, x.grad, y.grad, v.grad]
""",
    "two leaves, two post-accumulate hooks each": """
for t, n in ((x, "x"), (v, "v")):
    t.register_post_accumulate_grad_hook(lambda t, n=n: log.append((n, 1, facts(t.grad))))
    t.register_post_accumulate_grad_hook(lambda t, n=n: log.append((n, 2, t.grad.sum().item())))
(v * x).sum().backward()
(v.exp() + x).sum().backward()
r = [log]
""",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ORDER))
def test_hooks_fire_in_torchs_order(name, dtype):
    _same(ORDER[name], dtype)


# ====================================================================== post-accumulate hooks
POST = {
    "after .grad, the tensor itself": """
h = x.register_post_accumulate_grad_hook(lambda t: log.append((t is x, facts(t.grad))))
(x * x).sum().backward()
(x * 2).sum().backward()
h.remove()
h.remove()
(x * 2).sum().backward()
r = [log, x.grad]
""",
    "it may change .grad in place": """
x.register_post_accumulate_grad_hook(lambda t: [t.grad.mul_(0.5), None][1])
(x * 4).sum().backward()
r = [x.grad]
""",
    "autograd.grad does not run it; backward(inputs=) does": """
x.register_post_accumulate_grad_hook(lambda t: log.append("post"))
m.autograd.grad((x * v).sum(), x)
r = [log[:]]
(x * v).sum().backward(inputs=[x])
r += [log[:], v.grad]
""",
    "handles as context managers": """
with x.register_post_accumulate_grad_hook(lambda t: log.append("post")) as h:
    with x.register_hook(lambda g: log.append("tensor")):
        (x * 2).sum().backward()
    (x * 2).sum().backward()
(x * 2).sum().backward()
r = [log, x.grad]
""",
    "create_graph": """
x.register_post_accumulate_grad_hook(lambda t: log.append(facts(t.grad)))
(x ** 3).sum().backward(create_graph=True)
r = [log, x.grad.grad_fn]
""",
    "0-d and empty leaves": """
s = m.tensor(2., dtype=DTYPE, requires_grad=True)
e = m.ones(0, 2, dtype=DTYPE, requires_grad=True)
s.register_post_accumulate_grad_hook(lambda t: log.append(facts(t.grad)))
e.register_post_accumulate_grad_hook(lambda t: log.append(facts(t.grad)))
(s * 3 + e.sum()).backward()
r = [log]
""",
    "errors": """
r = [error(lambda: (x * 1).register_post_accumulate_grad_hook(print)),
     error(lambda: m.ones(2).register_post_accumulate_grad_hook(print))]
a = m.ones(2, requires_grad=True)
a.register_post_accumulate_grad_hook(lambda t: 5)
r.append(error(lambda: a.sum().backward()))
b = m.ones(2, requires_grad=True)
b.register_post_accumulate_grad_hook(lambda t: t.grad)
r += [error(lambda: b.sum().backward()), b.grad]
""",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(POST))
def test_post_accumulate_grad_hook(name, dtype):
    _same(POST[name], dtype)


# ====================================================================== multi grad hooks
MULTI = {
    "all: the tensors this backward reaches": """
a, b = x * 1, v * 1
c, d = a * b, a * b
G.register_multi_grad_hook((a, b, c, d), lambda gs: log.append([g is not None for g in gs]))
c.sum().backward(retain_graph=True)
c.sum().backward(inputs=(a,), retain_graph=True)
m.autograd.grad(c.sum(), (c,), retain_graph=True)
m.autograd.grad(c.sum(), (a, b), retain_graph=True)
(c + d).sum().backward()
r = [log]
""",
    "all on leaves: the gradients": """
G.register_multi_grad_hook([x, v], lambda gs: log.append(facts(gs)))
(v * x).sum().backward()
(x * 2).sum().backward()
r = [log, error(lambda: m.autograd.grad((x * v).sum(), x))]
""",
    "any: the first gradient, once per backward": """
h = G.register_multi_grad_hook((x, v), lambda g: log.append(facts(g)), mode="any")
(v * x).sum().backward()
(x * 5).sum().backward()
h.remove()
(v * x).sum().backward()
r = [log, type(h).__name__]
""",
    "any skips tensors that do not require grad": """
G.register_multi_grad_hook((m.ones(3), x), lambda g: log.append(facts(g)), mode="any")
(x * 2).sum().backward()
r = [log]
""",
    "errors": """
r = [error(lambda: G.register_multi_grad_hook((x,), print, mode="some")),
     error(lambda: G.register_multi_grad_hook((m.ones(2),), print)),
     error(lambda: G.register_multi_grad_hook((x,), print, "any"))]
""",
    "a removed all-hook": """
h = G.register_multi_grad_hook((x, v), lambda gs: log.append(1))
h.remove()
(x * v).sum().backward()
r = [log]
""",
}


@pytest.mark.parametrize("name", list(MULTI))
def test_register_multi_grad_hook(name):
    _same(MULTI[name])


# ====================================================================== gradient edges, versions
EDGES = {
    "a leaf's and a non-leaf's edge": """
e = G.get_gradient_edge(x)
y = x * v
p, q = y.unbind()
f = G.get_gradient_edge(q)
r = [e.node.name(), e.output_nr, e.ownership_token, type(e).__name__, list(e._fields),
     f.node is p.grad_fn, f.output_nr, e == (e.node, 0, None), len(f),
     error(lambda: G.get_gradient_edge(m.ones(2)))]
""",
    "autograd.grad with edges as inputs": """
w = x * 2
p, q = (w * v).unbind()
loss = (w * w).sum() + (q * 3).sum()
r = list(m.autograd.grad(loss, G.get_gradient_edge(w), retain_graph=True))
r += list(m.autograd.grad(loss, [x, G.get_gradient_edge(q), G.get_gradient_edge(x)],
                          retain_graph=True))
r += list(m.autograd.grad(loss, (G.get_gradient_edge(v),), allow_unused=True))
""",
    "increment_version": """
a = m.ones(2)
r = [a._version]
G.increment_version(a)
r.append(a._version)
G.increment_version([a, a[0]])
r.append(a._version)
G.increment_version((a,))
r += [a._version, error(lambda: G.increment_version(3))]
with m.inference_mode():
    b = m.ones(2)
G.increment_version(b)
y = x.exp()
G.increment_version(y)
r += [error(lambda: y.sum().backward())]
""",
}


QUEUE_CALLBACK = """
r = [error(lambda: G.queue_callback(print))]
def hook(g):
    G.queue_callback(lambda: log.append(("cb1", facts(x.grad))))
    G.queue_callback(lambda: log.append("cb2") or G.queue_callback(lambda: log.append("cb3")))
    log.append("hook")
x.register_hook(hook)
(x * 2).sum().backward()
m.autograd.grad((x * 2).sum(), x)
v.register_hook(lambda g: G.queue_callback(lambda: log.append("v cb")))
def nested(g):
    G.queue_callback(lambda: log.append("outer cb"))
    with m.enable_grad():
        (v * 3).sum().backward()
w = m.ones(2, requires_grad=True)
w.register_hook(nested)
(w * 2).sum().backward()
z = m.ones(2, requires_grad=True)
def bad(g):
    G.queue_callback(lambda: log.append("not run"))
    raise ValueError("boom")
z.register_hook(bad)
r += [error(lambda: (z * 2).sum().backward()), log]
"""


def test_queue_callback():
    _same(QUEUE_CALLBACK)


@pytest.mark.parametrize("name", list(EDGES))
def test_gradient_edges_and_versions(name):
    _same(EDGES[name])


def test_names_importable_as_in_torch():
    for name in ("register_multi_grad_hook", "GradientEdge", "get_gradient_edge",
                 "increment_version", "queue_callback", "Node"):
        assert name in engine.autograd.graph.__all__
        assert getattr(engine.autograd.graph, name) is not None
    assert callable(engine.Tensor.register_post_accumulate_grad_hook)
    assert engine.utils.hooks.RemovableHandle.__name__ == "RemovableHandle"


def test_a_function_returning_inputs_counts_differentiable_outputs():
    """Module backward hooks' identity Function: with one differentiable output (the other
    inputs do not require grad), changing it in place gives the custom Function message."""
    _same("""
class Identity(m.autograd.Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args
    @staticmethod
    def backward(ctx, *args):
        return args
r = []
for args in ((x, v), (x, m.ones(2), m.ones(2, dtype=m.int64)), (x,)):
    outs = Identity.apply(*args)
    r += [outs[0].grad_fn, error(lambda: outs[0].mul_(2)), [o.requires_grad for o in outs]]
""")


def test_the_backward_stepper_is_a_backward_call():
    """Hooks that ask about the running backward (multi-grad hooks, queue_callback) work
    while engine.widgets.BackwardStepper records its steps (engine only)."""
    pytest.importorskip("ipywidgets")
    import engine.widgets

    x = engine.ones(3, requires_grad=True)
    v = engine.ones(3, requires_grad=True)
    log = []
    engine.autograd.graph.register_multi_grad_hook((x, v), lambda gs: log.append(len(gs)))
    x.register_hook(lambda g: engine.autograd.graph.queue_callback(lambda: log.append("cb")))
    engine.widgets.BackwardStepper((x * v).sum())
    assert log == [2, "cb"] and x.grad is None
