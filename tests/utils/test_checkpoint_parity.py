"""``torch.utils.checkpoint`` against torch 2.15: ``checkpoint`` with ``use_reentrant`` not
given (a warning, then the reentrant way), True and False: the same values and gradients
as without checkpointing, the function run again in backward, dropout's random numbers
replayed, the nodes in the graph, the errors; ``checkpoint_sequential``.

Each snippet runs once with ``m = torch`` and once with ``m = engine``; what it leaves in
``r`` (and the warnings) must be the same.
"""

import pytest

import engine
import parity

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

PRELUDE = """
C = m.utils.checkpoint
nn = m.nn
m.manual_seed(0)
x = m.tensor([[1., -2., 3.], [.5, 4., -1.]], dtype=DTYPE, requires_grad=True)
w = m.tensor([[.5, -1.], [2., 1.5], [.25, -.5]], dtype=DTYPE, requires_grad=True)
runs = []
def f(a, b):
    runs.append(m.is_grad_enabled())
    return (a @ b).tanh() * a.sum()
def drop(a):
    runs.append("drop")
    return m.nn.functional.dropout(a.exp(), 0.5) * 2
"""


def _same(code, dtype="float32"):
    parity.assert_same_snippet(PRELUDE + code, dtype, warnings_too=True)


SNIPPETS = {
    "use_reentrant not given: the warning, then the reentrant way": """
y = C.checkpoint(f, x, w)
r = [y, y.grad_fn, runs[:]]
y.sum().backward()
r += [runs, x.grad, w.grad]
""",
    "reentrant": """
y = C.checkpoint(f, x, w, use_reentrant=True)
r = [y, y.grad_fn, runs[:]]
y.sum().backward()
r += [runs, x.grad, w.grad]
""",
    "non-reentrant": """
y = C.checkpoint(f, x, w, use_reentrant=False)
r = [y, y.grad_fn, runs[:]]
y.sum().backward()
r += [runs, x.grad, w.grad]
""",
    "the same gradients as without checkpointing": """
r = []
for kind in (None, True, False):
    x.grad = w.grad = None
    y = f(x, w) if kind is None else C.checkpoint(f, x, w, use_reentrant=kind)
    (y * y).sum().backward()
    r += [y, x.grad, w.grad]
""",
    "dropout's random numbers replayed": """
r = []
for kind in (True, False):
    m.manual_seed(3)
    x.grad = None
    y = C.checkpoint(drop, x, use_reentrant=kind)
    y.sum().backward()
    r += [y, x.grad, m.rand(2)]
""",
    "preserve_rng_state=False: the second run draws other numbers": """
r = []
for kind in (True, False):
    m.manual_seed(3)
    x.grad = None
    y = C.checkpoint(drop, x, use_reentrant=kind, preserve_rng_state=False)
    y.sum().backward()
    r += [y, x.grad, m.rand(2)]
""",
    "keyword arguments": """
def g(a, *, scale):
    return a.sin() * scale
y = C.checkpoint(g, x, scale=3.0, use_reentrant=False)
y.sum().backward()
r = [y, x.grad, error(lambda: C.checkpoint(g, x, scale=3.0, use_reentrant=True))]
""",
    "autograd.grad: non-reentrant only": """
y = C.checkpoint(f, x, w, use_reentrant=False)
r = list(m.autograd.grad(y.sum(), (x, w)))
z = C.checkpoint(f, x, w, use_reentrant=True)
r.append(error(lambda: m.autograd.grad(z.sum(), (x, w))))
r.append(error(lambda: z.sum().backward(inputs=[x])))
""",
    "no input requires grad": """
y = C.checkpoint(f, x.detach(), w.detach(), use_reentrant=True)
r = [y, y.requires_grad]
z = C.checkpoint(f, x.detach(), w, use_reentrant=True)
z.sum().backward()
r += [z.grad_fn, w.grad]
""",
    "non-tensor arguments and outputs": """
def h(a, n, b):
    return a * n + b, n
out, n = C.checkpoint(h, x, 3, x.detach(), use_reentrant=True)
out.sum().backward()
r = [out, n, x.grad]
out, n = C.checkpoint(h, x, 2, x.detach(), use_reentrant=False)
out.sum().backward()
r += [out, n, x.grad]
""",
    "no_grad: an ordinary call": """
with m.no_grad():
    r = [C.checkpoint(f, x, w, use_reentrant=False), C.checkpoint(f, x, w, use_reentrant=True),
         runs]
""",
    "create_graph with the non-reentrant way": """
y = C.checkpoint(lambda a: a ** 3, x, use_reentrant=False)
g, = m.autograd.grad(y.sum(), x, create_graph=True)
g.sum().backward()
r = [g, x.grad]
""",
    "retain_graph: recomputed at each backward": """
y = C.checkpoint(f, x, w, use_reentrant=False)
y.sum().backward(retain_graph=True)
y.sum().backward()
r = [runs, x.grad]
z = C.checkpoint(f, x, w, use_reentrant=True)
z.sum().backward(retain_graph=True)
z.sum().backward()
r += [runs, x.grad]
""",
    "a saved tensor read outside backward": """
y = C.checkpoint(lambda a: a.exp(), x, use_reentrant=False)
r = [y.grad_fn._saved_result, runs]
""",
    "an input changed in place after the call": """
a = x * 1
y = C.checkpoint(lambda t: t.sin(), a, use_reentrant=False)
a.mul_(2)
r = [error(lambda: y.sum().backward())]
""",
    "a different number of saved tensors in the second run": """
calls = []
def changes(a):
    calls.append(1)
    return a.exp() if len(calls) == 1 else a.exp().sin()
y = C.checkpoint(changes, x, use_reentrant=False)
r = [error(lambda: y.sum().backward())]
""",
    "other metadata in the second run": """
calls = []
def changes(a):
    calls.append(1)
    return (a if len(calls) == 1 else a.double()).exp()
y = C.checkpoint(changes, x, use_reentrant=False)
r = [error(lambda: y.sum().backward())]
y = C.checkpoint(changes, x, use_reentrant=False, determinism_check="none")
r.append(error(lambda: C.checkpoint(changes, x, use_reentrant=False, determinism_check="no")))
""",
    "errors of the arguments": """
r = [error(lambda: C.checkpoint(f, x, w, use_reentrant=True, context_fn=lambda: None)),
     error(lambda: C.checkpoint(f, x, w, use_reentrant=True, debug=True)),
     error(lambda: C.checkpoint(use_reentrant=False, scale=2))]
""",
    "as a decorator": """
@C.checkpoint(use_reentrant=False)
def k(a, b):
    return f(a, b)
y = k(x, w)
y.sum().backward()
r = [y, x.grad, runs, k.__name__]
""",
    "with a module, inside another module": """
lin = nn.Linear(3, 2).to(DTYPE)
with m.no_grad():
    lin.weight.copy_(w.t())
    lin.bias.fill_(.1)
class Wrap(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = lin
    def forward(self, a):
        return C.checkpoint(self.lin, a, use_reentrant=False).relu()
y = Wrap()(x)
y.sum().backward()
r = [y, x.grad, lin.weight.grad, lin.bias.grad]
""",
    "context_fn": """
log = []
import contextlib
@contextlib.contextmanager
def noting(what):
    log.append(what + " in")
    yield
    log.append(what + " out")
y = C.checkpoint(f, x, w, use_reentrant=False,
                 context_fn=lambda: (noting("forward"), noting("recompute")))
y.sum().backward()
with m.no_grad():
    C.checkpoint(f, x, w, use_reentrant=False,
                 context_fn=lambda: (noting("no_grad forward"), noting("no_grad recompute")))
r = [log, x.grad]
""",
    "early stop off": """
def two(a):
    runs.append("two")
    b = a.exp()
    return b.sin(), b * 2
with C.set_checkpoint_early_stop(False):
    p, q = C.checkpoint(two, x, use_reentrant=False)
p.sum().backward()
r = [runs, x.grad]
""",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SNIPPETS))
def test_checkpoint(name, dtype):
    _same(SNIPPETS[name], dtype)


