"""Pictures for learning: the backward graph of tensors, and which tensors share memory.

``draw_graph(y)`` draws the graph that ``y.backward()`` walks: from the output ``y``
through its ``grad_fn`` (``MulBackward0`` ...) down to the leaves. ``draw_memory(a=a,
b=b)`` draws the storages behind tensors and numpy arrays, to see what ``=``,
``clone()``, ``detach()``, views and ``numpy()`` share.

Both return a ``Picture``: Jupyter shows it as an SVG drawn by Graphviz, and its
plain-text form is a short summary that is the same in every run. Without Graphviz's
``dot`` its output carries the DOT for the page to draw (``DOT_MIME``), and a front end
that cannot draw it shows text. The drawing code only reads the graph: it never changes it.

The pictures work on real PyTorch tensors too, and draw the same picture for the same
computation. engine never imports torch: a torch tensor is recognised by what it has
(``grad_fn``, ``untyped_storage()`` ...), and read through PyTorch's public API. The
functions under "reading tensors and nodes" below are the only places where the two differ.
"""
import collections
import re
import subprocess
import sys
import warnings

import numpy as np
from numpy.lib.array_utils import byte_bounds

from .core.hooks import retained_tensors
from .core.node import AccumulateGrad, Node, SavedTensor
from .core.tensor import Tensor

__all__ = ["Picture", "draw_graph", "make_dot", "draw_memory"]

LAYOUT_SECONDS = 30
"""How long ``dot`` may take to lay out a picture before it is shown as text instead."""
MAX_LAYOUT_COST = 1000
"""The most work a picture may give ``dot`` (``layout_cost``: boxes plus the ranks its arrows
cross) before it is drawn as a one-box summary that says so. Measured (idle machine): a loop
``y = y * x`` of 45 products costs 1,037 and takes dot 0.4 s, 60 cost 1,832 and take 1.3 s
(2-3x that on a busy machine), 100 take over a minute, 500 (cost 125,252) far longer; a
sum of 200 products of one leaf costs 20,102 (30 s). The lessons' biggest graph costs under
40. ``None`` draws every graph in full."""
MAX_WIDTH_PX = 840
"""The widest a picture is drawn, in CSS pixels (an SVG point is 4/3 px): a notebook's
output area is about 850 px wide in a 1280 px window with JupyterLab's file browser open.
The legend is a column beside the picture, and the lessons' pictures fit as they are; a
wider one is scaled down to this width, but never below ``MIN_SCALE``."""
MIN_SCALE = 0.8
"""The smallest scale that keeps labels readable (10 pt text stays above 10 px): a picture
that would need less keeps its size, and its output area scrolls."""
INSTALL_HINT = ("install Graphviz to see the picture: apt-get install graphviz / "
                "brew install graphviz / conda install graphviz")

# kind of node -> (legend text, Graphviz attributes): colour AND shape tell kinds apart
STYLES = {
    "root": ("output (root)", dict(shape="box", peripheries="2", style="filled",
                                   fillcolor="darkolivegreen1")),
    "leaf": ("leaf\n(AccumulateGrad)", dict(shape="box", style="filled", fillcolor="lightblue")),
    "retained": ("retains_grad()", dict(shape="box", style="filled,rounded",
                                        fillcolor="gold")),
    "tensor": ("tensor", dict(shape="box", style="rounded")),
    "op": ("grad_fn node", dict(shape="ellipse", style="filled", fillcolor="lightgrey")),
    "saved": ("saved for backward", dict(shape="note", style="filled", fillcolor="orange")),
    # engine.widgets.BackwardStepper: nodes that already ran, saved tensors already freed
    "ran": ("grad_fn node, ran", dict(shape="ellipse", style="filled", fillcolor="white",
                                       color="grey40")),
    "freed": ("saved, freed", dict(shape="note", style="filled,dashed", fillcolor="grey90",
                                   color="grey50", fontcolor="grey40")),
    "storage": ("storage", dict(shape="box3d", style="filled", fillcolor="lightyellow")),
    "numpy": ("numpy array", dict(shape="box", style="filled,rounded", fillcolor="plum")),
}

# what highlighted boxes add to their kind's style (draw_graph(..., highlight=...))
HIGHLIGHT = dict(color="red", penwidth="3")
# Arrow styles: "solid" (gradient flow), "dashed" (saved), "active" (highlighted gradient
# flow), "freed" (a saved tensor backward has released)
EDGE_STYLES = {
    "solid": {},
    "dashed": dict(style="dashed", dir="none"),
    "active": dict(color="red", fontcolor="red", penwidth="2"),
    "freed": dict(style="dotted", dir="none", color="grey50", fontcolor="grey50"),
}

Box = collections.namedtuple("Box", "id kind label")
Arrow = collections.namedtuple("Arrow", "tail head label style")


