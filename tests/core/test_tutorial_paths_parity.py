# ruff: noqa: E501 (tables of cases, one per line)
"""What PyTorch's tutorials on autograd's extensions call, against torch 2.15 (found by running
the tutorials, tests/tutorials/test_tutorials_imports.py): a custom Function's ``jvp`` under
forward mode (and torch's checks of what it returns), ``setup_context``, gradcheck's
``check_forward_ad``, ``torch.autograd.Variable``, ``torch.func.stack_module_state``,
``vmap`` of a vjp function and jacrev under vmap (bit for bit with the batch computed at
once), and the return types' refusal of item assignment."""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

FUNCTIONS = """
fw = m.autograd.forward_ad
def make(name, forward, jvp, dirty=False, setup=False):
    def marked(ctx, *args):
        if dirty:
            ctx.mark_dirty(args[0])
        return forward(ctx, *args)
    return type(name, (m.autograd.Function,), {"forward": staticmethod(marked), "jvp": staticmethod(jvp)})
def tangents(function, n=1, requires_grad=False, mode=None):
    with fw.dual_level():
        x = fw.make_dual(m.tensor([1., 2.], requires_grad=requires_grad), m.tensor([1., 1.]))
        args = (x, m.tensor([3., 4.]))[:n]
        try:
            if mode == "no_grad":
                with m.no_grad():
                    out = function.apply(*args)
            else:
                out = function.apply(*args)
        except Exception as error:
            return type(error).__name__, str(error)
        out = out if isinstance(out, tuple) else (out,)
        return [fw.unpack_dual(o).tangent for o in out], [o.grad_fn is not None for o in out]
"""

JVP_CASES = {
    "two outputs": "r = tangents(make('T', lambda ctx, a, b: (a * b, a + b), lambda ctx, ga, gb: (ga * 2, gb + ga)), 2)",
    "the jvp, not forward's derivative": "r = tangents(make('S', lambda ctx, a: a.exp(), lambda ctx, ga: ga * 2))",
    "under no_grad": "r = tangents(make('S', lambda ctx, a: a.exp(), lambda ctx, ga: ga * 2), mode='no_grad')",
    "an input requiring grad": "r = tangents(make('S', lambda ctx, a: a.exp(), lambda ctx, ga: ga * 2), requires_grad=True)",
    "None for a differentiable output": "r = tangents(make('N', lambda ctx, a, b: (a * b, a + b), lambda ctx, ga, gb: (ga, None)), 2)",
    "too many tangents": "r = tangents(make('C', lambda ctx, a: a * 2, lambda ctx, ga: (ga, ga)))",
    "a tangent of another shape": "r = tangents(make('Sh', lambda ctx, a: a * 2, lambda ctx, ga: ga.sum()))",
    "a float for a tangent": "r = tangents(make('F', lambda ctx, a: a * 2, lambda ctx, ga: 3.0))",
    "a float64 tangent": "r = tangents(make('D', lambda ctx, a: a * 2, lambda ctx, ga: ga.double()))",
    "an input as it is, its tangent as it is": "r = tangents(make('Same', lambda ctx, a: a, lambda ctx, ga: ga))",
    "an input as it is, a view of its tangent": "r = tangents(make('Same', lambda ctx, a: a, lambda ctx, ga: ga.view_as(ga)))",
    "a view, the same view of the tangent": "r = tangents(make('V', lambda ctx, a: a[:1], lambda ctx, ga: ga[:1]))",
    "a view, another view of the tangent": "r = tangents(make('V', lambda ctx, a: a[:1], lambda ctx, ga: ga[1:]))",
    "a view, a view of another tensor": "r = tangents(make('V', lambda ctx, a: a[:1], lambda ctx, ga: (ga * 2)[:1]))",
    "a view, a new tangent": "r = tangents(make('V', lambda ctx, a: a[:1], lambda ctx, ga: ga[:1] * 5))",
    "an integer output with a tangent": "r = tangents(make('I', lambda ctx, a: (a * 2, a.long()), lambda ctx, ga: (ga, ga)))",
    "an integer output with None": "r = tangents(make('I', lambda ctx, a: (a * 2, a.long()), lambda ctx, ga: (ga, None)))",
    "in place, the tangent in place": "r = tangents(make('D', lambda ctx, a: a.mul_(2), lambda ctx, ga: ga.mul_(2), dirty=True))",
    "in place, a new tangent": "r = tangents(make('D', lambda ctx, a: a.mul_(2), lambda ctx, ga: ga * 2, dirty=True))",
    "no jvp": "class NoJvp(m.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 3\nr = tangents(NoJvp)",
    "forward sees primals only": "seen = []\ndef f(ctx, a):\n    seen.append(fw.unpack_dual(a).tangent)\n    return a.exp()\nr = [tangents(make('P', f, lambda ctx, ga: ga)), seen]",
    "the jvp reads the output with its grad_fn": "class S(m.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        ctx.result = a.exp()\n        return ctx.result\n    @staticmethod\n    def jvp(ctx, ga):\n        return ga * ctx.result\nr = tangents(S, requires_grad=True)",
    "no tangent: jvp is not called": "class S(m.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n    @staticmethod\n    def jvp(ctx, ga):\n        raise ValueError('called')\nwith fw.dual_level():\n    r = S.apply(m.tensor([1., 2.]))",
    "torch.func.jvp": "class S(m.autograd.Function):\n    @staticmethod\n    def forward(x):\n        return x.sin()\n    @staticmethod\n    def setup_context(ctx, inputs, output):\n        ctx.x, = inputs\n    @staticmethod\n    def jvp(ctx, t):\n        return t * ctx.x.cos()\nr = m.func.jvp(S.apply, (m.tensor([0.5, 1.]),), (m.tensor([1., 2.]),))",
}


