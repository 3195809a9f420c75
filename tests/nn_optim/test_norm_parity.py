"""engine.nn normalisation against torch 2.15: F.batch_norm, nn.BatchNorm1d / BatchNorm2d,
F.layer_norm, nn.LayerNorm.

The forward passes follow torch's CPU kernels, so outputs, saved statistics and the updated
running statistics are compared bit for bit in float32 and float64. (N, C) batches in
training mode: torch sums their rows on several threads when it has several; the engine
adds them as torch does on one, so those cases run torch on one thread.) Gradients are
compared within torch.testing's tolerance (torch's backward kernels add in vectorised
blocks) and checked to the second order with gradcheck / gradgradcheck.
"""
import contextlib
import warnings

import pytest

import engine
from engine.autograd import gradcheck, gradgradcheck

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


@contextlib.contextmanager
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _tensor(shape, seed=0, dtype="float32", low=-3, high=3):
    return parity.make_tensor(shape, dtype, seed, low=low, high=high)


def _params(channels, dtype, seed=1):
    """weight, bias, running_mean, running_var."""
    return (_tensor((channels,), seed, dtype), _tensor((channels,), seed + 1, dtype),
            _tensor((channels,), seed + 2, dtype, -1, 1),
            _tensor((channels,), seed + 3, dtype, 0.5, 2))


def _batch_norm_values(m, x, w, b, rm, rv, training, momentum, affine):
    out = m.nn.functional.batch_norm(x, rm, rv, w if affine else None, b if affine else None,
                                     training, momentum, 1e-3)
    return out, rm, rv


BATCH_SHAPES = [(8, 4), (5, 3, 7), (4, 3, 5, 6), (2, 5, 1), (3, 2, 1, 1), (16, 6, 3, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", BATCH_SHAPES)
def test_batch_norm_values(shape, training, dtype):
    # float32 bit for bit; float64 within the last bit (torch fuses its float64 sum of squares)
    for seed, momentum, affine in ((0, 0.1, True), (1, 0.3, False), (2, 1.0, True)):
        x = _tensor(shape, seed, dtype, -20, 30)
        with one_torch_thread():
            parity.run_both(_batch_norm_values, x, *_params(shape[1], dtype, seed + 1), training,
                            momentum, affine, exact=dtype == "float32")


def test_batch_norm_saved_values_and_graph():
    def fn(m, x, w, b, rm, rv, training):
        out = m.nn.functional.batch_norm(x, rm, rv, w, b, training)
        node = out.grad_fn
        return (node.name(), node._saved_eps, node._saved_training, node._saved_result1,
                node._saved_result2, node._saved_input, node._saved_weight,
                node._saved_running_mean, node._saved_running_var,
                [None if n is None else n.name() for n, _ in node.next_functions])

    for training in (True, False):
        parity.run_both(fn, _tensor((4, 3, 2, 2)).requires_grad_(),
                        *_params(3, "float32"), training)
        parity.run_both(fn, _tensor((4, 3, 2, 2)).requires_grad_(), None, None,
                        *_params(3, "float32")[2:], training)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(8, 4), (5, 3, 7), (4, 3, 5, 6)])
def test_batch_norm_gradients(shape, training, dtype):
    def fn(m, x, w, b, rm, rv):
        out = m.nn.functional.batch_norm(x, rm, rv, w, b, training)
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, x.grad, w.grad, b.grad

    w, b, rm, rv = _params(shape[1], dtype)
    with one_torch_thread():
        parity.run_both(fn, _tensor(shape, 0, dtype).requires_grad_(), w.requires_grad_(),
                        b.requires_grad_(), rm, rv, exact=False)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_gradcheck_and_gradgradcheck(training, affine):
    x = _tensor((4, 3, 2, 2), 0, "float64").requires_grad_()
    w, b, rm, rv = _params(3, "float64")
    w.requires_grad_(), b.requires_grad_()

    def fn(x, w, b):
        return engine.nn.functional.batch_norm(x, rm.clone(), rv.clone(), w if affine else None,
                                               b if affine else None, training)

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_batch_norm_errors():
    def F(m):
        return m.nn.functional

    x = _tensor((4, 3), 0)
    w, b, rm, rv = _params(3, "float32")
    cases = [
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm, rv, w, b, True, 0.1, 0.0),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm, rv, w, b, False, 0.1, -1.0),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x[:1], rm, rv, w, b, True),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x[:1, :, None], rm, rv, w, b, True),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, None, None),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm, None),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm[:2], rv, training=True),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm, rv[:2], training=True),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm, rv, w[:2]),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm, rv, w, b[:2]),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, None, None, w[:2], training=True),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x.long(), rm, rv),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x.double(), rm, rv),
        lambda m, x, w, b, rm, rv: F(m).batch_norm(x, rm.double(), rv.double(), training=True),
        lambda m, x, w, b, rm, rv: m.nn.BatchNorm1d(3)(x[0]),
        lambda m, x, w, b, rm, rv: m.nn.BatchNorm1d(3)(x[None, None]),
        lambda m, x, w, b, rm, rv: m.nn.BatchNorm2d(3)(x[None]),
        lambda m, x, w, b, rm, rv: m.nn.BatchNorm2d(4)(x[None, :, :, None]),
        lambda m, x, w, b, rm, rv: m.nn.BatchNorm1d(3)(x[:1]),
    ]
    for case in cases:
        parity.run_both(case, x, w, b, rm, rv)


