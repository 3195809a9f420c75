"""engine.viz: pictures of backward graphs and of shared memory (no torch needed)."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import engine as torch
import engine.viz as viz

import lesson_graphs

ROOT = Path(__file__).resolve().parents[2]
HAS_DOT = shutil.which("dot") is not None


def labels(picture, kind):
    """First label line (name, or op name) of the boxes of one kind, in drawing order."""
    return [box.label.split("\n")[0] for box in picture.nodes if box.kind == kind]


def edge_names(picture, style="solid"):
    """Edges as (tail label, head label) pairs: what points at what."""
    first = {box.id: box.label.split("\n")[0] for box in picture.nodes}
    return [(first[e.tail], first[e.head]) for e in picture.edges if e.style == style]


def article_graph():
    """``y = (x + w) * (w + 1)``, the articles' running example."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x + w) * (w + 1)
    return x, w, y


# ---------------------------------------------------------------- graph structure
def test_article_graph_nodes_and_edges():
    x, w, y = article_graph()
    picture = viz.draw_graph(y, names={"x": x, "w": w, "y": y})
    assert [box.id for box in picture.nodes] == [f"n{i}" for i in range(6)]
    assert labels(picture, "root") == ["y"]
    assert labels(picture, "op") == ["MulBackward0", "AddBackward0", "AddBackward0"]
    assert labels(picture, "leaf") == ["x", "w"]
    assert edge_names(picture) == [("y", "MulBackward0"), ("MulBackward0", "AddBackward0"),
                                   ("MulBackward0", "AddBackward0"), ("AddBackward0", "x"),
                                   ("AddBackward0", "w"), ("AddBackward0", "w")]
    assert repr(picture) == ("Graph: 6 nodes, 6 edges: MulBackward0, AddBackward0 x2; "
                             "leaves: x, w")
    assert "(2,) float32" in picture.nodes[0].label


def test_legend_lists_the_kinds_drawn():
    x, w, y = article_graph()
    picture = viz.draw_graph(y, show_saved=True)
    assert picture.legend == ["root", "leaf", "op", "saved"]
    assert "subgraph cluster_legend" in picture.source
    assert 'legend_saved [label="saved for backward"' in picture.source


def test_saved_tensors_and_values():
    x, w, y = article_graph()
    y.sum().backward(retain_graph=True)
    picture = viz.draw_graph(y, names={"x": x, "w": w}, show_saved=True, show_values=True,
                             show_grads=True, show_attrs=True)
    saved = [(e.label, e.style) for e in picture.edges if e.style == "dashed"]
    assert saved == [("_saved_self", "dashed"), ("_saved_other", "dashed")]
    assert len(labels(picture, "saved")) == 2
    leaf_x = next(box for box in picture.nodes if box.label.startswith("x\n"))
    assert leaf_x.label.split("\n")[1:] == [
        "(2,) float32", "[1., 2.]", "grad: [4., 5.]",
        "requires_grad=True is_leaf=True", "retains_grad=False _version=0"]
    assert "AddBackward0\nalpha: 1" in [box.label for box in picture.nodes]


def test_saved_tensor_changed_in_place_is_flagged():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    y = b * b
    with torch.no_grad():
        b.add_(1)
    picture = viz.draw_graph(y, names={"b": b}, show_saved=True)
    flagged = [e.label for e in picture.edges if "changed in place" in (e.label or "")]
    assert flagged == ["_saved_other\nchanged in place since:\n_version 0 -> 1",
                       "_saved_self\nchanged in place since:\n_version 0 -> 1"]  # sorted


def test_shared_input_is_one_leaf_box():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x + x.exp()
    picture = viz.draw_graph(y, names={"x": x})
    assert labels(picture, "leaf") == ["x"]
    assert labels(picture, "op") == ["AddBackward0", "MulBackward0", "ExpBackward0"]
    into_x = [pair for pair in edge_names(picture) if pair[1] == "x"]
    # x * x sends two gradients into x: two arrows, as in torchviz
    assert into_x == [("MulBackward0", "x"), ("MulBackward0", "x"), ("ExpBackward0", "x")]
    assert "[leaf] x | (2,) float32 (see above)" in picture.text