@pytest.mark.parametrize("name", JVP_CASES)
def test_a_functions_jvp(name):
    parity.assert_same_snippet(FUNCTIONS + JVP_CASES[name])


OTHER_CASES = {
    "setup_context: forward without ctx": "class F(m.autograd.Function):\n    @staticmethod\n    def forward(a, k):\n        return a * k\n    @staticmethod\n    def setup_context(ctx, inputs, output):\n        ctx.k = inputs[1]\n        ctx.save_for_backward(output)\n    @staticmethod\n    def backward(ctx, g):\n        return g * ctx.k, None\nx = m.tensor([1., 2.], requires_grad=True)\ny = F.apply(x, 3.0)\nsaved = len(y.grad_fn.saved_tensors)\ny.sum().backward()\nr = [y, x.grad, type(y.grad_fn).__name__, saved]",
    "setup_context: mark_non_differentiable": "class F(m.autograd.Function):\n    @staticmethod\n    def forward(a):\n        return a * 2, a.argmax()\n    @staticmethod\n    def setup_context(ctx, inputs, output):\n        ctx.mark_non_differentiable(output[1])\n    @staticmethod\n    def backward(ctx, g, gi):\n        return g * 2\nx = m.tensor([1., 3.], requires_grad=True)\ny, i = F.apply(x)\nr = [y, i, i.requires_grad]",
    "gradcheck forward mode": "class F(m.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x.exp()\n    @staticmethod\n    def jvp(ctx, g):\n        return g * 2\n    @staticmethod\n    def backward(ctx, g):\n        return g * 2\nx = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)\nr = [error(lambda: m.autograd.gradcheck(F.apply, (x,), check_forward_ad=True, check_backward_ad=False)), error(lambda: m.autograd.gradcheck(F.apply, (x,), check_forward_ad=True)), error(lambda: m.autograd.gradcheck(F.apply, (x,), check_backward_ad=False)), error(lambda: m.autograd.gradcheck(F.apply, (x,), foo=1)), m.autograd.gradcheck(F.apply, (x,), check_forward_ad=True, check_backward_ad=False, raise_exception=False)]",
    "gradcheck forward mode passes": "x = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)\nr = [m.autograd.gradcheck(lambda a: (a.sin() * a, a.exp()), (x,), check_forward_ad=True), m.autograd.gradgradcheck(lambda a: a.sin() * a, (x,), check_fwd_over_rev=True)]",
    "Variable": "V = m.autograd.Variable\nt = m.ones(2)\nv = V(t, requires_grad=True)\nw = V(m.ones(2, requires_grad=True) * 2)\nr = [v, v is t, v.data_ptr() == t.data_ptr(), isinstance(t, V), v.is_leaf, t.requires_grad, w, w.grad_fn, V(), V(t, True), error(lambda: V(3)), error(lambda: V(t, foo=1)), error(lambda: V(m.ones(2, dtype=m.long), requires_grad=True)), issubclass(m.Tensor, V), isinstance(3, V)]",
    "Variable volatile": "import warnings\nwith warnings.catch_warnings(record=True) as caught:\n    warnings.simplefilter('always')\n    v = m.autograd.Variable(m.ones(2), volatile=True)\nr = [v, [str(w.message) for w in caught]]",
    "stack_module_state": "m.manual_seed(0)\nmodels = [m.nn.Linear(3, 2) for _ in range(3)]\np, b = m.func.stack_module_state(models)\nr = [sorted(p), p['weight'], p['weight'].is_leaf, p['weight'].requires_grad, b]",
    "stack_module_state refusals": "a, b = m.nn.Linear(3, 2), m.nn.Linear(3, 2)\nb.eval()\nc = m.nn.Linear(3, 2)\nc.weight.requires_grad_(False)\nr = [error(lambda: m.func.stack_module_state([])), error(lambda: m.func.stack_module_state([a, b])), error(lambda: m.func.stack_module_state([a, m.nn.ReLU()])), error(lambda: m.func.stack_module_state([a, c]))]",
    "stack_module_state buffers": "models = [m.nn.BatchNorm1d(2) for _ in range(2)]\np, b = m.func.stack_module_state(models)\nr = [sorted(b), b['running_mean'], b['num_batches_tracked'], b['running_var'].requires_grad]",
    "vmap of a vjp function": "F = m.func\nm.manual_seed(0)\nw = m.randn(4, 3)\nx = m.randn(3)\n_, vjp_fn = F.vjp(lambda x: (w @ x).tanh(), x)\nr = F.vmap(vjp_fn)(m.eye(4))",
    "jacrev under vmap: the batch at once": "F = m.func\nm.manual_seed(0)\nW, b, x = m.randn(33, 31), m.randn(33), m.randn(64, 31)\nf = lambda x: m.nn.functional.linear(x, W, b).tanh()\nj = F.vmap(F.jacrev(f))(x)\nj1 = F.jacrev(lambda x: f(x).sum(0))(x).movedim(1, 0)\nr = [j.shape, m.equal(j, j1)]",
    "a batch of vectors times a matrix": "F = m.func\nm.manual_seed(0)\nW, b, x = m.randn(33, 31), m.randn(33), m.randn(64, 31)\nr = m.equal(F.vmap(lambda r: m.nn.functional.linear(r, W, b))(x), m.nn.functional.linear(x, W, b))",
    "return types refuse item assignment": "v = m.ones(2, 2).max(0)\nmm = m.ones(2, 2).aminmax()\ndef assign(t, i):\n    t[i] = 1\ndef delete(t):\n    del t[0]\ndef set_attr(t, name):\n    setattr(t, name, 1)\nr = [error(lambda: assign(v, 0)), error(lambda: delete(v)), error(lambda: assign(mm, 0)), error(lambda: set_attr(v, 'values')), error(lambda: set_attr(v, 'foo'))]",
}


