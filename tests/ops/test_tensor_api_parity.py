"""Tensor-level API that tutorials (PyTorch's, d2l) use, against torch 2.15.

* factories' ``size=`` keyword: ``torch.rand(size=(2, 4))``, ``zeros``, ``ones``, ``empty``,
  ``randn``, ``full``, ``randint(low, high, size=...)``, ``x.new_zeros(size=...)``;
* numpy's names ``axis=`` / ``keepdims=`` for ``dim=`` / ``keepdim=`` where torch's argument
  parser takes them (its built-in operations), and not where it does not (``norm``, ``split``);
* ``torch.sin_(x)`` & co, the in-place methods torch also exposes as functions;
* ``torch.set_default_device`` / ``torch.get_default_device``.
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


def _seeded(make):
    """``make(m)`` right after seeding m's default generator: random values compare bit for bit."""
    return lambda m: (m.manual_seed(0), make(m))[1]


# ====================================================================== size=
SIZE_KEYWORD = {
    "rand": _seeded(lambda m: m.rand(size=(2, 4))),
    "rand list": _seeded(lambda m: m.rand(size=[2, 4])),
    "rand Size": _seeded(lambda m: m.rand(size=m.Size([3]))),
    "rand 0-d": _seeded(lambda m: m.rand(size=())),
    "rand empty": _seeded(lambda m: m.rand(size=(2, 0))),
    "rand float64": _seeded(lambda m: m.rand(size=(3,), dtype=m.float64)),
    "rand requires_grad": _seeded(lambda m: m.rand(size=(3,), requires_grad=True)),
    "rand generator": lambda m: m.rand(size=(2, 4), generator=m.Generator().manual_seed(3)),
    "rand positional generator": lambda m: m.rand(2, 4, generator=m.Generator().manual_seed(3)),
    "randn": _seeded(lambda m: m.randn(size=(5,))),
    "randn generator": lambda m: m.randn(size=(5,), generator=m.Generator().manual_seed(1)),
    "randn out": _seeded(lambda m: m.randn(size=(2,), out=m.empty(2))),
    "zeros": lambda m: m.zeros(size=(2, 3)),
    "zeros 0-d": lambda m: m.zeros(size=()),
    "zeros 0-d tensor size": lambda m: m.zeros(size=(m.tensor(2),)),
    "zeros dtype": lambda m: m.zeros(size=[2], dtype=m.int32),
    "zeros out": lambda m: m.zeros(size=(2,), out=m.empty(2)),
    "ones": lambda m: m.ones(size=(2, 3)),
    "ones empty": lambda m: m.ones(size=(0, 3)),
    "empty shape": lambda m: m.empty(size=(2, 3)).shape,
    "full": lambda m: m.full(size=(2,), fill_value=3),
    "full keywords reversed": lambda m: m.full(fill_value=1.5, size=(2, 1)),
    "randint low high size": _seeded(lambda m: m.randint(0, 10, size=(3,))),
    "randint high size": _seeded(lambda m: m.randint(10, size=(3,))),
    "randint keywords": _seeded(lambda m: m.randint(low=2, high=10, size=(2, 2))),
    "randint high= size=": _seeded(lambda m: m.randint(high=10, size=(3,))),
    "randint generator": lambda m: m.randint(5, size=(4,), generator=m.Generator().manual_seed(2)),
    "new_zeros": lambda m: m.ones(2, dtype=m.int16).new_zeros(size=(3,)),
    "new_ones": lambda m: m.ones(2).new_ones(size=[1, 2]),
    "new_empty shape": lambda m: m.ones(2).new_empty(size=(3,)).shape,
}