def test_retain_grad_chain():
    x = torch.tensor([2.0], requires_grad=True)
    a = x * 3
    a.retain_grad()
    b = a.exp()
    b.retain_grad()
    c = b.sum()
    c.backward()
    picture = viz.draw_graph(c, names=locals(), show_grads=True)
    assert labels(picture, "retained") == ["b", "a"]  # met in this order from c
    assert ("a", "MulBackward0") in edge_names(picture)
    assert ("b", "ExpBackward0") in edge_names(picture)
    retained_a = next(box for box in picture.nodes if box.label.startswith("a\n"))
    assert "grad: [" in retained_a.label and "grad: None" not in retained_a.label


def test_clone_detach_mix():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    d = x.detach()  # cut: d is a leaf without grad, not in the graph
    y = c * d + x.clone().detach()
    picture = viz.draw_graph(y, names=locals())
    assert labels(picture, "op") == ["AddBackward0", "MulBackward0", "CloneBackward0"]
    assert labels(picture, "leaf") == ["x"]
    assert labels(picture, "tensor") == ["c"]  # a named intermediate points at its grad_fn
    assert ("c", "CloneBackward0") in edge_names(picture)
    assert "d" not in [box.label.split("\n")[0] for box in picture.nodes]


def test_several_roots_and_leaf_root():
    x, w, y = article_graph()
    z = w * 2
    picture = viz.draw_graph(y, z, x, names={"x": x, "w": w, "y": y, "z": z})
    assert labels(picture, "root") == ["y", "z"]
    assert labels(picture, "leaf") == ["x", "w"]  # the root x is its graph's leaf box
    assert viz.draw_graph((y, z)).source == viz.draw_graph(y, z).source


def test_names_from_locals_skip_underscores_and_non_tensors():
    x = torch.ones(2, requires_grad=True)
    _hidden = x  # noqa: F841 - names starting with "_" are IPython's, not the learner's
    n = 3  # noqa: F841
    out = (x * 2).sum()
    picture = viz.draw_graph(out, names=locals())
    assert labels(picture, "leaf") == ["x"]
    assert labels(picture, "root") == ["out"]


def test_two_names_for_one_tensor():
    x = torch.ones(2, requires_grad=True)
    picture = viz.draw_graph((x * 2).sum(), names={"x": x, "alias": x})
    assert labels(picture, "leaf") == ["x, alias"]


def test_make_dot_like_torchviz():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    out = model(torch.ones(2, 3)).sum()
    picture = viz.make_dot(out, params=dict(model.named_parameters()), show_saved=True)
    assert sorted(labels(picture, "leaf")) == ["bias", "weight"]
    assert picture.source.startswith("digraph {")
    assert picture.format == "pdf"  # other Digraph attributes are passed on


# ---------------------------------------------------------------- determinism and display
SCRIPT = textwrap.dedent("""
    import engine as torch, engine.viz as viz
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    a = x + w
    a.retain_grad()
    y = a * (w + 1)
    print(viz.draw_graph(y, names=locals(), show_saved=True, show_values=True).source)
    print(repr(viz.draw_graph(y)))
    print(viz.draw_memory(x=x, d=x.detach(), n=x.detach().numpy()).source)
""")


def run_python(code, env=None):
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=60).stdout


def test_source_is_the_same_in_every_process():
    first, second = run_python(SCRIPT), run_python(SCRIPT)
    assert first == second
    assert "0x" not in first


