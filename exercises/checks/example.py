"""Example checkers: the pattern every lesson's module of checkers follows.

Used by lesson 00 (notebooks/00_welcome.ipynb) and by the tests
(tests/course/test_exercises_tooling.py).
"""
from exercises.checks.toolkit import (
    _,
    all_of,
    checker,
    expect_error,
    expect_shares_memory,
    expect_tensor,
    unpack,
)


@checker(
    right=lambda torch: torch.tensor([1.0, 2.0, 3.0]),
    wrong=lambda torch: [
        torch.tensor([1, 2, 3]),          # integers: torch infers int64
        torch.tensor([1.0, 2.0]),         # one value short
        torch.tensor([1.0, 2.0, 4.0]),    # a wrong value
        [1.0, 2.0, 3.0],                  # a list, not a tensor
    ],
)
def check_00_float_tensor(answer):
    """Example 0.1: make a tensor holding the numbers 1, 2 and 3 as floats."""
    return expect_tensor(
        answer, shape=(3,), dtype="torch.float32", values=[1.0, 2.0, 3.0],
        hints={"dtype": _("write the numbers so that torch infers a floating-point dtype.")},
    )


def _leaf_and_view(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    return x, x.detach()


def _copied(torch):
    x, _ = _leaf_and_view(torch)
    return x, x.detach().clone()


def _no_grad(torch):
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.tensor([1.0, 2.0, 3.0])


def _wrong_grad(torch):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.sum().backward()
    return x, x.detach()


@checker(right=_leaf_and_view, wrong=lambda torch: [_copied(torch), _no_grad(torch),
                                                    _wrong_grad(torch)])
def check_00_grad_and_detach(answer):
    """Example 0.2: ``answer = (x, d)``: x = [1., 2., 3.] after backward() of (x * x).sum(),
    and d = x detached (sharing its memory)."""
    parts = unpack(answer, ("x", "d"))
    if not isinstance(parts, tuple):
        return parts
    x, d = parts
    return all_of(
        expect_tensor(x, what="x", values=[1.0, 2.0, 3.0], requires_grad=True, is_leaf=True,
                      grad=[2.0, 4.0, 6.0]),
        expect_tensor(d, what="d", requires_grad=False, grad_fn=None),
        expect_shares_memory(x, d, True, what=_("x and d")),
        success=_("x has the right gradient and d is x detached, sharing its memory."),
    )


def _raises_shape_error(torch):
    return lambda: torch.ones(2, 3) @ torch.ones(2, 3)


@checker(right=_raises_shape_error,
         wrong=lambda torch: [lambda: torch.ones(2, 3) @ torch.ones(3, 2),   # runs fine
                              lambda: torch.ones(2, 3).view(7)])             # another error
def check_00_matmul_error(answer):
    """Example 0.3: a function (lambda) whose matrix product fails on the shapes."""
    return expect_error(answer, RuntimeError, "cannot be multiplied")