SIZE_KEYWORD_ERRORS = {
    "rand int": lambda m: m.rand(size=2),
    "rand None": lambda m: m.rand(size=None),
    "rand both": lambda m: m.rand(2, size=(2,)),
    "randn both": lambda m: m.randn(2, size=(2,)),
    "zeros both": lambda m: m.zeros(2, size=(3,)),
    "zeros both tuple": lambda m: m.zeros((2,), size=(3,)),
    "ones both": lambda m: m.ones(2, size=(2,)),
    "empty both": lambda m: m.empty(2, size=(2,)),
    "zeros negative": lambda m: m.zeros(size=(-1,)),
    "ones negative": lambda m: m.ones(size=(-1,)),
    "rand negative": lambda m: m.rand(size=(2, -1)),
    "zeros float": lambda m: m.zeros(size=(2.0,)),
    "zeros float in list": lambda m: m.zeros(size=[2.0]),
    "zeros bool": lambda m: m.zeros(size=[True]),
    "zeros str later": lambda m: m.zeros(size=(2, "a")),
    "zeros str": lambda m: m.zeros(size="a"),
    "zeros tensor": lambda m: m.zeros(size=m.tensor([2, 3])),
    "zeros numpy int": lambda m: m.zeros(size=np.int64(3)),
    "ones int": lambda m: m.ones(size=3),
    "empty int": lambda m: m.empty(size=3),
    "randn int": lambda m: m.randn(size=3),
    "randint size only": lambda m: m.randint(size=(3,)),
    "randint empty range": lambda m: m.randint(5, 5, size=(3,)),
    "new_zeros both": lambda m: m.ones(2).new_zeros(2, size=(2,)),
    "new_zeros int": lambda m: m.ones(2).new_zeros(size=2),
}


@pytest.mark.parametrize("name", list(SIZE_KEYWORD))
def test_factories_take_size_by_keyword(name):
    parity.run_both(SIZE_KEYWORD[name])


@pytest.mark.parametrize("name", list(SIZE_KEYWORD_ERRORS))
def test_factories_refuse_a_bad_size_keyword_as_torch(name):
    engine_error, torch_error = parity.run_both(SIZE_KEYWORD_ERRORS[name])
    assert isinstance(torch_error, Exception)  # (run_both checked the engine's error)


# ====================================================================== axis= / keepdims=
def _x(m):
    return m.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -4.5]])


