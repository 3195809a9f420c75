"""engine.nn against torch 2.15: Parameter, Module, layers, functional ops, losses and init.

Forward values and gradients are compared with torch (float32 within 1e-6 relative,
float64 tightly), as are grad_fn names, reprs, parameter names and order, state_dict
round trips and error messages. Seeded initialisation and dropout masks must match
torch bit for bit. The functional ops' gradients are also checked against finite
differences (gradcheck) and so are their second derivatives (gradgradcheck).
"""
import copy
import math
import warnings

import numpy as np
import pytest

import engine
import engine.nn as enn
import engine.nn.functional as EF
from engine.autograd import gradcheck, gradgradcheck

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch


def _values(shape, seed=0, low=-2.0, high=2.0, dtype="float64"):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def _pair(array, requires_grad=True):
    """The same values as an engine tensor and a torch tensor."""
    e = engine.from_numpy(array.copy()).requires_grad_(requires_grad)
    t = torch.from_numpy(array.copy()).requires_grad_(requires_grad)
    return e, t


def _close(e, t, dtype):
    rtol, atol = (1e-6, 1e-6) if dtype == "float32" else (1e-12, 1e-12)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- functional ops
LABELS = np.array([0, 3, 1, 2, 3])


def _const(m, x):
    """Fixed values shaped like the test input (not computed from it: gradcheck moves x)."""
    return m.from_numpy(_values((5, 4), seed=5)).to(x.dtype)


def _targets(m, shape):
    return m.from_numpy(_values(shape, seed=7, low=0.0, high=1.0, dtype="float32"))


