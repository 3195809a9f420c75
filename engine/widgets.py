"""Interactive pictures for JupyterLab: step through backward, play with gradient descent.

``BackwardStepper(y)`` replays ``y.backward()`` one node at a time on the graph drawn by
``engine.viz.draw_graph``: the node that runs is outlined in red, the gradient each edge
carries is written on it, ``.grad`` fills in on the leaves (and on tensors that called
``retain_grad()``), and the tensors a node saved are marked freed once it has run.

``DescentPlayground("quadratic")`` runs plain gradient descent (engine autograd and a
four-line SGD loop) on a small 1-D or 2-D loss, with sliders for the learning rate, the
number of steps and the starting point, and plots the path and the loss curve.

Both are ipywidgets for JupyterLab; their state machines (``BackwardSteps``,
``descent_path``) work without a browser. Shown where widgets cannot run (a static HTML
page, nbval), they fall back to a picture of their current state and a short text
summary that is the same in every run.
"""
import base64
import collections
import io
import re

import ipywidgets as widgets
import numpy as np

import engine as torch

from . import viz
from .core import backward
from .core.grad_mode import no_grad
from .core.hooks import graph_task, retained_tensors
from .core.node import AccumulateGrad, SavedTensor, edge_of
from .core.tensor import Tensor, wrap

__all__ = ["BackwardSteps", "BackwardStepper", "descent_path", "DescentPlayground", "LOSSES"]

# ====================================================================== recording backward
Step = collections.namedtuple("Step", "node grads_in grads_out grads hooks")
# node: the grad_fn node that ran; grads_in: the gradients it received (numpy, per output);
# grads_out: those it sent (per next_functions entry); grads: .grad of every tracked tensor
# after it ran (numpy or None); hooks: the kinds of the hooks that ran with it, in order


def _copy(tensor):
    return None if tensor is None else np.array(tensor._data, copy=True)


def _hooks_at(node):
    """The hooks backward runs with ``node``, in their order, by kind: the tensor hooks of
    its outputs, retain_grad's, its pre-hooks, (the node), its post-hooks, and for a leaf's
    AccumulateGrad the leaf's post-accumulate hooks (engine/core/hooks.py)."""
    kinds = []
    hooks = node._hooks
    if hooks is not None:
        kinds += ["tensor hook"] * sum(len(h) for h in hooks.tensor_hooks.values())
        kinds += ["retain_grad"] * len(retained_tensors(node))
        kinds += ["pre-hook"] * len(hooks.pre_hooks)
        kinds += ["post-hook"] * len(hooks.post_hooks)
    if isinstance(node, AccumulateGrad):
        kinds += ["post-accumulate hook"] * len(node.variable._post_accumulate_hooks or ())
    return kinds


def _graph_nodes(roots):
    """Every node reachable from ``roots``, in breadth-first order."""
    order, seen = [], set()
    queue = collections.deque(root for root in roots if root is not None)
    while queue:
        node = queue.popleft()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        queue.extend(n for n, _ in node.next_functions if n is not None)
    return order


def _tracked_tensors(nodes):
    """The tensors whose ``.grad`` backward fills: leaves, then retain_grad() tensors."""
    leaves = [node.variable for node in nodes if isinstance(node, AccumulateGrad)]
    return leaves + [tensor for node in nodes for tensor in retained_tensors(node)]


