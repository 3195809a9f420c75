"""F.pad's reflect, replicate and circular modes and the padding layers (ReflectionPad1d/2d/3d,
ReplicationPad1d/2d/3d, CircularPad1d/2d/3d, ZeroPad1d/3d, ConstantPad3d), and convolutions
with padding_mode, against torch 2.15: values, layouts, gradients (in torch's order of
additions), graphs, errors in torch's words."""
import itertools

import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

PADS = {  # padded dims -> paddings tried
    1: [(1, 2), (2, 0), (0, 0), (-1, 1), (2, -2), (3, 3)],
    2: [(1, 1, 1, 1), (2, 0, 0, 1), (-1, 2, 1, -1), (3, 1, 1, 1), (1, 1, 2, 2)],
    3: [(1, 1, 1, 1, 1, 1), (0, 2, 1, 0, 2, 0), (1, -1, 0, 1, -1, 1), (2, 2, 2, 2, 2, 2)],
}
SHAPES = {1: [(2, 4), (1, 2, 4), (0, 2, 4)], 2: [(2, 3, 4), (1, 2, 3, 4)],
          3: [(1, 3, 4, 3), (1, 2, 3, 4, 3)]}
CASES = [(mode, shape, pad) for mode in ("reflect", "replicate", "circular")
         for n in (1, 2, 3) for shape in SHAPES[n] for pad in PADS[n]]


@pytest.mark.parametrize("mode,shape,pad", CASES, ids=str)
def test_values_and_gradients(mode, shape, pad):
    def run(m, x):
        x = x.requires_grad_()
        y = m.nn.functional.pad(x, pad, mode=mode)
        y.backward(m.arange(1.0, y.numel() + 1, dtype=y.dtype).reshape(y.shape) ** 1.5)
        return y, x.grad, y.grad_fn.name()
    parity.run_both(run, parity.make_tensor(shape, "float32"), check_inputs=False)


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_every_dtype(mode, dtype):
    parity.run_both(lambda m, x: m.nn.functional.pad(x, (1, 2), mode=mode),
                    parity.make_tensor((2, 3, 4), dtype))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("layout", ["channels_last", "transposed", "sliced"])
def test_layouts(mode, layout):
    def run(m, x):
        x = {"channels_last": lambda: x.contiguous(memory_format=m.channels_last),
             "transposed": lambda: x.transpose(2, 3), "sliced": lambda: x[:, :, ::2]}[layout]()
        x = x.detach().requires_grad_()
        y = m.nn.functional.pad(x, (1, 2, 1, 0), mode=mode)
        y.backward(m.ones_like(y) * 3)
        return y, y.stride(), x.grad, x.grad.stride()
    parity.run_both(run, parity.make_tensor((1, 2, 4, 5), "float64"), check_inputs=False)


def test_second_derivatives_and_saved_values():
    for mode in ("reflect", "replicate", "circular"):
        for m in (parity.engine, torch):
            x = m.randn(1, 2, 5, dtype=m.float64, requires_grad=True)
            f = lambda x, mode=mode, m=m: m.nn.functional.pad(x, (2, 1), mode=mode) ** 2  # noqa
            assert m.autograd.gradcheck(f, (x,))
            assert m.autograd.gradgradcheck(f, (x,))
    code = """
x = m.ones(1, 2, 3, requires_grad=True)
y = m.nn.functional.pad(x, (1, 2), mode='reflect')
z = m.nn.functional.pad(x, (1, 2), mode='replicate')
r = (y.grad_fn._saved_padding, m.equal(y.grad_fn._saved_self, x), z.grad_fn._saved_padding,
     sorted(k for k in dir(y.grad_fn) if k.startswith('_saved')))
"""
    parity.assert_same_snippet(code)


