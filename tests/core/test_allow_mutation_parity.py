# ruff: noqa: E501 (tables of cases, one per line)
"""torch.autograd.graph.allow_mutation_on_saved_tensors against torch 2.15.

Inside the block a tensor saved for backward may be changed in place: a copy of it is made
just before the write, and backward reads the copy. Compared as snippets (gradients, values,
errors' type and message, what the context object holds): in-place ops, setitem, copy_, a
parameter update under no_grad, saved outputs, two graphs, backward after the block or in
another block, nesting, user saved-tensor hooks inside, disable_saved_tensors_hooks.
"""
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
pytestmark = pytest.mark.torch

PRELUDE = """
G = m.autograd.graph
allow = G.allow_mutation_on_saved_tensors
def saved_and_changed(change, n=3):
    a = m.arange(1.0, n + 1).requires_grad_()
    b = a * 1
    out = (b ** 2).sum()
    change(b)
    return a, b, out
"""

CASES = {
    "torch's example": "with allow() as ctx:\n a = m.ones(2, 3, requires_grad=True)\n b = a.clone()\n out = (b ** 2).sum()\n b.sin_()\n out.sum().backward()\n r = [a.grad, b, type(ctx).__name__]",
    "mul_": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n out.backward()\n r = [a.grad, b]",
    "several in-place ops": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10).add_(1).exp_())\n out.backward()\n r = [a.grad, b]",
    "setitem": "with allow():\n a, b, out = saved_and_changed(lambda b: b.__setitem__(0, 100.0))\n out.backward()\n r = [a.grad, b]",
    "a view at offset 0": "with allow():\n a, b, out = saved_and_changed(lambda b: b[:2].mul_(10))\n out.backward()\n r = [a.grad, b]",
    "copy_": "with allow():\n a, b, out = saved_and_changed(lambda b: b.copy_(m.zeros(3)))\n out.backward()\n r = [a.grad, b]",
    "zero_ and fill_": "with allow():\n a, b, out = saved_and_changed(lambda b: b.zero_().fill_(7))\n out.backward()\n r = [a.grad, b]",
    "saved as a view, base changed": "with allow():\n a = m.arange(1.0, 4).requires_grad_()\n b = a * 1\n out = (b.view(3, 1) ** 2).sum()\n b.mul_(10)\n out.backward()\n r = a.grad",
    "a saved output changed": "with allow():\n a = m.arange(1.0, 4).requires_grad_()\n y = (a * 1).exp()\n z = y * 1\n y.mul_(2)\n z.sum().backward()\n r = [a.grad, y]",
    "exp's output changed": "with allow():\n a = m.arange(1.0, 4).requires_grad_()\n b = a * 1\n y = b.exp()\n b.mul_(10)\n y.mul_(2)\n y.sum().backward()\n r = a.grad",
    "a leaf changed under no_grad": "with allow():\n a = m.tensor([1., 2., 3.], requires_grad=True)\n out = a.sin().sum()\n with m.no_grad():\n  a.mul_(2)\n out.backward()\n r = [a.grad, a]",
    "a parameter update": "with allow():\n x = m.ones(3, requires_grad=True)\n w = m.tensor([1., 2., 3.], requires_grad=True)\n loss = (x * w).sum()\n with m.no_grad():\n  w.sub_(1.0)\n loss.backward()\n r = [x.grad, w.grad, w]",
    "an optimizer step between": "with allow():\n m.manual_seed(0)\n lin = m.nn.Linear(2, 1)\n opt = m.optim.SGD(lin.parameters(), lr=0.5)\n x = m.tensor([[1.0, 2.0]], requires_grad=True)\n loss = lin(x).sum() ** 2\n loss.backward(retain_graph=True)\n opt.step()\n x.grad = None\n loss.backward()\n r = [x.grad, lin.weight]",
    "changed after a backward": "with allow():\n a, b, out = saved_and_changed(lambda b: None)\n out.backward(retain_graph=True)\n b.mul_(10)\n out.backward()\n r = a.grad",
    "two graphs": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n b.add_(1)\n out2 = (b ** 2).sum()\n b.zero_()\n out.backward()\n r = [a.grad.clone(), error(out2.backward)]",
    "two graphs, retained": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n b.add_(1)\n out2 = (b ** 2).sum()\n b.zero_()\n out.backward(retain_graph=True)\n r = [a.grad.clone()]\n out2.backward()\n r.append(a.grad)",
    "autograd.grad": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n r = m.autograd.grad(out, a)",
    "create_graph": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n g, = m.autograd.grad(out, a, create_graph=True)\n g.sum().backward()\n r = [g, a.grad]",
    "nothing changed": "with allow():\n a, b, out = saved_and_changed(lambda b: None)\n out.backward()\n r = a.grad",
    "what the context holds": "with allow() as ctx:\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n r = [len(ctx.cloned), len(ctx.original)]\nr += [len(ctx.cloned), len(ctx.original)]",
    "what the context holds, nothing changed": "with allow() as ctx:\n a, b, out = saved_and_changed(lambda b: None)\n r = [len(ctx.cloned), len(ctx.original)]",
    "the same tensor saved twice": "with allow() as ctx:\n a = m.arange(1.0, 4).requires_grad_()\n b = a * 1\n out = (b * b).sum()\n r = [len(ctx.original)]\n b.mul_(2)\n r += [len(ctx.cloned)]\n out.backward()\n r.append(a.grad)",
    # what torch refuses
    "nested": "with allow():\n r = error(lambda: allow().__enter__())",
    "nested, as with blocks": "def f():\n with allow():\n  with allow():\n   pass\nr = error(f)",
    "backward after the block": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\nr = error(out.backward)",
    "backward after the block, nothing changed": "with allow():\n a, b, out = saved_and_changed(lambda b: None)\nr = error(out.backward)",
    "backward in another block": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\nwith allow():\n r = error(out.backward)",
    "graph recorded before the block": "a, b, out = saved_and_changed(lambda b: None)\nwith allow():\n b.mul_(10)\n r = error(out.backward)",
    "without the block": "a, b, out = saved_and_changed(lambda b: b.mul_(10))\nr = error(out.backward)",
    "_saved_self read after the block": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\nr = error(lambda: out.grad_fn.next_functions[0][0]._saved_self)",
    "_saved_self inside": "with allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n r = out.grad_fn.next_functions[0][0]._saved_self",
    "an error inside ends the block": "def f():\n with allow():\n  raise ValueError('stop')\nr = [error(f)]\nwith allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n out.backward()\n r.append(a.grad)",
    "as a decorator": "@allow()\ndef f(a):\n    b = a * 1\n    out = (b ** 2).sum()\n    b.mul_(10)\n    out.backward()\n    return a.grad\nr = f(m.arange(1.0, 4).requires_grad_())",
    "user hooks inside": "with allow():\n a = m.arange(1.0, 4).requires_grad_()\n b = a * 1\n with G.saved_tensors_hooks(lambda t: t * 1, lambda t: t):\n  out = (b ** 2).sum()\n b.mul_(10)\n out.backward()\n r = a.grad",
    "disable_saved_tensors_hooks inside": "with allow():\n r = error(lambda: G.disable_saved_tensors_hooks('no hooks here').__enter__())",
    "inside disable_saved_tensors_hooks": "with G.disable_saved_tensors_hooks('no hooks here'):\n r = error(lambda: allow().__enter__())\nwith allow():\n a, b, out = saved_and_changed(lambda b: b.mul_(10))\n out.backward()\n r = [r, a.grad]",
}


@pytest.mark.parametrize("code", CASES.values(), ids=CASES.keys())
def test_allow_mutation_on_saved_tensors(code):
    parity.assert_same_snippet(PRELUDE + code)


def test_a_write_through_a_view_at_another_offset():
    """torch keys a saved tensor's memory on (data_ptr, version): a write through a view
    that starts elsewhere (``b[1:]``) is not seen, no copy is made, and backward reads the
    new values (a wrong gradient, [2, 40, 60]). The engine watches the whole memory:
    DIFFERENCES.md."""
    code = PRELUDE + "with allow():\n a, b, out = saved_and_changed(lambda b: b[1:].mul_(10))\n out.backward()\n r = a.grad"
    found = {m.__name__: parity.run_snippet(code, m)[0]["r"].tolist() for m in (torch, parity.engine)}
    assert found == {"engine": [2.0, 4.0, 6.0], "torch": [2.0, 40.0, 60.0]}