@pytest.mark.parametrize("name", OTHER_CASES)
def test_tutorial_paths(name):
    parity.assert_same_snippet(OTHER_CASES[name])


LINALG_CASES = {
    "linalg.matmul": "x = m.tensor([[1., 2, 3], [4, 5, 6]], requires_grad=True)\ny = m.linalg.matmul(x, m.ones(3, 2))\nr = [y, y.grad_fn.name(), error(lambda: m.linalg.matmul(m.ones(2, 3), m.ones(2, 3))), m.linalg.matmul(m.ones(3), m.ones(3), out=m.empty(()))]",
    "linalg.diagonal": "x = m.arange(8.).view(2, 2, 2).requires_grad_()\nr = [m.linalg.diagonal(x), m.linalg.diagonal(x, offset=1, dim1=0, dim2=2), error(lambda: m.linalg.diagonal(m.ones(3))), m.linalg.diagonal(x).grad_fn.name()]",
    "linalg.vecdot": "x = m.tensor([[1., 2, 3], [4, 5, 6]], requires_grad=True)\nr = [m.linalg.vecdot(x, m.tensor([1., 0, 2])), m.linalg.vecdot(m.ones(2, 3), m.ones(3), dim=0), m.linalg.vecdot(m.ones(3, 2), m.ones(3, 1), dim=0, out=m.empty(2)), m.linalg.vecdot(m.ones(3, dtype=m.float64), m.ones(3, dtype=m.float64))]",
    "linalg.vecdot refusals": "r = [error(lambda: m.linalg.vecdot(m.ones(3), m.ones(3, dtype=m.long))), error(lambda: m.linalg.vecdot(m.ones(3, dtype=m.long), m.ones(3, dtype=m.long))), error(lambda: m.linalg.vecdot(m.ones(2, 3), m.ones(2))), error(lambda: m.linalg.vecdot(m.ones(3, dtype=m.half), m.ones(3)))]",
}