def test_text_plain_is_the_summary():
    x, w, y = article_graph()
    bundle = viz.draw_graph(y)._repr_mimebundle_()
    assert bundle["text/plain"] == repr(viz.draw_graph(y))


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")
def test_svg_when_dot_exists():
    x, w, y = article_graph()
    picture = viz.draw_graph(y, names={"x": x})
    bundle = picture._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
    assert "MulBackward0" in bundle["image/svg+xml"]
    assert picture._repr_svg_() == bundle["image/svg+xml"]


def test_without_dot_the_page_draws_the_dot(monkeypatch, tmp_path):
    """No `dot`: the output carries the DOT for the course's JupyterLab extension to draw,
    text/plain stays the summary (as with `dot`), and the text picture travels with the DOT
    for a page that cannot draw it either."""
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot to run
    x, w, y = article_graph()
    picture = viz.draw_graph(y, names={"x": x, "w": w})
    assert picture._repr_svg_() is None
    bundle = picture._repr_mimebundle_()
    assert list(bundle) == [viz.DOT_MIME, "text/plain"]
    assert viz.DOT_MIME == "application/vnd.autograd-step-by-step.dot+json"
    assert bundle["text/plain"] == picture.summary == repr(picture)
    assert bundle["text/plain"].startswith("Graph: 6 nodes, 6 edges")
    payload = bundle[viz.DOT_MIME]
    assert set(payload) == {"dot", "text", "max_width_px", "min_scale"}
    assert json.loads(json.dumps(payload)) == payload  # JSON, as a notebook saves it
    assert (payload["max_width_px"], payload["min_scale"]) == (viz.MAX_WIDTH_PX, viz.MIN_SCALE)
    # the same drawing as `dot` would get, with the font the page's Graphviz measures
    assert payload["dot"] == picture.source.replace("fontname=monospace",
                                                    f"fontname={viz.BROWSER_FONT}")
    assert "MulBackward0" in payload["dot"] and "cluster_legend" in payload["dot"]
    text = payload["text"]
    assert text.startswith("Graph: 6 nodes, 6 edges")
    assert "    [op] MulBackward0\n        [op] AddBackward0\n            [leaf] x" in text
    assert text.endswith("(install Graphviz to see the picture: apt-get install graphviz / "
                         "brew install graphviz / conda install graphviz)")


def test_a_layout_that_takes_too_long_falls_back_to_text(monkeypatch, tmp_path):
    slow_dot = tmp_path / "dot"  # a dot that never finishes, like dot on some big graphs
    slow_dot.write_text("#!/bin/sh\nexec /bin/sleep 30\n")
    slow_dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(viz, "LAYOUT_SECONDS", 0.5)
    x, w, y = article_graph()
    bundle = viz.draw_graph(y, names={"x": x, "w": w})._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    assert bundle["text/plain"].startswith("Graph: 6 nodes, 6 edges")
    assert bundle["text/plain"].endswith("(Graphviz needed more than 0.5 s to lay out these 6 "
                                         "boxes; shown as text)")


def test_text_fallback_in_a_process_without_dot(tmp_path):
    code = ("import engine as torch, engine.viz as viz\n"
            "x = torch.ones(2, requires_grad=True)\n"
            "bundle = viz.draw_memory(x=x, c=x.clone())._repr_mimebundle_()\n"
            "print(bundle['text/plain'])\n"
            "print(bundle[viz.DOT_MIME]['text'])")
    out = run_python(code, env={**os.environ, "PATH": str(tmp_path)})
    summary = "Memory: 2 storages: storage 0: x | storage 1: c"
    assert out.startswith(summary + "\n" + summary + "\nstorage 0: [1., 1.]")
    assert "install Graphviz" in out


def test_the_dot_mime_type_only_when_python_cannot_draw(monkeypatch, tmp_path):
    x, w, y = article_graph()
    if HAS_DOT:
        assert viz.DOT_MIME not in viz.draw_graph(y)._repr_mimebundle_()
    slow_dot = tmp_path / "dot"  # dot runs but fails: an error to read, not a page's job
    slow_dot.write_text("#!/bin/sh\necho 'syntax error' >&2\nexit 1\n")
    slow_dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    bundle = viz.draw_graph(y)._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    assert bundle["text/plain"].endswith("(Graphviz failed: syntax error)")