NUMPY_NAMES = {
    "sum axis": lambda m, x: x.sum(axis=0),
    "torch.sum axis": lambda m, x: m.sum(x, axis=1),
    "sum axis keepdims": lambda m, x: x.sum(axis=0, keepdims=True),
    "sum dim keepdims": lambda m, x: x.sum(0, keepdims=True),
    "sum axis keepdim": lambda m, x: x.sum(axis=0, keepdim=True),
    "sum axis tuple": lambda m, x: x.sum(axis=(0, 1)),
    "sum axis negative": lambda m, x: x.sum(axis=-1),
    "sum out": lambda m, x: m.sum(x, axis=0, out=m.empty(3)),
    "mean axis": lambda m, x: x.mean(axis=1),
    "mean axis list keepdims": lambda m, x: m.mean(x, axis=[0, 1], keepdims=True),
    "prod axis keepdims": lambda m, x: x.prod(axis=0, keepdims=True),
    "nansum axis": lambda m, x: m.nansum(x, axis=0),
    "max axis": lambda m, x: x.max(axis=1),
    "max axis keepdims": lambda m, x: m.max(x, axis=0, keepdims=True),
    "min axis keepdims": lambda m, x: x.min(axis=1, keepdims=True),
    "amax axis": lambda m, x: x.amax(axis=0),
    "amin keepdims": lambda m, x: m.amin(x, keepdims=True),
    "argmax axis": lambda m, x: x.argmax(axis=1),
    "argmin axis keepdims": lambda m, x: m.argmin(x, axis=0, keepdims=True),
    "argmax keepdims": lambda m, x: x.argmax(keepdims=True),
    "std axis": lambda m, x: x.std(axis=0),
    "std axis unbiased": lambda m, x: x.std(axis=0, unbiased=False),
    "std keepdims correction": lambda m, x: m.std(x, 0, keepdims=True, correction=0),
    "var axis keepdims": lambda m, x: x.var(axis=1, keepdims=True),
    "var keepdims": lambda m, x: x.var(keepdims=True),
    "any axis": lambda m, x: (x > 0).any(axis=0),
    "all axis tuple": lambda m, x: m.all(x > 0, axis=(0, 1)),
    "any keepdims": lambda m, x: x.any(keepdims=True),
    "cumsum axis": lambda m, x: x.cumsum(axis=1),
    "cumprod axis": lambda m, x: m.cumprod(x, axis=0),
    "cumsum_ axis": lambda m, x: x.clone().cumsum_(axis=0),
    "softmax axis": lambda m, x: x.softmax(axis=1),
    "torch.softmax axis": lambda m, x: m.softmax(x, axis=0),
    "log_softmax axis": lambda m, x: m.log_softmax(x, axis=1),
    "logsumexp axis": lambda m, x: x.logsumexp(axis=0),
    "count_nonzero axis": lambda m, x: m.count_nonzero(x, axis=0),
    "sort axis": lambda m, x: x.sort(axis=0),
    "argsort axis": lambda m, x: m.argsort(x, axis=0),
    "topk axis": lambda m, x: x.topk(1, axis=0),
    "cat axis": lambda m, x: m.cat([x, x], axis=1),
    "concat axis": lambda m, x: m.concat([x, x], axis=0),
    "stack axis": lambda m, x: m.stack([x, x], axis=2),
    "squeeze axis": lambda m, x: x[None].squeeze(axis=0),
    "squeeze_ axis": lambda m, x: x[None].clone().squeeze_(axis=0),
    "unsqueeze axis": lambda m, x: m.unsqueeze(x, axis=1),
    "unsqueeze_ axis": lambda m, x: x.clone().unsqueeze_(axis=0),
    "chunk axis": lambda m, x: m.chunk(x, 3, axis=1),
    "unbind axis": lambda m, x: x.unbind(axis=1),
    "select axis": lambda m, x: x.select(axis=1, index=2),
    "narrow axis": lambda m, x: m.narrow(x, axis=1, start=1, length=2),
    "torch.unflatten axis": lambda m, x: m.unflatten(x, axis=1, sizes=(3, 1)),
    "size axis": lambda m, x: x.size(axis=1),
    "stride axis": lambda m, x: x.stride(axis=0),
    # where torch takes no numpy names: its Python functions, and dims=
    "norm axis": lambda m, x: m.norm(x, axis=0),
    "split axis": lambda m, x: m.split(x, 1, axis=0),
    "flip axis": lambda m, x: m.flip(x, axis=(0,)),
    "Tensor.norm keepdims": lambda m, x: x.norm(dim=0, keepdims=True),
    # both names at once
    "sum dim and axis": lambda m, x: x.sum(dim=0, axis=0),
    "sum axis and dim": lambda m, x: x.sum(axis=0, dim=0),
    "sum positional dim and axis": lambda m, x: x.sum(0, axis=0),
    "sum keepdims and keepdim": lambda m, x: x.sum(axis=0, keepdims=True, keepdim=True),
    "sum positional keepdim and keepdims": lambda m, x: x.sum(0, True, keepdims=True),
    "max dim and axis": lambda m, x: x.max(axis=0, dim=0),
    "size keepdims": lambda m, x: x.size(keepdims=True),
    "sum axis out of range": lambda m, x: x.sum(axis=5),
}


# the engine's messages for these Python-level functions differ from torch's in wording only
NUMPY_NAMES_MATCH = {"flip axis": "flip()",
                     "Tensor.norm keepdims": "got an unexpected keyword argument 'keepdims'"}


@pytest.mark.parametrize("name", list(NUMPY_NAMES))
def test_numpy_names_for_dim_and_keepdim(name):
    parity.run_both(NUMPY_NAMES[name], parity.to_engine(_x(torch)), exact=False,
                    match=NUMPY_NAMES_MATCH.get(name))


def test_numpy_names_keep_gradients():
    def fn(m, x):
        return x.sum(axis=1, keepdims=True) * x.amax(axis=0) + x.softmax(axis=0)

    values = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -4.5]])
    t = torch.tensor(values, requires_grad=True)
    e = engine.tensor(values, requires_grad=True)
    fn(torch, t).sum().backward()
    fn(engine, e).sum().backward()
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    assert fn(engine, e).grad_fn.name() == fn(torch, t).grad_fn.name()