def record_backward(root, gradient=None):
    """Run the engine's real backward from ``root`` and record every step.

    The graph is kept (``retain_graph=True``) and every ``.grad`` is put back as it was
    afterwards, so ``root.backward()`` still works and gives the same result. Returns
    ``(start, steps, tracked)``: the ``.grad`` values before, one ``Step`` per node that
    ran, and the tracked tensors.
    """
    if not isinstance(root, Tensor):
        raise TypeError(f"expected a tensor, got {type(root).__name__}")
    if not root.requires_grad:
        raise RuntimeError("the tensor does not require grad and has no grad_fn: "
                           "there is no backward to step through")
    start_node = root.grad_fn if root.grad_fn is not None else root._grad_accumulator()
    tracked = _tracked_tensors(_graph_nodes([start_node]))
    before = [tensor._grad for tensor in tracked]
    start = [_copy(grad) for grad in before]
    steps = []

    def run_and_record(node, grads):
        # the walk's own run_node, then a note of what it did (the walk's public hook)
        hooks = _hooks_at(node)  # (read first: a hook may remove itself)
        input_grads = backward.run_node(node, grads, retain_graph=True)
        if grads is not None:
            steps.append(Step(node, [_copy(g) for g in grads], [_copy(g) for g in input_grads],
                              [_copy(tensor._grad) for tensor in tracked], hooks))
        return input_grads

    try:
        for tensor in tracked:  # backward adds in place: let it add into copies
            if tensor._grad is not None:
                tensor._grad = tensor._grad.detach().clone()
        grads = backward.starting_gradients((root,), (gradient,))
        roots = [edge_of(root)]
        with no_grad(), graph_task(roots):  # (a backward call, for the hooks that ask)
            backward.run_backward(roots, grads, run_and_record)
    except RuntimeError as error:
        if "backward through the graph a second time" in str(error):
            raise RuntimeError("this graph's saved tensors were freed by an earlier "
                               "backward(): build the graph again (or call backward with "
                               "retain_graph=True) before stepping through it") from error
        raise
    finally:
        for tensor, grad in zip(tracked, before):
            tensor._grad = grad
    return start, steps, tracked


def _values(array):
    return "None" if array is None else viz.values_text(array)


NBSP = "\u00a0"  # a space that Graphviz measures and draws (as nothing), and never trims


def _padded(label, size):
    """``label`` with at least ``size = (lines, width)``: lines of one NBSP added below, and
    its longest line centred between NBSPs (lines are centred: the text stays in place)."""
    count, width = size
    if not count:
        return label
    lines = label.split("\n") if label else []
    lines += [NBSP] * (count - len(lines))
    longest = max(range(len(lines)), key=lambda index: len(lines[index]))
    missing = width - len(lines[longest])
    if missing > 0:
        lines[longest] = NBSP * (missing // 2) + lines[longest] + NBSP * (missing - missing // 2)
    return "\n".join(lines)


def _wrapped(text, width=18):
    """``[ 4.9462, 1.1036, 22.1672]`` on lines of at most ``width`` characters (where it
    can), broken after commas (between rows, for a matrix): arrows into one box sit side by
    side, with their labels."""
    parts = re.split(r"(?<=\]), (?=\[)", text) if text.startswith("[[") else text.split(", ")
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) + 1 > width:
            lines[-1] += ","
            lines.append(" " + part)
        else:
            lines[-1] += (", " if lines[-1] else "") + part
    return "\n".join(lines)


