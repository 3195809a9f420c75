"""engine.widgets: the backward stepper's state machine and the descent playground."""
import re
import shutil
from pathlib import Path

import ipywidgets as widgets
import nbformat
import numpy as np
import pytest

import engine as torch
import engine.viz as viz
from engine.widgets import (NBSP, BackwardStepper, BackwardSteps, DescentPlayground,
                            descent_path)

import lesson_graphs


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
ROOT = Path(__file__).resolve().parents[2]


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


def test_each_step_names_the_hooks_that_ran_with_its_node_in_their_order():
    """Lesson 12's stepper: the hooks fire as in a real backward (the same calls, the same
    order), and each step says which kinds ran with its node."""
    fired = []
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    h.retain_grad()
    h.register_hook(lambda g: fired.append("tensor h"))
    h.grad_fn.register_prehook(lambda grads: fired.append("pre"))
    h.grad_fn.register_hook(lambda sent, received: fired.append("post"))
    w.register_hook(lambda g: fired.append("tensor w"))
    w.register_post_accumulate_grad_hook(lambda leaf: fired.append("post-accumulate w"))
    y = h.sum()
    steps = BackwardSteps(y, names={"w": w, "h": h, "y": y})
    assert fired == ["tensor h", "pre", "post", "tensor w", "post-accumulate w"]
    assert [step.hooks for step in steps.steps] == [
        [], ["tensor hook", "retain_grad", "pre-hook", "post-hook"],
        ["tensor hook", "post-accumulate hook"]]
    steps.goto(2)
    assert steps.state["hooks"] == ["tensor hook", "retain_grad", "pre-hook", "post-hook"]
    assert "hooks: tensor hook, retain_grad, pre-hook, post-hook" in steps.describe()
    steps.goto(1)
    assert steps.state["hooks"] == [] and "hooks" not in steps.describe()
    fired.clear()
    y.backward()  # the stepper kept the graph and put every .grad back
    assert fired == ["tensor h", "pre", "post", "tensor w", "post-accumulate w"]
    assert w.grad.tolist() == [3.0, 3.0] and h.grad.tolist() == [1.0, 1.0]


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


# ---------------------------------------------------------------- what the learner sees
def saved_h():
    """Lesson 6's ``y = h * h``: MulBackward0 saves ``h`` (a named tensor) twice."""
    x = torch.tensor(3.0, requires_grad=True)
    h = x + 1
    y = h * h
    return {"x": x, "h": h, "y": y}, y


def kind_of(picture, name):
    return next(box.kind for box in picture.nodes if box.label.split("\n")[0] == name)


@pytest.mark.parametrize("backward_after", [False, True])
def test_saved_tensors_turn_grey_once_their_node_ran(backward_after):
    """Lesson 6 and the gallery: "the saved h turns grey". It did not when the lesson called
    y.backward() after showing the stepper: that backward frees what the nodes saved, and
    the stepper looked at the nodes again, found nothing saved, and left h orange."""
    names, y = saved_h()
    steps = BackwardSteps(y, names=names)
    if backward_after:
        y.backward()
    assert [kind_of(steps.picture(k), "h") for k in range(len(steps) + 1)] == [
        "saved", "freed", "freed", "freed"]
    assert steps.order[0] == "MulBackward0"
    steps.end()
    assert steps.state["freed"] == ["MulBackward0"]
    assert "MulBackward0 got 1., sent 4., 4., freed its saved tensors" in steps.describe_at(1)
    assert [e.style for e in steps.picture().edges if "_saved_" in e.label] == ["freed"] * 2


def test_freed_is_grey():
    style = viz.STYLES["freed"][1]
    assert "filled" in style["style"] and style["fillcolor"].startswith("grey")
    assert viz.STYLES["saved"][1]["fillcolor"] == "orange"


@pytest.mark.parametrize("make", GRAPHS + [saved_h])
def test_the_legend_stays_the_same_at_every_step(make):
    """It used to grow as kinds appeared (grad_fn node, ran; saved, freed), and with it the
    picture. One legend: every kind drawn at any step, and only those."""
    names, y = make()[:2]
    steps = BackwardSteps(y, names=names)
    legends = {tuple(steps.picture(k).legend) for k in range(len(steps) + 1)}
    assert legends == {tuple(steps.legend)}
    drawn = {box.kind for k in range(len(steps) + 1) for box in steps.picture(k).nodes}
    assert set(steps.legend) == drawn
    assert {"op", "ran"} <= drawn


def lesson_09_graph():
    """Lesson 9's stepper: ``y = (w + x) * (w + 1)`` on one-element tensors."""
    names = lesson_graphs.course_graph(torch)
    return names, names["y"]


def gallery_graph():
    """The gallery's stepper: the same on scalars, with the saved a and b named."""
    names = lesson_graphs.gallery_graph(torch)
    return names, names["y"]


