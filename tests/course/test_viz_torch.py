"""engine.viz on real PyTorch tensors: the same computation gives the same picture.

Each test builds one computation twice, with ``build(engine)`` and ``build(torch)``, draws
both and compares what nbval and compare-torch see: the text/plain summary, the text
drawing and the DOT source. Skipped without torch (``make oracle`` installs it).
"""
import shutil

import numpy as np
import pytest

import engine
import engine.viz as viz

import lesson_graphs


def pictures(torch, build, draw):
    """``draw(build(lib))`` for the engine and for torch, from the same random seed."""
    drawn = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        drawn.append(draw(build(lib)))
    return drawn


def assert_same(torch, build, draw):
    on_engine, on_torch = pictures(torch, build, draw)
    assert repr(on_torch) == repr(on_engine)
    assert on_torch.text == on_engine.text
    assert on_torch.source == on_engine.source
    return on_engine


# ---------------------------------------------------------------- graphs
def article(lib):
    """``y = (x + w) * (w + 1)``, the lessons' running example (lessons 5 and 9)."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0], requires_grad=True)
    a = x + w
    b = w + 1
    y = a * b
    return dict(x=x, w=w, a=a, b=b, y=y)


@pytest.mark.parametrize("names", [True, False])
def test_article_graph_with_saved_tensors(torch_or_skip, names):
    picture = assert_same(torch_or_skip, article, lambda t: viz.draw_graph(
        t["y"], names=t if names else None, show_saved=True))
    assert [e.label for e in picture.edges if e.style == "dashed"] == ["_saved_self",
                                                                        "_saved_other"]


def test_article_graph_values_and_grads_after_backward(torch_or_skip):
    def build(lib):
        found = article(lib)
        found["y"].sum().backward(retain_graph=True)
        return found

    picture = assert_same(torch_or_skip, build, lambda t: viz.draw_graph(
        t["y"], names=t, show_saved=True, show_values=True, show_grads=True))
    assert "x | (2,) float32 | [1., 2.] | grad: [4., 5.]" in picture.text


def test_saved_tensors_are_gone_after_backward(torch_or_skip):
    def build(lib):
        found = article(lib)
        found["y"].sum().backward()  # frees what the nodes saved
        return found

    picture = assert_same(torch_or_skip, build,
                          lambda t: viz.draw_graph(t["y"], names=t, show_saved=True))
    assert not [e for e in picture.edges if e.style == "dashed"]


def test_saved_output_is_its_own_box(torch_or_skip):
    """sigmoid saves its result: a detached alias of ``out``, drawn as a box of its own."""
    def build(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        return dict(a=a, out=a.sigmoid())

    picture = assert_same(torch_or_skip, build, lambda t: viz.draw_graph(
        t["out"], names=t, show_saved=True, show_values=True, show_attrs=True))
    assert "_saved_result -- [saved] (3,) float32 | [0.7311, 0.8808, 0.9526]" in picture.text
    assert "requires_grad=False is_leaf=True | retains_grad=False _version=0" in picture.text


def test_saved_tensor_changed_in_place(torch_or_skip):
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = x * 2
        y = b * b
        with lib.no_grad():
            b.add_(1)
        return dict(x=x, b=b, y=y)

    picture = assert_same(torch_or_skip, build,
                          lambda t: viz.draw_graph(t["y"], names=t, show_saved=True))
    assert [e.label for e in picture.edges if "changed in place" in (e.label or "")] == [
        "_saved_other\nchanged in place since:\n_version 0 -> 1",
        "_saved_self\nchanged in place since:\n_version 0 -> 1"]


def test_saved_output_changed_through_a_detached_alias(torch_or_skip):
    """Lesson 7: ``out.detach().zero_()`` changes what SigmoidBackward0 saved."""
    def build(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = a.sigmoid()
        out.detach().zero_()
        return dict(a=a, out=out)

    picture = assert_same(torch_or_skip, build,
                          lambda t: viz.draw_graph(t["out"], names=t, show_saved=True))
    assert "_saved_result changed in place since: _version 0 -> 1" in picture.text


def test_a_number_saved_as_a_tensor_is_a_number(torch_or_skip):
    """torch keeps the 2 of ``x * 2`` as a 0-d tensor; the engine as 2: no box, ``other: 2``."""
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        return dict(x=x, y=x * 2, z=x / 2.5)

    picture = assert_same(torch_or_skip, build, lambda t: viz.draw_graph(
        t["y"], t["z"], names=t, show_saved=True, show_attrs=True))
    assert "MulBackward0 | other: 2" in picture.text
    assert "DivBackward0 | other: 2.5" in picture.text
    assert not [box for box in picture.nodes if box.kind == "saved"]


def test_retain_grad_graph(torch_or_skip):
    def build(lib):
        x = lib.tensor([2.0], requires_grad=True)
        a = x * 3
        a.retain_grad()
        b = a.exp()
        b.retain_grad()
        c = b.sum()
        c.backward()
        return dict(x=x, a=a, b=b, c=c)

    picture = assert_same(torch_or_skip, build, lambda t: viz.draw_graph(
        t["c"], names=t, show_grads=True, show_saved=True))
    assert [box.label.split("\n")[0] for box in picture.nodes if box.kind == "retained"] == [
        "b", "a"]


def test_an_unnamed_retained_tensor_is_drawn_only_by_the_engine(torch_or_skip):
    """torch's nodes do not point at the tensors that retain their grad: name them."""
    def build(lib):
        x = lib.tensor([2.0], requires_grad=True)
        a = x * 3
        a.retain_grad()
        return dict(x=x, a=a, y=a.exp())

    unnamed = pictures(torch_or_skip, build,
                       lambda t: viz.draw_graph(t["y"], names={"x": t["x"]}))
    assert [repr(p) for p in unnamed] == [
        "Graph: 5 nodes, 4 edges: ExpBackward0, MulBackward0; leaves: x",
        "Graph: 4 nodes, 3 edges: ExpBackward0, MulBackward0; leaves: x"]
    assert_same(torch_or_skip, build, lambda t: viz.draw_graph(t["y"], names=t))


