"""out= resized before the kernel fails, against torch 2.15.

torch resizes out= to the result's shape before its kernel runs: the kernel's own errors (no
kernel for the dtype, an integer division by zero, an index out of range) leave out resized;
the checks before the kernel (broadcasting, casting the result to out's dtype for elementwise
ops) leave it as it was. mean resizes out (through its sum) before refusing out's dtype.
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

CASES = {
    "softmax bool": (lambda m, o: m.softmax(m.tensor([True, False, False]), 0, out=o), "bool"),
    "log_softmax bool": (lambda m, o: m.log_softmax(m.tensor([True, False]), 0, out=o), "bool"),
    "softmax int": (lambda m, o: m.softmax(m.zeros(2, 3, dtype=m.int64), 0, out=o), "int64"),
    "gather dims": (lambda m, o: m.gather(m.zeros(2, 3, dtype=m.int64), -1, m.tensor([0]),
                                          out=o), "int64"),
    "gather out of range": (lambda m, o: m.gather(m.zeros(2, 3, dtype=m.int64), 1,
                                                  m.tensor([[5]]), out=o), "int64"),
    "index_select out of range": (lambda m, o: m.index_select(
        m.zeros(2, 3, dtype=m.int64), 1, m.tensor([5]), out=o), "int64"),
    "div floor by 0": (lambda m, o: m.div(m.tensor([3]), 0, rounding_mode="floor", out=o),
                       "int64"),
    "div trunc by 0": (lambda m, o: m.div(m.tensor([[3, 0], [1, 2]]), m.tensor([1, 0]),
                                          rounding_mode="trunc", out=o), "int64"),
    "remainder by 0": (lambda m, o: m.remainder(m.tensor([3, 4]), 0, out=o), "int64"),
    "floor_divide by 0": (lambda m, o: m.floor_divide(m.tensor([3]), m.tensor([0]), out=o),
                          "int64"),
    "pow bool": (lambda m, o: m.pow(m.tensor([False, True]), m.tensor([True, True]), out=o),
                 "bool"),
    "abs bool": (lambda m, o: m.abs(m.tensor([[False, True]]), out=o), "bool"),
    "cumsum bool": (lambda m, o: m.cumsum(m.tensor([True, False]), 0, out=o), "bool"),
    "mean int out": (lambda m, o: m.mean(m.zeros(2, 2), None, out=o), "int64"),
    "mean int out dim=None": (lambda m, o: m.mean(m.zeros(2, 2), dim=None, out=o), "int64"),
    "mean int out no dim": (lambda m, o: m.mean(m.zeros(2, 2), out=o), "int64"),
    "mean int out dim": (lambda m, o: m.mean(m.zeros(2, 3), 1, True, out=o), "int64"),
    # not resized: checked before the kernel
    "add cast": (lambda m, o: m.add(m.zeros(2), 1.5, out=o), "int64"),
    "exp cast": (lambda m, o: m.exp(m.zeros(2), out=o), "int64"),
    "neg bool": (lambda m, o: m.neg(m.tensor([True]), out=o), "bool"),
    "div shapes": (lambda m, o: m.div(m.ones(2), m.ones(3), out=o), "float32"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("out_shape", [(0,), (5,)])
def test_out_after_a_failed_kernel(case, out_shape):
    fn, dtype = CASES[case]

    def program(m):
        out = m.zeros(out_shape, dtype=getattr(m, dtype))
        try:
            fn(m, out)
        except (RuntimeError, NotImplementedError) as error:
            return out.shape, out.stride(), type(error).__name__
        return out.shape, out.stride(), None
    parity.run_both(program)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64"])
@pytest.mark.parametrize("expand", [((2,), (3, 2)), ((2, 1), (2, 3)), ((1, 3), (4, 3))])
@pytest.mark.parametrize("op", ["div", "true_divide", "div floor", "pow"])
def test_float_results_of_expanded_integer_tensors_are_row_major(op, expand, dtype):
    """An integer or bool tensor expanded (stride 0) and divided by a number: converted to
    float with its broadcast dimensions kept, the result is laid out as torch's (row-major),
    not column-major as numpy's astype of a broadcast array would make it."""
    shape, target = expand
    x = parity.make_tensor(shape, dtype, nonzero=True)
    fn = {"div": lambda m, x: m.div(x.expand(target), 3),
          "true_divide": lambda m, x: x.expand(target) / 2,
          "div floor": lambda m, x: m.div(x.expand(target), 3, rounding_mode="floor"),
          "pow": lambda m, x: x.expand(target) ** 0.5}[op]
    parity.run_both(fn, x)
