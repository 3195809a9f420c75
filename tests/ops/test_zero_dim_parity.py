"""0-d tensors against torch: activations, unary ops and ops that take a dim (issue 25).

numpy hands back a bare number, not an array, from a ufunc of a 0-d array, and a 0-d
tensor takes dim 0 or -1 in torch; each op below runs on 0-d tensors of several dtypes
(forward and, for floats, backward), and the indexing ops with every dim and index torch
tells apart.
"""
import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "elu": lambda F, x: F.elu(x),
    "gelu": lambda F, x: F.gelu(x),
    "gelu tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "softplus": lambda F, x: F.softplus(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.1),
    "softmax": lambda F, x: F.softmax(x, 0),
    "log_softmax": lambda F, x: F.log_softmax(x, -1),
    "dropout p=0": lambda F, x: F.dropout(x, p=0.0),
}
UNARY = ["abs", "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
         "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "sign",
         "sgn", "floor", "ceil", "round", "trunc", "frac", "reciprocal", "square", "lgamma",
         "digamma", "nan_to_num", "isnan", "isinf", "isfinite", "logical_not",
         "relu", "clone", "flatten", "ravel", "sum", "prod", "mean", "nansum", "std", "var", "max",
         "min", "amax", "amin", "argmax", "argmin", "norm", "all", "any", "count_nonzero", "t",
         "squeeze", "item", "tolist"]


@pytest.mark.parametrize("value", [0.5, -0.0, 2.0])
@pytest.mark.parametrize("dtype", parity.FLOAT_DTYPES)
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activations_of_0d_tensors(name, dtype, value):
    def call(m, x):
        x = x.clone().requires_grad_()
        y = ACTIVATIONS[name](m.nn.functional, x)
        y.backward()
        return y, x.grad
    parity.run_both(call, np.array(value, dtype), exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_of_0d_tensors(name, dtype):
    for value in (0.5, -0.0, 2.0):
        parity.run_both(lambda m, x: getattr(x, name)(), np.array(value, dtype), exact=False)


def _t(m, value=1.0):
    return m.tensor(value)


DIM_CALLS = {
    "take_along_dim": lambda m, d, i: _t(m).take_along_dim(m.tensor(i), d),
    "take_along_dim 1-d index": lambda m, d, i: _t(m).take_along_dim(m.tensor([i]), d),
    "gather": lambda m, d, i: _t(m).gather(d, m.tensor(i)),
    "scatter": lambda m, d, i: _t(m).scatter(d, m.tensor(i), 5.0),
    "scatter_add": lambda m, d, i: _t(m).scatter_add(d, m.tensor(i), m.tensor(5.0)),
    "index_select": lambda m, d, i: _t(m).index_select(d, m.tensor([i])),
    "index_select 0-d index": lambda m, d, i: _t(m).index_select(d, m.tensor(i)),
    "index_fill": lambda m, d, i: _t(m).index_fill(d, m.tensor([i]), 5.0),
    "select": lambda m, d, i: _t(m).select(d, i),
    "narrow": lambda m, d, i: _t(m).narrow(d, i, 1),
    "sort": lambda m, d, i: _t(m).sort(d),
    "argsort": lambda m, d, i: _t(m).argsort(d),
    "topk": lambda m, d, i: _t(m).topk(i, d),
    "cumsum": lambda m, d, i: _t(m).cumsum(d),
    "softmax": lambda m, d, i: _t(m).softmax(d),
    "max": lambda m, d, i: _t(m).max(d),
    "argmax": lambda m, d, i: _t(m).argmax(d),
    "flip": lambda m, d, i: _t(m).flip(d),
    "unsqueeze": lambda m, d, i: _t(m).unsqueeze(d),
    "squeeze": lambda m, d, i: _t(m).squeeze(d),
    "stack": lambda m, d, i: m.stack([_t(m), _t(m, 2.0)], d),
    "take_along_dim without dim": lambda m, d, i: _t(m).take_along_dim(m.tensor(i)),
    "mv of a 0-d matrix": lambda m, d, i: m.mv(_t(m), m.ones(2) if d else _t(m)),
    "mv of a 0-d vector": lambda m, d, i: m.mv(m.ones(2, 2), _t(m)),
}


@pytest.mark.parametrize("index", [0, 1, -1])
@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("name", list(DIM_CALLS))
def test_ops_with_a_dim_on_0d_tensors(name, dim, index):
    parity.run_both(lambda m: DIM_CALLS[name](m, dim, index))


@pytest.mark.parametrize("shape,dim", [((), 0), ((0,), 0), ((3,), 0), ((2, 3), 0), ((2, 3), 1),
                                       ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2),
                                       ((2, 3, 4), -2), ((3, 0), 0), ((3, 0), 1), ((0, 3), 0),
                                       ((0, 3), 1), ((2, 3, 0), 2), ((2, 3, 0), 0)])
@pytest.mark.parametrize("index", [[5], [-1], [0, 7]])
def test_index_select_out_of_range_in_torchs_words(shape, dim, index):
    parity.run_both(lambda m: m.ones(shape).index_select(dim, m.tensor(index)))
    parity.run_both(lambda m: m.ones(shape).t().index_select(dim, m.tensor(index))
                    if len(shape) == 2 else m.zeros(1))