def test_batch_norm_of_an_empty_batch():
    def fn(m, x, w, b, rm, rv):
        out = m.nn.functional.batch_norm(x, rm, rv, w, b, True)
        return out, out.grad_fn.name(), rm, rv

    parity.run_both(fn, _tensor((0, 3)).requires_grad_(), *_params(3, "float32"))


# ---------------------------------------------------------------- modules
LAYERS = {
    "BatchNorm1d(4)": (lambda nn: nn.BatchNorm1d(4), (6, 4)),
    "BatchNorm1d(4) 3-d": (lambda nn: nn.BatchNorm1d(4), (6, 4, 5)),
    "BatchNorm1d momentum None": (lambda nn: nn.BatchNorm1d(4, eps=1e-3, momentum=None), (5, 4)),
    "BatchNorm1d affine False": (lambda nn: nn.BatchNorm1d(4, affine=False), (5, 4, 2)),
    "BatchNorm1d no running stats": (lambda nn: nn.BatchNorm1d(4, track_running_stats=False),
                                     (5, 4)),
    "BatchNorm1d bias False": (lambda nn: nn.BatchNorm1d(4, bias=False), (5, 4)),
    "BatchNorm2d(3)": (lambda nn: nn.BatchNorm2d(3), (4, 3, 5, 6)),
    "BatchNorm2d momentum 0.3": (lambda nn: nn.BatchNorm2d(3, momentum=0.3), (2, 3, 4, 4)),
    "BatchNorm2d float64": (lambda nn: nn.BatchNorm2d(3, dtype=torch_or_engine_float64(nn)),
                            (2, 3, 4, 4)),
}


def torch_or_engine_float64(nn):
    return engine.float64 if nn is engine.nn else torch.float64


@pytest.mark.parametrize("name", list(LAYERS))
def test_batch_norm_layers_train_then_eval(name):
    build, shape = LAYERS[name]

    def fn(m, batches):
        layer = build(m.nn)
        outputs = [repr(layer), list(layer.state_dict()), [n for n, _ in layer.named_buffers()],
                   [n for n, _ in layer.named_parameters()]]
        for x in batches:
            out = layer(x.to(layer.running_mean.dtype if layer.running_mean is not None
                             else x.dtype))
            out.sum().backward()
            outputs.append((out, [b.clone() for b in layer.buffers()]))
        outputs.append([p.grad for p in layer.parameters()])
        layer.eval()
        outputs.append((layer.training, layer(batches[0].to(out.dtype))))
        layer.train()
        outputs.append(layer.training)
        return outputs

    batches = [_tensor(shape, seed, low=-5, high=8).requires_grad_() for seed in range(3)]
    with one_torch_thread():
        parity.run_both(fn, batches, exact=False)


def test_batch_norm_state_dict_round_trip_and_model():
    def fn(m, x):
        nn = m.nn
        m.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(),
                              nn.Flatten(), nn.Linear(3 * 4 * 4, 5), nn.BatchNorm1d(5))
        model(x).sum().backward()
        state = model.state_dict()
        other = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(),
                              nn.Flatten(), nn.Linear(3 * 4 * 4, 5), nn.BatchNorm1d(5))
        result = repr(other.load_state_dict(state))
        other.eval()
        return (repr(model), list(state), [v for v in state.values()], result, other(x),
                [p.grad for p in model.parameters()])

    with one_torch_thread():
        parity.run_both(fn, _tensor((4, 2, 4, 4)), exact=False, rtol=1e-4, atol=1e-5)