class Picture:
    """A drawing as plain data (``nodes``, ``edges``), shown as SVG in Jupyter.

    ``.digraph`` is the ``graphviz.Digraph``; ``.source``, ``.pipe()`` and ``.render()``
    (and its other public attributes) are passed on to it.
    """

    def __init__(self, nodes, edges, summary, text, legend=(), rankdir="TB", highlight=()):
        self.nodes = nodes          # list of Box, in traversal order
        self.edges = edges          # list of Arrow, sorted
        self.summary = summary      # one deterministic line: the text/plain output
        self.text = text            # the picture as text, for when Graphviz is missing
        self.legend = list(legend)  # the node kinds that the legend explains
        self.rankdir = rankdir
        self.highlight = set(highlight)  # ids of boxes drawn with a red outline
        self._digraph = None
        self._svg = None
        self._hint = INSTALL_HINT
        self._page_draws = False  # Python cannot draw, the page can (DOT_MIME)

    @property
    def digraph(self):
        """The ``graphviz.Digraph`` (built on first use, so text works without graphviz)."""
        if self._digraph is None:
            self._digraph = _to_digraph(self)
        return self._digraph

    @property
    def source(self):
        return self.digraph.source

    def pipe(self, *args, **kwargs):
        return self.digraph.pipe(*args, **kwargs)

    def render(self, *args, **kwargs):
        return self.digraph.render(*args, **kwargs)

    def __getattr__(self, name):
        # only public names: IPython probes for _repr_*_ methods and must not get Digraph's
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.digraph, name)

    def __repr__(self):
        return self.summary

    def too_big(self):
        """The layout cost when it is over ``MAX_LAYOUT_COST`` (drawn as a summary), else 0."""
        cost = layout_cost(self.nodes, self.edges)
        return cost if MAX_LAYOUT_COST is not None and cost > MAX_LAYOUT_COST else 0

    def _svg_or_none(self):
        """The SVG text, or None when Graphviz cannot draw it (never raises, never hangs)."""
        if self._svg is None:
            try:
                # a graph too big to lay out in a second or two: a one-box summary that says so
                digraph = _summary_digraph(self) if self.too_big() else self.digraph
                if IN_BROWSER:
                    if not _can_run_sync():  # no JSPI (Safari, Firefox): the page draws
                        self._page_draws = True
                        return None
                    self._svg = _fit_width(_browser_svg(digraph.source))
                    return self._svg
                source = digraph.source
                # dot itself, with a time limit: some big graphs take dot minutes to lay out
                done = subprocess.run(["dot", "-Tsvg"], input=source, capture_output=True,
                                      text=True, encoding="utf-8", timeout=LAYOUT_SECONDS)
                if done.returncode != 0:
                    raise RuntimeError(done.stderr.strip() or f"exit status {done.returncode}")
                self._svg = _fit_width(done.stdout)
            except ImportError:
                self._hint = "pip install graphviz, then " + INSTALL_HINT
            except FileNotFoundError:  # no `dot`: the page draws (DOT_MIME), or text
                self._hint = INSTALL_HINT
                self._page_draws = True
            except subprocess.TimeoutExpired:
                self._hint = (f"Graphviz needed more than {LAYOUT_SECONDS} s to lay out these "
                              f"{len(self.nodes)} boxes; shown as text")
            except Exception as error:  # noqa: BLE001 - a picture must never break a notebook
                self._hint = f"Graphviz failed: {error}"
        return self._svg

    def _repr_svg_(self):
        return self._svg_or_none()

    def _repr_mimebundle_(self, include=None, exclude=None):
        svg = self._svg_or_none()
        if svg is not None:
            return {"image/svg+xml": svg, "text/plain": self.summary}
        if self._page_draws:
            # The page lays the DOT out (the course's JupyterLab extension, with @viz-js/viz):
            # text/plain stays the summary, as with `dot`, so saved outputs compare alike.
            return {DOT_MIME: self.for_the_page(), "text/plain": self.summary}
        return {"text/plain": self.fallback_text()}

    def fallback_text(self):
        """The picture as text, and why it is not drawn."""
        return f"{self.summary}\n{self.text}\n({self._hint})"

    def for_the_page(self):
        """What the page needs to draw the picture itself (DOT_MIME's content). A graph too
        big to lay out quickly: its summary, as `dot` would have drawn."""
        digraph = _summary_digraph(self, BROWSER_FONT) if self.too_big() else \
            _to_digraph(self, BROWSER_FONT)
        return {"dot": digraph.source, "text": self.fallback_text(),
                "max_width_px": MAX_WIDTH_PX, "min_scale": MIN_SCALE}


