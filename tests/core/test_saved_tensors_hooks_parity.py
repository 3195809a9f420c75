"""``torch.autograd.graph.saved_tensors_hooks`` & co against torch 2.15: when the pack and
unpack hooks run, what they receive, what the graph does with what they return, the
errors, ``save_on_cpu`` and ``disable_saved_tensors_hooks``.

Each snippet runs once with ``m = torch`` and once with ``m = engine``; what it leaves in
``r`` (tensor facts, node names, the hooks' log, error types and messages) must be the same.
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
def pack(t):
    log.append(("pack", facts(t), t is x, t is v, m.is_grad_enabled()))
    return ("packed", t)
def unpack(p):
    log.append(("unpack", facts(p[1]), m.is_grad_enabled()))
    return p[1]
"""


def _same(code, dtype="float32"):
    parity.assert_same_snippet(PRELUDE + code, dtype, warnings_too=False)


# ====================================================================== when the hooks run
SNIPPETS = {
    "an input and the output": """
with G.saved_tensors_hooks(pack, unpack):
    y = x.sin()
    z = y.exp()
r = [log[:], y, z]
z.sum().backward()
r += [log[len(r[0]):], x.grad]
""",
    "keywords": """
with G.saved_tensors_hooks(pack_hook=pack, unpack_hook=unpack):
    y = (x * x).tanh()
r = [log[:]]
y.sum().backward()
r += [len(log), x.grad]
""",
    "reading _saved_self unpacks each time": """
with G.saved_tensors_hooks(pack, unpack):
    y = x.pow(2)
    z = x.exp()
a, b = y.grad_fn._saved_self, y.grad_fn._saved_self
r = [log[:], a, a is x, b is a, z.grad_fn._saved_result, z.grad_fn._saved_result is z]
""",
    "retain_graph: unpacked at each backward, freed after": """
with G.saved_tensors_hooks(pack, unpack):
    y = (v.sigmoid() * 3).sum()
y.backward(retain_graph=True)
y.backward()
node = y.grad_fn.next_functions[0][0].next_functions[0][0]
r = [log[:], v.grad, error(lambda: node._saved_result)]
""",
    "nothing saved, nothing packed": """
with G.saved_tensors_hooks(pack, unpack):
    y = (x * 2 + 1).sum() + v.view(6)[0] - x.mean()
    with m.no_grad():
        x.exp()
    m.ones(2).exp()
r = [log[:], y]
""",
    "saved numbers: not packed, still shown as tensors": """
with G.saved_tensors_hooks(pack, unpack):
    y = x * 2
    z = x.pow(2.5)
    w = v.clamp(min=-1.0) * 1.5
r = [log[:], y.grad_fn._saved_other, z.grad_fn._saved_exponent, z.grad_fn._saved_self]
(y.sum() + z.sum() + w.sum()).backward()
r += [x.grad, v.grad, log[len(r[0]):]]
""",
    "nesting: the innermost pair wins": """
outer = lambda t: log.append("outer") or t
inner = lambda t: log.append("inner") or t
with G.saved_tensors_hooks(outer, lambda p: log.append("outer unpack") or p):
    y = x.sin()
    with G.saved_tensors_hooks(inner, lambda p: log.append("inner unpack") or p):
        z = y.cos()
    w = z.tanh()
w.sum().backward()
r = [log[:], x.grad]
""",
    "pack returns a different tensor: backward uses it": """
with G.saved_tensors_hooks(lambda t: m.ones_like(t) * 2, lambda p: p):
    y = x.pow(3)
r = [y.grad_fn._saved_self]
y.sum().backward()
r += [x.grad, error(lambda: y.grad_fn._saved_self)]
""",
    "pack returns a non-tensor": """
store = {}
def keep(t):
    store[len(store)] = t.detach().clone()
    return len(store) - 1
with G.saved_tensors_hooks(keep, lambda key: store[key]):
    y = v.exp().sum()
y.backward()
r = [v.grad, sorted(store)]
""",
    "pack hook returns the input detached; double backward reaches the leaf": """
with G.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
    y = x.pow(3)
g, = m.autograd.grad(y.sum(), x, create_graph=True)
g.sum().backward()
r = [g, x.grad, y.grad_fn._saved_self]
""",
    "unpacked: grad mode of the caller": """
with G.saved_tensors_hooks(pack, unpack):
    y = x.exp()
y.sum().backward(create_graph=True)
with m.no_grad():
    y.grad_fn._saved_result
r = [log[:], x.grad]
""",
    "a custom Function's saved tensors": """
class F(m.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        out = a * b
        ctx.save_for_backward(a, out)
        return out
    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        return g * out / a, g * a
with G.saved_tensors_hooks(pack, unpack):
    y = F.apply(x, x.detach() + 1)
r = [log[:]]
y.sum().backward()
r += [log[len(r[0]):], x.grad]
""",
    "an in-place change after saving goes unseen (no version check through hooks)": """
w = v * 1
with G.save_on_cpu():
    y = w.exp()
w.mul_(10)
y.sum().backward()
r = [v.grad, y.grad_fn]
""",
    "without hooks the same change is an error": """
w = v * 1
y = w.exp().exp()
w.mul_(10)
r = [error(lambda: y.sum().backward()), error(lambda: y.grad_fn._saved_self)]
""",
    "save_on_cpu keeps values and gradients": """
with G.save_on_cpu(pin_memory=False):
    y = (v @ x).tanh()
r = [y.grad_fn._saved_result]
y.sum().backward()
r += [y, v.grad, x.grad]
""",
    "save_on_cpu pinned (positional)": """
with G.save_on_cpu(True):
    y = (v * x).sigmoid()
y.sum().backward()
r = [y, v.grad, x.grad]
""",
    "an in-place op that needs its input's old values (the engine packs twice)": """
with G.saved_tensors_hooks(pack, unpack):
    w = v.clone()
    y = w.mul_(x).div_(x + 1)
y.sum().backward()
r = [y, x.grad, v.grad, sorted(map(str, log))[-3:]]
""",
    "0-d and empty tensors": """
s = m.tensor(2., dtype=DTYPE, requires_grad=True)
e = m.ones(0, 3, dtype=DTYPE, requires_grad=True)
with G.saved_tensors_hooks(pack, unpack):
    y = s.exp() + e.sin().sum()
y.backward()
r = [log[:], s.grad, e.grad]
""",
    "the hook object": """
h = G.saved_tensors_hooks(pack, unpack)
r = [h.pack_hook is pack, h.unpack_hook is unpack, h.__enter__(), x.exp().grad_fn._saved_result]
h.__exit__(None, None, None)
r += [x.exp().grad_fn._saved_result, log[:]]
""",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SNIPPETS))
def test_saved_tensors_hooks(name, dtype):
    _same(SNIPPETS[name], dtype)


