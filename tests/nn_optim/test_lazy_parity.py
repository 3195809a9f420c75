"""engine.nn.LazyLinear and UninitializedParameter against torch 2.15.

Before the first call: in_features 0, reprs, state_dict, the errors of using an
uninitialized parameter; the first call: the shapes from the input, torch's starting values
bit for bit (the same random draws as Linear), the layer now a Linear, the parameters the
same objects (an optimizer made before keeps working); load_state_dict materialises.
"""
import copy
import re

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


# ---------------------------------------------------------------- LazyConv1d/2d, LazyBatchNorm1d/2d
LAZY_CONVS = {
    "conv2d": (lambda nn: nn.LazyConv2d(4, 3), (2, 3, 6, 5)),
    "conv2d padding stride no bias": (
        lambda nn: nn.LazyConv2d(6, (3, 2), stride=2, padding=(1, 0), bias=False), (1, 2, 7, 6)),
    "conv2d groups dilation": (lambda nn: nn.LazyConv2d(4, 3, dilation=2, groups=2),
                               (2, 4, 7, 7)),
    "conv2d unbatched": (lambda nn: nn.LazyConv2d(3, 1), (2, 4, 4)),
    "conv2d same": (lambda nn: nn.LazyConv2d(2, (3, 2), padding="same"), (1, 3, 4, 4)),
    "conv1d": (lambda nn: nn.LazyConv1d(5, 2, stride=2), (3, 2, 9)),
    "conv1d unbatched groups": (lambda nn: nn.LazyConv1d(6, 3, groups=3, padding=1), (3, 5)),
}


@pytest.mark.parametrize("name", LAZY_CONVS)
def test_lazy_conv_first_call(name):
    make, shape = LAZY_CONVS[name]

    def fn(m, x):
        m.manual_seed(0)
        layer = make(m.nn)
        before = (repr(layer), layer.in_channels, type(layer).__name__,
                  [repr(v) for v in layer.state_dict().values()], list(layer.state_dict()),
                  layer.has_uninitialized_params())
        weight = layer.weight
        optimizer = m.optim.SGD(layer.parameters(), lr=0.1)
        out = layer(x)
        out.sum().backward()
        optimizer.step()
        return before, (repr(layer), layer.in_channels, type(layer).__name__,
                        layer.weight is weight, list(layer.parameters()), out, m.rand(2))

    parity.run_both(fn, parity.make_tensor(shape, "float32", low=-1, high=1), exact=False)


def test_lazy_conv_seeded_start_equals_conv_and_errors():
    def fn(m):
        m.manual_seed(3)
        lazy = m.nn.LazyConv2d(4, 3, groups=2)
        lazy(m.zeros(1, 6, 5, 5))
        m.manual_seed(3)
        plain = m.nn.Conv2d(6, 4, 3, groups=2)
        return (list(lazy.parameters()), list(plain.parameters()),
                _attempts(lambda: m.nn.LazyConv2d(4, 3)(m.zeros(5, 5)),
                          lambda: m.nn.LazyConv2d(4, 3)(m.zeros(1, 1, 1, 5, 5)),
                          lambda: m.nn.LazyConv1d(4, 3)(m.zeros(5)),
                          lambda: m.nn.LazyConv2d(4, 3, groups=2)(m.zeros(1, 3, 5, 5)),
                          lambda: m.nn.LazyConv2d(3, 3, groups=2),
                          lambda: m.nn.LazyConv2d(4, 3, padding="same", stride=2)))

    e, t = parity.run_both(fn)
    assert all(a.tolist() == b.tolist() for a, b in zip(*e[:2]))