# ---------------------------------------------------------------- in a browser (Pyodide)
# Pyodide (the course's browser edition, `make site`) cannot run the `dot` program. There the
# same DOT is laid out by Graphviz compiled to WebAssembly (npm's @viz-js/viz, served by the
# site beside pyodide.js), called synchronously through pyodide.ffi.run_sync (JSPI). Without
# JSPI (Safari, Firefox) Python cannot wait for it: the page draws the DOT (DOT_MIME). Any
# other failure leaves the text fallback.
IN_BROWSER = sys.platform == "emscripten"
VIZ_JS = "viz-3.31.0.js"
"""The WebAssembly Graphviz's file name, in the folder that pyodide.js is served from."""
BROWSER_FONT = "Courier"
"""The font the browser lays labels out with: Graphviz in WebAssembly measures text with
its own metrics, and with "monospace" (an alias it does not know) labels overflow their
boxes; Courier's metrics are built in."""
FONT = BROWSER_FONT if IN_BROWSER else "monospace"
"""The labels' font: monospace, where `dot` runs."""
_viz = None  # the @viz-js/viz instance, made on first use
DOT_MIME = "application/vnd.autograd-step-by-step.dot+json"
"""Where Python cannot draw (no `dot`; Pyodide without JSPI), a picture's output carries
its DOT under this MIME type, ``{"dot", "text", "max_width_px", "min_scale"}``, and the
course's JupyterLab extension (course_tools/labextension/) lays it out in the page with
@viz-js/viz, asynchronously: no call from Python into JavaScript is needed. A front end
without the extension shows text/plain (the summary)."""
DOT_HTML_CLASS = "autograd-dot-source"
"""The same for a picture inside a widget's HTML (the stepper's): an element of this class
holds the DOT in its ``data-dot`` attribute (and ``data-max-width-px``, ``data-min-scale``),
and the text until the extension replaces it with the drawing."""


def _can_run_sync():
    """Whether this browser lets Python wait for JavaScript (JSPI, WebAssembly's stack
    switching: Chromium has it; Safari and Firefox without a flag do not). The browser's
    feature, not pyodide.ffi.can_run_sync(): that one says False in calls where run_sync works
    all the same (the stepper's pictures, drawn as a widget is made)."""
    try:
        import js
    except ImportError:  # not in a browser
        return True
    webassembly = getattr(js, "WebAssembly", None)
    return webassembly is not None and hasattr(webassembly, "Suspending") and \
        hasattr(webassembly, "promising")


def _browser_svg(source):
    """SVG from the WebAssembly Graphviz (only under Pyodide)."""
    global _viz
    from pyodide.code import run_js
    from pyodide.ffi import run_sync, to_js

    if _viz is None:
        import pyodide_js

        url = pyodide_js._api.config.indexURL + VIZ_JS
        module = run_sync(run_js(f"import({url!r})"))
        _viz = run_sync(module.instance())
    result = _viz.render(source, to_js({"format": "svg"}, dict_converter=_js_object))
    if result.status != "success":
        errors = [error.message for error in result.errors]
        raise RuntimeError("; ".join(errors) or result.status)
    return result.output


def load_browser_packages(*names, then=None):
    """Under Pyodide, load packages of the site's lock that no cell's imports named (Pyodide
    loads a cell's packages from its import lines, so a package that engine imports lazily,
    such as matplotlib for a widget's figure, would be missing). Elsewhere, or when they are
    loaded already, it does nothing. The course's wheel does not depend on matplotlib, so a
    lesson that never plots never downloads it (about 10 MB with its dependencies).

    Returns whether the packages can be imported now. With JSPI Python waits for them. A
    browser without it (Safari, Firefox without a flag) cannot wait: the load starts (once,
    however many widgets ask), ``then()`` runs once it is done, and the answer is False.
    (A package's files appear before its compiled parts are ready: only the load's end says
    it can be imported.)"""
    if not IN_BROWSER:
        return True
    wanted = tuple(name for name in names if name not in _loaded and not _imported(name))
    if not wanted:
        return True
    import pyodide_js
    from pyodide.ffi import create_once_callable, run_sync, to_js

    if _can_run_sync():
        run_sync(pyodide_js.loadPackage(to_js(list(wanted))))
        _loaded.update(wanted)
        return True
    if wanted not in _loading:
        def done(_result):
            _loaded.update(wanted)
            _loading.pop(wanted, None)

        _loading[wanted] = pyodide_js.loadPackage(to_js(list(wanted)))
        _loading[wanted].then(create_once_callable(done))
    if then is not None:
        _loading[wanted].then(create_once_callable(lambda _result: then()))
    return False


_loaded = set()  # packages load_browser_packages has loaded
_loading = {}  # their loads under way (no JSPI): names -> Pyodide's promise


def _imported(name):
    return name in sys.modules


def _js_object(pairs):
    import js

    return js.Object.fromEntries(pairs)


_SVG_SIZE = re.compile(r'<svg width="([0-9.]+)pt" height="([0-9.]+)pt"')


def svg_size(svg):
    """``(width, height)`` of a Graphviz SVG picture in CSS pixels (1 pt = 4/3 px)."""
    match = _SVG_SIZE.search(svg)
    return tuple(float(number) * 4 / 3 for number in match.groups())