@pytest.mark.parametrize("name", LINALG_CASES)
def test_linalg_names_of_the_tensors_tutorial(name):
    parity.assert_same_snippet(LINALG_CASES[name])


def test_set_multithreading_enabled_and_the_grad_mode_module():
    parity.assert_same_snippet(
        "s = m.autograd.set_multithreading_enabled(False)\n"
        "with m.autograd.set_multithreading_enabled(True) as entered:\n"
        "    pass\n"
        "@m.autograd.set_multithreading_enabled(False)\n"
        "def f():\n"
        "    return 1\n"
        "x = m.ones(2, requires_grad=True)\n"
        "with m.autograd.set_multithreading_enabled(False):\n"
        "    (x * 2).sum().backward()\n"
        "r = [type(s).__name__, entered, f(), x.grad, "
        "error(lambda: m.autograd.set_multithreading_enabled('x')), "
        "m.autograd.grad_mode.no_grad is m.no_grad, m.autograd.grad_mode.enable_grad is "
        "m.enable_grad, m.autograd.grad_mode.inference_mode is m.inference_mode]")


TRANSFORM_FUNCTIONS = """
class E(m.autograd.Function):
    @staticmethod
    def forward(x):
        return x.exp()
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_tensors[0]
class G(E):
    generate_vmap_rule = True
class V(E):
    @staticmethod
    def vmap(info, in_dims, x):
        return x.exp(), in_dims[0]
class Old(m.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = x.exp()
        ctx.save_for_backward(r)
        return r
    @staticmethod
    def backward(ctx, g):
        return g * ctx.saved_tensors[0]
xs = m.tensor([[0., 1.], [2., 3.]])
"""

