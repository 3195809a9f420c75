# ruff: noqa: E501 (tables of cases, one per line)
"""Fuzz round six (seeds 1020000:1040000 and after): each mismatch fixed as a class, against torch 2.15.

- 1029554: a tangent copied into an expanded primal's layout (make_dual, jvp of an expanded
  input): torch's copy refuses to write into memory that repeats itself; a tangent already
  laid out as the expanded primal needs no copy and passes. Empty primals get the tangent
  laid out as theirs too (strides, offset).
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)

pytestmark = pytest.mark.torch

DUAL = "fw = m.autograd.forward_ad\nx = m.tensor([-0.5, 0.0, -0.3])\n"

EXPANDED_DUAL_CASES = {
    "make_dual of an expanded primal, dense tangent": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x.expand(2, 3), m.ones(2, 3)))",
    "make_dual of an expanded 0-d primal": "with fw.dual_level():\n r = error(lambda: fw.make_dual(m.tensor(1.).expand(3), m.ones(3)))",
    "make_dual, tangent expanded as the primal": "with fw.dual_level():\n d = fw.make_dual(x.expand(2, 3), m.ones(3).expand(2, 3))\n T = fw.unpack_dual(d).tangent\n r = [T, T.stride(), fw.unpack_dual(d.exp()).tangent]",
    "make_dual, tangent expanded from a larger storage": "with fw.dual_level():\n r = error(lambda: fw.make_dual(x.expand(2, 3), m.ones(5)[:3].expand(2, 3)))",
    "make_dual of an expand to one row": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(x[None].expand(1, 3), m.ones(1, 3))).tangent\n r = [T, T.stride()]",
    "make_dual of an empty expand": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(m.ones(1).expand(0), m.ones(0))).tangent\n r = [T, T.stride()]",
    "make_dual of an empty slice keeps its offset": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(m.ones(4)[4:], m.ones(0))).tangent\n r = [T, T.stride(), T.storage_offset()]",
    "dense primal, expanded tangent is copied": "with fw.dual_level():\n T = fw.unpack_dual(fw.make_dual(m.ones(2, 3), m.ones(3).expand(2, 3))).tangent\n r = [T, T.stride()]",
    "jvp at an expanded input": "r = error(lambda: m.func.jvp(lambda a: a * 2, (m.ones(1).expand(3),), (m.ones(3),)))",
    "jvp of the identity at an expanded input": "r = error(lambda: m.func.jvp(lambda a: a, (x.expand(2, 3),), (m.ones(2, 3),)))",
    "jvp of an expand": "r = m.func.jvp(lambda a: a.expand(2, 3), (x,), (m.ones(3),))",
    "in-place into an expanded dual": "with fw.dual_level():\n d = fw.make_dual(x, m.ones(3))\n r = [error(lambda: d.expand(2, 3).mul_(2)), error(lambda: d.expand(2, 3).exp_())]",
    "fill_ and zero_ of an expanded dual": "with fw.dual_level():\n d = fw.make_dual(x.clone(), m.ones(3))\n e = d.expand(2, 3)\n r = [e.fill_(2.0), fw.unpack_dual(d).tangent, e.zero_(), fw.unpack_dual(e).tangent]",
    "a dual written into an expanded tensor": "with fw.dual_level():\n d = fw.make_dual(m.ones(3), m.ones(3))\n w = m.ones(3).expand(2, 3)\n r = [error(lambda: w.add_(d)), error(lambda: w.copy_(d))]",
}


@pytest.mark.parametrize("name", EXPANDED_DUAL_CASES)
def test_a_tangent_is_not_copied_into_an_expanded_primal(name):
    parity.assert_same_snippet(DUAL + EXPANDED_DUAL_CASES[name])