FUNCTIONAL = {
    "softmax": lambda m, F, x: F.softmax(x, dim=1),
    "softmax dim 0": lambda m, F, x: F.softmax(x, dim=0),
    "log_softmax": lambda m, F, x: F.log_softmax(x, dim=-1),
    "relu": lambda m, F, x: F.relu(x),
    "sigmoid": lambda m, F, x: F.sigmoid(x),
    "tanh": lambda m, F, x: F.tanh(x),
    "mse": lambda m, F, x: F.mse_loss(x, _const(m, x)),
    "mse sum": lambda m, F, x: F.mse_loss(x, _const(m, x), reduction="sum"),
    "mse none": lambda m, F, x: F.mse_loss(x, _const(m, x), reduction="none"),
    "l1": lambda m, F, x: F.l1_loss(x, _const(m, x)),
    "l1 none": lambda m, F, x: F.l1_loss(x, _const(m, x), reduction="none"),
    "huber": lambda m, F, x: F.huber_loss(x, _const(m, x)),
    "huber delta sum": lambda m, F, x: F.huber_loss(x, _const(m, x), reduction="sum", delta=0.5),
    "huber none": lambda m, F, x: F.huber_loss(x, _const(m, x), reduction="none", delta=2.5),
    "huber module": lambda m, F, x: m.nn.HuberLoss(delta=0.7)(x, _const(m, x)),
    "smooth_l1": lambda m, F, x: F.smooth_l1_loss(x, _const(m, x)),
    "smooth_l1 beta sum": lambda m, F, x: F.smooth_l1_loss(x, _const(m, x), reduction="sum",
                                                           beta=0.3),
    "smooth_l1 none": lambda m, F, x: F.smooth_l1_loss(x, _const(m, x), reduction="none"),
    "smooth_l1 beta 0": lambda m, F, x: F.smooth_l1_loss(x, _const(m, x), beta=0.0),
    "smooth_l1 module": lambda m, F, x: m.nn.SmoothL1Loss(beta=2.0)(x, _const(m, x)),
    "bce": lambda m, F, x: F.binary_cross_entropy(x.sigmoid(), _targets(m, (5, 4)).to(x.dtype)),
    "bce weight sum": lambda m, F, x: F.binary_cross_entropy(
        x.sigmoid(), _targets(m, (5, 4)).to(x.dtype), weight=m.arange(4).to(x.dtype),
        reduction="sum"),
    "bce logits": lambda m, F, x: F.binary_cross_entropy_with_logits(
        x * 10, _targets(m, (5, 4)).to(x.dtype)),
    "bce logits pos_weight": lambda m, F, x: F.binary_cross_entropy_with_logits(
        x, _targets(m, (5, 4)).to(x.dtype), pos_weight=m.arange(4).to(x.dtype),
        reduction="none"),
    "nll": lambda m, F, x: F.nll_loss(F.log_softmax(x, 1), m.tensor(LABELS)),
    "nll none": lambda m, F, x: F.nll_loss(x, m.tensor(LABELS), reduction="none"),
    "nll weight ignore": lambda m, F, x: F.nll_loss(
        x, m.tensor(LABELS), weight=m.arange(1, 5).to(x.dtype), ignore_index=3),
    "nll 1-d": lambda m, F, x: F.nll_loss(x[0], m.tensor(2)),
    "nll 3-d": lambda m, F, x: F.nll_loss(x.view(5, 2, 2), m.tensor([[0, 1]] * 5), reduction="sum"),
    "cross_entropy": lambda m, F, x: F.cross_entropy(x, m.tensor(LABELS)),
    "cross_entropy sum": lambda m, F, x: F.cross_entropy(x, m.tensor(LABELS), reduction="sum"),
    "cross_entropy ignore": lambda m, F, x: F.cross_entropy(x, m.tensor(LABELS), ignore_index=1),
    "cross_entropy smoothing": lambda m, F, x: F.cross_entropy(
        x, m.tensor(LABELS), label_smoothing=0.1, ignore_index=0),
    "cross_entropy smoothing weight": lambda m, F, x: F.cross_entropy(
        x, m.tensor(LABELS), weight=m.arange(1, 5).to(x.dtype), label_smoothing=0.2),
    "cross_entropy probabilities": lambda m, F, x: F.cross_entropy(x, F.softmax(_const(m, x), 1)),
    "linear": lambda m, F, x: F.linear(x, _const(m, x)[:3], _const(m, x)[0, :3]),
}
# (torch's name of the result's grad_fn is compared too)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCTIONAL))
def test_functional_values_gradients_and_nodes(name, dtype):
    fn = FUNCTIONAL[name]
    e_x, t_x = _pair(_values((5, 4), dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e_out, t_out = fn(engine, EF, e_x), fn(torch, torch.nn.functional, t_x)
    assert e_out.dtype.__repr__() == t_out.dtype.__repr__() and tuple(e_out.shape) == t_out.shape
    _close(e_out, t_out, dtype)
    if name != "cross_entropy probabilities":  # torch: DivBackward1 (divides by an int)
        assert e_out.grad_fn.name() == t_out.grad_fn.name()
    grad = _values(tuple(t_out.shape), seed=3, dtype=dtype)
    e_out.backward(engine.from_numpy(grad.copy()))
    t_out.backward(torch.from_numpy(grad.copy()))
    _close(e_x.grad, t_x.grad, dtype)


GRADCHECKED = [name for name in FUNCTIONAL
               if name not in ("relu", "l1", "l1 none", "smooth_l1 beta 0")]


@pytest.mark.parametrize("name", GRADCHECKED)
def test_functional_gradcheck_and_gradgradcheck(name):
    fn = FUNCTIONAL[name]
    x = engine.from_numpy(_values((5, 4), seed=1)).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda x: fn(engine, EF, x), (x,))
        assert gradgradcheck(lambda x: fn(engine, EF, x), (x,))


@pytest.mark.parametrize("pos_weight", [False, True])
def test_bce_with_logits_target_gradient(pos_weight):
    def fn(m, x, y):
        F = EF if m is engine else torch.nn.functional
        weight = m.arange(1, 5).to(x.dtype) if pos_weight else None
        return F.binary_cross_entropy_with_logits(x, y, pos_weight=weight)
    e_x, t_x = _pair(_values((3, 4)))
    e_y, t_y = _pair(_values((3, 4), seed=2, low=0.1, high=0.9))
    e_out, t_out = fn(engine, e_x, e_y), fn(torch, t_x, t_y)
    e_out.backward()
    t_out.backward()
    _close(e_y.grad, t_y.grad, "float64")
    assert gradcheck(lambda x, y: fn(engine, x, y), (e_x, e_y))
    assert gradgradcheck(lambda x, y: fn(engine, x, y), (e_x, e_y))


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 5, 3), (4, 2, 5, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_graph_like_torch(shape, bias):
    def fn(m, x, w, b):
        F = EF if m is engine else torch.nn.functional
        return F.linear(x, w, b if bias else None)
    e_x, t_x = _pair(_values(shape))
    e_w, t_w = _pair(_values((4, 3), seed=1))
    e_b, t_b = _pair(_values((4,), seed=2))
    e_out, t_out = fn(engine, e_x, e_w, e_b), fn(torch, t_x, t_w, t_b)
    _close(e_out, t_out, "float64")
    assert e_out.grad_fn.name() == t_out.grad_fn.name()
    e_out.sum().backward()
    t_out.sum().backward()
    for e, t in ((e_x, t_x), (e_w, t_w)) + (((e_b, t_b),) if bias else ()):
        _close(e.grad, t.grad, "float64")
    assert gradgradcheck(lambda x, w, b: fn(engine, x, w, b), (e_x, e_w, e_b))


def test_softmax_keeps_large_values_finite():
    x = engine.tensor([[1000.0, 0.0, -1000.0]], requires_grad=True)
    parity.run_both(lambda m, x: (m.nn.functional.softmax(x, 1), m.nn.functional.log_softmax(
        x, 1)), x, exact=False)


def test_functional_errors():
    def f(m):
        return m.nn.functional

    x = parity.make_tensor((2, 4), "float32")
    cases = [
        lambda m, x: f(m).linear(x, m.ones(1, 3), m.ones(1)),
        lambda m, x: f(m).linear(x.view(2, 1, 4), m.ones(1, 3), m.ones(1)),
        lambda m, x: f(m).linear(x, m.ones(1, 3)),
        lambda m, x: f(m).cross_entropy(x, m.tensor([0.0, 1.0])),
        lambda m, x: f(m).nll_loss(x, m.tensor([0, 1, 1])),
        lambda m, x: f(m).nll_loss(x, m.tensor([0, 4])),
        lambda m, x: f(m).cross_entropy(x, m.tensor([-1, 0])),
        lambda m, x: f(m).binary_cross_entropy(x, x),
        lambda m, x: f(m).binary_cross_entropy(x.sigmoid(), x),
        lambda m, x: f(m).binary_cross_entropy(x.sigmoid(), x[0].sigmoid()),
        lambda m, x: f(m).binary_cross_entropy_with_logits(x, x[0]),
        lambda m, x: f(m).mse_loss(x, x[:, :3]),
        lambda m, x: f(m).mse_loss(x, x, reduction="avg"),
        lambda m, x: f(m).huber_loss(x, x, delta=0.0),
        lambda m, x: f(m).huber_loss(x, x, delta=-1.0),
        lambda m, x: f(m).huber_loss(x, x, reduction="avg"),
        lambda m, x: f(m).smooth_l1_loss(x, x, beta=-1.0),
        lambda m, x: f(m).smooth_l1_loss(x, x[:, :3]),
        lambda m, x: f(m).dropout(x, 1.5),
        lambda m, x: f(m).softmax(m.tensor([1, 2]), 0),
        lambda m, x: f(m).one_hot(m.tensor([0.0, 2.0])),
        lambda m, x: f(m).one_hot(m.tensor([0, -2])),
        lambda m, x: f(m).one_hot(m.tensor([0, 2]), 2),
    ]
    for case in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e_error, t_error = parity.run_both(case, x)
        assert isinstance(e_error, Exception), case


@pytest.mark.parametrize("loss", ["huber_loss", "smooth_l1_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_huber_and_smooth_l1_target_gradients(loss, reduction):
    """Both inputs need gradients (the target's is the input's negated, zero signs included:
    d = 0 and d = +-delta/beta exactly are among the values), the modules print as torch's."""
    x = parity.make_tensor((3, 4), "float32").requires_grad_()
    y = parity.make_tensor((3, 4), "float32", seed=2)
    y = engine.where(engine.arange(12).view(3, 4) % 3 == 0, x.detach(), y)
    y = engine.where(engine.arange(12).view(3, 4) % 5 == 1, x.detach() + 1, y).requires_grad_()

    def run(m, x, y):
        out = getattr(m.nn.functional, loss)(x, y, reduction=reduction)
        out.backward(m.ones_like(out))
        return out, x.grad, y.grad

    parity.run_both(run, x, y, exact=False)
    assert repr(engine.nn.HuberLoss(delta=2.0)) == repr(torch.nn.HuberLoss(delta=2.0))
    assert repr(engine.nn.SmoothL1Loss(beta=0.5)) == repr(torch.nn.SmoothL1Loss(beta=0.5))


def test_loss_warnings_match_torch():
    def fn(m, a, b):
        F = m.nn.functional
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            F.mse_loss(a, b)
            F.l1_loss(a, b)
            F.softmax(a, _stacklevel=3)
        return [str(w.message) for w in caught]

    e = fn(engine, engine.ones(3, 1), engine.ones(3))
    t = fn(torch, torch.ones(3, 1), torch.ones(3))
    assert e == t and len(e) == 3


def test_one_hot_and_mse_broadcast_values():
    parity.run_both(lambda m, t: m.nn.functional.one_hot(t), engine.tensor([0, 2, 1]))
    parity.run_both(lambda m, t: m.nn.functional.one_hot(t, 5), engine.tensor([[0, 2], [4, 1]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity.run_both(lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction="none"),
                        parity.make_tensor((3, 1), "float32", low=-1, high=1),
                        parity.make_tensor((3,), "float32", seed=2, low=-1, high=1))


def test_nll_all_ignored_is_nan():
    parity.run_both(lambda m, x: m.nn.functional.nll_loss(x, m.tensor([-100, -100])),
                    parity.make_tensor((2, 3), "float32", low=-1, high=1))


# ---------------------------------------------------------------- dropout
@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_mask_bit_for_bit(p, dtype):
    x = parity.make_tensor((7, 9), dtype, low=-1, high=1)

    def fn(m, x):
        m.manual_seed(123)
        layer = m.nn.Dropout(p)
        out = layer(x)
        layer.eval()
        return out, layer(x), m.nn.functional.dropout(x, p, training=False) is x, repr(layer)

    parity.run_both(fn, x)


def test_dropout_graph():
    def fn(m, x):
        m.manual_seed(0)
        out = m.nn.functional.dropout(x, 0.3)
        out.sum().backward()
        return out.grad_fn.name(), x.grad

    parity.run_both(fn, parity.make_tensor((40,), "float32", low=-1, high=1).requires_grad_())


# ---------------------------------------------------------------- init
INIT = {
    "uniform_": lambda init, w: init.uniform_(w, -0.3, 0.7),
    "normal_": lambda init, w: init.normal_(w, 0.5, 2.0),
    "constant_": lambda init, w: init.constant_(w, 0.25),
    "zeros_": lambda init, w: init.zeros_(w),
    "ones_": lambda init, w: init.ones_(w),
    "xavier_uniform_": lambda init, w: init.xavier_uniform_(w, gain=init.calculate_gain("tanh")),
    "xavier_normal_": lambda init, w: init.xavier_normal_(w),
    "kaiming_uniform_": lambda init, w: init.kaiming_uniform_(w, a=math.sqrt(5)),
    "kaiming_uniform_ fan_out relu": lambda init, w: init.kaiming_uniform_(
        w, mode="fan_out", nonlinearity="relu"),
    "kaiming_normal_": lambda init, w: init.kaiming_normal_(w, nonlinearity="relu"),
}


@pytest.mark.parametrize("shape", [(3, 5), (20, 4), (2, 3, 4)])
@pytest.mark.parametrize("name", list(INIT))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_init_bit_for_bit(name, shape, dtype):
    def fn(m, w):
        m.manual_seed(7)
        p = m.nn.Parameter(w)
        result = INIT[name](m.nn.init, p)
        return result is p, p, m.rand(2)  # the stream continues where torch's does

    parity.run_both(fn, parity.make_tensor(shape, dtype))


def test_init_helpers():
    for m in (engine, torch):
        init = m.nn.init
        assert init._calculate_fan_in_and_fan_out(m.empty(4, 3, 2, 5)) == (30, 40)
        assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    for args in [("foo",), ("leaky_relu", "x")]:
        parity.run_both(lambda m, args=args: m.nn.init.calculate_gain(*args))
    parity.run_both(lambda m: m.nn.init._calculate_fan_in_and_fan_out(m.empty(3)))
    parity.run_both(lambda m: m.nn.init.kaiming_uniform_(m.empty(3, 2), mode="fan"))


@pytest.mark.parametrize("sizes", [(3, 1), (1, 1), (4, 7), (20, 3), (64, 10), (5, 0)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_init_bit_for_bit(sizes, bias):
    def fn(m):
        m.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = m.nn.Linear(*sizes, bias=bias)
        return [p for p in layer.parameters()], m.rand(3)

    parity.run_both(fn)


def test_linear_seed_0_values():
    engine.manual_seed(0)
    layer = enn.Linear(3, 1)
    assert layer.weight.tolist()[0] == pytest.approx([-0.0043, 0.3097, -0.4752], abs=1e-4)
    assert layer.bias.tolist() == pytest.approx([-0.4249], abs=1e-4)


# ---------------------------------------------------------------- Parameter
def test_parameter_like_torch():
    data = parity.make_tensor((2, 3), "float32")

    def fn(m, data):
        p = m.nn.Parameter(data)
        q = m.nn.Parameter(data.double(), requires_grad=False)
        shares = p.data_ptr() == data.data_ptr()
        data.add_(1)  # shares memory: p sees it
        y = p * 2
        y.sum().backward()
        return (repr(p), str(p), repr(q), repr(m.nn.Parameter()), p.is_leaf, shares,
                type(y).__name__, type(p.detach()).__name__, p.grad, y, p[0], repr(p[0]))

    parity.run_both(fn, data)
    parity.run_both(lambda m: m.nn.Parameter(m.ones(2, dtype=m.int64)))
    p = enn.Parameter(engine.ones(2))
    assert isinstance(p, engine.Tensor) and type(p) is enn.Parameter
    assert type(copy.deepcopy(p)) is enn.Parameter and copy.deepcopy(p).requires_grad
    p.grad = engine.ones(2)
    (p * p).sum().backward()
    assert p.grad.tolist() == [3.0, 3.0]


# ---------------------------------------------------------------- Module
class _Net:
    """The same small model built with either library."""

    @staticmethod
    def build(m):
        nn = m.nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.act = nn.Tanh()
                self.register_buffer("scale", m.ones(4))
                self.register_buffer("scratch", m.zeros(1), persistent=False)

            def forward(self, x):
                return self.act(self.fc(x)) * self.scale

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Linear(3, 4, bias=False)
                self.blocks = nn.ModuleList([Block(), Block()])
                self.head = nn.Sequential(nn.Flatten(0), nn.Identity(), nn.Linear(8, 2),
                                          nn.Softmax(dim=0))
                self.temperature = nn.Parameter(m.tensor(2.0))

            def forward(self, x):
                x = self.embed(x)
                for block in self.blocks:
                    x = block(x)
                return self.head(x / self.temperature)

        m.manual_seed(0)
        return Net()


def test_module_structure_like_torch():
    def fn(m):
        net = _Net.build(m)
        return (repr(net), [n for n, _ in net.named_parameters()],
                [n for n, _ in net.named_buffers()], [n for n, _ in net.named_modules()],
                [n for n, _ in net.named_children()], len(list(net.modules())),
                list(net.state_dict()), [p for p in net.parameters()],
                [n for n, _ in net.blocks[0].named_parameters(prefix="b")],
                len(list(net.parameters(recurse=False))))

    parity.run_both(fn)


def test_module_forward_backward_like_torch():
    def fn(m, x):
        net = _Net.build(m)
        out = net(x)
        out[0].backward()
        grads = [p.grad for p in net.parameters()]
        net.zero_grad(set_to_none=False)
        zeroed = [p.grad for p in net.parameters()]
        net.zero_grad()
        return out, grads, zeroed, [p.grad for p in net.parameters()]

    parity.run_both(fn, parity.make_tensor((2, 3), "float32", low=-1, high=1), exact=False,
                    rtol=1e-6, atol=1e-7)


def test_train_eval_requires_grad_apply_and_dtype():
    def fn(m):
        net = _Net.build(m)
        net.eval()
        modes = [mod.training for mod in net.modules()]
        net.train()
        modes += [mod.training for mod in net.modules()]
        net.requires_grad_(False)
        flags = [p.requires_grad for p in net.parameters()]
        names = []
        net.apply(lambda mod: names.append(type(mod).__name__))
        weight = net.embed.weight
        net.double()
        kept = net.embed.weight is weight
        dtypes = [str(t.dtype) for t in net.state_dict().values()]
        net.to(m.float32)
        return modes, flags, names, kept, dtypes, [str(p.dtype) for p in net.parameters()]

    parity.run_both(fn)
    parity.run_both(lambda m: m.nn.Linear(2, 2).to(m.int64))
    parity.run_both(lambda m: m.nn.Linear(2, 2).train("yes"))


def test_state_dict_round_trip():
    def fn(m):
        net, other = _Net.build(m), _Net.build(m)
        with m.no_grad():
            for p in other.parameters():
                p.add_(1)
        state = other.state_dict()
        shares = state["embed.weight"].data_ptr() == other.embed.weight.data_ptr()
        result = net.load_state_dict(state)
        keep = m.nn.Linear(2, 2).state_dict(keep_vars=True)
        return (type(state).__name__, shares, repr(result), state["embed.weight"].requires_grad,
                [p for p in net.parameters()], type(keep["weight"]).__name__)

    parity.run_both(fn)


def test_load_state_dict_errors():
    def fn(m, state, strict=True):
        layer = m.nn.Linear(3, 2)
        return repr(layer.load_state_dict(state, strict=strict))

    good = {"weight": engine.zeros(2, 3)}
    parity.run_both(fn, {**good, "foo": engine.ones(1)})
    parity.run_both(fn, {"weight": engine.zeros(1, 3), "bias": engine.ones(2)})
    parity.run_both(fn, {"weight": engine.zeros(1, 3), "foo.bar": engine.ones(2)})
    parity.run_both(fn, {**good, "foo": engine.ones(1)}, strict=False)
    parity.run_both(lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).load_state_dict(
        {"0.weight": m.ones(1, 1), "0.bias": m.ones(1), "1.weight": m.ones(1)}))


def test_setattr_getattr_delattr_like_torch():
    def fn(m):
        layer = m.nn.Linear(2, 2)
        errors = []
        for action in (lambda: setattr(layer, "weight", m.ones(2, 2)),
                       lambda: layer.missing,
                       lambda: layer.register_parameter("a.b", None),
                       lambda: layer.register_parameter("", None),
                       lambda: layer.register_parameter("in_features", None),
                       lambda: layer.register_parameter("x", m.ones(1)),
                       lambda: layer.register_buffer("weight", m.ones(1)),
                       lambda: layer.add_module("w", 3),
                       lambda: m.nn.ModuleList()(1),
                       lambda: m.nn.Sequential()[3]):
            try:
                action()
            except Exception as error:  # noqa: BLE001 - compared with torch's
                errors.append(f"{type(error).__name__}: {error}")
        layer.weight = None
        layer.extra = m.nn.ReLU()
        layer.extra = m.nn.Parameter(m.ones(1))  # a module name becomes a parameter
        layer.register_buffer("stats", m.zeros(2))
        layer.stats = m.ones(2)
        del layer.bias
        return (errors, [n for n, _ in layer.named_parameters()], list(layer._modules),
                layer.stats, layer.weight, "stats" in dir(layer))

    parity.run_both(fn)


def test_containers_like_torch():
    def fn(m):
        nn = m.nn
        seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Sigmoid())
        lst = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh(), nn.ReLU()])
        lst.append(nn.ReLU())
        lst.insert(0, nn.Sigmoid())
        del seq[1]
        lst2 = lst[1:3] + nn.ModuleList([nn.Softmax(dim=1), nn.LogSoftmax(1)])
        return (repr(seq), repr(seq[1:]), len(seq), [type(x).__name__ for x in seq],
                repr(seq[-1]), repr(lst), repr(lst2), repr(nn.Sequential()), repr(nn.ModuleList()),
                repr(nn.ReLU(inplace=True)), repr(nn.Dropout(0.1)), repr(nn.Flatten()),
                repr(nn.Softmax()), repr(nn.Linear(2, 1, bias=False)),
                [repr(loss) for loss in (nn.MSELoss(), nn.L1Loss(), nn.BCELoss(),
                                         nn.BCEWithLogitsLoss(), nn.CrossEntropyLoss(),
                                         nn.NLLLoss())])

    parity.run_both(fn)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_modules_like_functional(reduction):
    def fn(m, x, y, labels):
        nn = m.nn
        losses = [nn.MSELoss(reduction=reduction)(x, y), nn.L1Loss(reduction=reduction)(x, y),
                  nn.BCELoss(reduction=reduction)(x.sigmoid(), y.sigmoid()),
                  nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=m.ones(4) * 2)(
                      x, y.sigmoid()),
                  nn.CrossEntropyLoss(reduction=reduction, label_smoothing=0.1)(x, labels),
                  nn.NLLLoss(reduction=reduction, ignore_index=1)(
                      m.nn.functional.log_softmax(x, 1), labels)]
        return losses, [loss.grad_fn.name() for loss in losses]

    parity.run_both(fn, parity.make_tensor((3, 4), "float64", low=-2, high=2),
                    parity.make_tensor((3, 4), "float64", seed=1, low=-2, high=2),
                    engine.tensor([0, 1, 3]), exact=False)
    parity.run_both(lambda m: list(m.nn.BCEWithLogitsLoss(pos_weight=m.ones(2)).state_dict()))


# ---------------------------------------------------------------- engine only
def test_module_is_plain_python():
    """A learner's module works with the engine alone: a training step lowers the loss."""
    engine.manual_seed(0)
    model = enn.Sequential(enn.Linear(2, 8), enn.ReLU(), enn.Linear(8, 1))
    x = engine.randn(32, 2)
    y = (x[:, :1] * 2 - x[:, 1:]).detach()
    losses = []
    for _ in range(20):
        loss = EF.mse_loss(model(x), y)
        model.zero_grad()
        loss.backward()
        with engine.no_grad():
            for p in model.parameters():
                p -= 0.05 * p.grad
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 2
    assert all(type(p) is enn.Parameter for p in model.parameters())


def test_deepcopy_and_shared_parameters():
    layer = enn.Linear(2, 2)
    clone = copy.deepcopy(layer)
    assert clone.weight is not layer.weight and type(clone.weight) is enn.Parameter
    assert clone.weight.tolist() == layer.weight.tolist()
    shared = enn.Sequential(layer, layer)
    assert len(list(shared.parameters())) == 2
    assert len(list(shared.named_parameters(remove_duplicate=False))) == 4