TRANSFORM_CASES = {
    "vmap without a rule": "r = error(lambda: m.vmap(E.apply)(xs))",
    "vmap with generate_vmap_rule": "r = m.vmap(G.apply)(xs)",
    "vmap with a vmap staticmethod": "r = m.vmap(V.apply)(xs)",
    "vmap of grad (it gave zeros)": "r = m.vmap(m.func.grad(lambda v: G.apply(v).sum()))(xs)",
    "vmap of grad without a rule": "r = error(lambda: m.vmap(m.func.grad(lambda v: E.apply(v).sum()))(xs))",
    "grad and jacrev": "r = [m.func.grad(lambda v: E.apply(v).sum())(xs[0]), m.func.jacrev(E.apply)(xs[0])]",
    "in_dims=1 and an op before": "r = [m.vmap(G.apply, in_dims=1)(xs), m.vmap(lambda v: G.apply(v * 2))(xs)]",
    "no setup_context: refused": "r = [error(lambda: m.vmap(Old.apply)(xs)), error(lambda: m.func.grad(lambda v: Old.apply(v).sum())(xs[0])), error(lambda: m.func.jvp(Old.apply, (xs,), (xs,))), error(lambda: m.vmap(lambda v: Old.apply(xs) + v)(xs))]",
    "no setup_context: fine outside": "x = xs.clone().requires_grad_()\nr = [Old.apply(x), m.autograd.grad(Old.apply(x).sum(), x)]",
    "jvp without jvp": "r = error(lambda: m.func.jvp(E.apply, (xs,), (xs,)))",
}


@pytest.mark.parametrize("name", TRANSFORM_CASES)
def test_a_custom_function_inside_torch_func(name):
    parity.assert_same_snippet(TRANSFORM_FUNCTIONS + TRANSFORM_CASES[name])


STORAGE_CASES = {
    "a TypedStorage": "t = m.arange(4.)\ns = t.storage()\nv = t[2:]\nr = [type(s).__name__, repr(s), s.data_ptr() == t.data_ptr(), len(s), s.size(), str(s.dtype), s.tolist(), s.nbytes(), s.element_size(), s[1], s[-1], v.storage().data_ptr() == s.data_ptr(), len(v.storage())]",
    "dtypes and empty": "r = [repr(m.ones(2, dtype=m.int64).storage()), repr(m.tensor([True, False]).storage()), repr(m.tensor([0.1], dtype=m.float16).storage()), repr(m.tensor([]).storage())]",
    "writing through it": "t = m.arange(4.)\ns = t.storage()\ns[0] = 7.\nr = t",
    "indexing errors": "s = m.arange(4.).storage()\nr = [error(lambda: s[4]), error(lambda: s[-5]), error(lambda: s['a']), error(lambda: s[1.5]), error(lambda: s[1:2])]",
    "deterministic algorithms": "a = m.are_deterministic_algorithms_enabled()\nm.use_deterministic_algorithms(True, warn_only=True)\nb = [m.are_deterministic_algorithms_enabled(), m.is_deterministic_algorithms_warn_only_enabled(), m.get_deterministic_debug_mode()]\nm.set_deterministic_debug_mode('error')\nc = m.get_deterministic_debug_mode()\nm.set_deterministic_debug_mode(0)\nr = [a, b, c, m.get_deterministic_debug_mode(), error(lambda: m.use_deterministic_algorithms(1)), error(lambda: m.use_deterministic_algorithms(True, warn_only=1)), error(lambda: m.set_deterministic_debug_mode('x')), error(lambda: m.set_deterministic_debug_mode(5)), error(lambda: m.set_deterministic_debug_mode(1.5))]",
}


@pytest.mark.parametrize("name", STORAGE_CASES)
def test_storage_and_determinism_of_the_notes(name):
    parity.assert_same_snippet(STORAGE_CASES[name])


def test_typed_storage_warns_once_a_process():
    code = ("import sys, warnings, torch\nfirst = sys._getframe().f_lineno\n"
            "t = torch.arange(4.)\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    t.storage()\n    t[1:].storage()\n"
            "print(len(caught), caught[0].category.__name__, caught[0].lineno - first, "
            "caught[0].message)\n")  # (the line: the learner's own call)
    expected, got = parity.printed_in_fresh_interpreters(code)
    assert got == expected
