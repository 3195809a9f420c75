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


# An inference tensor that requires grad (made with requires_grad=True inside inference_mode),
# written outside it (fuzz 902912). Inference tensors carry no autograd dispatch key: torch's
# autograd checks (a leaf, a view of a leaf) run only when an operand is an ordinary tensor,
# a number torch wraps into one (x.mul_(2), not x.pow_(2)) or a mask/index made outside; a
# view of an inference tensor is no view to autograd. Otherwise the kernel writes and the
# change is refused; nothing is saved for backward first.
LEAF_WRITES = [
    "z[1] *= -0.5", "z[1].mul_(2)", "z.mul_(2)", "z.mul_(2.0)", "z.mul_(True)", "z[1:].add_(1)",
    "z.view(-1).add_(1)", "z[0] = 3.0", "z[1:] = m.tensor([1.])", "z[...] = 1.0",
    "z[m.tensor([0])] = 1.", "z[:] = m.tensor(1.)", "z[z > 1] = 1.", "z[0] = z[1]",
    "z.zero_()", "z[1].zero_()", "z.t_()", "z.unsqueeze_(0)", "z.squeeze_()",
    "z.transpose_(0, 0)", "z.unsqueeze(0).squeeze_(0)", "z[1].copy_(m.tensor(1.))",
    "z.copy_(m.ones(2))", "z.copy_(z)", "z.copy_(1.0)", "z.fill_(1)", "z.fill_(m.tensor(1.))",
    "z.neg_()", "z.sin_()", "z.exp_()", "z.relu_()", "z.abs_()", "z.floor_()",
    "z.nan_to_num_()", "z.cumsum_(0)", "z.add_(1)", "z.sub_(1)", "z.div_(2)",
    "z.true_divide_(2)", "z.multiply_(2)", "z.subtract_(1)", "z.divide_(2)",
    "z.floor_divide_(2)", "z.remainder_(2)", "z.fmod_(2)", "z.eq_(1)", "z.lt_(1)",
    "z.pow_(2)", "z.pow_(m.tensor(2.))", "z.clamp_(0)", "z.clamp_(max=1)",
    "z.clamp_(m.tensor(0.))", "z.clamp_(z, z)", "z.clamp_min_(0)", "z.clamp_min_(m.tensor(0.))",
    "z.mul_(m.tensor(2.))", "z.add_(z, alpha=2)", "z.add_(m.ones(2), alpha=2)", "z.sub_(z)",
    "z.lerp_(z, 0.5)", "z.lerp_(z, m.tensor(0.5))", "z.lerp_(m.ones(2), 0.5)",
    "z.addcmul_(z, z)", "z.addcdiv_(z, z, value=2)", "z.atan2_(z)",
    "z.masked_fill_(z > 0, 1)", "z.masked_fill_(m.tensor([True, False]), 1.)",
    "z.index_fill_(0, m.tensor([0]), 1.)", "z.scatter_(0, m.tensor([0]), 1.)",
    "z.__iadd__(1)", "z.__ipow__(2)", "z.__itruediv__(2)", "z.__isub__(z)", "z.__imul__(z)",
    "z.normal_()", "z.uniform_()", "z.random_()", "z.bernoulli_()", "z.exponential_()",
    "z.cauchy_()", "z.log_normal_()", "z.geometric_(0.5)",
    "z.logical_not_()",
    "g = m.ones(2, requires_grad=True); z[1:].mul_(g)",
    "g = m.ones(2, requires_grad=True); n.mul_(g)",
    "g = m.ones(2, requires_grad=True); n[0:].mul_(g)", "n[1] *= 2", "n.mul_(2)",
    "q = z[0]; q.add_(m.ones((), requires_grad=True))",
]


@pytest.mark.parametrize("source", LEAF_WRITES)
def test_inference_leaf_written_outside(source):
    def program(m):
        with m.inference_mode():
            z = m.linspace(0.0, 3.0, steps=2, requires_grad=True)
            n = m.linspace(0.0, 3.0, steps=2)
        m.manual_seed(0)
        try:
            exec(source, {"m": m, "z": z, "n": n})
        except RuntimeError as error:
            return z.detach().clone(), n.clone(), str(error).split(".")[0]
        return z.detach().clone(), n.clone(), None
    parity.run_both(program)