class BackwardSteps:
    """Backward, one node at a time: a state machine that needs no browser.

    ``position`` counts the nodes that have run (0 to ``len(self)``); ``step()``,
    ``back()``, ``reset()``, ``end()`` and ``goto(k)`` move it; ``state`` describes it,
    ``picture()`` draws it. ``names`` (e.g. ``locals()``) names the tensors.
    """

    def __init__(self, root, names=None, show_saved=True, gradient=None):
        self.root = root
        self.start, self.steps, self.tracked = record_backward(root, gradient)
        self.position = 0
        self._walk = viz.walk_graph((root,), names, show_saved=show_saved)
        self._base = self._walk.picture("TB")
        named = viz.tensor_names(names)
        self.names = [named[id(t)][1][0] if id(t) in named else f"t{i}"
                      for i, t in enumerate(self.tracked)]
        self._ran_at = {id(step.node): k for k, step in enumerate(self.steps, 1)}
        # box id -> id(node) for grad_fn boxes (an AccumulateGrad is drawn as its leaf)
        self._node_of_box = {box_id: key[1] for key, box_id in self._walk.ids.items()
                             if key[0] == "node"}
        for step in self.steps:
            if isinstance(step.node, AccumulateGrad):
                self._node_of_box[self._walk.box_id(step.node)] = id(step.node)
        self._edge_sources = self._match_edges()
        # What each node saved, read now: a later backward() frees it (node._saved empties),
        # and the pictures must still show which saved tensors each step releases.
        self._saving = {id(step.node) for step in self.steps if step.node._saved}
        self._saved_by = collections.defaultdict(set)  # saved tensor's box -> saving nodes
        for step in self.steps:
            for saved in step.node._saved:
                if isinstance(saved, SavedTensor) and saved.tensor is not None:  # (not packed)
                    self._saved_by[self._walk.box_id(saved.tensor)].add(id(step.node))
        self._pictures = {}
        self._sizes = None  # see _label_sizes()
        # One legend for every step (the kinds drawn at the start and at the end: a kind
        # only changes into a later one), so that the picture does not grow as it runs.
        drawn = {box.kind for position in (0, len(self.steps))
                 for box in self._boxes(position)}
        self.legend = [kind for kind in viz.STYLES if kind in drawn]

    # ------------------------------------------------------------ moving
    def __len__(self):
        return len(self.steps)

    def goto(self, position):
        self.position = max(0, min(len(self.steps), int(position)))
        return self.position

    def step(self):
        return self.goto(self.position + 1)

    def back(self):
        return self.goto(self.position - 1)

    def reset(self):
        return self.goto(0)

    def end(self):
        return self.goto(len(self.steps))

    # ------------------------------------------------------------ describing
    @property
    def order(self):
        """The names of the nodes in the order backward runs them."""
        return [self._node_name(step.node) for step in self.steps]

    def _node_name(self, node):
        if isinstance(node, AccumulateGrad):
            return f"AccumulateGrad({self._tensor_name(node.variable)})"
        return node.name()

    def _tensor_name(self, tensor):
        for name, tracked in zip(self.names, self.tracked):
            if tracked is tensor:
                return name
        return "?"

    def grads_at(self, position):
        """``{name: .grad as a tensor, or None}`` after ``position`` steps."""
        grads = self.start if position == 0 else self.steps[position - 1].grads
        return {name: None if grad is None else _tensor_of(grad)
                for name, grad in zip(self.names, grads)}

    def grad_of(self, tensor):
        """The ``.grad`` of a tracked tensor at the current position (a tensor, or None)."""
        return self.grads_at(self.position)[self._tensor_name(tensor)]

    @property
    def state(self):
        """Where backward is: the node that just ran, what it did, and every ``.grad``."""
        ran = self.steps[:self.position]
        current = ran[-1] if ran else None
        return {
            "position": self.position,
            "steps": len(self.steps),
            "node": None if current is None else self._node_name(current.node),
            "received": None if current is None else current.grads_in,
            "sent": None if current is None else current.grads_out,
            "grads": self.grads_at(self.position),
            "ran": [self._node_name(step.node) for step in ran],
            "freed": [step.node.name() for step in ran if id(step.node) in self._saving],
            "hooks": [] if current is None else list(current.hooks),
        }

    def describe(self):
        """One line about the current step (the same text in every run)."""
        grads = ", ".join(f"{name}.grad={_values(g)}"
                          for name, g in self.grads_at(self.position).items())
        head = f"Backward step {self.position}/{len(self.steps)}: "
        if self.position == 0:
            return head + f"start with grad {_values(self.steps[0].grads_in[0])} at the " \
                          f"output" + (f"; {grads}" if grads else "") if self.steps else \
                head + "nothing to run"
        step = self.steps[self.position - 1]
        text = f"{self._node_name(step.node)} got {', '.join(map(_values, step.grads_in))}"
        sent = [_values(g) for g, (n, _) in zip(step.grads_out, step.node.next_functions)
                if n is not None]
        if sent:
            text += f", sent {', '.join(sent)}"
        if step.hooks:
            text += f", hooks: {', '.join(step.hooks)}"
        if id(step.node) in self._saving:
            text += ", freed its saved tensors"
        return head + text + (f"; {grads}" if grads else "")

    def __repr__(self):
        return self.describe()

    # ------------------------------------------------------------ drawing
    def _match_edges(self):
        """For each arrow of the picture, where its gradient comes from.

        ``("sent", node, index)``: what ``node`` sends along ``next_functions[index]``;
        ``("received", node, output_nr)``: the gradient of a tensor, received by its grad_fn.
        """
        walk, pending = self._walk, collections.defaultdict(collections.deque)
        nodes = {id(node): node for node in _graph_nodes([self.root.grad_fn])}
        for key, box_id in walk.ids.items():
            if key[0] != "node":
                continue
            node = nodes[key[1]]
            for index, (next_node, nr) in enumerate(node.next_functions):
                if next_node is not None:
                    head = walk.box_id(next_node)
                    pending[(box_id, head, f"output {nr}" if nr else None)].append(
                        ("sent", node, index))
        tensors = {box_id: key[1] for key, box_id in walk.ids.items() if key[0] == "tensor"}
        by_id = {id(t): t for t in self._all_tensors()}
        sources = []
        for arrow in self._base.edges:
            queue = pending.get((arrow.tail, arrow.head, arrow.label))
            if arrow.style == "solid" and queue:
                sources.append(queue.popleft())
            elif arrow.style == "solid" and tensors.get(arrow.tail) in by_id:
                tensor = by_id[tensors[arrow.tail]]
                sources.append(("received", tensor.grad_fn, tensor._output_nr))
            else:
                sources.append(None)
        return sources

    def _all_tensors(self):
        """The tensors drawn with an arrow to their grad_fn: the root, named, retained."""
        found = [self.root] + list(self.tracked)
        found += [tensor for tensor, _ in self._walk.names.values()]
        return [t for t in found if isinstance(t, Tensor) and t.grad_fn is not None]

    def picture(self, position=None):
        """The graph after ``position`` steps (default: now), as a ``viz.Picture``."""
        position = self.position if position is None else position
        if position not in self._pictures:
            self._pictures[position] = self._draw(position)
        return self._pictures[position]

    def _ran(self, position):
        """The ids of the nodes that have run after ``position`` steps."""
        return {key for key, k in self._ran_at.items() if k <= position}

    def _draw(self, position):
        current = self.steps[position - 1].node if position else None
        boxes, arrows = self._boxes(position), self._arrows(position)
        text = viz.indented_tree(boxes, arrows)  # (shown without Graphviz: no padding)
        # Every label drawn as big as it gets at any step (padded with invisible spaces):
        # Graphviz then lays out every step alike, and the picture keeps its size and shape.
        sizes = self._label_sizes()
        boxes = [box._replace(label=_padded(box.label, sizes[box.id])) for box in boxes]
        arrows = [arrow._replace(label=_padded(arrow.label, sizes[index]))
                  for index, arrow in enumerate(arrows)]
        highlight = {self._walk.box_id(current)} if current is not None else set()
        return viz.Picture(boxes, arrows, self.describe_at(position), text,
                           legend=self.legend, highlight=highlight)

    def _arrows(self, position):
        """The picture's arrows after ``position`` steps: gradients carried, saved freed."""
        ran = self._ran(position)
        current = self.steps[position - 1].node if position else None
        return [self._arrow(arrow, source, ran, current, position)
                for arrow, source in zip(self._base.edges, self._edge_sources)]

    def _label_sizes(self):
        """``{box id or arrow index: (lines, longest line)}``, the most any step draws."""
        if self._sizes is None:
            sizes = collections.defaultdict(lambda: (0, 0))
            for position in range(len(self.steps) + 1):
                labels = [(box.id, box.label) for box in self._boxes(position)]
                labels += enumerate(arrow.label for arrow in self._arrows(position))
                for key, label in labels:
                    lines = label.split("\n") if label else []
                    most = sizes[key]
                    sizes[key] = (max(most[0], len(lines)),
                                  max([most[1]] + [len(line) for line in lines]))
            self._sizes = dict(sizes)
        return self._sizes

    def _boxes(self, position):
        """The picture's boxes after ``position`` steps: kinds and ``grad:`` lines."""
        ran = self._ran(position)
        current = self.steps[position - 1].node if position else None
        grads = self.grads_at(position)
        tracked_boxes = {self._walk.box_id(t): name for name, t in zip(self.names, self.tracked)}
        freed_boxes = self._freed_boxes(ran)
        boxes = []
        for box in self._base.nodes:
            kind, label = box.kind, box.label
            node_key = self._node_of_box.get(box.id)
            if kind == "op" and node_key in ran and (current is None
                                                     or node_key != id(current)):
                kind = "ran"
            if box.id in tracked_boxes:
                label += "\ngrad: " + _values(grads[tracked_boxes[box.id]])
            if box.id in freed_boxes and kind == "saved":
                kind = "freed"
            boxes.append(viz.Box(box.id, kind, label))
        return boxes

    def describe_at(self, position):
        kept, self.position = self.position, position
        try:
            return self.describe()
        finally:
            self.position = kept

    def _freed_boxes(self, ran):
        """Saved tensors whose every saving node has run (backward released them)."""
        return {box for box, nodes in self._saved_by.items() if nodes <= ran}

    def _arrow(self, arrow, source, ran, current, position):
        if arrow.style == "dashed":  # a saved tensor: freed once its node has run
            if self._node_of_box.get(arrow.tail) in ran:
                return arrow._replace(label=arrow.label + "\n(freed)", style="freed")
            return arrow
        if source is None:
            return arrow
        kind, node, index = source
        is_root_edge = kind == "received" and node is self.root.grad_fn \
            and index == self.root._output_nr
        if id(node) not in ran and not (is_root_edge and position == 0):
            return arrow
        if is_root_edge and id(node) not in ran:
            value = self.steps[0].grads_in[0] if self.steps else None
        else:
            step = self.steps[self._ran_at[id(node)] - 1]
            value = (step.grads_out if kind == "sent" else step.grads_in)[index] \
                if index < len(step.grads_out if kind == "sent" else step.grads_in) else None
        label = (arrow.label + "\n" if arrow.label else "") + _wrapped(_values(value))
        active = (node is current and kind == "sent") or (position == 0 and is_root_edge)
        return arrow._replace(label=label, style="active" if active else arrow.style)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.picture()._repr_mimebundle_(include, exclude)


