"""What lessons 2 and 3 (02_shapes_indexing_broadcasting,
03_views_copies_inplace) need from the engine, checked against torch 2.15:
calling an attribute (``x.shape()``) fails with torch's message, and ``flip`` reverses
(the answer to "slices cannot step backwards")."""
import pytest

import parity
from ops.test_autograd_parity import _check_gradients, _compare, _signed

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("attribute", ["shape", "dtype", "device"])
def test_calling_an_attribute_fails_like_torch(attribute):
    parity.run_both(lambda m, x: getattr(x, attribute)(), parity.make_tensor((2, 3), "float32"))


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), (-1,), ()])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_flip_matches_torch(dims, layout):
    x = parity.make_tensor((4, 6), "int64")
    views = {"contiguous": lambda t: t, "transposed": lambda t: t.t(),
             "stepped": lambda t: t[::2, 1::2]}
    parity.run_both(lambda m, x: m.flip(views[layout](x), dims), x)
    parity.run_both(lambda m, x: views[layout](x).flip(*dims), x)
    parity.run_both(lambda m, x: views[layout](x).flip(dims=dims), x)


def test_flip_of_a_scalar_and_a_negative_step():
    parity.run_both(lambda m, x: x.flip(0), engine.tensor(3.5))
    parity.run_both(lambda m, x: x[::-1], engine.arange(5))


@pytest.mark.parametrize("dims", [(0,), (1, 2), (-1, 0)])
def test_flip_gradient(dims):
    fn = lambda m, x: m.flip(x, dims) * m.arange(24.0, dtype=m.float64).reshape(2, 3, 4)  # noqa: E731
    _check_gradients(fn, _compare(fn, [_signed((2, 3, 4), 5)]))