# ====================================================================== torch.sin_(x)
def test_inplace_functions_are_torchs_set():
    """Every in-place function torch has at top level that names an engine method exists."""
    torch_names = {n for n in dir(torch) if n.endswith("_") and not n.startswith("_")}
    engine_names = {n for n in dir(engine) if n.endswith("_") and not n.startswith("_")}
    assert engine_names <= torch_names, engine_names - torch_names
    expected = {n for n in torch_names if hasattr(engine.Tensor, n)}
    assert expected <= engine_names, expected - engine_names
    assert len(engine_names) >= 42


INPLACE_FUNCTION_CASES = {
    "sin_": lambda m, x: m.sin_(x),
    "relu_": lambda m, x: m.relu_(x),
    "exp_": lambda m, x: m.exp_(x),
    "sigmoid_": lambda m, x: m.sigmoid_(x),
    "tanh_": lambda m, x: m.tanh_(x),
    "abs_": lambda m, x: m.abs_(x),
    "neg_ input=": lambda m, x: m.neg_(input=x),
    "arcsin_": lambda m, x: m.arcsin_(x / 10),
    "arctan_": lambda m, x: m.arctan_(x),
    "fix_": lambda m, x: m.fix_(x),
    "clamp_": lambda m, x: m.clamp_(x, min=0.0),
    "clamp_ both": lambda m, x: m.clamp_(x, -1, 1),
    "clip_": lambda m, x: m.clip_(x, 0, 1),
    "clamp_min_": lambda m, x: m.clamp_min_(x, 0.5),
    "fill_": lambda m, x: m.fill_(x, 2),
    "fill_ value=": lambda m, x: m.fill_(x, value=1.5),
    "zero_": lambda m, x: m.zero_(x),
    "detach_": lambda m, x: m.detach_(x),
    "round_ decimals": lambda m, x: m.round_(x, decimals=1),
    "nan_to_num_": lambda m, x: m.nan_to_num_(x / 0, nan=1.0),
    "square_ int": lambda m, x: m.square_(x.long()),
    "exp_ int refused": lambda m, x: m.exp_(x.long()),
    "sin_ number": lambda m, x: m.sin_(3),
    "sin_ None": lambda m, x: m.sin_(None),
    "clamp_ number": lambda m, x: m.clamp_(1, 2),
    "fill_ number": lambda m, x: m.fill_(1.5, 2),
    "sin_ of a leaf that requires grad": lambda m, x: m.sin_(x.requires_grad_()),
}


# numpy's and torch's math libraries differ in the last bit (ops/README.md)
TRANSCENDENTAL = {"exp_", "sigmoid_", "tanh_", "sin_", "arcsin_", "arctan_"}


@pytest.mark.parametrize("name", list(INPLACE_FUNCTION_CASES))
def test_inplace_functions(name):
    x = parity.make_tensor((2, 3), "float32", low=-3, high=3)
    parity.run_both(INPLACE_FUNCTION_CASES[name], x, check_sharing=True,
                    exact=name not in TRANSCENDENTAL)


def test_inplace_function_writes_into_its_argument_and_records_the_node():
    for m in (torch, engine):
        leaf = m.tensor([0.5, 1.0], requires_grad=True)
        x = leaf * 2
        result = m.sin_(x)
        assert result is x and x._version == 1
        assert x.grad_fn.name() == "SinBackward0"
        x.sum().backward()
        np.testing.assert_allclose(np.asarray(leaf.grad.tolist()), 2 * np.cos([1.0, 2.0]),
                                   rtol=1e-6)


# ====================================================================== default device
@pytest.fixture
def restore_default_device():
    yield
    torch.set_default_device(None)
    engine.set_default_device(None)


DEFAULT_DEVICE = {
    "initially cpu": lambda m: m.get_default_device(),
    "set cpu": lambda m: (m.set_default_device("cpu"), m.get_default_device())[1],
    "set cpu:0": lambda m: (m.set_default_device(m.device("cpu", 0)), m.get_default_device())[1],
    "set None": lambda m: (m.set_default_device("cpu"), m.set_default_device(None),
                           m.get_default_device())[2],
    "cpu: factories": lambda m: (m.set_default_device("cpu"),
                                 [m.zeros(2), m.tensor([1.5]), m.arange(3), m.full((1,), 2),
                                  m.eye(2), m.linspace(0, 1, 3), m.ones(size=(2,))])[1],
    "cpu:0: a tensor's device": lambda m: (m.set_default_device("cpu:0"),
                                           m.zeros(2).device)[1],
    "cpu: random": lambda m: (m.set_default_device("cpu"), m.manual_seed(0),
                              m.rand(2), m.randn(2), m.randint(5, (2,)), m.randperm(3))[2:],
    "an unknown device": lambda m: m.set_default_device("foo"),
    "mps": lambda m: (m.set_default_device("mps"), m.get_default_device())[1],
    "cuda:1 is only remembered": lambda m: (m.set_default_device("cuda:1"),
                                            m.get_default_device())[1],
}