# ====================================================================== errors
ERRORS = {
    "unpack returns an int": """
with G.saved_tensors_hooks(lambda t: 3, lambda p: p):
    y = x.exp()
r = [error(lambda: y.sum().backward()), error(lambda: y.grad_fn._saved_result)]
""",
    "unpack returns None": """
with G.saved_tensors_hooks(lambda t: None, lambda p: p):
    y = x.sin()
r = [error(lambda: y.sum().backward())]
""",
    "unpack returns a list": """
with G.saved_tensors_hooks(lambda t: [t], lambda p: p):
    y = x.sin()
r = [error(lambda: y.grad_fn._saved_self)]
""",
    "pack modifies its input in place": """
w = x * 1
with G.saved_tensors_hooks(lambda t: t.add_(1), lambda p: p):
    r = [error(lambda: w.exp()), error(lambda: w * w), w]
""",
    "pack modifies a leaf in place": """
with G.saved_tensors_hooks(lambda t: t.data.mul_(2), lambda p: p):
    r = [error(lambda: x.sin())]
""",
    "pack raises": """
def bad(t):
    raise ValueError("no packing")
with G.saved_tensors_hooks(bad, lambda p: p):
    r = [error(lambda: x.sin()), error(lambda: x + 1)]
""",
    "unpack returns another shape": """
with G.saved_tensors_hooks(lambda t: t, lambda p: m.ones(5, dtype=DTYPE)):
    y = x * x
r = [error(lambda: y.sum().backward())]
""",
    "unpack returns another dtype: the gradient is cast back": """
with G.saved_tensors_hooks(lambda t: t, lambda p: p.double()):
    y = x * x
y.sum().backward()
r = [x.grad]
""",
    "disabled: using hooks raises the message": """
with G.disable_saved_tensors_hooks("no hooks here"):
    r = [error(lambda: G.saved_tensors_hooks(pack, unpack).__enter__()),
         error(lambda: G.save_on_cpu().__enter__())]
with G.saved_tensors_hooks(pack, unpack):
    r.append(x.exp().grad_fn._saved_result)
""",
    "disabled while hooks are in use": """
with G.saved_tensors_hooks(pack, unpack):
    try:
        with G.disable_saved_tensors_hooks("too late"):
            r = ["entered"]
    except RuntimeError as e:
        r = [e]
    y = x.exp()
r.append(log[:])
""",
    "disabled, nested: the inner message, then the outer again": """
r = []
with G.disable_saved_tensors_hooks("outer"):
    with G.disable_saved_tensors_hooks(error_message="inner"):
        r.append(error(lambda: G.saved_tensors_hooks(pack, unpack).__enter__()))
    r.append(error(lambda: G.saved_tensors_hooks(pack, unpack).__enter__()))
r.append(error(lambda: x.exp()))
""",
}


