"""torch.unique / Tensor.unique / torch.unique_consecutive against torch 2.15."""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch

UNIQUE = {
    "values": lambda m, x: m.unique(x),
    "inverse and counts": lambda m, x: m.unique(x, return_inverse=True, return_counts=True),
    "sorted=False (sorted all the same)": lambda m, x: m.unique(x, sorted=False,
                                                                return_inverse=True),
    "method counts": lambda m, x: x.unique(return_counts=True),
    "dim 0": lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True),
    "dim -1": lambda m, x: m.unique(x, dim=-1, return_inverse=True, return_counts=True),
    "consecutive": lambda m, x: m.unique_consecutive(x, return_inverse=True,
                                                     return_counts=True),
    "consecutive dim 0": lambda m, x: x.unique_consecutive(dim=0, return_counts=True),
    "consecutive dim 1": lambda m, x: m.unique_consecutive(x, dim=1, return_inverse=True),
}
SHAPES = [(), (5,), (4, 3), (0,), (0, 3), (2, 0)]


@pytest.mark.parametrize("dtype", parity.DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(UNIQUE))
def test_unique(name, shape, dtype):
    if "dim" in name and len(shape) < 2:
        pytest.skip("needs 2 dimensions")
    # few distinct values, so that some repeat
    x = engine.from_numpy(parity.make_values(shape, "int64", low=0, high=2).astype(dtype))
    parity.run_both(UNIQUE[name], x)


ERRORS = {
    "dim out of range": lambda m, x: m.unique(x, dim=2),
    "axis= (a Python function)": lambda m, x: m.unique(x, axis=0),
    "nan is never equal": lambda m, x: m.unique(m.tensor([float("nan"), 1.0, float("nan")])),
    "nan consecutive": lambda m, x: m.unique_consecutive(m.tensor([float("nan")] * 2)),
    "0-size dim not selected": lambda m, x: m.unique(m.zeros(0, 3), dim=1),
    "float16": lambda m, x: m.unique(x.half(), return_counts=True),
    "transposed, dim 1": lambda m, x: m.unique(x.T, dim=1, return_inverse=True),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_unique_rules_and_errors(name):
    x = engine.tensor([[1, 2], [1, 2], [0, 5]])
    parity.run_both(ERRORS[name], x, match="unexpected keyword argument 'axis'"
                    if name.startswith("axis") else None)


@pytest.mark.parametrize("fn", [lambda m, x: m.unique(x), lambda m, x: m.unique(x[None], dim=0),
                                lambda m, x: m.unique_consecutive(x)])
def test_unique_records_a_node_without_a_derivative(fn):
    for m in (torch, engine):
        x = m.tensor([2.0, 1.0, 2.0], requires_grad=True)
        result = fn(m, x)
        assert result.requires_grad
        with pytest.raises(NotImplementedError, match="the derivative for '.*' is not "
                                                      "implemented."):
            result.sum().backward()
    assert fn(engine, engine.ones(2, requires_grad=True)).grad_fn.name() == \
        fn(torch, torch.ones(2, requires_grad=True)).grad_fn.name()