@pytest.mark.parametrize("make", GRAPHS + [saved_h, lesson_09_graph, gallery_graph])
def test_every_step_labels_as_big_as_the_biggest(make):
    """Labels are padded (invisible spaces) to their size at their biggest step, so that
    Graphviz lays out every step alike: the picture does not jump as backward runs. The
    text drawing (no Graphviz) has no padding."""
    names, y = make()[:2]
    steps = BackwardSteps(y, names=names)
    shapes = {(tuple(len(box.label.split("\n")) for box in steps.picture(k).nodes),
               tuple(max(map(len, box.label.split("\n"))) for box in steps.picture(k).nodes),
               tuple(len(e.label.split("\n")) if e.label else 0 for e in steps.picture(k).edges),
               tuple(max(map(len, e.label.split("\n"))) if e.label else 0
                     for e in steps.picture(k).edges))
              for k in range(len(steps) + 1)}
    assert len(shapes) == 1
    assert all(NBSP not in steps.picture(k).text for k in range(len(steps) + 1))
    start = steps.picture(0)
    active = [e.label for e in start.edges if e.style == "active"]
    assert active in (["1."], ["[1.]"])  # the output's gradient, the only one known yet
    assert all(set(e.label) <= {NBSP, "\n"} for e in start.edges
               if e.style == "solid" and e.label)  # gradients not sent yet: blank


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("make", [saved_h, lesson_09_graph, gallery_graph, article_graph])
def test_the_lesson_steppers_keep_their_size_and_fit_a_notebook(make):
    """Lessons 6 and 9 and the gallery: the same size at every step, legend included."""
    names, y = make()[:2]
    steps = BackwardSteps(y, names=names)
    sizes = {viz.svg_size(steps.picture(k)._repr_svg_()) for k in range(len(steps) + 1)}
    assert len(sizes) == 1
    assert next(iter(sizes))[0] <= viz.MAX_WIDTH_PX


def test_step_is_disabled_at_the_end_and_back_enables_it():
    names, y, _ = article_graph()
    stepper = BackwardStepper(y, names=names)
    assert not stepper.step_button.disabled
    assert stepper.back_button.disabled and stepper.reset_button.disabled  # at step 0
    for _ in range(len(stepper.model)):
        stepper.step_button.click()
    assert stepper.position == 6 and stepper.step_button.disabled
    assert not stepper.back_button.disabled and not stepper.reset_button.disabled
    stepper.back_button.click()
    assert stepper.position == 5 and not stepper.step_button.disabled
    stepper.end()
    assert stepper.step_button.disabled
    stepper.reset_button.click()
    assert not stepper.step_button.disabled and stepper.back_button.disabled
    stepper.slider.value = 6  # Play and the slider disable it too
    assert stepper.step_button.disabled


def test_play_is_a_labelled_button():
    """ipywidgets' Play shows icons only: a Button labelled Play (Pause while playing)
    starts and pauses it; the Play widget itself is hidden, its timer runs in the browser."""
    names, y, _ = article_graph()
    stepper = BackwardStepper(y, names=names)
    controls = stepper.children[0].children
    assert [c.description for c in controls if isinstance(c, widgets.Button)] == [
        "Reset", "Back", "Step", "Play"]
    assert stepper.play.layout.display == "none"
    stepper.play_button.click()
    assert stepper.play.playing and stepper.play_button.description == "Pause"
    stepper.play.playing = False  # what the browser sends at the last step
    assert stepper.play_button.description == "Play" and stepper.play_button.icon == "play"
    stepper.toggle_play()
    stepper.toggle_play()
    assert not stepper.play.playing


def test_gallery_stepper_is_at_step_0_after_run_all():
    """The gallery drives a BackwardSteps from code, not the widget it shows."""
    gallery = nbformat.read(ROOT / "notebooks" / "99_gallery.ipynb", as_version=4)
    code = [cell for cell in gallery.cells if cell.cell_type == "code"]
    shown = next(i for i, cell in enumerate(code) if "BackwardStepper(" in cell.source)
    name = re.search(r"(\w+) = BackwardStepper\(", code[shown].source).group(1)
    moves = re.compile(rf"\b{name}\.(goto|step|back|reset|end|slider|play)\b")
    assert not [cell.source for cell in code[shown:] if moves.search(cell.source)]
    fallback = [output["data"]["text/plain"] for output in code[shown].outputs
                if "data" in output]
    assert fallback and fallback[0].startswith("Backward step 0/")


# ---------------------------------------------------------------- the descent playground
PLAIN_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")


@pytest.mark.parametrize("settings", [dict(loss="quadratic"), dict(loss="rosenbrock"),
                                      dict(loss="quadratic", lr=0.19),
                                      dict(loss=lambda x: x ** 2, start=(1.0,), lr=0.02)])
def test_the_learning_rate_slider_reads_as_written(settings):
    """Logarithmic, over round numbers, each read as written: "0.001", not "0.0010", "0.00"
    or "1e-03"."""
    playground = DescentPlayground(**settings)
    slider = playground.lr_slider
    labels = [label for label, _ in slider.options]
    values = [value for _, value in slider.options]
    assert all(PLAIN_NUMBER.fullmatch(label) and float(label) == value
               for label, value in slider.options), labels
    assert "0.001" in labels and "0.0001" == labels[0] and "1" == labels[-1]
    assert all(1 < b / a <= 2 for a, b in zip(values, values[1:]))  # a logarithmic scale
    assert slider.value == playground.model.lr and slider.label == f"{slider.value:g}"
    slider.value = 0.05  # what moving it does
    assert playground.model.lr == 0.05 and "lr=0.05" in playground.summary()


def test_rosenbrock_reaches_the_minimum_as_the_gallery_says():
    """"The first 1,000 only reach the valley floor; slide steps to 10,000 and the walk
    arrives" at (1, 1); "0.003 already blows up". (Before: 300 steps at lr 0.001 and a
    slider that ended at 1,200 steps, at (-0.369, 0.1428).)"""
    playground = DescentPlayground("rosenbrock")
    assert playground.summary() == (
        "Gradient descent on rosenbrock: lr=0.0015, 1000 steps from (-1.5, 2): "
        "loss 12.5 -> 0.2347 at (0.5162, 0.264)")
    assert playground.steps_slider.max == 10_000
    playground.steps_slider.value = playground.steps_slider.max
    np.testing.assert_allclose(playground.path[-1], [1.0, 1.0], atol=0.003)
    assert playground.losses[-1] < 1e-5
    playground.lr_slider.value = 0.003
    assert "diverged" in playground.summary()
