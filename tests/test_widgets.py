"""engine.widgets: the backward stepper's state machine and the descent playground."""
import numpy as np
import pytest

import engine as torch
from engine.widgets import (BackwardStepper, BackwardSteps, DescentPlayground,
                            descent_path)


def article_graph():
    """``y = (x + w) * (w + 1)``, summed: the articles' running example."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = ((x + w) * (w + 1)).sum()
    return {"x": x, "w": w, "y": y}, y, (x, w)


def shared_input():
    """One leaf used by three ops (its gradients add up)."""
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * x + x.exp() * 3 - x.sin()).sum()
    return {"x": x, "y": y}, y, (x,)


def retained_chain():
    """A chain whose middle tensors retain their grad."""
    a = torch.tensor([1.0, -2.0], requires_grad=True)
    b = a * 3
    b.retain_grad()
    c = b.tanh()
    c.retain_grad()
    y = (c * c).sum()
    return {"a": a, "b": b, "c": c, "y": y}, y, (a, b, c)


GRAPHS = [article_graph, shared_input, retained_chain]


def reference_grads(make):
    """The .grad values that ``backward()`` gives on a fresh copy of the graph."""
    names, y, tracked = make()
    y.backward()
    return [t.grad.numpy().copy() for t in tracked]


@pytest.mark.parametrize("make", GRAPHS)
def test_stepping_to_the_end_gives_backwards_grads(make):
    expected = reference_grads(make)
    names, y, tracked = make()
    steps = BackwardSteps(y, names=names)
    assert steps.position == 0
    assert all(steps.grad_of(t) is None for t in tracked)
    while steps.position < len(steps):
        steps.step()
    for tensor, grad in zip(tracked, expected):
        np.testing.assert_array_equal(steps.grad_of(tensor), grad)
    assert steps.step() == len(steps)  # stepping past the end stays at the end
    # the graph and the tensors are untouched: the real backward still runs, same result
    assert all(t._grad is None for t in tracked)
    y.backward()
    for tensor, grad in zip(tracked, expected):
        np.testing.assert_array_equal(tensor.grad.numpy(), grad)


def test_article_graph_order_and_states():
    names, y, (x, w) = article_graph()
    steps = BackwardSteps(y, names=names)
    # torch's order: the most recent node first, a leaf as soon as its gradient is complete
    assert steps.order == ["SumBackward0", "MulBackward0", "AddBackward0", "AddBackward0",
                           "AccumulateGrad(x)", "AccumulateGrad(w)"]
    steps.goto(2)
    state = steps.state
    assert state["node"] == "MulBackward0"
    assert state["freed"] == ["MulBackward0"]
    np.testing.assert_array_equal(state["sent"][0], [4.0, 5.0])   # d/d(x + w) = w + 1
    np.testing.assert_array_equal(state["sent"][1], [4.0, 6.0])   # d/d(w + 1) = x + w
    assert state["grads"] == {"x": None, "w": None}
    steps.goto(5)
    np.testing.assert_array_equal(steps.state["grads"]["x"], [4.0, 5.0])
    assert steps.state["grads"]["w"] is None  # w's two gradients are summed before it runs
    steps.end()
    np.testing.assert_array_equal(steps.state["grads"]["w"], [8.0, 11.0])


def test_back_and_reset():
    names, y, (x, w) = article_graph()
    steps = BackwardSteps(y, names=names)
    assert steps.back() == 0  # not below the start
    for _ in range(4):
        steps.step()
    assert steps.position == 4
    before = steps.describe()
    steps.step()
    assert steps.back() == 4 and steps.describe() == before
    assert steps.reset() == 0
    assert steps.state["node"] is None and steps.state["grads"] == {"x": None, "w": None}
    assert steps.goto(99) == len(steps) == 6


def test_retained_grads_fill_in_as_their_node_runs():
    names, y, (a, b, c) = retained_chain()
    steps = BackwardSteps(y, names=names)
    assert steps.names == ["a", "c", "b"]  # leaves, then retained tensors as backward meets them
    first_with = {name: next(k for k in range(len(steps) + 1)
                             if steps.grads_at(k)[name] is not None) for name in steps.names}
    # c's grad arrives when its grad_fn (TanhBackward0) runs, b's with MulBackward0, a's last
    assert first_with["c"] < first_with["b"] < first_with["a"] == len(steps)
    assert steps.order[first_with["c"] - 1] == "TanhBackward0"


def test_existing_grads_accumulate_and_are_restored():
    names, y, (x, w) = article_graph()
    x.grad = torch.tensor([10.0, 10.0])
    kept = x.grad
    steps = BackwardSteps(y, names=names)
    steps.end()
    np.testing.assert_array_equal(steps.grad_of(x), [14.0, 15.0])
    assert x.grad is kept
    np.testing.assert_array_equal(kept.numpy(), [10.0, 10.0])


def test_freed_graph_gives_a_clear_error():
    names, y, _ = article_graph()
    y.backward()
    with pytest.raises(RuntimeError, match="freed by an earlier"):
        BackwardSteps(y)


def test_pictures_highlight_and_label_each_step():
    names, y, (x, w) = article_graph()
    steps = BackwardSteps(y, names=names)
    start = steps.picture(0)
    assert [e.style for e in start.edges].count("active") == 1  # the output's gradient
    assert start.highlight == set()
    mul = steps.picture(2)
    current = next(box for box in mul.nodes if box.id in mul.highlight)
    assert current.label == "MulBackward0"
    assert sorted(e.label for e in mul.edges if e.style == "active") == ["[4., 5.]", "[4., 6.]"]
    assert [box.kind for box in mul.nodes].count("freed") == 2
    assert [e.style for e in mul.edges].count("freed") == 2
    end = steps.picture(len(steps))
    leaf_labels = [box.label for box in end.nodes if box.kind == "leaf"]
    assert leaf_labels == ["x\n(2,) float32\ngrad: [4., 5.]", "w\n(2,) float32\ngrad: [ 8., 11.]"]
    assert 'color=red' in end.source and "penwidth=3" in end.source


def test_stepper_widget_drives_the_model():
    names, y, (x, w) = article_graph()
    stepper = BackwardStepper(y, names=names)
    assert stepper.slider.max == stepper.play.max == 6
    stepper.step_button.click()
    stepper.step_button.click()
    assert stepper.position == stepper.slider.value == 2
    stepper.back_button.click()
    assert stepper.position == 1
    stepper.slider.value = 6  # what Play and dragging the slider do
    np.testing.assert_array_equal(stepper.state["grads"]["w"], [8.0, 11.0])
    assert "grad: [ 8., 11.]" in stepper.view.value and "<svg" in stepper.view.value
    stepper.reset_button.click()
    assert stepper.position == 0 and stepper.state["grads"]["x"] is None


def test_static_fallbacks_are_deterministic():
    bundles = []
    for _ in range(2):
        names, y, _ = article_graph()
        stepper = BackwardStepper(y, names=names)
        stepper.goto(3)
        bundle = stepper._repr_mimebundle_()
        playground = DescentPlayground("quadratic")
        bundles.append((bundle["text/plain"], playground._repr_mimebundle_()["text/plain"]))
        assert "image/svg+xml" in bundle
        assert "image/png" in playground._repr_mimebundle_()
    assert bundles[0] == bundles[1]
    assert bundles[0][0] == ("Backward step 3/6: AddBackward0 got [4., 6.], sent [4., 6.]; "
                             "x.grad=None, w.grad=None")
    assert "0x" not in "".join(bundles[0])
    assert bundles[0][1] == ("Gradient descent on quadratic: lr=0.15, 30 steps from (-1.8, 1): "
                             "loss 6.62 -> 9.433e-05 at (-0.01374, 9.313e-10)")


def hand_written_sgd(start, lr, steps):
    """Gradient descent on x²/2 + 5y² with the gradient (x, 10y) written by hand."""
    point = np.array(start, dtype=np.float64)
    path = [point.copy()]
    for _ in range(steps):
        point = point - lr * np.array([point[0], 10 * point[1]])
        path.append(point.copy())
    return np.array(path)


@pytest.mark.parametrize("lr", [0.01, 0.15, 0.19])
def test_playground_path_matches_hand_written_sgd(lr):
    playground = DescentPlayground("quadratic", start=(-1.8, 1.0), lr=lr, steps=25)
    expected = hand_written_sgd((-1.8, 1.0), lr, 25)
    np.testing.assert_allclose(playground.path, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(playground.losses,
                               expected[:, 0] ** 2 / 2 + 5 * expected[:, 1] ** 2, rtol=1e-12)
    playground.update(lr=0.05, start=(1.0, -0.5))  # what the sliders do
    np.testing.assert_allclose(playground.path, hand_written_sgd((1.0, -0.5), 0.05, 25),
                               rtol=1e-12)


def test_playground_sliders_and_divergence():
    playground = DescentPlayground("quadratic", steps=10)
    playground.steps_slider.value = 5
    assert len(playground.path) == 6
    path, losses = descent_path(lambda x: x ** 2, (1.0,), lr=1.5, steps=100, limit=1e3)
    assert len(path) < 101 and abs(path[-1, 0]) > 1e3  # stopped: it diverged
    one_d = DescentPlayground(lambda x: (x - 1) ** 2, start=(3.0,), lr=0.25, steps=20)
    assert one_d.path.shape == (21, 1) and abs(one_d.path[-1, 0] - 1) < 1e-5
    assert "diverged" in DescentPlayground(lambda x: x ** 2, start=(1.0,), lr=3.0,
                                           steps=50).summary()
    with pytest.raises(ValueError, match="unknown loss"):
        DescentPlayground("himmelblau")