LAZY_NORMS = {
    "batchnorm2d": (lambda nn: nn.LazyBatchNorm2d(), (4, 3, 2, 2)),
    "batchnorm2d no affine momentum": (lambda nn: nn.LazyBatchNorm2d(affine=False, momentum=0.3),
                                       (3, 2, 3, 3)),
    "batchnorm2d no stats": (lambda nn: nn.LazyBatchNorm2d(track_running_stats=False),
                             (2, 3, 2, 2)),
    "batchnorm2d no bias cumulative": (lambda nn: nn.LazyBatchNorm2d(momentum=None, bias=False),
                                       (2, 2, 2, 3)),
    "batchnorm1d": (lambda nn: nn.LazyBatchNorm1d(eps=1e-3), (5, 4)),
    "batchnorm1d 3-d": (lambda nn: nn.LazyBatchNorm1d(), (3, 2, 4)),
}


@pytest.mark.parametrize("name", LAZY_NORMS)
def test_lazy_batch_norm_first_call(name):
    make, shape = LAZY_NORMS[name]

    def fn(m, x):
        layer = make(m.nn)
        before = (repr(layer), layer.num_features, type(layer).__name__,
                  [repr(v) for v in layer.state_dict().values()], list(layer.state_dict()),
                  [repr(b) for b in layer.buffers()], layer.has_uninitialized_params(),
                  type(layer.running_mean).__name__)
        out = layer(x)
        if out.requires_grad:
            out.pow(2).sum().backward()
        layer(x * 2)
        layer.eval()
        evaluated = layer(x)
        return before, (repr(layer), layer.num_features, type(layer).__name__,
                        type(layer.running_mean).__name__, list(layer.parameters()),
                        [p.grad for p in layer.parameters()], list(layer.state_dict().items()),
                        out, evaluated)

    parity.run_both(fn, parity.make_tensor(shape, "float32", low=-1, high=1), exact=False)


def test_lazy_batch_norm_load_copy_and_errors():
    def fn(m):
        nn = m.nn
        loaded = nn.LazyBatchNorm2d()
        source = nn.BatchNorm2d(3)
        source(m.arange(24.0).view(2, 3, 2, 2))
        result = repr(loaded.load_state_dict(source.state_dict()))
        copied = copy.deepcopy(nn.LazyBatchNorm1d(track_running_stats=False))
        buffer = nn.UninitializedBuffer()
        refused = _attempts(lambda: copy.deepcopy(nn.LazyBatchNorm1d()))  # torch refuses too
        return (result, repr(loaded), type(loaded.running_var).__name__, loaded.running_var,
                loaded.num_batches_tracked, repr(copied), type(copied.weight).__name__,
                re.sub(" at 0x[0-9a-f]+", "", refused[0]), repr(buffer), buffer.requires_grad,
                buffer.dtype, type(buffer).__mro__[1].__name__,
                _attempts(lambda: nn.LazyBatchNorm2d()(m.zeros(2, 3)),
                          lambda: nn.LazyBatchNorm1d()(m.zeros(2, 3, 4, 5)),
                          lambda: buffer + 1, lambda: buffer.shape, lambda: buffer.sum(),
                          lambda: buffer.size()))

    parity.run_both(fn)


def test_uninitialized_buffer_materialize():
    def fn(m):
        b = m.nn.UninitializedBuffer(dtype=m.float64)
        b.materialize((2, 3))
        return type(b).__name__, b.shape, b.dtype, b.requires_grad

    parity.run_both(fn)


def test_lazy_d2l_style_model_with_apply():
    """d2l's pattern: a Sequential of lazy layers, one dummy batch, then net.apply(init) that
    tests type(module) == nn.Conv2d / nn.Linear (true after the first call)."""
    def fn(m, x):
        nn = m.nn
        m.manual_seed(0)
        net = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(),
                            nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.LazyLinear(3),
                            nn.LazyBatchNorm1d())
        net(x)

        def init(module):
            if type(module) in (nn.Linear, nn.Conv2d):
                nn.init.xavier_uniform_(module.weight)

        net.apply(init)
        return repr(net), list(net.parameters()), net(x), list(net.state_dict().items())

    parity.run_both(fn, parity.make_tensor((4, 2, 5, 5), "float32", low=-1, high=1), exact=False)