RAW = {
    "hooks on one saved tensor": """
y = x.pow(3)
raw = y.grad_fn._raw_saved_self
raw.register_hooks(pack, unpack)
r = [log[:], error(lambda: raw.register_hooks(pack, unpack)), y.grad_fn._saved_self,
     raw.unpack()]
y.sum().backward()
r += [log[:], x.grad, error(lambda: raw.register_hooks(pack, unpack)), repr(raw)[:35]]
""",
    "on a saved result; unpack returning a non-tensor": """
z = x.exp()
z.grad_fn._raw_saved_result.register_hooks(pack, unpack)
u = x.sin()
u.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda p: 3)
r = [z.grad_fn._saved_result, log[:], error(lambda: u.sum().backward())]
z.sum().backward()
r += [x.grad, len(log)]
""",
    "already packed by saved_tensors_hooks; not callables": """
with G.saved_tensors_hooks(pack, unpack):
    y = x.exp()
r = [error(lambda: y.grad_fn._raw_saved_result.register_hooks(pack, unpack))]
e = error(lambda: x.sin().grad_fn._raw_saved_self.register_hooks(1, 2))
r.append((type(e).__name__, str(e).splitlines()[:2]))
""",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(RAW))
def test_register_hooks_on_one_saved_tensor(name, dtype):
    _same(RAW[name], dtype)


@pytest.mark.parametrize("name", list(ERRORS))
def test_saved_tensors_hooks_errors(name):
    _same(ERRORS[name])


def test_pack_sees_each_saved_tensor_once_per_op():
    """The same tensors are packed as torch packs them, in its order (an op's inputs sorted
    by their names, ``other`` before ``self``, then its outputs)."""
    ops = ["x * v", "x / v", "x ** v", "x @ v.t()", "v.mm(v.t())", "m.atan2(x, v)",
           "m.maximum(x, v)", "v.softmax(1)", "v.log_softmax(0)",
           "m.nn.functional.linear(v, v)", "m.nn.functional.layer_norm(v, (3,))",
           "v.max(1)[0]", "v.sort(1)[0]", "m.cat([v, x[None]])", "v[m.tensor([1, 0, 1])]",
           "m.where(v > 0, v, x)", "v.norm()", "v.var(1)", "v.prod()", "v.clamp(-1, 1)",
           "m.nn.functional.cross_entropy(v, m.tensor([0, 2]))", "x.clone().exp_()",
           # one operand without requires_grad: only what the other's gradient needs is saved
           "x * v.detach()", "v.detach() / x", "x @ v.detach().t()", "v.detach().abs() ** x",
           "m.atan2(v.detach(), x)", "m.lerp(v.detach(), x, 0.3)", "m.addcmul(v.detach(), x, v)",
           "m.nn.functional.linear(v.detach(), v)", "v.clamp(min=x.detach())"]
    for op in ops:
        _same(f"""
with G.saved_tensors_hooks(pack, unpack):
    y = {op}
r = [log[:]]
y.sum().backward()
r += [len(log), x.grad, v.grad]
""")


def test_names_importable_as_in_torch():
    for name in ("saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"):
        assert name in engine.autograd.graph.__all__
        assert callable(getattr(engine.autograd.graph, name))
    assert issubclass(engine.autograd.graph.save_on_cpu, engine.autograd.graph.saved_tensors_hooks)


def test_pictures_of_a_graph_whose_tensors_are_packed():
    """A node keeps no tensor for what saved_tensors_hooks packed: the pictures and the
    backward stepper draw the graph without it (engine only)."""
    pytest.importorskip("ipywidgets")
    import engine.widgets

    x = engine.ones(3, requires_grad=True)
    with engine.autograd.graph.save_on_cpu():
        y = (x * x).exp().sum()
    assert engine.viz.draw_graph(y, show_saved=True) is not None
    assert engine.widgets.BackwardStepper(y, show_saved=True) is not None
    y.backward()
    assert x.grad is not None