def _fit_width(svg):
    """Scale a picture a little wider than ``MAX_WIDTH_PX`` down to it: only its size
    changes, and its ``viewBox`` (the drawing's own coordinates) scales what is inside."""
    match = _SVG_SIZE.search(svg)
    if match is None:
        return svg
    width, height = (float(number) for number in match.groups())
    scale = MAX_WIDTH_PX * 3 / 4 / width
    if not MIN_SCALE <= scale < 1:
        return svg
    return (svg[:match.start()] + f'<svg width="{width * scale:.2f}pt" '
            f'height="{height * scale:.2f}pt"' + svg[match.end():])


def _to_digraph(picture, font=None):
    """Turn the picture's boxes and arrows into a ``graphviz.Digraph`` (labels in ``font``,
    default ``FONT``: ``BROWSER_FONT`` for a page's Graphviz)."""
    import graphviz  # here, so that the rest of engine works without the package

    font = font or FONT
    graph = dict(rankdir=picture.rankdir)
    if picture.rankdir in ("LR", "RL"):  # the arrows' labels set the gaps between columns
        graph["ranksep"] = "0.25"
    dot = graphviz.Digraph(graph_attr=graph,
                           node_attr=dict(fontname=font, fontsize="11"),
                           edge_attr=dict(fontname=font, fontsize="10"))
    for box in picture.nodes:
        attributes = dict(STYLES[box.kind][1])
        if box.id in picture.highlight:
            attributes.update(HIGHLIGHT)
        dot.node(box.id, _dot_label(box.label), **attributes)
    for arrow in picture.edges:
        dot.edge(arrow.tail, arrow.head, _dot_label(arrow.label), **EDGE_STYLES[arrow.style])
    if picture.legend:
        _add_legend(dot, picture.legend, picture.rankdir, font)
    return dot


def layout_cost(nodes, edges):
    """About how much work ``dot`` has laying out these boxes and arrows: the boxes, plus one
    for every rank an arrow crosses (``dot`` routes a long arrow through a hidden box at each
    rank it passes, and orders all of them rank by rank). Ranks are longest paths from the
    boxes no arrow points at: a loop that multiplies by one leaf 500 times puts the leaf 500
    ranks down, and its 500 arrows into the leaf cross 125,000 ranks."""
    children = collections.defaultdict(list)
    waiting = dict.fromkeys((box.id for box in nodes), 0)
    for arrow in edges:
        children[arrow.tail].append(arrow.head)
        waiting[arrow.head] += 1
    rank = dict.fromkeys(waiting, 0)
    ready = [box for box, count in waiting.items() if count == 0]
    while ready:  # the boxes in topological order (a backward graph has no cycles)
        box = ready.pop()
        for child in children[box]:
            rank[child] = max(rank[child], rank[box] + 1)
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    crossed = sum(max(rank[a.head] - rank[a.tail], 1) - 1 for a in edges)
    return len(nodes) + crossed


def _summary_digraph(picture, font=None):
    """A one-box picture for a graph too big to lay out quickly: what it holds, and how to
    see all of it (labels in ``font``, default ``FONT``)."""
    import graphviz

    dot = graphviz.Digraph(node_attr=dict(fontname=font or FONT, fontsize="11"))
    header, _, details = picture.summary.partition(" edges: ")  # "Graph: N nodes, E", rest
    text = (f"{header} edges: too big to draw quickly\n(laying it out would keep Graphviz busy for"
            f" minutes)\n\n{_wrap(details)}\n\nprint(draw_graph(...).text) lists every box;"
            f"\nengine.viz.MAX_LAYOUT_COST = None draws it in full")
    dot.node("summary", _dot_label(text), shape="note", style="filled", fillcolor="lightgrey")
    return dot


def _wrap(text, width=70):
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join(lines + [line])


def _add_legend(dot, kinds, rankdir, font):
    """The legend: one box per kind drawn, in a dashed frame beside the picture, in one
    column (never a row: a row of five kinds is wider than a notebook's output area).

    Boxes that share no edge sit at the same rank, side by side across a top-to-bottom
    picture: there, invisible edges put each kind one rank below the one before. In a
    left-to-right picture, boxes of one rank are stacked already.
    """
    with dot.subgraph(name="cluster_legend") as legend:
        legend.attr(label="legend", fontname=font, fontsize="10", style="dashed",
                    color="grey50", margin="6")
        for kind in kinds:
            legend.node(f"legend_{kind}", _dot_label(STYLES[kind][0]), fontsize="10",
                        margin="0.06,0.04", **STYLES[kind][1])
        if rankdir in ("TB", "BT"):
            for upper, lower in zip(kinds, kinds[1:]):
                legend.edge(f"legend_{upper}", f"legend_{lower}", style="invis")