# ---------------------------------------------------------------- memory
def memory_of(**named):
    picture = viz.draw_memory(**named)
    return picture.storages, picture.objects


def test_assignment_is_the_same_object():
    a = torch.arange(4.0)
    b = a
    storages, objects = memory_of(a=a, b=b)
    assert storages == [["a", "b"]] and objects == [["a", "b"]]


def test_clone_has_its_own_storage():
    a = torch.arange(4.0)
    assert memory_of(a=a, c=a.clone()) == ([["a"], ["c"]], [["a"], ["c"]])


def test_detach_shares_storage():
    a = torch.arange(4.0, requires_grad=True)
    picture = viz.draw_memory(a=a, d=a.detach())
    assert picture.storages == [["a", "d"]] and picture.objects == [["a"], ["d"]]
    d_box = next(box for box in picture.nodes if box.label.startswith("d\n"))
    assert "requires_grad=False is_leaf=True" in d_box.label


def test_clone_detach_is_a_new_storage():
    a = torch.arange(4.0, requires_grad=True)
    assert memory_of(a=a, cd=a.clone().detach())[0] == [["a"], ["cd"]]


def test_view_shares_storage_with_its_offset_and_strides():
    a = torch.arange(6.0).reshape(2, 3)
    picture = viz.draw_memory(a=a, col=a[:, 1], t=a.t())
    assert picture.storages == [["a", "col", "t"]]
    views = [edge.label for edge in picture.edges]
    assert views == ["shape (2, 3)\nstride (3, 1)\noffset 0",
                     "shape (2,)\nstride (3,)\noffset 1",
                     "shape (3, 2)\nstride (1, 3)\noffset 0"]
    assert "[0., 1., 2., 3., 4., 5.]" in picture.nodes[0].label


def test_numpy_shares_storage_and_a_numpy_copy_does_not():
    a = torch.arange(4.0)
    n = a.numpy()
    picture = viz.draw_memory(a=a, n=n, m=n.copy(), half=n[2:])
    assert picture.storages == [["a", "n", "half"], ["m"]]
    assert [box.kind for box in picture.nodes] == ["storage", "tensor", "numpy", "numpy",
                                                   "storage", "numpy"]
    assert picture.edges[2].label == "shape (2,)\nstride (1,)\noffset 2"
    assert repr(picture) == "Memory: 2 storages: storage 0: a, n, half | storage 1: m"


def test_big_storage_is_shortened_and_in_place_counts():
    a = torch.zeros(1000)
    a.add_(1)
    picture = viz.draw_memory(a=a)
    assert picture.nodes[0].label == ("storage 0\nfloat32, 1000 elements\n"
                                      "[1., 1., 1., ..., 1., 1., 1.]")
    assert "_version=1" in picture.nodes[1].label


def test_memory_rejects_other_values():
    with pytest.raises(TypeError, match="draw_memory"):
        viz.draw_memory(a=[1, 2])


def test_views_of_numpy_arrays_group_by_address():
    base = np.arange(10.0)
    t = torch.from_numpy(base[2:6])
    assert viz.draw_memory(base=base, t=t, other=np.zeros(3)).storages == [["base", "t"],
                                                                          ["other"]]


# ---------------------------------------------------------------- sizes: a notebook's output area
# JupyterLab's output area is about 850 px wide in a 1280 px window with the file browser open
# (course_tools/browser_check.py measures it): every picture, legend included, must fit in it
# as drawn.
NOTEBOOK_WIDTH = 900  # px: the most any picture may take (viz.MAX_WIDTH_PX is less)
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz's dot is not installed")