# ====================================================================== the stepper widget
def _svg_html(picture):
    """The picture as inline SVG for an HTML widget (text when Graphviz is missing). Where
    Python cannot draw but the page can (a browser without JSPI), the DOT goes in a
    ``data-dot`` attribute and the course's JupyterLab extension draws it in place of the
    text (course_tools/labextension/)."""
    import html
    svg = picture._svg_or_none()
    if svg is None:
        text = f"<pre>{html.escape(picture.text)}\n({html.escape(picture._hint)})</pre>"
        if not picture._page_draws:
            return text
        page = picture.for_the_page()
        return (f'<div class="{viz.DOT_HTML_CLASS}" data-dot="{html.escape(page["dot"])}" '
                f'data-max-width-px="{page["max_width_px"]}" '
                f'data-min-scale="{page["min_scale"]}">{text}</div>')
    # a picture wider than the notebook scrolls, rather than being cut off by the widget
    return f'<div style="overflow-x: auto">{svg[svg.find("<svg"):]}</div>'


class BackwardStepper(widgets.VBox):
    """Step through ``root.backward()``: Step, Back, Play, Reset and a slider.

    The steps are recorded up front by running the engine's real backward (the graph
    and every ``.grad`` are left as they were). ``.model`` is the ``BackwardSteps``
    state machine; ``.step()``, ``.back()``, ``.reset()`` move both it and the slider.
    Step is disabled at the last step, Back and Reset at the first; Play (Pause while it
    plays) shows the steps one after another, from the start when at the end.
    """

    def __init__(self, root, names=None, show_saved=True, gradient=None, interval=1200):
        self.model = BackwardSteps(root, names=names, show_saved=show_saved,
                                   gradient=gradient)
        last = len(self.model)
        button = dict(layout=widgets.Layout(width="80px"))
        self.reset_button = widgets.Button(description="Reset", icon="undo", **button)
        self.back_button = widgets.Button(description="Back", icon="step-backward", **button)
        self.step_button = widgets.Button(description="Step", icon="step-forward", **button)
        self.play_button = widgets.Button(description="Play", icon="play", **button)
        # The browser does the playing (its timer moves the slider through the jslink, so
        # the kernel needs no thread): this Play widget is hidden, the button above starts
        # and pauses it. (Play's own buttons show icons only.)
        self.play = widgets.Play(value=0, min=0, max=last, interval=interval,
                                 show_repeat=False, layout=widgets.Layout(display="none"))
        self.slider = widgets.IntSlider(value=0, min=0, max=last, description="step",
                                        continuous_update=True)
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.caption = widgets.HTML()
        self.view = widgets.HTML()
        self.reset_button.on_click(lambda _: self.reset())
        self.back_button.on_click(lambda _: self.back())
        self.step_button.on_click(lambda _: self.step())
        self.play_button.on_click(lambda _: self.toggle_play())
        self.play.observe(self._playing, names="playing")
        self.slider.observe(self._moved, names="value")
        controls = widgets.HBox([self.reset_button, self.back_button, self.step_button,
                                 self.play_button, self.play, self.slider])
        super().__init__([controls, self.caption, self.view])
        self._show()

    def toggle_play(self):
        """Start playing (from the first step when at the last), or pause."""
        self.play.playing = not self.play.playing

    def _playing(self, change):
        playing = change["new"]
        self.play_button.description = "Pause" if playing else "Play"
        self.play_button.icon = "pause" if playing else "play"

    def _moved(self, change):
        self.model.goto(change["new"])
        self._show()

    def _show(self):
        import html
        position = self.model.position
        # the picture first: once the caption says which step it is, the picture shows it
        self.view.value = _svg_html(self.model.picture())
        self.caption.value = f"<code>{html.escape(self.model.describe())}</code>"
        self.step_button.disabled = position >= len(self.model)
        self.back_button.disabled = self.reset_button.disabled = position <= 0

    @property
    def position(self):
        return self.model.position

    @property
    def state(self):
        return self.model.state

    def goto(self, position):
        self.slider.value = max(0, min(len(self.model), int(position)))
        self.model.goto(self.slider.value)  # (the observer did it, unless unchanged)
        return self.model.position

    def step(self):
        return self.goto(self.model.position + 1)

    def back(self):
        return self.goto(self.model.position - 1)

    def reset(self):
        return self.goto(0)

    def end(self):
        return self.goto(len(self.model))

    def picture(self):
        return self.model.picture()

    def __repr__(self):
        return f"BackwardStepper({self.model.describe()})"

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle.update(self.model.picture()._repr_mimebundle_())  # the static fallback
        return bundle



