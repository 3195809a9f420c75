"""engine.nn.LazyLinear and UninitializedParameter against torch 2.15.

Before the first call: in_features 0, reprs, state_dict, the errors of using an
uninitialized parameter; the first call: the shapes from the input, torch's starting values
bit for bit (the same random draws as Linear), the layer now a Linear, the parameters the
same objects (an optimizer made before keeps working); load_state_dict materialises.
"""
import copy

import pytest

import engine

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _attempts(*actions):
    """What each action returns, or its error as 'Type: message'."""
    results = []
    for action in actions:
        try:
            results.append(repr(action()))
        except Exception as error:  # noqa: BLE001 - compared with torch's
            results.append(f"{type(error).__name__}: {error}")
    return results


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("input_shape", [(2, 5), (5,), (3, 2, 4)])
def test_lazy_linear_first_call(input_shape, bias):
    def fn(m, x):
        m.manual_seed(0)
        layer = m.nn.LazyLinear(3, bias=bias)
        before = (repr(layer), layer.in_features, type(layer).__name__,
                  type(layer.weight).__name__, repr(layer.weight), list(layer.state_dict()),
                  [repr(v) for v in layer.state_dict().values()],
                  [n for n, _ in layer.named_parameters()], layer.has_uninitialized_params())
        weight = layer.weight
        optimizer = m.optim.SGD(layer.parameters(), lr=0.1)
        out = layer(x)
        out.sum().backward()
        optimizer.step()
        after = (repr(layer), layer.in_features, type(layer).__name__,
                 type(layer.weight).__name__, layer.weight is weight,
                 [p for p in layer.parameters()], out, m.rand(2))
        return before, after

    parity.run_both(fn, parity.make_tensor(input_shape, "float32", low=-1, high=1), exact=False)


def test_lazy_linear_seeded_start_equals_linear():
    def fn(m):
        m.manual_seed(7)
        lazy = m.nn.LazyLinear(4)
        lazy(m.zeros(2, 6))
        m.manual_seed(7)
        plain = m.nn.Linear(6, 4)
        return list(lazy.parameters()), list(plain.parameters())

    e, t = parity.run_both(fn)
    assert all(a.tolist() == b.tolist() for a, b in zip(*e))


def test_uninitialized_parameter_refuses_to_be_used():
    def fn(m):
        p = m.nn.UninitializedParameter()
        return _attempts(lambda: p, lambda: p.requires_grad, lambda: p.dtype, lambda: p.ndim,
                         lambda: p.is_leaf, lambda: p.grad, lambda: p.size(), lambda: p.data,
                         lambda: p.shape, lambda: p + 1, lambda: 1 + p, lambda: p * 2,
                         lambda: p @ p, lambda: -p, lambda: p[0], lambda: p.view(2),
                         lambda: p.exp(), lambda: p.sum(), lambda: p.t(), lambda: p.tolist(),
                         lambda: p.item(), lambda: p.numpy(), lambda: p.detach(),
                         lambda: p.clone(), lambda: p.requires_grad_(False), lambda: p.zero_(),
                         lambda: p.numel(), lambda: p.dim(), lambda: p.float(),
                         lambda: p.cls_to_become.__name__, lambda: str(p))

    parity.run_both(fn)


def test_uninitialized_parameter_materialize():
    def fn(m):
        p = m.nn.UninitializedParameter(dtype=m.float64)
        p.materialize((2, 3))
        q = m.nn.UninitializedParameter(requires_grad=False)
        q.materialize(4, dtype=m.float16)
        return type(p).__name__, p.shape, p.dtype, p.requires_grad, type(q).__name__, q.shape, \
            q.dtype, q.requires_grad

    parity.run_both(fn)


def test_lazy_linear_in_a_model_dtype_copy_and_load():
    def fn(m, x):
        nn = m.nn
        m.manual_seed(0)
        model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
        copied = copy.deepcopy(model)
        model.double()
        out = model(x.double())
        loaded = nn.LazyLinear(3)
        result = repr(loaded.load_state_dict(nn.Linear(5, 3).state_dict()))
        return (repr(copied), out, repr(model), [p.dtype for p in model.parameters()], result,
                repr(loaded), loaded.weight.shape, type(loaded.weight).__name__,
                _attempts(lambda: nn.LazyLinear(3)(m.tensor(1.0))))

    parity.run_both(fn, parity.make_tensor((3, 5), "float32", low=-1, high=1), exact=False)


def test_lazy_linear_is_plain_python():
    layer = engine.nn.LazyLinear(2)
    assert isinstance(layer.weight, engine.nn.Parameter)
    layer(engine.ones(1, 3))
    assert type(layer) is engine.nn.Linear and layer.weight.shape == (2, 3)