@pytest.mark.parametrize("name", list(DEFAULT_DEVICE))
def test_default_device(name, restore_default_device):
    parity.run_both(DEFAULT_DEVICE[name])


FACTORIES = {
    "zeros": lambda m: m.zeros(2), "ones": lambda m: m.ones(2), "empty": lambda m: m.empty(2),
    "full": lambda m: m.full((2,), 1.0), "tensor": lambda m: m.tensor([1.0]),
    "as_tensor": lambda m: m.as_tensor([1]), "arange": lambda m: m.arange(3),
    "linspace": lambda m: m.linspace(0, 1, 3), "logspace": lambda m: m.logspace(0, 1, 3),
    "eye": lambda m: m.eye(2), "rand": lambda m: m.rand(2), "randn": lambda m: m.randn(2),
    "randint": lambda m: m.randint(3, (2,)), "randperm": lambda m: m.randperm(3),
    "zeros size=": lambda m: m.zeros(size=(2,)),
}


@pytest.mark.parametrize("name", list(FACTORIES))
def test_a_cuda_default_device_fails_at_the_first_factory(name, restore_default_device):
    """set_default_device('cuda') succeeds; the first factory fails as torch 2.15's Linux
    wheel does without a GPU ("Found no NVIDIA driver"), before drawing any random number."""
    messages = {}
    for m in (torch, engine):
        m.set_default_device("cuda")
        state = m.random.get_rng_state()
        with pytest.raises(RuntimeError) as raised:
            FACTORIES[name](m)
        messages[m.__name__] = str(raised.value)
        assert (m.random.get_rng_state() == state).all()  # nothing was drawn
        m.set_default_device(None)
    assert messages["engine"] == messages["torch"]


def test_a_cuda_default_device(restore_default_device):
    engine.set_default_device("cuda")
    with pytest.raises(RuntimeError, match="Found no NVIDIA driver on your system"):
        engine.get_default_device()
    x = engine.from_numpy(np.zeros(2))  # shares numpy's memory: not a factory
    assert engine.zeros_like(x).device == engine.device("cpu")  # follows its input
    assert x.new_zeros(2).device == engine.device("cpu")
    assert engine.zeros(2, device="cpu").device == engine.device("cpu")
    assert engine.rand_like(x).shape == (2,)
    engine.set_default_device(None)
    assert engine.zeros(1).device == engine.device("cpu")


_SCALAR_WARNINGS = """
import warnings, {lib} as torch
warnings.simplefilter("always")
x = torch.ones(1, requires_grad=True)
y = (x * 2).sum()
for name, convert in [("int", int), ("item", lambda t: t.item()), ("bool", bool),
                      ("format", "{{:.2f}}".format), ("float", float), ("complex", complex),
                      ("float again", float), ("float detached", lambda t: float(t.detach()))]:
    with warnings.catch_warnings(record=True) as caught:
        convert(y)
    print(name, [(w.category.__name__, str(w.message), w.lineno) for w in caught])
"""


def test_float_of_a_tensor_that_requires_grad_warns_once_as_torch():
    """float() and complex() of a tensor in a graph warn, once per process (torch's
    TORCH_WARN_ONCE): a fresh interpreter for each library."""
    import subprocess
    import sys

    def run(lib):
        return subprocess.run([sys.executable, "-c", _SCALAR_WARNINGS.format(lib=lib)],
                              capture_output=True, text=True, check=True,
                              env={"OMP_NUM_THREADS": "1", "PYTHONPATH": "."}).stdout

    assert run("engine") == run("torch")