# ====================================================================== gradient descent
def _quadratic(x, y):
    return x ** 2 / 2 + 5 * y ** 2


def _rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


# name -> (loss, defaults): start, learning rate, steps, the steps slider's end, and the
# box the plot shows. Rosenbrock: from (-1.5, 2) with lr 0.0015, plain gradient descent
# reaches the valley floor in about 1,000 steps and (1, 1) (to 0.003) in 10,000; lr 0.003
# blows up.
LOSSES = {
    "quadratic": (_quadratic, dict(start=(-1.8, 1.0), lr=0.15, steps=30, max_steps=200,
                                   box=((-2.0, 2.0), (-1.5, 1.5)), formula="x²/2 + 5y²")),
    "rosenbrock": (_rosenbrock, dict(start=(-1.5, 2.0), lr=0.0015, steps=1000,
                                     max_steps=10_000, box=((-2.0, 2.0), (-1.0, 3.0)),
                                     formula="(1 - x)² + 100 (y - x²)²")),
}

# The learning rates the slider offers: a logarithmic scale of round numbers, 1e-4 to 1
LEARNING_RATES = sorted({round(m * 10.0 ** e, 6) for e in range(-4, 0)
                         for m in (1, 1.5, 2, 3, 5, 7)} | {1.0})


def descent_path(loss, start, lr, steps, limit=1e6):
    """Plain gradient descent with engine autograd: the points visited and their losses.

    ``loss`` takes one 0-d tensor per coordinate (``len(start)`` of them). Returns
    ``(path, losses)``: arrays of shape ``(n + 1, len(start))`` and ``(n + 1,)``; it stops
    early when the point leaves ``[-limit, limit]`` or stops being finite (divergence).
    """
    point = [torch.tensor(float(v), dtype=torch.float64, requires_grad=True) for v in start]
    path, losses = [], []
    for step in range(steps + 1):
        value = loss(*point)
        path.append([p.item() for p in point])
        losses.append(value.item())
        if step == steps or not np.all(np.isfinite(path[-1] + losses[-1:])) \
                or max(abs(v) for v in path[-1]) > limit:
            break
        value.backward()
        with torch.no_grad():  # the SGD step: p <- p - lr * dloss/dp
            for p in point:
                p -= lr * p.grad
                p.grad.zero_()
    return np.array(path), np.array(losses)