def _dot_label(text):
    # Graphviz reads "\n" (backslash, n) as a line break inside a label
    return None if text is None else text.replace("\n", "\\n")


# ====================================================================== text helpers
def _shape(shape):
    """``(2, 3)``; numpy and torch sizes print alike."""
    return str(tuple(int(n) for n in shape))


def values_text(array):
    """Elements on one line, shortened for big arrays (the same text in every run)."""
    text = np.array2string(np.asarray(array), precision=4, separator=", ", threshold=12,
                           edgeitems=3, max_line_width=10_000)
    return " ".join(text.split())


def _plain(value):
    """Numbers, strings and tuples of them print the same in every run (objects may not)."""
    if isinstance(value, (tuple, list)):
        return all(_plain(item) for item in value)
    return value is None or isinstance(value, (bool, int, float, str, np.generic))


def tensor_names(names):
    """``{id(tensor): (tensor, [name, ...])}`` from a dict such as ``locals()``.

    Only tensors are kept, and names starting with ``_`` (IPython's ``_``, ``_1`` ...) are
    skipped.
    """
    found = {}
    for name, value in (names or {}).items():
        if _is_tensor(value) and not str(name).startswith("_"):
            found.setdefault(id(value), (value, []))[1].append(str(name))
    return found


# ====================================================================== reading tensors and nodes
# An engine tensor keeps its facts in Python attributes; a torch tensor shows the same facts
# through its public API. Each helper reads one fact from either.
def _is_tensor(value):
    """An engine tensor, or a torch tensor (or Parameter): it has grad_fn and a storage."""
    kind = type(value)  # (the class, not the object: a Picture would build its drawing)
    return isinstance(value, Tensor) or (hasattr(kind, "grad_fn")
                                         and hasattr(kind, "untyped_storage"))


def _grad_fn(tensor):
    # the engine's tensor.grad_fn may update a view's history: read the attribute instead
    return tensor._grad_fn if isinstance(tensor, Tensor) else tensor.grad_fn


def _is_accumulator(node):
    """A leaf's AccumulateGrad node (torch's has a ``variable`` too)."""
    return isinstance(node, AccumulateGrad) or hasattr(type(node), "variable")


def _numpy(tensor):
    """The tensor's elements as a numpy array (for printing)."""
    return tensor._data if isinstance(tensor, Tensor) else tensor.detach().numpy()


def _grad(tensor):
    """``.grad``, without the warning that reading it on a non-leaf gives."""
    if isinstance(tensor, Tensor):
        return tensor._grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


def _saved_tensors(node):
    """``[(name, tensor, version when saved), ...]``: the tensors a node saved for backward.

    A saved output is a detached alias of it (same memory and version counter), as in
    torch. Nothing is listed after backward has freed them.
    """
    if isinstance(node, Node):
        return [(name, saved.tensor, saved.version)  # (not one saved_tensors_hooks packed)
                for name, saved in zip(type(node)._saved_names, node._saved)
                if isinstance(saved, SavedTensor) and saved.tensor is not None]
    found = []
    for name in _torch_saved_names(node):
        raw = getattr(node, f"_raw_saved_{name}", None)  # (absent for numbers, tuples ...)
        tensor = getattr(raw, "data", None)  # the saved tensor, without checking it
        if tensor is None or _wrapped_number(tensor):
            continue  # freed by backward, or a number saved as a tensor
        try:
            getattr(node, f"_saved_{name}")  # checks the version, as backward will
            version = tensor._version
        except RuntimeError as error:  # "... is at version 1; expected version 0 instead"
            match = re.search(r"expected version (\d+)", str(error))
            if match is None:
                raise
            version = int(match.group(1))
        found.append((name, tensor, version))
    return found


def _wrapped_number(tensor):
    """torch keeps the 2 of ``x * 2`` as a 0-d int64 (or float64) tensor; the engine as 2."""
    return tensor.ndim == 0 and not tensor.requires_grad and \
        str(tensor.dtype) in ("torch.int64", "torch.float64", "torch.complex128", "torch.bool")


def _torch_saved_names(node):
    """What a torch node saved (``self`` for ``_saved_self`` ...), in the order of the
    engine's node of the same name (the order of the op's backward formula, which decides
    which saved box is drawn first); dir() only sorts them by name."""
    names = [attribute[len("_saved_"):] for attribute in dir(node)
             if attribute.startswith("_saved_")]
    order = _engine_saved_names(node.name())
    return sorted(names, key=lambda name: (order.index(name) if name in order else len(order),
                                           name))


def _engine_saved_names(name):
    """``_saved_names`` of the engine's node class called ``name`` (``("self", "other")``)."""
    classes = [Node]
    while classes:
        cls = classes.pop()
        if cls.__name__ == name:
            return cls._saved_names
        classes += cls.__subclasses__()
    return ()


