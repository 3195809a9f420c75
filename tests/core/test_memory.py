"""Memory: backward frees the graph, training does not grow, deep graphs work.

Engine-only (no torch needed). Nothing here measures time.

* A graph is freed as soon as nothing refers to it: backward releases the saved
  tensors at once (unless ``retain_graph=True``), and dropping the output frees the
  nodes. The engine keeps no reference cycles in a graph (a node holds its output only
  as a detached alias, a leaf holds its AccumulateGrad node only weakly), so this
  happens by reference counting alone, with the cyclic garbage collector switched off.
* 10,000 steps of a small training loop leave the number of live tensors and nodes, and
  the memory Python has allocated, where the first steps left them.
* Graphs 100,000 operations deep run forward and backward (no RecursionError) with
  the exact gradient, and are freed without overflowing the C stack.
"""
import gc
import sys
import tracemalloc
import weakref

import pytest

import engine
from engine.core.node import Node


@pytest.fixture
def no_cyclic_gc():
    """Only reference counting frees objects during the test (cycles would stay)."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _live(kind):
    gc.collect()
    return sum(isinstance(o, kind) for o in gc.get_objects())


def _nodes_of(tensor):
    """Every node reachable from tensor.grad_fn (AccumulateGrad nodes included)."""
    seen, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and all(node is not s for s in seen):
            seen.append(node)
            stack.extend(n for n, _ in node.next_functions)
    return seen


# ====================================================================== freeing the graph
def test_backward_frees_saved_tensors_while_the_output_lives(no_cyclic_gc):
    x = engine.tensor([0.5, 1.0, 2.0], requires_grad=True)
    h = x.exp()          # saved by sin (its input) and by exp (its output)
    loss = h.sin().sum()
    saved = weakref.ref(h)
    del h
    assert saved() is not None  # the graph keeps it for backward
    loss.backward()
    assert saved() is None      # backward let go of it, though loss is still here
    assert loss.grad_fn is not None


def test_dropping_the_output_frees_every_node(no_cyclic_gc):
    x = engine.tensor([0.5, 1.0, 2.0], requires_grad=True)
    w = engine.tensor([1.0, -1.0, 0.5], requires_grad=True)
    loss = ((x * w).tanh() + x.sigmoid() * 2).mean()
    nodes = [weakref.ref(n) for n in _nodes_of(loss)]
    assert len(nodes) >= 7
    loss.backward()
    del loss
    # the leaves' AccumulateGrad nodes too: a leaf refers to its node only weakly, as in torch
    assert all(n() is None for n in nodes)
    assert x.grad is not None and w.grad is not None


def test_a_leaf_used_in_a_graph_is_freed_when_dropped(no_cyclic_gc):
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    accumulator = x._grad_accumulator()
    assert (x * 2).grad_fn.next_functions[0][0] is accumulator  # one node while it lives
    leaf, node = weakref.ref(x), weakref.ref(accumulator)
    del x, accumulator
    assert leaf() is None and node() is None


def test_a_leafs_hook_survives_its_graphs():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda grad: grad * 10)
    gc.collect()
    (x * 2).sum().backward()  # a graph made after the hook, with no graph in between
    assert x.grad.tolist() == [20.0, 20.0]


def test_a_graph_that_is_never_backpropagated_is_freed_too(no_cyclic_gc):
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).exp().sum()
    node, saved = weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])
    del y
    assert node() is None and saved() is None


def test_retain_graph_keeps_saved_tensors_until_the_graph_goes(no_cyclic_gc):
    x = engine.tensor([0.5, 1.0], requires_grad=True)
    h = x.exp()
    loss = h.sin().sum()
    saved = weakref.ref(h)
    del h
    loss.backward(retain_graph=True)
    assert saved() is not None
    loss.backward()             # a second pass is allowed, and frees them
    assert saved() is None
    assert x.grad.tolist() == pytest.approx((2 * x.exp() * x.exp().cos()).tolist())


def test_autograd_grad_frees_the_graph_and_create_graph_keeps_it(no_cyclic_gc):
    x = engine.tensor([0.5, 1.0], requires_grad=True)
    h = x.exp()
    loss = h.sin().sum()
    saved = weakref.ref(h)
    del h
    (g,) = engine.autograd.grad(loss, x, create_graph=True)
    assert saved() is not None  # create_graph retains the graph by default
    (gg,) = engine.autograd.grad(g.sum(), x)
    del loss, g
    assert saved() is None


def test_hooks_and_retain_grad_do_not_keep_a_graph_alive(no_cyclic_gc):
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda grad: grad * 1)
    loss = (y * y).sum()
    nodes = [weakref.ref(n) for n in _nodes_of(loss) if type(n).__name__ != "AccumulateGrad"]
    loss.backward()
    grad = y.grad
    del y, loss
    assert all(n() is None for n in nodes)
    assert grad.tolist() == [4.0, 8.0]


def test_an_optimizer_step_keeps_no_graph(no_cyclic_gc):
    engine.manual_seed(0)
    model = engine.nn.Linear(3, 1)
    optimizer = engine.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = model(engine.ones(4, 3)).pow(2).mean()
    nodes = [weakref.ref(n) for n in _nodes_of(loss) if type(n).__name__ != "AccumulateGrad"]
    loss.backward()
    optimizer.step()
    del loss
    assert all(n() is None for n in nodes)
    assert model.weight.grad.grad_fn is None and not model.weight.grad.requires_grad
    momentum = optimizer.state[model.weight]["momentum_buffer"]
    assert momentum.grad_fn is None and not momentum.requires_grad


# ====================================================================== no growth
def _training_steps(model, optimizer, inputs, targets, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        loss = engine.nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
    return loss.item()


@pytest.mark.slow
def test_ten_thousand_training_steps_do_not_grow():
    engine.manual_seed(0)
    model = engine.nn.Linear(3, 1)
    optimizer = engine.optim.SGD(model.parameters(), lr=0.05)
    inputs = engine.randn(8, 3)
    targets = inputs @ engine.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    first_loss = _training_steps(model, optimizer, inputs, targets, 1000)  # warm up caches
    tracemalloc.start()
    try:
        counts = [(_live(engine.Tensor), _live(Node))]
        memory = [tracemalloc.get_traced_memory()[0]]
        for _ in range(3):
            last_loss = _training_steps(model, optimizer, inputs, targets, 3000)
            counts.append((_live(engine.Tensor), _live(Node)))
            memory.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert last_loss < first_loss / 100  # it did train
    assert counts[1] == counts[2] == counts[3], counts  # not one more tensor or node
    # the later thirds allocate nothing that stays (a few kB of noise: interned ints ...)
    assert memory[3] - memory[1] < 20_000, memory


# ====================================================================== deep graphs
DEPTH = 100_000


@pytest.mark.slow
def test_a_graph_100000_ops_deep_backpropagates_exactly():
    x = engine.tensor([1.5, -2.0], requires_grad=True)
    y = x
    for i in range(DEPTH):  # * 2 then * 0.5: exact in binary, the gradient is exactly 1
        y = y * (2.0 if i % 2 == 0 else 0.5)
    y = y.sin().sum()
    y.backward()
    assert x.grad.tolist() == x.detach().cos().tolist()
    assert sys.getrecursionlimit() <= 100_000  # (no raised recursion limit did it)


@pytest.mark.slow
def test_a_graph_100000_ops_deep_works_with_autograd_grad_and_views():
    x = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x
    for i in range(DEPTH // 2):  # transposes and adds: views and arithmetic in turn
        y = y.t() + (1.0 if i % 2 == 0 else -1.0)
    (grad,) = engine.autograd.grad((y * y).sum(), x)
    assert grad.tolist() == (2 * x.detach()).tolist()


@pytest.mark.slow
def test_a_deep_graph_that_is_never_backpropagated_is_freed(no_cyclic_gc):
    x = engine.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(DEPTH):
        y = y + 1.0
    first = weakref.ref(y.grad_fn)
    del y  # freeing 100,000 nested nodes must not overflow the C stack
    assert first() is None


@pytest.mark.slow
def test_a_leaf_used_100000_times_gets_every_gradient():
    x = engine.tensor(0.5, requires_grad=True)
    y = engine.zeros(())
    for _ in range(DEPTH):  # fan-in: one leaf, 100,000 uses
        y = y + x
    y.backward()
    assert x.grad.item() == DEPTH
