"""Writing into an inference tensor outside inference_mode, against torch 2.15.

torch refuses it when it counts the change (an inference tensor has no version counter):
after the kernel has written. So the error comes, but the values have changed; errors of the
op's own (shapes, overlap) come first, with nothing written.
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

WRITES = {
    "slice": lambda m, a: a.__setitem__(slice(0, 1), 4.0),
    "int": lambda m, a: a.__setitem__(1, 5.0),
    "mask": lambda m, a: a.__setitem__(a > 2, 6.0),
    "index list": lambda m, a: a.__setitem__([1], 7.0),
    "tensor value": lambda m, a: a.__setitem__((slice(None), 1), m.tensor([8.0, 9.0])),
    "ellipsis": lambda m, a: a.__setitem__(Ellipsis, 3.0),
    "add_": lambda m, a: a.add_(1),
    "add_ float": lambda m, a: a.add_(m.ones(2, 2), alpha=0.5),
    "view add_": lambda m, a: a[1:].add_(1),
    "iadd": lambda m, a: a.__iadd__(1),
    "exp_": lambda m, a: a.exp_(),
    "clamp_": lambda m, a: a.clamp_(max=2.0),
    "cumsum_": lambda m, a: a.cumsum_(0),
    "logical_not_": lambda m, a: a.logical_not_(),
    "masked_fill_": lambda m, a: a.masked_fill_(a > 2, 0.0),
    "index_fill_": lambda m, a: a.index_fill_(0, m.tensor([1]), -1.0),
    "scatter_": lambda m, a: a.scatter_(0, m.tensor([[1, 0]]), 7.0),
    "fill_": lambda m, a: a.fill_(2.0),
    "zero_": lambda m, a: a.zero_(),
    "copy_": lambda m, a: a.copy_(m.tensor([9.0, 8.0])),
    "copy_ itself": lambda m, a: a.copy_(a),
    "t_": lambda m, a: a.t_(),
    "unsqueeze_": lambda m, a: a.unsqueeze_(0),
    "add_ requiring grad": lambda m, a: a.add_(m.tensor([1.0, 1.0], requires_grad=True)),
    "bad shape": lambda m, a: a.add_(m.ones(3)),
    "copy_ bad shape": lambda m, a: a[:, :1].copy_(a.t()),
    "partial overlap": lambda m, a: a.view(-1)[1:].add_(a.view(-1)[:-1]),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_written_then_refused(write):
    def program(m):
        with m.inference_mode():
            a = m.tensor([[1.0, 2.0], [3.0, 4.0]])
        try:
            WRITES[write](m, a)
        except RuntimeError as error:
            return a, str(error).split(".")[0]
        return a, None
    parity.run_both(program)


def test_a_view_made_outside_inference_mode():
    def program(m):
        with m.inference_mode():
            a = m.arange(6.0)
        v = a.view(2, 3)
        try:
            v[0] = -1.0
        except RuntimeError as error:
            return a, v, str(error).split(".")[0]
    parity.run_both(program)


def test_inside_inference_mode_nothing_is_refused():
    def program(m):
        with m.inference_mode():
            a = m.tensor([1.0, 2.0])
            a[0] = 5.0
            a.add_(1)
            a.t_()
        return a
    parity.run_both(program)