def test_dropout_and_batch_norm_follow_train_and_eval():
    def fn(m, x):
        nn = m.nn
        m.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Dropout(0.5))
        first = model(x)
        model.eval()
        second, third = model(x), model(x)
        return first, second, third, [mod.training for mod in model.modules()]

    with one_torch_thread(), warnings.catch_warnings():
        parity.run_both(fn, _tensor((8, 4)), exact=False, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- layer_norm
LAYER_NORM = [((4, 8), (8,)), ((2, 3, 20), (20,)), ((2, 3, 20), (3, 20)), ((5, 64), (64,)),
              ((3, 7, 5), (7, 5)), ((6,), (6,)), ((0, 4), (4,))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
@pytest.mark.parametrize("shape, normalized", LAYER_NORM)
def test_layer_norm_values_and_gradients(shape, normalized, affine, dtype):
    # torch's float32 statistics come from vectorised Welford sums: within a few last bits
    def fn(m, x, w, b):
        out = m.nn.functional.layer_norm(x, normalized, w if affine != "none" else None,
                                         b if affine == "both" else None, 1e-3)
        node = out.grad_fn
        saved = (node.name(), node._saved_normalized_shape, node._saved_result1,
                 node._saved_result2, node._saved_input, node._saved_weight, node._saved_bias)
        m.manual_seed(0)
        out.backward(m.randn(out.shape, dtype=out.dtype))
        return out, saved, x.grad, w.grad, b.grad

    x = _tensor(shape, 0, dtype, -4, 6).requires_grad_()
    w, b = _tensor(normalized, 1, dtype).requires_grad_(), _tensor(normalized, 2,
                                                                    dtype).requires_grad_()
    parity.run_both(fn, x, w, b, exact=False, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("normalized", [(5,), (3, 5)])
def test_layer_norm_gradcheck_and_gradgradcheck(normalized):
    x = _tensor((2, 3, 5), 0, "float64").requires_grad_()
    w, b = _tensor(normalized, 1, "float64"), _tensor(normalized, 2, "float64")

    def fn(x, w, b):
        return engine.nn.functional.layer_norm(x, normalized, w, b)

    assert gradcheck(fn, (x, w.requires_grad_(), b.requires_grad_()))
    assert gradgradcheck(fn, (x, w, b))
    assert gradgradcheck(lambda x: engine.nn.functional.layer_norm(x, normalized), (x,))


def test_layer_norm_errors():
    def F(m):
        return m.nn.functional

    cases = [
        lambda m, x: F(m).layer_norm(x, (5,)),
        lambda m, x: F(m).layer_norm(x, (2, 4)),
        lambda m, x: F(m).layer_norm(x, 4),
        lambda m, x: F(m).layer_norm(x, (1, 2, 3, 4)),
        lambda m, x: F(m).layer_norm(x, ()),
        lambda m, x: F(m).layer_norm(x, (4,), m.ones(3)),
        lambda m, x: F(m).layer_norm(x, (4,), m.ones(4), m.ones(3)),
        lambda m, x: F(m).layer_norm(x.long(), (4,)),
        lambda m, x: F(m).layer_norm(x.double(), (4,), m.ones(4)),
        lambda m, x: F(m).layer_norm(x, (4,), m.ones(4, dtype=m.float64)),
    ]
    for case in cases:
        parity.run_both(case, _tensor((2, 3, 4)))


def test_layer_norm_module():
    def fn(m, x):
        nn = m.nn
        layers = [nn.LayerNorm(4), nn.LayerNorm((3, 4), eps=1e-3, elementwise_affine=False),
                  nn.LayerNorm([3, 4], bias=False)]
        outs = [layer(x) for layer in layers]
        outs[0].sum().backward()
        return ([repr(layer) for layer in layers], [list(layer.state_dict()) for layer in layers],
                [layer.normalized_shape for layer in layers], outs,
                [p for p in layers[0].parameters()], [p.grad for p in layers[0].parameters()])

    parity.run_both(fn, _tensor((2, 3, 4)), exact=False, rtol=1e-5, atol=1e-5)