def test_clone_and_copies_graph(torch_or_skip):
    """Lesson 4: clone() stays in the graph, detach() leaves it."""
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        c = x.clone()
        d = x.detach()
        return dict(x=x, c=c, d=d, y=c * d + x.clone().detach())

    assert_same(torch_or_skip, build,
                lambda t: viz.draw_graph(t["y"], names=t, show_saved=True, show_attrs=True))


def test_linear_make_dot(torch_or_skip):
    def build(lib):
        model = lib.nn.Linear(3, 1)
        out = model(lib.ones(2, 3)).sum()
        return dict(model=model, out=out)

    picture = assert_same(torch_or_skip, build, lambda t: viz.make_dot(
        t["out"], params=dict(t["model"].named_parameters())))
    assert repr(picture) == ("Graph: 6 nodes, 5 edges: SumBackward0, AddmmBackward0, "
                             "TBackward0; leaves: bias, weight")
    assert_same(torch_or_skip, build, lambda t: viz.make_dot(
        t["out"], params=dict(t["model"].named_parameters()), show_saved=True))


def test_several_roots_views_and_highlight(torch_or_skip):
    def build(lib):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        row = x[1]
        z = (row * x.t()[:, 0]).sum()
        return dict(x=x, row=row, z=z, twice=x * 2)

    def draw(t):
        return viz.draw_graph(t["z"], t["twice"], t["x"], names=t, show_saved=True,
                              highlight=[t["z"].grad_fn, t["x"]])

    picture = assert_same(torch_or_skip, build, draw)
    assert len(picture.highlight) == 2


def test_locals_with_modules_and_classes_are_fine(torch_or_skip):
    def build(lib):
        x = lib.ones(2, requires_grad=True)
        return dict(x=x, out=(x * 2).sum(), lib=lib, Tensor=lib.Tensor, layer=lib.nn.Linear(2, 1),
                    picture=viz.draw_memory(x=x), n=3)

    assert_same(torch_or_skip, build, lambda t: viz.draw_graph(t["out"], names=t))