def _number(value):
    return f"{value:.4g}"


def _point(values):
    return "(" + ", ".join(_number(v) for v in values) + ")"


class _Descent:
    """The playground's model: a loss, its settings, and the path they give."""

    def __init__(self, loss, start, lr, steps, box):
        if isinstance(loss, str):
            if loss not in LOSSES:
                raise ValueError(f"unknown loss {loss!r}: use one of {sorted(LOSSES)} "
                                 "or a function of one or two tensors")
            self.name = loss
            self.function, defaults = LOSSES[loss]
            self.formula = defaults["formula"]
        elif callable(loss):
            self.name = getattr(loss, "__name__", "loss")
            self.function, defaults, self.formula = loss, {}, None
        else:
            raise TypeError("loss must be 'quadratic', 'rosenbrock' or a function")
        self.start = tuple(float(v) for v in (start if start is not None
                                              else defaults.get("start", (1.5,))))
        if len(self.start) not in (1, 2):
            raise ValueError("start must have 1 or 2 coordinates (a 1-D or 2-D loss)")
        self.lr = float(lr if lr is not None else defaults.get("lr", 0.1))
        self.steps = int(steps if steps is not None else defaults.get("steps", 30))
        self.max_steps = defaults.get("max_steps")
        self.box = box or defaults.get("box") or ((-2.5, 2.5),) * len(self.start)
        self.run()

    def run(self):
        self.path, self.losses = descent_path(self.function, self.start, self.lr, self.steps)
        return self

    def summary(self):
        done = len(self.path) - 1
        text = (f"Gradient descent on {self.name}: lr={_number(self.lr)}, {done} steps from "
                f"{_point(self.start)}: loss {_number(self.losses[0])} -> "
                f"{_number(self.losses[-1])} at {_point(self.path[-1])}")
        if done < self.steps:
            text += f" (diverged: stopped after {done} of {self.steps} steps)"
        return text

    def figure(self):
        """A matplotlib Figure (no pyplot: nothing is shown twice in a notebook)."""
        if not viz.load_browser_packages("matplotlib"):
            raise RuntimeError(MATPLOTLIB_LOADING)
        from matplotlib.figure import Figure

        figure = Figure(figsize=(9, 3.6), layout="constrained")
        left, right = figure.subplots(1, 2)
        (x0, x1) = self.box[0]
        path = self.path
        with torch.no_grad():
            if len(self.start) == 1:
                xs = np.linspace(x0, x1, 400)
                ys = self.function(torch.tensor(xs)).numpy()
                left.plot(xs, ys, color="grey")
                left.plot(path[:, 0], self.losses, "o-", color="tab:red", markersize=3)
                left.set_xlabel("x")
                left.set_ylabel("loss")
                left.set_xlim(x0, x1)
                low, high = ys.min(), ys.max()
                left.set_ylim(low - 0.05 * (high - low), high + 0.05 * (high - low))
            else:
                (y0, y1) = self.box[1]
                grid_x, grid_y = np.meshgrid(np.linspace(x0, x1, 200), np.linspace(y0, y1, 200))
                z = self.function(torch.tensor(grid_x), torch.tensor(grid_y)).numpy()
                levels = np.quantile(z, np.linspace(0, 1, 25) ** 2)
                left.contour(grid_x, grid_y, z, levels=np.unique(levels), cmap="viridis",
                             linewidths=0.8)
                left.plot(path[:, 0], path[:, 1], "o-", color="tab:red", markersize=3)
                left.set_xlim(x0, x1)
                left.set_ylim(y0, y1)
                left.set_xlabel("x")
                left.set_ylabel("y")
        left.plot(*path[0], "s", color="black", label="start") if len(self.start) == 2 else \
            left.plot(path[0, 0], self.losses[0], "s", color="black", label="start")
        left.legend(loc="upper right")
        left.set_title(f"{self.name}" + (f": {self.formula}" if self.formula else ""))
        right.plot(np.arange(len(self.losses)), self.losses, color="tab:red")
        if np.all(self.losses > 0) and np.all(np.isfinite(self.losses)):
            right.set_yscale("log")
        right.set_xlabel("step")
        right.set_ylabel("loss")
        right.set_title(f"loss (lr = {_number(self.lr)})")
        return figure

    def png(self):
        buffer = io.BytesIO()
        self.figure().savefig(buffer, format="png", dpi=80)
        return buffer.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        if not viz.load_browser_packages("matplotlib"):  # no JSPI: no figure yet, the words
            return {"text/plain": f"{self.summary()}\n({MATPLOTLIB_LOADING})"}
        return {"image/png": base64.b64encode(self.png()).decode("ascii"),
                "text/plain": self.summary()}