ERRORS = [
    "F.pad(x, (1, 1), mode='foo')", "F.pad(x, (1,), mode='reflect')",
    "F.pad(x, (1, 1, 1, 1, 1, 1, 1, 1), mode='reflect')",
    "F.pad(x, (1, 1), mode='reflect', value=2.)", "F.pad(x, (1, 1), mode='reflect', value=0.)",
    "F.pad(x, (1, 1), mode='circular', value=1.)", "F.pad(m.ones(3), (1, 1), mode='reflect')",
    "F.pad(m.ones(2, 2, 2, 2, 2, 2), (1, 1), mode='replicate')",
    "F.pad(m.ones(2, 3), (1, 1, 1, 1), mode='reflect')",
    "F.pad(m.ones(2, 3, 4), (1, 1, 1, 1, 1, 1), mode='circular')",
    "F.pad(x, (3, 0), mode='reflect')", "F.pad(x, (0, 4), mode='reflect')",
    "F.pad(x, (-2, -2), mode='reflect')", "F.pad(x, (-2, -2), mode='replicate')",
    "F.pad(x, (-2, -2), mode='circular')", "F.pad(x, (4, 0), mode='circular')",
    "F.pad(x, (4, 0), mode='replicate')", "F.pad(x, (1, 1, -3, 0), mode='circular')",
    "F.pad(m.ones(1, 2, 3, 4), (1, 1, 3, 1), mode='reflect')",
    "F.pad(m.ones(1, 2, 3, 4), (4, 1, 1, 1), mode='reflect')",
    "F.pad(m.ones(1, 2, 3, 4), (-3, -3, 1, 1), mode='reflect')",
    "F.pad(m.ones(1, 2, 3, 4, 5), (1, 1, 1, 1, -3, -3), mode='replicate')",
    "F.pad(m.ones(1, 2, 3, 4, 5), (1, 1, 4, 1, 1, 1), mode='reflect')",
    "F.pad(m.ones(1, 0, 3), (1, 1), mode='reflect')",
    "F.pad(m.ones(1, 2, 0), (1, 1), mode='replicate')",
    "F.pad(m.ones(1, 0, 3, 4), (1, 1, 1, 1), mode='reflect')",
    "F.pad(m.ones(0, 2, 3), (1, 1), mode='reflect').shape",
    "F.pad(m.ones(2, 3, dtype=m.bool), (1, 1), mode='reflect')",
    "F.pad(m.ones(1, 2, 3, dtype=m.bool), (1, 1, 1, 1), mode='replicate')",
    "F.pad(m.ones(2, 3, dtype=m.bool), (1, 1), mode='circular')",
]


@pytest.mark.parametrize("code", ERRORS)
def test_errors(code):
    results = [parity.outcome(m, f"F = m.nn.functional\nx = m.ones(1, 2, 3)\nr = {code}")
               for m in (parity.engine, torch)]
    facts = [r if isinstance(r, tuple) else parity.snippet_facts(r) for r in results]
    assert facts[0] == facts[1]


MODULES = ["ReflectionPad1d(2)", "ReflectionPad2d((1, 2, 1, 0))", "ReflectionPad3d(1)",
           "ReplicationPad1d((1, 2))", "ReplicationPad2d(1)", "ReplicationPad3d(1)",
           "CircularPad1d(1)", "CircularPad2d([1, 0, 1, 1])", "CircularPad3d(1)",
           "ZeroPad1d(1)", "ZeroPad2d(1)", "ZeroPad3d((1, 0, 0, 1, 1, 0))",
           "ConstantPad1d(2, 1.)", "ConstantPad3d(1, 2.5)"]


@pytest.mark.parametrize("module", MODULES)
def test_modules(module):
    dims = 3 if "3d" in module else 2 if "2d" in module else 1
    code = f"""
layer = m.nn.{module}
x = m.arange(1.0, {3 ** dims * 2 + 1}).reshape(1, 2, *[3] * {dims})
r = (repr(layer), layer.padding, layer(x), sorted(k for k in vars(layer) if not k.startswith('_')))
"""
    parity.assert_same_snippet(code)


@pytest.mark.parametrize("mode,dims", list(itertools.product(
    ["reflect", "replicate", "circular", "zeros"], [1, 2])))
def test_convolutions_with_a_padding_mode(mode, dims):
    """(a convolution's float32 sums differ from torch's in the last bits: compared within
    float tolerance; the padding itself is exact above)"""
    def run(m, x):
        m.manual_seed(0)
        conv = getattr(m.nn, f"Conv{dims}d")(2, 3, 3, padding=1, padding_mode=mode)
        y = conv(x)
        y.sum().backward()
        return repr(conv), y, conv.weight.grad, conv.bias.grad
    parity.run_both(run, parity.make_tensor((1, 2) + (5,) * dims, "float32"), exact=False)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_gradients_keep_their_graph_under_create_graph(mode):
    """The gradient of a padding is linked to the input too (torch's double-backward node:
    d/dinput = 0), so a further derivative is zeros, not a lost graph (found by the
    third_derivative and layouts families)."""
    code = f"""
x = m.tensor([[1., 2., 3.]], requires_grad=True)
y = m.nn.functional.pad(x, (2, 1), mode='{mode}')
g, = m.autograd.grad((y * m.arange(6.)).sum(), x, create_graph=True)
h = m.autograd.grad(g.sum(), x, allow_unused=True)
z = m.nn.functional.pad(x, (2, 1), mode='{mode}') ** 2
a, = m.autograd.grad(z.sum(), x, create_graph=True)
b, = m.autograd.grad(a.sum(), x, create_graph=True)
c = m.autograd.grad(b.sum(), x, allow_unused=True)
r = (g, g.requires_grad, h, a, b, c,
     g.grad_fn.name() if '{mode}' != 'circular' else None,
     sorted(k for k in dir(g.grad_fn) if k.startswith('_saved')) if '{mode}' != 'circular'
     else None)
"""
    results = [parity.outcome(m, code) for m in (parity.engine, torch)]
    facts = [r if isinstance(r, tuple) and isinstance(r[0], str) else parity.snippet_facts(r)
             for r in results]
    assert facts[0] == facts[1]