def test_a_torch_tensor_does_not_need_a_graph(torch_or_skip):
    picture = viz.draw_graph(torch_or_skip.ones(2))
    assert repr(picture) == "Graph: 1 nodes, 0 edges: no ops; leaves: none"
    with pytest.raises(TypeError, match="draw_graph"):
        viz.draw_graph([1, 2])


# ---------------------------------------------------------------- memory
def copies(lib):
    """The gallery's and lesson 4's tensors: =, clone, detach, views, numpy."""
    a = lib.arange(6.0).reshape(2, 3).requires_grad_()
    return dict(a=a, b=a, c=a.clone(), d=a.detach(), e=a.clone().detach(), v=a.view(3, 2),
                n=a.detach().numpy())


def test_clone_detach_memory(torch_or_skip):
    picture = assert_same(torch_or_skip, copies, lambda t: viz.draw_memory(**t))
    assert repr(picture) == "Memory: 3 storages: storage 0: a = b, d, v, n | storage 1: c | " \
                            "storage 2: e"


def test_views_offsets_and_versions_memory(torch_or_skip):
    def build(lib):
        z = lib.arange(12.0).reshape(3, 4)
        col = z[:, 1]
        z.add_(1)
        n = z.numpy()
        return dict(z=z, col=col, t=z.t(), tail=z.view(-1)[5:], clone=z.clone(), n=n,
                    half=n[1:], own=np.zeros(3))

    picture = assert_same(torch_or_skip, build, lambda t: viz.draw_memory(**t))
    assert "shape (3,)\nstride (4,)\noffset 1" in [e.label for e in picture.edges]
    assert "_version=1" in picture.nodes[1].label


def test_lesson_memory_pictures(torch_or_skip):
    def build(lib):
        weight = lib.nn.Linear(2, 2).weight
        w = weight.detach()
        out = lib.tensor([1.0, 2.0], requires_grad=True).sigmoid()
        return dict(weight=weight, w=w, backup=w.clone(), out=out, c=out.detach(),
                    big=lib.zeros(1000), ints=lib.arange(5), flags=lib.tensor([True, False]))

    assert_same(torch_or_skip, build, lambda t: viz.draw_memory(**t))


def test_memory_rejects_other_values(torch_or_skip):
    with pytest.raises(TypeError, match="draw_memory"):
        viz.draw_memory(a=torch_or_skip.ones(2), b=[1, 2])


# ---------------------------------------------------------------- sizes
lesson_06_cat = lesson_graphs.two_outputs_cat  # lesson 6's graph, the widest of the lessons


def lesson_03_indexing(lib):
    """Lesson 3's widest memory picture."""
    x = lib.arange(12).reshape(3, 4)
    row = x[0]
    picked = x[[0]]
    row[0] = 100
    picked[0, 1] = -1
    return dict(x=x, row=row, picked=picked)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("build, draw", [
    (lesson_06_cat, lambda t: viz.draw_graph(t["loss"], names=t)),
    (lesson_03_indexing, lambda t: viz.draw_memory(**t))], ids=["graph", "memory"])
def test_the_widest_lesson_pictures_fit_on_torch_too(torch_or_skip, build, draw):
    """The same source gives the same SVG: the legend column and the fit to a notebook's
    output area are the same for torch tensors."""
    on_engine, on_torch = pictures(torch_or_skip, build, draw)
    assert on_torch.source == on_engine.source
    assert on_torch._repr_svg_() == on_engine._repr_svg_()
    assert viz.svg_size(on_torch._repr_svg_())[0] <= viz.MAX_WIDTH_PX


def test_a_graph_too_big_to_draw_is_the_same_summary_on_torch(torch_or_skip):
    """A loop-built graph of 500 products of one leaf: the same boxes, the same layout cost,
    so torch's picture is the same one-box summary."""
    def build(lib):
        x = lib.ones(3, requires_grad=True)
        y = x
        for _ in range(500):
            y = y * x
        return y

    on_engine = assert_same(torch_or_skip, build, viz.draw_graph)
    on_torch = viz.draw_graph(build(torch_or_skip))
    assert on_torch.too_big() == on_engine.too_big() == 125252
