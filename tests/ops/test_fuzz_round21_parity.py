"""Fuzz round twenty-one (seeds 4740000 and on, pinned to AVX2) against torch 2.15.

- as_strided's gradient (AsStridedBackward0: x.as_strided(...) and every view whose history
  was rewritten after an in-place change of its base) as torch's as_strided_backward takes
  its steps (fuzz 4720132): a piece with a dim of size 0, or a base with one, gives zeros of
  the base's size, contiguous, without a graph; the piece's expanded dims (stride 0) summed
  one by one from the last (the engine added element by element: float32 sums an ulp or more
  apart); the gradient copied into a zeroed storage, or added with index_add_ where the
  piece reads a place twice; where the base itself reads a place twice (an expanded tensor),
  each place's gradient divided by how often the base reads it (the engine's was that many
  times larger: 311.77 where torch has 77.94); the result a view of that storage, at version
  1 (2 after the division); under create_graph the same steps recorded (CopySlices or
  IndexAddBackward0 under the AsStridedBackward0, where the engine had ScatterAddBackward0).
"""
import hashlib

import numpy as np
import pytest

import parity

torch = pytest.importorskip("torch", reason=parity.TORCH_SKIP_REASON)
import engine  # noqa: E402

pytestmark = pytest.mark.torch


def _node_tree(node, depth=4):
    if node is None or depth == 0:
        return None
    return node.name(), [_node_tree(child, depth - 1) for child, _ in node.next_functions]


def _facts(tensor):
    """Everything a learner could see of a gradient: bits, layout, version, graph."""
    return (str(tensor.dtype), tuple(tensor.shape), tuple(tensor.stride()), tensor._version,
            tensor.requires_grad, _node_tree(tensor.grad_fn),
            hashlib.md5(tensor.detach().numpy().tobytes()).hexdigest())


def _as_strided_gradients(m, seed):
    """A random base (contiguous, expanded or transposed; empty dims too), a random piece of
    it (stride 0, overlapping, empty, offset), its gradient with and without create_graph,
    and the gradient of that gradient's square to the incoming gradient."""
    rng = np.random.default_rng(seed)
    dtype = getattr(m, ["float32", "float64", "float16"][seed % 3])
    base_shape = tuple(int(n) for n in rng.integers(0, 4, size=int(rng.integers(0, 3))))
    leaf = m.tensor(rng.standard_normal(base_shape), dtype=dtype, requires_grad=True)
    kind = int(rng.integers(3))
    base = leaf
    if kind == 1 and base_shape:
        base = leaf.unsqueeze(0).expand((2,) + base_shape)
    elif kind == 2 and len(base_shape) >= 2:
        base = leaf.transpose(0, 1)
    ndim = int(rng.integers(0, 3))
    shape = tuple(int(n) for n in rng.choice([0, 1, 2, 3, 5], size=ndim))
    stride = tuple(int(s) for s in rng.integers(0, 3, size=ndim))
    offset = int(rng.integers(0, 2))
    try:
        piece = base.as_strided(shape, stride, offset)
    except RuntimeError as error:
        return ("RuntimeError", str(error))
    incoming = m.tensor(rng.standard_normal(shape), dtype=dtype,
                        requires_grad=bool(rng.integers(2)))
    found = []
    for create_graph in (False, True):
        gradient, = m.autograd.grad(piece, leaf, incoming, retain_graph=True,
                                    create_graph=create_graph)
        found.append(_facts(gradient))
        if gradient.requires_grad:
            second = m.autograd.grad((gradient * gradient).sum(), incoming, allow_unused=True)[0]
            found.append(None if second is None else _facts(second))
    return found


@pytest.mark.parametrize("seed", range(300))
def test_as_strided_gradient_takes_torchs_steps(seed):
    assert _as_strided_gradients(engine, seed) == _as_strided_gradients(torch, seed)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape, stride, offset", [
    ((3, 500), (1, 0), 0),        # an expanded dim: summed as torch's sum adds
    ((2, 700), (3, 0), 2),
    ((4, 3), (0, 1), 0),
    ((0, 3), (3, 1), 0),          # an empty piece: zeros, contiguous, version 1
    ((3, 0), (1, 1), 1),
    ((6,), (1,), 1),              # overlapping reads: index_add_
    ((2, 3), (1, 1), 0),
    ((12,), (1,), 0),
    ((2, 2), (5, 1), 1),
])
@pytest.mark.parametrize("base", ["contiguous", "transposed", "expanded", "empty"])
def test_as_strided_gradient_of_each_kind_of_base(base, shape, stride, offset, dtype):
    def gradient(m):
        rng = np.random.default_rng(0)
        leaf = m.tensor(rng.standard_normal((0, 3) if base == "empty" else
                                            (1, 3) if base == "expanded" else
                                            (3, 4) if base == "transposed" else (4, 3)),
                        dtype=getattr(m, dtype), requires_grad=True)
        x = {"transposed": lambda: leaf.t(), "expanded": lambda: leaf.expand(4, 3)}.get(
            base, lambda: leaf)()
        try:
            piece = x.as_strided(shape, stride, offset)
        except RuntimeError as error:  # (beyond an expanded base's storage: torch's words)
            return str(error)
        incoming = m.tensor(rng.standard_normal(shape), dtype=getattr(m, dtype))
        return [_facts(m.autograd.grad(piece, leaf, incoming, create_graph=cg)[0])
                for cg in (False, True)]

    assert gradient(engine) == gradient(torch)


def test_a_leaf_that_reads_its_places_twice_shares_their_gradient():
    """A leaf laid out with stride 0: each place's gradient divided by how often the leaf
    reads it (storage.div_(count): the result at version 2)."""
    def gradient(m):
        leaf = m.tensor([1.0, 2.0, 3.0]).expand(4, 3).detach().requires_grad_()
        piece = leaf.as_strided((2, 2), (1, 1))
        incoming = m.arange(4.0).reshape(2, 2)
        result, = m.autograd.grad(piece, leaf, incoming)
        return result.tolist(), tuple(result.stride()), result._version

    assert gradient(engine) == gradient(torch)


@pytest.mark.parametrize("shape", [(0, 1), (2, 1), (3, 2)])
def test_a_view_rewritten_after_a_refused_mark_dirty(shape):
    """fuzz 4720132: a custom Function marks a view of a leaf dirty (refused after add_
    wrote); the view's history becomes an AsStridedBackward0 of the leaf, and the
    create_graph gradient of its log_softmax comes through it: for an empty view, torch's
    zeros without a graph, at version 1."""
    def run(m):
        class AddOneInPlace(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.add_(1)

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output

        x = m.full(shape, -0.5, dtype=m.float64, requires_grad=True)
        z = x.flatten()
        refused = parity.outcome(m, "r = F.apply(z)", {"F": AddOneInPlace, "z": z})
        b = z.log_softmax(dim=0)
        c, = m.autograd.grad(b.sum(), x, create_graph=True)
        return refused, _facts(z), _facts(c), _node_tree(b.grad_fn)

    assert run(engine) == run(torch)
