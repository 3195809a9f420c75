"""Small pieces of torch's API a learner reaches for, against torch 2.15: fill_diagonal_,
sum_to_size, mH / H / adjoint, positive, arctan2, vdot, absolute_, swapaxes_ / swapdims_,
is_signed, is_same_size, is_inference, scalar_tensor, F.relu_ / leaky_relu_ / elu_: values,
views and memory, versions, gradients, warnings and errors."""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch


def assert_same_outcome(code):
    """What ``code`` leaves in ``r`` (or the error it raises), and the warnings it gives, the
    same as torch's."""
    import warnings
    results = []
    for m in (torch, parity.engine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome = parity.outcome(m, code)
        if not (isinstance(outcome, tuple) and len(outcome) == 2 and
                isinstance(outcome[0], str) and outcome[0].endswith(("Error", "Exception"))):
            outcome = parity.snippet_facts(outcome)
        results.append((outcome, [str(w.message) for w in caught]))
    assert results[1] == results[0]


FILL_DIAGONAL = [
    "r = m.zeros(5, 3).fill_diagonal_(2.)", "r = m.zeros(5, 3).fill_diagonal_(2., wrap=True)",
    "r = m.zeros(7, 3).fill_diagonal_(1, True)", "r = m.zeros(3, 7).fill_diagonal_(1, True)",
    "r = m.zeros(4, 3).fill_diagonal_(1, True)", "r = m.zeros(2, 2, 2).fill_diagonal_(5)",
    "r = m.zeros(0, 0).fill_diagonal_(5)", "r = m.zeros(0, 3).fill_diagonal_(5, True)",
    "r = m.ones(3, 3).t().fill_diagonal_(2, wrap=True)",
    "r = m.ones(7, 2).t().contiguous().t().fill_diagonal_(5, wrap=True)",
    "r = m.ones(3).expand(3, 3).fill_diagonal_(2)", "r = m.ones(2, 3).fill_diagonal_(m.tensor(2.))",
    "r = m.ones(2, 3, dtype=m.int64).fill_diagonal_(2.5)",
    "r = m.ones(2, 3, dtype=m.bool).fill_diagonal_(0)",
    "r = m.ones(2, 3, dtype=m.uint8).fill_diagonal_(300)",
    "r = m.zeros(2, 3, 2).fill_diagonal_(5)", "r = m.zeros(2).fill_diagonal_(5)",
    "r = m.zeros(2, 2).fill_diagonal_('a')",
    "x = m.zeros(2, 2, requires_grad=True)\nr = x.fill_diagonal_(1)",
    "x = m.zeros(3, 2, requires_grad=True)\ny = x * 2\ny.fill_diagonal_(0, wrap=True)\n"
    "y.sum().backward()\nr = (y, x.grad, y.grad_fn.name(), y._version)",
    "x = m.zeros(2, 2)\nv = x.fill_diagonal_(3)\nr = (v is x, x._version)",
    "x = m.zeros(2, 2)\nwith m.inference_mode():\n    r = m.zeros(2, 2).fill_diagonal_(3)",
]


@pytest.mark.parametrize("code", FILL_DIAGONAL)
def test_fill_diagonal(code):
    assert_same_outcome(code)


SUM_TO_SIZE = [
    "r = m.arange(6.).reshape(2, 3).sum_to_size(1, 3)",
    "r = m.arange(6.).reshape(2, 3).sum_to_size((2, 1))",
    "r = m.arange(6.).reshape(2, 3).sum_to_size([1, 1])",
    "r = m.arange(6.).reshape(2, 3).sum_to_size(3)",
    "r = m.arange(6.).reshape(2, 3).sum_to_size(())",
    "r = m.arange(6.).reshape(2, 3).sum_to_size(3, 1)", "r = m.ones(3).sum_to_size(1, 3)",
    "r = m.ones(2, 3).sum_to_size()", "r = m.ones(2, 3, dtype=m.int32).sum_to_size(3)",
    "x = m.ones(2, 3)\nr = x.sum_to_size(2, 3) is x",
    "x = m.ones(2, 3, requires_grad=True)\ny = x.sum_to_size(3)\ny.sum().backward()\n"
    "r = (y, y.grad_fn.name(), x.grad)",
    "x = m.ones(2, 3, requires_grad=True)\ny = x.sum_to_size(1, 3)\nr = (y, y.grad_fn.name())",
    "r = m.ones(0, 3).sum_to_size(1, 3)", "r = m.ones(2, 3).sum_to_size(m.Size([3]))",
]


@pytest.mark.parametrize("code", SUM_TO_SIZE)
def test_sum_to_size(code):
    assert_same_outcome(code)


SMALL = [
    "x = m.ones(2, 3, requires_grad=True)\ny = x.mH\n"
    "r = (y, y.stride(), y.grad_fn.name(), y._base is x)",
    "x = m.ones(2, 3, 4)\nr = (x.mH.shape, x.adjoint().shape, m.adjoint(x).stride())",
    "r = m.ones(2, 3).H.shape", "r = m.ones(2, 3, 4).H", "r = m.ones(3).H", "r = m.ones(3).mH",
    "r = m.ones(3).adjoint()", "r = m.tensor(3.).mH", "r = m.tensor(3.).adjoint()",
    "r = m.tensor(3.).H",
    "x = m.ones(2, 3)\nr = (x.positive() is x, m.positive(x) is x)",
    "r = m.tensor([True]).positive()",
    "x = m.tensor([1., -2.], requires_grad=True)\nr = (m.arctan2(x, x + 3), x.arctan2(m.ones(2)))",
    "x = m.tensor([1., -2.])\nr = (x.arctan2_(m.ones(2)), x)",
    "r = m.arctan2(m.ones(2), m.ones(3))",
    "x = m.tensor([1., -2.], requires_grad=True)\nr = x.vdot(m.tensor([3., 4.]))",
    "r = m.tensor([1., 2.]).vdot(m.ones(3))",
    "x = m.tensor([-1., 2.])\nr = (x.absolute_(), x, x._version)",
    "x = m.ones(2, 3)\nr = (x.swapaxes_(0, 1).shape, x.stride(), x.swapdims_(1, 0).shape)",
    "r = [m.ones(1, dtype=d).is_signed() for d in (m.bool, m.uint8, m.int8, m.int64, m.float16, "
    "m.float32)] + [m.is_signed(m.ones(1, dtype=m.uint8))]",
    "x = m.ones(2, 3)\nr = (x.is_same_size(m.ones(2, 3)), m.is_same_size(x, m.ones(3, 2)))",
    "x = m.ones(2)\nwith m.inference_mode():\n    y = m.ones(2)\n"
    "r = (m.is_inference(x), m.is_inference(y))",
    "r = (m.scalar_tensor(3), m.scalar_tensor(3, dtype=m.int64), m.scalar_tensor(True), "
    "m.scalar_tensor(2.5, requires_grad=True))",
    "r = m.scalar_tensor('a')",
    "F = m.nn.functional\nx = m.tensor([-1., 2.])\nr = (F.relu_(x) is x, x, x._version)",
    "F = m.nn.functional\nx = m.tensor([-1., 2.])\nr = (F.leaky_relu_(x, 0.1), x)",
    "F = m.nn.functional\nx = m.tensor([-1., 2.])\nr = (F.elu_(x), x, F.elu_(x, alpha=2.))",
    "F = m.nn.functional\nx = m.tensor([-1., 2.], requires_grad=True)\nr = F.relu_(x)",
    "F = m.nn.functional\nx = m.tensor([-1., 2.], requires_grad=True)\ny = x * 1\nF.elu_(y)\n"
    "y.sum().backward()\nr = (y.grad_fn.name(), x.grad)",
]


@pytest.mark.parametrize("code", SMALL)
def test_small_pieces(code):
    assert_same_outcome(code)