SEQUENTIAL = {
    "checkpoint_sequential": """
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
model = model.to(DTYPE)
r = []
for kind in (None, True, False):
    m.manual_seed(1)
    for p in model.parameters():
        p.grad = None
    x.grad = None
    kwargs = {} if kind is None else {"use_reentrant": kind}
    y = C.checkpoint_sequential(model, 2, x, **kwargs)
    y.sum().backward()
    r += [y, y.grad_fn, x.grad, model[0].weight.grad]
""",
    "a list of functions, three segments, dropout": """
fns = [lambda a: a.exp(), lambda a: m.nn.functional.dropout(a, 0.3), lambda a: a.sin(),
       lambda a: a * 3, lambda a: a.tanh()]
r = []
for kind in (True, False):
    m.manual_seed(5)
    x.grad = None
    y = C.checkpoint_sequential(fns, 3, x, use_reentrant=kind, preserve_rng_state=True)
    y.sum().backward()
    r += [y, x.grad]
r.append(error(lambda: C.checkpoint_sequential(fns, 2, x, use_reentrant=True, other=1)))
""",
}


@pytest.mark.parametrize("name", list(SEQUENTIAL))
def test_checkpoint_sequential(name):
    _same(SEQUENTIAL[name], "float64")


def test_names_importable_as_in_torch():
    for name in ("checkpoint", "checkpoint_sequential", "CheckpointError",
                 "CheckpointFunction", "detach_variable", "check_backward_validity",
                 "noop_context_fn", "set_checkpoint_early_stop"):
        assert hasattr(engine.utils.checkpoint, name)
        assert hasattr(torch.utils.checkpoint, name)