def svg_width(svg):
    """The ``width`` attribute of an SVG picture, in px (Graphviz writes pt: 1 pt = 4/3 px)."""
    return float(re.search(r'<svg width="([0-9.]+)pt"', svg).group(1)) * 4 / 3


def is_scaled(svg):
    """Whether the picture is drawn smaller than its drawing (width below its viewBox's)."""
    width = float(re.search(r'<svg width="([0-9.]+)pt"', svg).group(1))
    view = float(re.search(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+)', svg).group(1))
    return width < view - 0.01


def lesson_00_memory():
    a = torch.zeros(2, 3)
    return viz.draw_memory(a=a, v=a.view(6), c=a.clone())


def lesson_03_indexing_memory():
    """The widest memory picture: long tensor labels and a 12-element storage."""
    x = torch.arange(12).reshape(3, 4)
    row = x[0]
    picked = x[[0]]
    row[0] = 100
    picked[0, 1] = -1
    return viz.draw_memory(x=x, row=row, picked=picked)


def lesson_03_views_memory():
    z = torch.arange(12)
    z_view = z.view(3, 4)
    return viz.draw_memory(z=z, z_view=z_view, z_reshape=z.reshape(2, 6), z_clone=z.clone(),
                           z_t=z_view.T)


def lesson_04_linear_clone():
    """Four boxes side by side (bias, ViewBackward0, clone_x, TBackward0), and a legend."""
    torch.manual_seed(0)
    f = torch.nn.Linear(3, 1)
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    clone_x = x.clone()
    y = f(clone_x)
    y.backward()
    return viz.draw_graph(y, names={"x": x, "clone_x": clone_x, "weight": f.weight,
                                    "bias": f.bias})


def lesson_04_sigmoid_saved():
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    out = a.sigmoid()
    return viz.draw_graph(out, names=locals(), show_saved=True)


def lesson_05_retain_grad():
    """Every kind of tensor box at once (root, leaf, retains_grad(), tensor), with grads."""
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    a = torch.add(w, x)
    a.retain_grad()
    b = torch.add(w, 1)
    y = torch.mul(a, b)
    y.backward(retain_graph=True)
    return viz.draw_graph(y, names=locals(), show_grads=True)


def lesson_05_chain():
    """The tallest: a chain of seven nodes, with named intermediate tensors beside it."""
    torch.manual_seed(20200910)
    data_in = torch.randn(3, 5, requires_grad=True)
    data_mean = data_in.mean()
    data_1 = data_mean * 20200910.0
    data_2 = data_1 * 15.0
    data_2.retain_grad()
    data_3 = 2 * (data_2 + 55.0)
    loss = data_3 / 2.0 + 89.2
    return viz.draw_graph(loss, names=locals())


def lesson_06_cat():
    """The widest graph of the lessons: two outputs of one graph, cat together."""
    names = lesson_graphs.two_outputs_cat(torch)
    return viz.draw_graph(names["loss"], names=names)


def lesson_06_matmul_grads():
    x = torch.tensor([2.0, 1.0], requires_grad=True)
    W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    z = x.view(1, 2) @ W
    z.backward(torch.tensor([[1.0, 0.0]]), retain_graph=True)
    return viz.draw_graph(z, names=locals(), show_grads=True)


def lesson_07_linear_saved():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    return viz.draw_graph(model(torch.ones(2, 3)), names=dict(model.named_parameters()),
                          show_saved=True)


def gallery_graph():
    names = lesson_graphs.gallery_graph(torch)
    return viz.draw_graph(names["y"], names=names, show_saved=True)


def gallery_memory():
    a = torch.arange(6.0).reshape(2, 3).requires_grad_()
    return viz.draw_memory(a=a, b=a, c=a.clone(), d=a.detach(), e=a.clone().detach(),
                           v=a.view(3, 2), n=a.detach().numpy())


LESSON_PICTURES = [lesson_00_memory, lesson_03_indexing_memory, lesson_03_views_memory,
                   lesson_04_linear_clone, lesson_04_sigmoid_saved, lesson_05_retain_grad,
                   lesson_05_chain, lesson_06_cat, lesson_06_matmul_grads,
                   lesson_07_linear_saved, gallery_graph, gallery_memory]


@needs_dot
@pytest.mark.parametrize("draw", LESSON_PICTURES, ids=lambda draw: draw.__name__)
def test_lesson_pictures_fit_a_notebook_as_drawn(draw):
    """Legend included, and at full size (not scaled down to fit)."""
    svg = draw()._repr_svg_()
    assert svg_width(svg) <= viz.MAX_WIDTH_PX < NOTEBOOK_WIDTH
    assert not is_scaled(svg)


def test_svg_size_reads_points_as_pixels():
    assert viz.svg_size('<svg width="630pt" height="300pt"\n viewBox="0.00 0.00 630.00 300.00"'
                        ) == (840.0, 400.0)


@needs_dot
def test_the_legend_is_a_column_beside_the_picture():
    """Before, the legend was a row: 1,197 px for lesson 5's retain_grad() graph (its five
    kinds side by side); a column adds only its own width."""
    picture = lesson_05_retain_grad()
    assert picture.legend == ["root", "leaf", "retained", "tensor", "op"]
    source = picture.source
    for upper, lower in zip(picture.legend, picture.legend[1:]):
        assert f"legend_{upper} -> legend_{lower} [style=invis]" in source
    without = viz.Picture(picture.nodes, picture.edges, picture.summary, picture.text)
    added = svg_width(picture._repr_svg_()) - svg_width(without._repr_svg_())
    assert 0 < added < 200
    assert svg_width(picture._repr_svg_()) < 700


@needs_dot
def test_a_memory_legend_is_a_column_too():
    picture = lesson_03_indexing_memory()
    assert picture.rankdir == "LR" and " -> legend_" not in picture.source
    assert svg_width(picture._repr_svg_()) <= viz.MAX_WIDTH_PX


def test_a_picture_a_little_too_wide_is_scaled_down_to_fit():
    def header(width, height=100):
        return f'<svg width="{width}pt" height="{height}pt"\n viewBox="0.00 0.00 {width}.00 ' \
               f'{height}.00" xmlns="http://www.w3.org/2000/svg">'

    assert viz._fit_width(header(600)) == header(600)  # fits: unchanged
    fitted = viz._fit_width(header(700))  # 933 px -> 840 px, all of it at 0.9
    assert fitted == header(700).replace('width="700pt" height="100pt"',
                                         'width="630.00pt" height="90.00pt"')
    assert svg_width(fitted) == viz.MAX_WIDTH_PX and is_scaled(fitted)
    # 1,200 px would need 0.7: text too small to read; it keeps its size (and scrolls)
    assert viz._fit_width(header(900)) == header(900)


@needs_dot
def test_a_wide_graph_is_drawn_scaled_down():
    """A graph of the learner's, wider than a notebook: scaled to fit, if text stays readable."""
    def stack(n):  # n leaves side by side, about 130 px each
        leaves = [torch.ones(2, requires_grad=True) for _ in range(n)]
        picture = viz.draw_graph(torch.stack(leaves).sum())
        raw = subprocess.run(["dot", "-Tsvg"], input=picture.source, capture_output=True,
                             text=True, check=True).stdout
        return picture, svg_width(raw)

    n = 1
    while stack(n)[1] <= viz.MAX_WIDTH_PX:  # the first that is too wide as laid out
        n += 1
    picture, raw_width = stack(n)
    assert raw_width <= viz.MAX_WIDTH_PX / viz.MIN_SCALE
    svg = picture._repr_svg_()
    assert svg_width(svg) == pytest.approx(viz.MAX_WIDTH_PX, abs=0.01) and is_scaled(svg)


# --- a picture never hangs the notebook: graphs too big for dot to lay out quickly ---------

def product_loop(n):
    """``y = x; y = y * x`` n times: a loop-built graph whose n products all use one leaf."""
    x = torch.ones(3, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * x
    return y


def sum_of_products(n):
    x = torch.ones(3, requires_grad=True)
    y = x * 0
    for i in range(1, n):
        y = y + x * i
    return y


def drawn_boxes(svg):
    """How many boxes Graphviz drew (each is a ``<g id="nodeN" class="node">``)."""
    return len(re.findall(r'<g id="node\d+" class="node">', svg))


def test_layout_cost_counts_boxes_and_the_ranks_arrows_cross():
    # a chain of n products: n + 2 boxes; the arrow from product k (rank k) into the leaf
    # (rank n + 1) crosses n - k ranks
    for n in (1, 2, 10, 500):
        picture = viz.draw_graph(product_loop(n))
        crossed = sum(n - k for k in range(1, n + 1))
        assert viz.layout_cost(picture.nodes, picture.edges) == n + 2 + crossed
    x, w, y = article_graph()
    picture = viz.draw_graph(y)
    assert viz.layout_cost(picture.nodes, picture.edges) == len(picture.nodes)


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("build, n", [(product_loop, 500), (sum_of_products, 500),
                                      (product_loop, 100)])
def test_a_graph_too_big_for_dot_is_a_summary_that_says_so(build, n):
    """dot takes minutes on these (500 products: cost 125,252); the picture is one box with
    the graph's summary, drawn at once, and says how to see everything."""
    picture = viz.draw_graph(build(n))
    assert picture.too_big() > viz.MAX_LAYOUT_COST
    start = time.monotonic()
    bundle = picture._repr_mimebundle_()
    assert time.monotonic() - start < 10  # a generous bound: about 0.1 s measured
    svg = bundle["image/svg+xml"]
    assert drawn_boxes(svg) == 1
    assert "too big to draw quickly" in svg
    assert f"MulBackward0 x{n}" in svg
    assert "print(draw_graph(...).text) lists every box" in svg
    assert bundle["text/plain"] == picture.summary  # what nbval and compare-torch compare
    assert f"Graph: {len(picture.nodes)} nodes" in svg
    assert picture.text.count("MulBackward0") >= n  # the text form still has everything


def test_without_dot_a_graph_too_big_sends_the_page_its_summary(monkeypatch, tmp_path):
    """The page's Graphviz would be as slow as `dot` on 500 products: the DOT it gets is the
    one-box summary `dot` would have drawn."""
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no dot to run
    picture = viz.draw_graph(product_loop(500))
    bundle = picture._repr_mimebundle_()
    assert list(bundle) == [viz.DOT_MIME, "text/plain"]
    page_dot = bundle[viz.DOT_MIME]["dot"]
    assert "too big to draw quickly" in page_dot and page_dot.count("MulBackward0") == 1
    assert f"fontname={viz.BROWSER_FONT}" in page_dot
    assert bundle["text/plain"] == picture.summary


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_a_graph_dot_lays_out_quickly_is_drawn_in_full():
    picture = viz.draw_graph(product_loop(40))  # cost 822: about 0.25 s in dot
    assert not picture.too_big()
    svg = picture._repr_mimebundle_()["image/svg+xml"]
    legend = len(picture.legend)
    assert drawn_boxes(svg) == len(picture.nodes) + legend == 42 + legend


def test_no_limit_draws_every_graph_in_full(monkeypatch):
    monkeypatch.setattr(viz, "MAX_LAYOUT_COST", None)
    assert viz.draw_graph(product_loop(500)).too_big() == 0


def test_the_lessons_graphs_are_far_below_the_limit():
    """Every graph a lesson draws is drawn in full: the biggest (13 boxes) costs under 40."""
    # (the Chinese lessons' outputs are these: tests/course/test_translations.py)
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        for count in re.findall(r'Graph: (\d+) nodes', path.read_text()):
            assert int(count) <= 40, path