def _retained_tensors(node, candidates):
    """The tensors made by ``node`` that called retain_grad(), by output number.

    The engine's node knows them; torch's does not say, so among ``candidates`` (the named
    tensors and the roots) are those whose grad_fn is ``node``.
    """
    if isinstance(node, Node):
        return retained_tensors(node)
    found = {id(t): t for t in candidates if t.retains_grad and t.grad_fn is node}
    return sorted(found.values(), key=lambda tensor: tensor.output_nr)


def _node_attributes(node):
    """``[(name, value), ...]``: the numbers and other plain values a node keeps."""
    if isinstance(node, Node):
        found = [(name, saved) for name, saved in zip(type(node)._saved_names, node._saved)
                 if saved is not None and _plain(saved)]  # a saved number (kept as it is)
        return found + [(name, value) for name, value in sorted(vars(node).items())
                        if not name.startswith("_") and name != "next_functions"
                        and _plain(value)]
    numbers, others = [], []
    for name in _torch_saved_names(node):
        raw = getattr(node, f"_raw_saved_{name}", None)
        tensor = getattr(raw, "data", None)
        if tensor is not None and _wrapped_number(tensor):
            numbers.append((name, tensor.item()))
        elif raw is None:
            value = getattr(node, f"_saved_{name}")
            if value is not None and _plain(value):
                others.append((name, value))
    return numbers + sorted(others)


def _storage_of(value):
    """The flat block of memory behind a tensor or a numpy array, as a numpy array."""
    if isinstance(value, Tensor):
        return value._storage_array()
    if _is_tensor(value):  # a torch tensor: a 1-D view of all of its storage
        size = value.untyped_storage().nbytes() // value.element_size()
        return value.detach().as_strided((size,), (1,), 0).numpy()
    while isinstance(value.base, np.ndarray):  # a numpy view: look at what it views
        value = value.base
    return value.reshape(-1) if value.flags.c_contiguous else value


# ====================================================================== the autograd graph
def draw_graph(*roots, names=None, show_values=False, show_grads=False, show_saved=False,
               show_attrs=False, rankdir="TB", highlight=()):
    """Draw the backward graph of ``roots``: outputs -> grad_fn nodes -> leaves.

    ``highlight``: tensors and grad_fn nodes of the graph to outline in red.
    """
    walk = walk_graph(roots, names, show_values, show_grads, show_saved, show_attrs)
    picture = walk.picture(rankdir)
    picture.highlight = {walk.box_id(thing) for thing in highlight} - {None}
    return picture


def walk_graph(roots, names=None, show_values=False, show_grads=False, show_saved=False,
               show_attrs=False):
    """The finished ``_GraphWalk`` of ``roots`` (engine.widgets reuses its box ids)."""
    if len(roots) == 1 and isinstance(roots[0], (tuple, list)):
        roots = tuple(roots[0])  # draw_graph((a, b)) as well as draw_graph(a, b)
    walk = _GraphWalk(tensor_names(names), show_values, show_grads, show_saved, show_attrs)
    for root in roots:
        if not _is_tensor(root):
            raise TypeError(f"draw_graph() expects tensors, got {type(root).__name__}")
        walk.add_root(root)
    walk.run()
    return walk


def make_dot(var, params=None, show_attrs=False, show_saved=False):
    """torchviz's ``make_dot``: ``params`` is a dict name -> tensor (``named_parameters()``)."""
    roots = tuple(var) if isinstance(var, (tuple, list)) else (var,)
    return draw_graph(*roots, names=dict(params or {}), show_attrs=show_attrs,
                      show_saved=show_saved)


