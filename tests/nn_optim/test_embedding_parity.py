"""nn.Embedding and F.embedding against torch 2.15: values, gradients (EmbeddingBackward0 and
its saved values), padding_idx, max_norm (the in-place renorm, version counter included),
scale_grad_by_freq, from_pretrained and freeze, seeded initialisation bit for bit, repr,
errors."""
import numpy as np
import pytest

import engine
from tests.parity import assert_same_snippet, run_both

torch = pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

INDEX_CASES = [
    ([3, 1, 3, 0], {}),
    ([[0, 2, 5], [5, 5, 9]], {"padding_idx": 5}),
    ([[0, 2, 5], [5, 5, 9]], {"padding_idx": -1}),
    ([[0, 2, 5], [5, 5, 9]], {"padding_idx": 0}),
    ([[[1, 1], [2, 9]], [[9, 9], [9, 1]]], {"scale_grad_by_freq": True}),
    ([[1, 1, 4], [2, 9, 4]], {"scale_grad_by_freq": True, "padding_idx": 4}),
    (7, {}),
    ([], {}),
    ([[4, 8], [8, 3]], {"max_norm": 1.0}),
    ([[4, 8], [8, 3]], {"max_norm": 0.5, "norm_type": 1.0}),
    ([[4, 8], [8, 3]], {"max_norm": 2.0, "norm_type": float("inf")}),
]


def _embed(m, weight, indices, index_dtype, options, inplace_check=False):
    w = weight.detach().clone().requires_grad_()
    version = w._version
    out = m.nn.functional.embedding(m.tensor(indices, dtype=index_dtype), w, **options)
    upstream = m.arange(out.numel(), dtype=out.dtype).reshape(out.shape).sin()
    (out * upstream).sum().backward()
    node = out.grad_fn
    saved = (node.name(), node._saved_padding_idx, node._saved_scale_grad_by_freq,
             node._saved_sparse, node._saved_weight_sym_argsize_0,
             tuple(node._saved_indices.shape), len(node.next_functions))
    return out, w.grad, w.detach(), saved, w._version - version


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("indices,options", INDEX_CASES, ids=str)
def test_functional_embedding(indices, options, index_dtype):
    weight = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
    # scale_grad_by_freq multiplies each row by 1/count, then adds: torch's axpy may fuse
    exact = not options.get("scale_grad_by_freq")
    run_both(lambda m, w: _embed(m, w, indices, getattr(m, index_dtype), options), weight,
             exact=exact, rtol=1e-6, atol=1e-7)


def test_float64_weight_and_non_contiguous_indices():
    weight = np.random.default_rng(1).standard_normal((6, 4))
    idx = np.array([[0, 5, 2], [3, 3, 1]])

    def run(m, w):
        indices = m.tensor(idx).t()  # not contiguous
        w = w.detach().clone().requires_grad_()
        out = m.nn.functional.embedding(indices, w, max_norm=1.5)
        out.pow(2).sum().backward()
        return out, w.grad, w.detach(), indices.is_contiguous()
    run_both(run, weight)


def test_integer_weight():
    run_both(lambda m: m.nn.functional.embedding(m.tensor([[2, 0]]), m.arange(12).reshape(4, 3)))


def _module(m, seed, args, kwargs, indices):
    m.manual_seed(seed)
    layer = m.nn.Embedding(*args, **kwargs)
    out = layer(m.tensor(indices))
    out.sum().backward()
    return layer.weight, out, layer.weight.grad, repr(layer), \
        [n for n, _ in layer.named_parameters()], list(layer.state_dict())


MODULE_CASES = [
    ((10, 3), {}, [[1, 2], [3, 1]]),
    ((10, 3), {"padding_idx": 0}, [[0, 2], [0, 9]]),
    ((7, 5), {"padding_idx": -2}, [5, 5, 6]),
    ((20, 4), {"max_norm": 1.0, "norm_type": 1.5, "scale_grad_by_freq": True}, [1, 1, 2]),
    ((20, 4), {"sparse": False, "dtype": "float64"}, [3]),
    ((1000, 16), {}, [[999, 0, 500]]),
]


@pytest.mark.parametrize("args,kwargs,indices", MODULE_CASES, ids=str)
def test_module_seeded_init_forward_backward(args, kwargs, indices):
    def run(m):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(m, options["dtype"])
        return _module(m, 3, args, options, indices)
    run_both(run, exact="scale_grad_by_freq" not in kwargs, rtol=1e-6, atol=1e-7)


def test_init_draws_as_torch_and_then_the_generator_agrees():
    def run(m):
        m.manual_seed(7)
        a = m.nn.Embedding(50, 8, padding_idx=3)
        return a.weight, m.rand(3)  # the generator advanced by the same amount
    run_both(run)


def test_from_pretrained_freeze_and_sharing():
    code = """
table = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.5, 0.5, 0.5]])
frozen = m.nn.Embedding.from_pretrained(table)
trainable = m.nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1, max_norm=4.0)
out = trainable(m.tensor([0, 1, 1]))
out.sum().backward()
r = [frozen.weight.requires_grad, trainable.weight.requires_grad, repr(frozen), repr(trainable),
     frozen(m.tensor([2, 0])), frozen(m.tensor([2])).requires_grad, out, trainable.weight.grad,
     table, frozen.weight.data_ptr() == table.data_ptr()]
"""
    assert_same_snippet(code)


