"""engine.nn activations against torch 2.15: gelu (both approximations), leaky_relu, elu,
softplus, silu and their modules.

leaky_relu is exact; the others compute with float64 and round once, so their float32 values
can differ from torch's vectorised kernels in the last bit (compared within torch.testing's
tolerance). grad_fn names, saved values, in-place variants, gradients, gradcheck and
gradgradcheck, reprs and errors as torch.
"""
import pytest

import engine
from engine.autograd import gradcheck, gradgradcheck

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

ACTIVATIONS = {
    "gelu": lambda F, x: F.gelu(x),
    "gelu tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu 0.2": lambda F, x: F.leaky_relu(x, 0.2),
    "elu": lambda F, x: F.elu(x),
    "elu 0.5": lambda F, x: F.elu(x, 0.5),
    "softplus": lambda F, x: F.softplus(x),
    "softplus beta threshold": lambda F, x: F.softplus(x, 2, 3),
    "silu": lambda F, x: F.silu(x),
}
SAVED = {"gelu": ["approximate", "self"], "leaky_relu": ["negative_slope", "self"],
         "elu": ["alpha", "input_scale", "scale", "self"], "softplus": ["beta", "self",
                                                                       "threshold"],
         "silu": ["self"]}


def _tensor(shape=(3, 7), dtype="float32", seed=0):
    x = parity.make_tensor(shape, dtype, seed, low=-6, high=6)
    x[0, :3] = engine.tensor([0.0, -0.0, 30.0])  # zeros of both signs, and a large value
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_values_nodes_and_gradients(name, dtype):
    def fn(m, x):
        out = ACTIVATIONS[name](m.nn.functional, x)
        node = out.grad_fn
        saved = [getattr(node, "_saved_" + s) for s in SAVED[name.split()[0]]]
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, node.name(), saved, x.grad

    parity.run_both(fn, _tensor(dtype=dtype).requires_grad_(),
                    exact=name.startswith("leaky_relu"))


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_gradcheck_and_gradgradcheck(name):
    # away from the kinks (0; and 3 / 2, where softplus(beta=2, threshold=3) turns into x)
    x = (engine.linspace(-4, 4, 24, dtype=engine.float64) + 0.05).view(3, 8).requires_grad_()
    fn = lambda x: ACTIVATIONS[name](engine.nn.functional, x)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "silu"])
def test_inplace_activations(name):
    def fn(m, x):
        y = x * 1.0
        out = getattr(m.nn.functional, name)(y, inplace=True)
        node = out.grad_fn
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out is y, y, node.name(), y._version, x.grad

    parity.run_both(fn, _tensor().requires_grad_(), exact=False)
    parity.run_both(lambda m, x: getattr(m.nn.functional, name)(x, inplace=True),
                    _tensor().requires_grad_())


def test_activation_on_half_and_integers():
    for fn in ACTIVATIONS.values():
        parity.run_both(lambda m, x, fn=fn: fn(m.nn.functional, x), _tensor(dtype="float16"),
                        exact=False, rtol=2e-3, atol=1e-3)
        parity.run_both(lambda m, x, fn=fn: fn(m.nn.functional, x.long()), _tensor())
    parity.run_both(lambda m, x: m.nn.functional.gelu(x, approximate="foo"), _tensor())


def test_activation_modules():
    def fn(m, x):
        nn = m.nn
        layers = [nn.GELU(), nn.GELU("tanh"), nn.LeakyReLU(), nn.LeakyReLU(0.2, inplace=True),
                  nn.ELU(), nn.ELU(alpha=0.5, inplace=True), nn.Softplus(),
                  nn.Softplus(beta=2, threshold=10), nn.SiLU(), nn.SiLU(inplace=True)]
        return [repr(layer) for layer in layers], [layer(x.clone()) for layer in layers]

    parity.run_both(fn, _tensor(), exact=False)