class _GraphWalk:
    """One breadth-first walk from the roots; ids count up in the order things are met."""

    def __init__(self, names, show_values, show_grads, show_saved, show_attrs):
        self.names = names
        self.show_values, self.show_grads = show_values, show_grads
        self.show_saved, self.show_attrs = show_saved, show_attrs
        self.ids = {}        # key -> "n0", "n1" ...; the key is never printed
        self.kept = []       # what the keys' ids belong to, kept alive: torch makes a new
        #                      Python object for a node or tensor nobody refers to any more
        self.nodes = []
        self.edges = []  # a list: x * x draws two arrows into x, one per gradient
        self.queue = collections.deque()
        self.roots = []
        self.results = set()  # ids of the tensors already drawn pointing at their grad_fn

    def _box(self, thing, key, kind, label):
        """The id of the box for ``key`` (made from ``thing``), made on first sight."""
        if key not in self.ids:
            self.ids[key] = f"n{len(self.ids)}"
            self.kept.append(thing)
            self.nodes.append(Box(self.ids[key], kind, label))
        return self.ids[key]

    def box_id(self, thing):
        """The id of the box drawn for a tensor or a grad_fn node (None if not drawn)."""
        if _is_accumulator(thing):
            thing = thing.variable
        kind = "tensor" if _is_tensor(thing) else "node"
        return self.ids.get((kind, id(thing)))

    def add_root(self, root):
        self.roots.append(root)
        self._tensor_box(root, "root")  # first, so that roots get the first ids
        if root.grad_fn is not None:  # (a leaf root is drawn alone, or as its graph's leaf)
            self._result(root, "root", self._node(root.grad_fn))

    def _result(self, tensor, kind, here):
        """A tensor made by the node ``here``: its box, with one arrow to that node."""
        box = self._tensor_box(tensor, kind)
        if id(tensor) not in self.results:  # a root may also be named, or retain its grad
            self.results.add(id(tensor))
            self.edges.append((box, here, None, "solid"))

    def _tensor_box(self, tensor, kind):
        """The box of a tensor, coloured by what it is, whichever way it was reached first."""
        if _grad_fn(tensor) is None and tensor.requires_grad:
            kind = "leaf"  # (a saved input that needs no grad stays a "saved" box)
        elif any(tensor is root for root in self.roots):
            kind = "root"
        elif tensor.retains_grad:
            kind = "retained"
        return self._box(tensor, ("tensor", id(tensor)), kind, self._tensor_label(tensor))

    def _node(self, node):
        """The box for a grad_fn node: an AccumulateGrad is drawn as its leaf tensor."""
        if _is_accumulator(node):
            return self._tensor_box(node.variable, "leaf")
        key = ("node", id(node))
        if key not in self.ids:
            self.queue.append(node)
        return self._box(node, key, "op", self._node_label(node))

    def run(self):
        while self.queue:
            node = self.queue.popleft()
            here = self.ids[("node", id(node))]
            for next_node, output_nr in node.next_functions:
                if next_node is not None:
                    label = f"output {output_nr}" if output_nr else None
                    self.edges.append((here, self._node(next_node), label, "solid"))
            self._retained(node, here)
            if self.show_saved:
                self._saved(node, here)
            self._named_results(node, here)

    def _retained(self, node, here):
        """Tensors that called retain_grad() are drawn beside the node that made them."""
        named = [tensor for tensor, _ in self.names.values()]
        for tensor in _retained_tensors(node, named + self.roots):
            self._result(tensor, "retained", here)

    def _named_results(self, node, here):
        """Named intermediate tensors (from ``names``) point at the node that made them."""
        for tensor, _ in self.names.values():
            if _grad_fn(tensor) is node:
                self._result(tensor, "tensor", here)

    def _saved(self, node, here):
        for attribute, tensor, version in _saved_tensors(node):
            label = f"_saved_{attribute}"
            if tensor._version != version:  # the error backward() will raise
                label += f"\nchanged in place since:\n_version {version} -> {tensor._version}"
            # one box per tensor: a saved leaf or named tensor is the box already drawn
            self.edges.append((here, self._tensor_box(tensor, "saved"), label, "dashed"))

    def _tensor_label(self, tensor):
        named = self.names.get(id(tensor))
        lines = [", ".join(named[1])] if named else []
        lines.append(f"{_shape(tensor.shape)} {str(tensor.dtype).replace('torch.', '')}")
        if self.show_values:
            lines.append(values_text(_numpy(tensor)))
        if self.show_grads:
            grad = _grad(tensor)
            lines.append("grad: " + ("None" if grad is None else values_text(_numpy(grad))))
        if self.show_attrs:
            lines.append(f"requires_grad={tensor.requires_grad} is_leaf={tensor.is_leaf}")
            lines.append(f"retains_grad={tensor.retains_grad} _version={tensor._version}")
        return "\n".join(lines)

    def _node_label(self, node):
        lines = [node.name()]
        if self.show_attrs:  # what the node keeps besides tensors: dims, exponents ...
            lines += [f"{attribute}: {value}" for attribute, value in _node_attributes(node)]
        return "\n".join(lines)

    def picture(self, rankdir):
        order = {box.id: i for i, box in enumerate(self.nodes)}
        edges = [Arrow(*edge) for edge in sorted(
            self.edges, key=lambda e: (order[e[0]], order[e[1]], e[2] or ""))]
        kinds = [kind for kind in STYLES if any(box.kind == kind for box in self.nodes)]
        return Picture(self.nodes, edges, self._summary(edges), indented_tree(self.nodes, edges),
                       legend=kinds, rankdir=rankdir)

    def _summary(self, edges):
        def short(box):
            return box.label.split("\n")[0]

        ops = collections.Counter(short(b) for b in self.nodes if b.kind == "op")
        leaves = [short(b) for b in self.nodes if b.kind == "leaf"]
        op_text = ", ".join(name if n == 1 else f"{name} x{n}" for name, n in ops.items())
        return (f"Graph: {len(self.nodes)} nodes, {len(edges)} edges: {op_text or 'no ops'}; "
                f"leaves: {', '.join(leaves) or 'none'}")