def test_a_training_step_with_padding():
    def run(m):
        m.manual_seed(0)
        emb = m.nn.Embedding(12, 4, padding_idx=0)
        lin = m.nn.Linear(4, 2)
        opt = m.optim.SGD(list(emb.parameters()) + list(lin.parameters()), lr=0.5)
        x = m.tensor([[1, 2, 0, 0], [3, 3, 4, 0]])
        y = m.tensor([0, 1])
        for _ in range(5):
            opt.zero_grad()
            loss = m.nn.functional.cross_entropy(lin(emb(x).mean(1)), y)
            loss.backward()
            opt.step()
        return emb.weight, lin.weight, loss
    run_both(run, exact=False, rtol=1e-5, atol=1e-6)


REPRS = [
    "m.nn.Embedding(10, 3)",
    "m.nn.Embedding(10, 3, padding_idx=-1, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)",
    "m.nn.Embedding(10, 3, sparse=True)",
    "m.nn.Embedding(10, 3, max_norm=1, norm_type=2)",
    "m.nn.Sequential(m.nn.Embedding(5, 2, 0), m.nn.Flatten())",
]


@pytest.mark.parametrize("code", REPRS)
def test_repr(code):
    assert_same_snippet(f"m.manual_seed(0)\nr = repr({code})")


ERRORS = {
    "index too large": "m.nn.functional.embedding(m.tensor([10]), m.ones(10, 3))",
    "negative index": "m.nn.functional.embedding(m.tensor([-1]), m.ones(10, 3))",
    "float indices": "m.nn.functional.embedding(m.tensor([1.0]), m.ones(10, 3))",
    "uint8 indices": "m.nn.functional.embedding(m.tensor([1], dtype=m.uint8), m.ones(10, 3))",
    "list indices": "m.nn.functional.embedding([1], m.ones(10, 3))",
    "1-D weight": "m.nn.functional.embedding(m.tensor([1]), m.ones(10))",
    "padding_idx too large": "m.nn.functional.embedding(m.tensor([1]), m.ones(4, 3), 4)",
    "padding_idx too small": "m.nn.functional.embedding(m.tensor([1]), m.ones(4, 3), -5)",
    "module padding_idx": "m.nn.Embedding(4, 3, padding_idx=4)",
    "module padding_idx negative": "m.nn.Embedding(4, 3, padding_idx=-5)",
    "from_pretrained 1-D": "m.nn.Embedding.from_pretrained(m.ones(3))",
    "_weight shape": "m.nn.Embedding(3, 2, _weight=m.ones(2, 2))",
    "module float input": "m.nn.Embedding(4, 3)(m.tensor([1.5]))",
    "module index out of range": "m.nn.Embedding(4, 3)(m.tensor([[1, 4]]))",
    "max_norm float indices": ("m.nn.functional.embedding(m.tensor([1.0]), m.ones(4, 3), "
                               "max_norm=1.0)"),
    "max_norm index out of range": ("m.nn.functional.embedding(m.tensor([7]), m.ones(4, 3), "
                                    "max_norm=1.0)"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_as_torch(case):
    assert_same_snippet(f"r = error(lambda: {ERRORS[case]})\nassert r is not None")


def test_sparse_gradient_is_refused_not_faked():
    w = engine.ones(4, 3, requires_grad=True)
    out = engine.nn.functional.embedding(engine.tensor([1]), w, sparse=True)
    assert out.grad_fn.name() == "EmbeddingBackward0"
    with pytest.raises(NotImplementedError, match="no sparse tensors"):
        out.sum().backward()
    assert w.grad is None


def test_second_derivative_through_embedding():
    def run(m, w):
        w = w.detach().clone().requires_grad_()
        out = m.nn.functional.embedding(m.tensor([[0, 1], [1, 2]]), w)
        (g,) = m.autograd.grad((out ** 3).sum(), w, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), w)
        return g, gg
    run_both(run, np.random.default_rng(2).standard_normal((3, 2)).astype(np.float32),
             exact=False, rtol=1e-6, atol=1e-6, check_repr=False)


# ---------------------------------------------------------------- torch.embedding's parser
def _parser_outcome(m, call):
    try:
        return "ok", tuple(call(m, np).shape)
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return type(error).__name__, str(error)


PARSER_CALLS = {
    "a numpy weight (fuzz 5317350)": lambda m, np: m.nn.functional.embedding(
        m.tensor([0, 1]), np.ones((3, 1)), padding_idx=0),
    "a numpy weight, no padding": lambda m, np: m.nn.functional.embedding(
        m.tensor([0, 1]), np.ones((3, 1))),
    "a numpy weight, padding 1 (Python's own error first)": lambda m, np: (
        m.nn.functional.embedding(m.tensor([0, 1]), np.ones((3, 1)), padding_idx=1)),
    "a list of indices": lambda m, np: m.nn.functional.embedding([0, 1], m.ones(3, 2)),
    "a float padding_idx": lambda m, np: m.nn.functional.embedding(
        m.tensor([0, 1]), m.ones(3, 2), padding_idx=2.5),
    "a list weight and a float padding_idx": lambda m, np: m.nn.functional.embedding(
        m.tensor([0, 1]), [[1.0]], padding_idx=2.5),
    "scale_grad_by_freq=2": lambda m, np: m.nn.functional.embedding(
        m.tensor([0, 1]), m.ones(3, 2), scale_grad_by_freq=2),
    "sparse=None": lambda m, np: m.nn.functional.embedding(
        m.tensor([0, 1]), m.ones(3, 2), sparse=None),
    "float indices and sparse=1": lambda m, np: m.nn.functional.embedding(
        m.tensor([0.0, 1.0]), m.ones(3, 2), sparse=1),
}


@pytest.mark.parametrize("name", list(PARSER_CALLS))
def test_embedding_checks_its_arguments_in_torchs_order(name):
    assert _parser_outcome(engine, PARSER_CALLS[name]) == _parser_outcome(torch,
                                                                         PARSER_CALLS[name])
