"""Module hooks against torch 2.15: forward pre-hooks and hooks (with_kwargs, prepend,
always_call), full backward pre-hooks and hooks (what grad_input and grad_output hold, the
``BackwardHookFunctionBackward`` nodes, the warnings and errors), the global
``register_module_*`` hooks, handles' ``remove``; printing unchanged.

Each snippet runs once with ``m = torch`` and once with ``m = engine``; what it leaves in
``r`` must be the same.
"""

import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

PRELUDE = """
nn = m.nn
MM = m.nn.modules.module
m.manual_seed(0)
lin = nn.Linear(3, 2)
with m.no_grad():
    lin.weight.copy_(m.tensor([[.5, -1., 2.], [1.5, .25, -.5]]))
    lin.bias.copy_(m.tensor([.1, -.2]))
x = m.tensor([[1., 2., 3.], [-1., 0., .5]], requires_grad=True)
log = []
def note(*what):
    return lambda *args: log.append(what + tuple(facts(a) for a in args[1:]))

class Two(nn.Module):
    def forward(self, a, b=None, *, scale=1.0):
        return a * scale, (a if b is None else b).sum()
"""


def _same(code):
    parity.assert_same_snippet(PRELUDE + code, warnings_too=True)


SNIPPETS = {
    "forward pre-hook and hook": """
h1 = lin.register_forward_pre_hook(note("pre"))
h2 = lin.register_forward_hook(note("post"))
y = lin(x)
h1.remove()
y2 = lin(x)
h2.remove()
h2.remove()
lin(x)
r = [log, y, y2, repr(lin), type(h1).__name__, h1.id < h2.id]
""",
    "pre-hook replaces the arguments": """
lin.register_forward_pre_hook(lambda mod, args: args[0] * 2)
a = lin(x)
lin.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
r = [a, lin(x)]
""",
    "forward hook replaces the output; prepend": """
lin.register_forward_hook(lambda mod, args, out: out * 10)
lin.register_forward_hook(lambda mod, args, out: out + 1, prepend=True)
lin.register_forward_pre_hook(note("pre 1"))
lin.register_forward_pre_hook(note("pre 0"), prepend=True)
r = [lin(x), log]
""",
    "with_kwargs": """
t = Two()
t.register_forward_pre_hook(lambda mod, args, kwargs: log.append((facts(args), kwargs)),
                            with_kwargs=True)
def change(mod, args, kwargs):
    return (args[0] + 1,), {**kwargs, "scale": 3.0}
t.register_forward_pre_hook(change, with_kwargs=True)
t.register_forward_hook(lambda mod, args, kwargs, out: log.append(("after", kwargs, facts(out))),
                        with_kwargs=True)
out = t(x, scale=2.0)
r = [log, out, error(lambda: Two().register_forward_pre_hook(lambda *a: 5, with_kwargs=True)
                     and None)]
bad = Two()
bad.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
r.append(error(lambda: bad(x)))
""",
    "always_call runs when forward raises": """
class Fails(nn.Module):
    def forward(self, a):
        raise ValueError("forward failed")
f = Fails()
f.register_forward_hook(note("always"), always_call=True)
f.register_forward_hook(note("not always"))
def broken(mod, args, out):
    raise KeyError("hook failed")
f.register_forward_hook(broken, always_call=True)
r = [error(lambda: f(x)), log]
ok = nn.Identity()
ok.register_forward_hook(note("always ok"), always_call=True)
r += [ok(x), log]
""",
    "global forward hooks run before the module's": """
lin.register_forward_pre_hook(note("own pre"))
lin.register_forward_hook(note("own post"))
g1 = MM.register_module_forward_pre_hook(note("global pre"))
g2 = MM.register_module_forward_hook(note("global post"))
g3 = MM.register_module_forward_hook(lambda mod, a, k, out: log.append(("kw", k)),
                                     with_kwargs=True)
try:
    lin(x)
    nn.Sequential(nn.ReLU())(x)
finally:
    g1.remove()
    g2.remove()
    g3.remove()
nn.ReLU()(x)
r = [log]
""",
    "full backward hooks: grad_input and grad_output": """
lin.register_full_backward_pre_hook(note("bw pre"))
lin.register_full_backward_hook(note("bw"))
y = lin(x)
r = [y.grad_fn, y.grad_fn.next_functions[0][0], y._base is None]
(y * m.tensor([1., 2.])).sum().backward()
r += [log, x.grad, lin.weight.grad]
""",
    "backward hook replaces grad_input; pre-hook replaces grad_output": """
lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 100,))
lin(x).sum().backward()
r = [x.grad, lin.weight.grad]
""",
    "several inputs and outputs, non-tensors": """
t = Two()
t.register_full_backward_pre_hook(note("pre"))
t.register_full_backward_hook(note("bw"))
v = m.ones(3, requires_grad=True)
a, s = t(x, v, scale=2.0)
r = [a.grad_fn, s.grad_fn]
(a.sum() + s * 3).backward()
r += [log, x.grad, v.grad]
""",
    "only the output is used": """
t = Two()
t.register_full_backward_hook(note("bw"))
a, s = t(x)
a.sum().backward()
r = [log, x.grad]
""",
    "no input requires grad": """
lin.register_full_backward_pre_hook(note("pre"))
lin.register_full_backward_hook(note("bw"))
y = lin(x.detach())
y.sum().backward()
r = [log, lin.weight.grad]
""",
    "no input requires grad, a hook returns gradients": """
lin.register_full_backward_hook(lambda mod, gi, go: (m.ones(2, 3),))
y = lin(x.detach())
r = [error(lambda: y.sum().backward())]
""",
    "wrong number of gradients": """
lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
r = [error(lambda: lin(x).sum().backward())]
lin2 = nn.Linear(3, 2)
lin2.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
r.append(error(lambda: lin2(x).sum().backward()))
""",
    "in-place on the output of a module with backward hooks": """
relu = nn.ReLU()
relu.register_full_backward_hook(note("bw"))
y = relu(x * 1)
r = [error(lambda: y.add_(1))]
inplace = nn.ReLU(inplace=True)
inplace.register_full_backward_hook(note("bw"))
r.append(error(lambda: inplace(x * 1)))
""",
    "a non-tensor output": """
class Num(nn.Module):
    def forward(self, a):
        return 3
n = Num()
n.register_full_backward_hook(note("bw"))
r = [n(x)]
""",
    "no_grad: no backward hook nodes": """
lin.register_full_backward_hook(note("bw"))
with m.no_grad():
    y = lin(x)
r = [y.grad_fn, y.requires_grad, log]
""",
    "global backward hooks": """
g1 = MM.register_module_full_backward_pre_hook(note("global pre"))
g2 = MM.register_module_full_backward_hook(note("global bw"))
lin.register_full_backward_hook(note("own bw"))
try:
    y = nn.Sequential(lin, nn.Tanh())(x)
    y.sum().backward()
finally:
    g1.remove()
    g2.remove()
r = [log, x.grad]
""",
    "a sequential model, hooks on each layer": """
model = nn.Sequential(lin, nn.ReLU(), nn.Linear(2, 1))
with m.no_grad():
    model[2].weight.fill_(.5)
    model[2].bias.zero_()
for i, layer in enumerate(model):
    layer.register_forward_hook(note("fw", i))
    layer.register_full_backward_hook(note("bw", i))
model.register_full_backward_pre_hook(note("model pre"))
model(x).sum().backward()
r = [log, x.grad, repr(model)]
""",
    "handles as context managers; removing twice": """
with lin.register_forward_hook(note("inside")) as h:
    lin(x)
lin(x)
h.remove()
r = [log, list(lin._forward_hooks), list(lin._backward_hooks)]
""",
    "the module's hook dicts": """
h = lin.register_forward_hook(note("a"), with_kwargs=True, always_call=True)
r = [len(lin._forward_hooks), len(lin._forward_hooks_with_kwargs),
     len(lin._forward_hooks_always_called), lin._is_full_backward_hook]
h.remove()
lin.register_full_backward_hook(note("b"))
r += [len(lin._forward_hooks), len(lin._forward_hooks_with_kwargs),
      len(lin._forward_hooks_always_called), lin._is_full_backward_hook]
""",
    "a module whose __init__ skipped Module's": """
class Bad(nn.Module):
    def __init__(self):
        pass
    def forward(self, a):
        return a
r = [error(lambda: Bad()(x))]
""",
    "register_backward_hook (not full): the node of the first output": """
lin.register_backward_hook(note("old"))
y = lin(x)
y.sum().backward()
r = [log, x.grad, error(lambda: lin.register_full_backward_hook(print))]
full = nn.Linear(3, 2)
full.register_full_backward_hook(print)
r.append(error(lambda: full.register_backward_hook(print)))
""",
    "register_backward_hook's warnings": """
t = Two()
t.register_backward_hook(note("old"))
a, s = t(x, x * 2, scale=2.0)
(a.sum() + s).backward()
seq = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
seq.register_backward_hook(note("seq"))
seq(x).sum().backward()
relu = nn.ReLU()
relu.register_backward_hook(note("relu"))
relu(x * 1).sum().backward()
class Nested(nn.Module):
    def forward(self, a):
        return [a * 2]
n = Nested()
n.register_backward_hook(note("nested"))
n(x)[0].sum().backward()
r = [log]
""",
    "register_module_backward_hook": """
g = MM.register_module_backward_hook(note("global old"))
try:
    lin(x).sum().backward()
    r = [error(lambda: MM.register_module_full_backward_hook(print))]
finally:
    g.remove()
r.append(log)
""",
    "create_graph through backward hooks": """
lin.register_full_backward_hook(lambda mod, gi, go: log.append(facts(gi)))
y = (lin(x) ** 2).sum()
g, = m.autograd.grad(y, x, create_graph=True)
g.sum().backward()
r = [log, g, x.grad]
""",
}


@pytest.fixture(autouse=True)
def _global_backward_hook_kind_forgotten():
    """Which kind of global backward hook (full or not) was registered first stays for the
    process, in both libraries: each test starts without one."""
    def forget():
        torch.nn.modules.module._global_is_full_backward_hook = None
        engine.nn.modules.hooks.global_hooks.is_full_backward_hook = None
    forget()
    yield
    forget()


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_module_hooks(name):
    _same(SNIPPETS[name])


def test_names_importable_as_in_torch():
    for name in ("register_module_forward_pre_hook", "register_module_forward_hook",
                 "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
                 "register_module_backward_hook"):
        assert callable(getattr(engine.nn.modules.module, name))
    for name in ("register_forward_pre_hook", "register_forward_hook",
                 "register_full_backward_pre_hook", "register_full_backward_hook",
                 "register_backward_hook"):
        assert callable(getattr(engine.nn.Module, name))