def indented_tree(nodes, edges):
    """The graph as an indented tree from the roots; a node met again says 'see above'."""
    by_id = {box.id: box for box in nodes}
    children = collections.defaultdict(list)
    has_parent = set()
    for edge in edges:
        children[edge.tail].append(edge)
        has_parent.add(edge.head)
    lines, seen = [], set()
    stack = [(box.id, "", None) for box in reversed(nodes) if box.id not in has_parent]
    while stack:  # a stack, not recursion: long chains (loops, RNNs) stay drawable
        box_id, indent, via = stack.pop()
        box = by_id[box_id]
        text = " | ".join(box.label.split("\n"))
        via = " ".join(via.split()) + " -- " if via else ""
        prefix = f"{indent}{via}[{box.kind}] "
        lines.append(prefix + text + (" (see above)" if box_id in seen else ""))
        if box_id not in seen:
            seen.add(box_id)
            for edge in reversed(children[box_id]):
                stack.append((edge.head, indent + "    ", edge.label))
    return "\n".join(lines)


# ====================================================================== memory
def draw_memory(**tensors):
    """Draw which of the named tensors (and numpy arrays) share memory, and how they view it."""
    objects = {}  # id -> [names, object]: ``b = a`` is one object with two names
    for name, value in tensors.items():
        if not (_is_tensor(value) or isinstance(value, np.ndarray)):
            raise TypeError(f"draw_memory() draws tensors and numpy arrays, not "
                            f"{type(value).__name__} ({name})")
        objects.setdefault(id(value), [[], value])[0].append(name)
    groups = []  # [[start, end, storage array, [(names, object), ...]], ...]
    for names, value in objects.values():
        storage = _storage_of(value)
        start, end = byte_bounds(storage)
        for group in groups:  # shared memory: the address ranges overlap
            if start < group[1] and group[0] < end or storage is group[2]:
                group[3].append((names, value))
                if end - start > group[1] - group[0]:  # show the widest block
                    group[:3] = [start, end, storage]
                break
        else:
            groups.append([start, end, storage, [(names, value)]])
    return _memory_picture(groups)


def _memory_picture(groups):
    nodes, edges, storages, objects, parts = [], [], [], [], []
    for number, (start, _end, storage, members) in enumerate(groups):
        storage_id = f"s{number}"
        count = f"{storage.size} element" + ("" if storage.size == 1 else "s")
        nodes.append(Box(storage_id, "storage", f"storage {number}\n{storage.dtype}, {count}\n"
                                                f"{values_text(storage)}"))
        storages.append([name for names, _ in members for name in names])
        lines = [f"storage {number}: {values_text(storage)}"]
        for names, value in members:
            box_id = f"t{len(objects)}"
            objects.append(names)
            kind = "numpy" if isinstance(value, np.ndarray) else "tensor"
            label = " = ".join(names) + "\n" + _memory_facts(value)
            nodes.append(Box(box_id, kind, label))
            view = _view_facts(value, start)
            edges.append(Arrow(box_id, storage_id, view, "solid"))
            lines.append(f"    {' = '.join(names)} -- {view.replace(chr(10), ', ')}: "
                         + _memory_facts(value).replace("\n", ", "))
        parts.append("\n".join(lines))
    summary = f"Memory: {len(groups)} storage{'s' if len(groups) != 1 else ''}: " + " | ".join(
        f"storage {n}: {', '.join(' = '.join(o) for o in _objects_in(objects, names))}"
        for n, names in enumerate(storages))
    kinds = [kind for kind in ("storage", "tensor", "numpy") if any(b.kind == kind for b in nodes)]
    picture = Picture(nodes, edges, summary, "\n".join(parts), legend=kinds, rankdir="LR")
    picture.storages = storages  # [[names sharing storage 0], [storage 1] ...]
    picture.objects = objects    # [[names of one object], ...]: ``b = a`` gives ["a", "b"]
    return picture


def _objects_in(objects, names):
    return [group for group in objects if group[0] in names]


def _memory_facts(value):
    """requires_grad, is_leaf, grad_fn and _version of a tensor; dtype of a numpy array."""
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray {value.dtype}"
    grad_fn = value.grad_fn
    return (f"requires_grad={value.requires_grad} is_leaf={value.is_leaf}\n"
            f"grad_fn={grad_fn.name() if grad_fn is not None else None} "
            f"_version={value._version}")


def _view_facts(value, storage_start):
    """Shape, strides and offset in elements, as torch counts them."""
    if _is_tensor(value):
        return (f"shape {_shape(value.shape)}\nstride {value.stride()}\n"
                f"offset {value.storage_offset()}")
    itemsize = value.itemsize
    start = value.__array_interface__["data"][0]
    strides = tuple(s // itemsize for s in value.strides)
    return (f"shape {_shape(value.shape)}\nstride {strides}\n"
            f"offset {(start - storage_start) // itemsize}")