MATPLOTLIB_LOADING = ("Loading matplotlib for the picture: it appears here in a few seconds "
                      "(this browser cannot wait for it: no WebAssembly JSPI).")


class DescentPlayground(widgets.VBox):
    """Gradient descent on a small loss, with sliders: learning rate, steps, start.

    The learning rate slider is logarithmic, over round numbers (``LEARNING_RATES``, plus
    ``lr`` if it is not one of them), and reads as they are written ("0.0015").
    """

    def __init__(self, loss="quadratic", start=None, lr=None, steps=None, box=None,
                 max_steps=None):
        self.model = _Descent(loss, start, lr, steps, box)
        model = self.model
        top = max(max_steps or model.max_steps or max(200, 4 * model.steps), model.steps)
        style = dict(continuous_update=False, style={"description_width": "90px"},
                     layout=widgets.Layout(width="420px"))
        rates = sorted(set(LEARNING_RATES) | {model.lr})
        self.lr_slider = widgets.SelectionSlider(
            options=[(_number(rate), rate) for rate in rates], value=model.lr,
            description="learning rate", **style)
        self.steps_slider = widgets.IntSlider(value=model.steps, min=0, max=top,
                                              step=max(1, top // 200), description="steps",
                                              **style)
        self.start_sliders = [
            widgets.FloatSlider(value=value, min=low, max=high, step=0.05,
                                description=f"start {axis}", **style)
            for value, (low, high), axis in zip(model.start, model.box, "xy")]
        self.caption = widgets.HTML()
        self.image = widgets.Image(format="png")
        for slider in [self.lr_slider, self.steps_slider, *self.start_sliders]:
            slider.observe(self._changed, names="value")
        super().__init__([widgets.HBox([widgets.VBox([self.lr_slider, self.steps_slider]),
                                        widgets.VBox(self.start_sliders)]),
                          self.caption, self.image])
        self._show()

    def _changed(self, _change):
        self.update(lr=self.lr_slider.value, steps=self.steps_slider.value,
                    start=[s.value for s in self.start_sliders])

    def update(self, lr=None, steps=None, start=None):
        """Change settings (as the sliders do) and rerun the descent."""
        model = self.model
        model.lr = model.lr if lr is None else float(lr)
        model.steps = model.steps if steps is None else int(steps)
        model.start = model.start if start is None else tuple(float(v) for v in start)
        model.run()
        self._show()
        return self

    def _show(self):
        import html
        caption = f"<code>{html.escape(self.model.summary())}</code>"
        # Without JSPI the figure waits for matplotlib to arrive, and is drawn then.
        if viz.load_browser_packages("matplotlib", then=self._show):
            self.caption.value = caption
            self.image.value = self.model.png()
        else:
            self.caption.value = f"{caption}<br><i>{html.escape(MATPLOTLIB_LOADING)}</i>"

    @property
    def path(self):
        return self.model.path

    @property
    def losses(self):
        return self.model.losses

    def summary(self):
        return self.model.summary()

    def __repr__(self):
        return f"DescentPlayground({self.model.summary()})"

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle.update(self.model._repr_mimebundle_())  # the static fallback
        return bundle


def _tensor_of(array):
    """A recorded gradient (numpy) shown as the tensor ``.grad`` would be (a copy)."""
    return wrap(array.copy())
