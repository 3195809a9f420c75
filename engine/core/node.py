"""The recorded graph: nodes, the tensors they save, and how an operation records one.

Every differentiable operation, when one of its inputs requires grad, calls
``record``: it creates a *node* (the result's ``grad_fn``, e.g. ``MulBackward0``)
that keeps the tensors its gradient formula needs (``saved_tensors``) and where
each input's gradient must go next (``next_functions``). A leaf that requires grad
is reached through an ``AccumulateGrad`` node, which adds the gradient that reaches
it into the leaf's ``.grad``.

Tensors are reached here only through their attributes and methods: this module does
not import the Tensor class (``core/tensor.py`` imports this one).
"""
import functools
import itertools

import numpy as np

from ..fidelity import messages
from ..fidelity.floating import quietly
from ..fidelity.layout import obeys_layout_contract
from . import forward
from .grad_mode import mode
from .hooks import add_hook, hooks_of, run_post_accumulate_hooks
from .saved import (default_hooks, pack, raw_saved_attribute, in_torchs_order,
                    saved_attribute, unpack)


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved.

    (A node keeps a saved number, or None, as it is: there is nothing to check.) Under
    ``saved_tensors_hooks`` it keeps what the pack hook returned instead (``packed``,
    saved.py) and ``tensor`` is None.
    """

    __slots__ = ("tensor", "version", "is_output", "packed", "output_nr")

    def __init__(self, tensor, is_output):
        self.output_nr = tensor._output_nr  # (which output of its node, when one)
        if tensor._inference and not mode.inference:
            raise RuntimeError(messages.INFERENCE_SAVED)
        if default_hooks.stack:  # saved_tensors_hooks are on: keep what pack_hook makes of it
            self.tensor, self.is_output, self.packed = None, is_output, pack(tensor)
            return
        # An output is kept as a detached alias (same memory and version counter):
        # holding the output itself would make output -> node -> output a cycle.
        self.tensor = tensor.detach() if is_output else tensor
        self.version = tensor._version
        self.is_output = is_output


class Node:
    """A recorded operation, seen from backward: PyTorch's ``grad_fn`` objects.

    ``next_functions`` holds, for each input, ``(node, output_nr)``: the node that
    receives that input's gradient (``None`` for inputs that need none). A subclass
    lists the tensors it saves in ``_saved_names`` (torch's names: ``self``, ``other``)
    and declares the other values its backward reads as annotations (``dim: int``);
    both can be read back as ``node._saved_<name>``, as in torch (``saved.py``).
    """

    num_outputs = 1
    _saved_names = ()      # torch's names for the saved tensors, in the order backward reads them
    _state = frozenset()   # the declared values (annotations), collected by __init_subclass__
    _internal = ()         # declared values torch's node does not show as _saved_<name>
    # Defaults on the class keep making a node cheap (one per recorded op).
    _saved = ()            # SavedTensor objects (numbers as they are), as _saved_names says
    _released = False
    _hooks = None          # hooks registered on this node or its tensors (hooks.py)
    _metadata = None
    next_functions = ()
    _input_meta = ()       # (shape, dtype) of each input, to check returned gradients

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        declared = set(cls.__dict__.get("__annotations__", ()))
        cls._state = frozenset(declared | cls._state)
        for name in (*cls.__dict__.get("_saved_names", ()), *declared):  # as torch shows them
            if name not in cls._internal:  # (the engine's own bookkeeping: not shown)
                setattr(cls, "_saved_" + name, saved_attribute(name))
        for name in cls.__dict__.get("_saved_names", ()):  # (hooks on one saved tensor)
            setattr(cls, "_raw_saved_" + name, raw_saved_attribute(name))

    @property
    def metadata(self):
        """A dict for your own notes on this node, as in torch."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self):
        """The node's name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __dir__(self):
        # (torch's list: a loop over the _saved_ names finds the saved values only)
        return [name for name in super().__dir__() if name not in ("_saved_names", "_saved")]

    def backward(self, *grad_outputs):
        """The gradient formula: gradients of the inputs from those of the outputs."""
        raise NotImplementedError

    def __call__(self, *grad_outputs):
        grads = self.backward(*grad_outputs)
        if isinstance(grads, tuple) and len(grads) == len(self.next_functions):
            # as in torch: no gradient for an input that needs none (no edge)
            grads = tuple(None if node is None else grad
                          for grad, (node, _) in zip(grads, self.next_functions))
        return grads

    @property
    def saved_tensors(self):
        """The saved tensors, checked: freed after backward, and unchanged since saved."""
        if self._released:
            raise RuntimeError(messages.SECOND_BACKWARD)
        if len(self._saved) > 1 and self._saved_names:
            return in_torchs_order(self._saved_names, self._saved, self._unpack)
        return tuple([self._unpack(saved) for saved in self._saved])

    def _unpack(self, saved):
        if saved.__class__ is not SavedTensor:
            return saved  # a saved number, or None
        tensor = saved.tensor
        if tensor is None:  # packed by saved_tensors_hooks: unpack_hook's tensor, unchecked
            return unpack(saved.packed, self, saved.is_output)
        if tensor._version != saved.version:
            # torch names the node that computed the tensor (an input's current one)
            producer = self if saved.is_output else tensor.grad_fn
            raise RuntimeError(messages.modified_by_inplace(
                tensor, saved.version, producer and producer.name(), bool(mode.anomaly),
                saved.output_nr if saved.is_output else tensor._output_nr))
        if saved.is_output and mode.grad_enabled:
            # for a differentiable backward (create_graph) the output is this node's result
            return tensor._as_output_of(self, saved.output_nr)
        return tensor

    def _release(self):
        """Free the saved tensors (after backward without retain_graph)."""
        if self._saved:
            self._saved = ()
            self._released = True

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after this node; it may replace grad_inputs."""
        return add_hook(hooks_of(self).post_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node; it may replace grad_outputs."""
        return add_hook(hooks_of(self).pre_hooks, hook)


class AccumulateGrad(Node):
    """The node of a leaf: adds the gradient that reaches it into ``variable.grad``."""

    variable: object
    _sequence_nr = float("inf")  # as torch's (its largest number): a leaf's gradient goes first

    def name(self):
        return "torch::autograd::AccumulateGrad"  # torch's C++ name for this node

    @property
    def _input_meta(self):
        # made only when asked: a leaf gets a new node whenever its last graph is gone
        return ((self.variable._data.shape, self.variable._data.dtype),)

    def backward(self, grad):
        variable = self.variable
        if grad is None:
            return ()
        if variable._grad is None:
            # the first gradient: a fresh tensor laid out like the leaf (torch's layout contract);
            # with create_graph the copy is recorded (CopyBackwards), so .grad stays differentiable
            variable._grad = _owned_copy(grad, variable)
        else:
            if mode.grad_enabled:
                variable._grad = variable._grad + grad  # create_graph: stay differentiable
            else:  # accumulate in place, into the same tensor (inf - inf is nan, silently)
                quietly(np.add, variable._grad._data, grad._data, variable._grad._data)
                variable._grad._bump_version()
            _check_layout_contract(variable._grad, variable)
        if variable._post_accumulate_hooks:  # register_post_accumulate_grad_hook's
            run_post_accumulate_hooks(variable)
        return ()


_LAYOUT_CONTRACT_WARNED = []  # torch warns once per process (TORCH_WARN_ONCE)


def _check_layout_contract(grad, variable):
    """torch's warning when an accumulated .grad is laid out otherwise than its leaf."""
    if _LAYOUT_CONTRACT_WARNED:
        return
    shape, grad_stride, stride = grad._data.shape, grad.stride(), variable.stride()
    if grad_stride == stride and 0 not in stride and variable._data.flags.c_contiguous:
        return  # (the usual case, quickly: a row-major leaf and its gradient alike)
    if not obeys_layout_contract(shape, grad_stride, stride):
        _LAYOUT_CONTRACT_WARNED.append(True)
        messages.warn_from_learner(messages.layout_contract_broken(shape, grad_stride,
                                                                   shape, stride))


def _owned_copy(grad, variable):
    """``grad`` in memory of its own, laid out like ``variable`` (no view of another tensor)."""
    result = variable._empty_like(grad._data.dtype)
    if mode.grad_enabled and grad.requires_grad:
        return result.copy_(grad)
    np.copyto(result._data, grad._data)
    return result


# ====================================================================== recording
creation_order = itertools.count()  # a node's number: it always comes after its inputs' nodes


def connect(node, edges, input_meta):
    """Wire ``node`` into the graph: its ``edges`` (``next_functions``), its inputs' shapes
    and dtypes (``input_meta``), its place in creation order.

    Every node is wired here: ``record``'s and ``new_node``'s, CopySlices, a custom
    Function's, and those of ``ops/fastpath.py``.
    """
    node.next_functions, node._input_meta = edges, input_meta
    node._sequence_nr = next(creation_order)
    if mode.anomaly:  # anomaly detection: the node remembers where the forward pass made it
        mode.anomaly.node_built(node)
    return node


def is_tensor(value):
    return hasattr(value, "_data")


def gradient_edge(value):
    """Where the gradient of ``value`` goes: its grad_fn, its AccumulateGrad, or nowhere."""
    if not getattr(value, "_requires_grad", False):  # (a number has no such attribute)
        return (None, 0)
    node = value.grad_fn
    if node is not None:
        return (node, value._output_nr)
    if value._base is not None and not value._asked_for_grad:
        return (None, 0)  # a view without a node requires grad as its base, yet leads nowhere
    return (value._grad_accumulator(), 0)


def follow_base(base):
    """After ``base``'s requires_grad changed: torch's view requires grad while its base does,
    unless it has a node of its own or was asked to (``requires_grad_()`` on the view)."""
    for view in base._followers or ():
        if view._base is base:  # (not one cut from it since: detach(), .data)
            view._requires_grad = view._asked_for_grad or view._grad_fn is not None \
                or base._requires_grad


def edge_of(tensor):
    """The node (and output) whose gradient is ``tensor``'s: its grad_fn or its AccumulateGrad."""
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    return (tensor._grad_accumulator(), 0)


# ``(shape, dtype)``, one tuple for every node that keeps these: fewer new objects for Python's
# garbage collector, which passes over each of them while a graph lives
shared_meta = functools.lru_cache(maxsize=1024)(lambda shape, dtype: (shape, dtype))


def record(node_class, results, inputs, saved=(), saved_output=False, **state):
    """Attach a ``node_class`` node to ``results`` when some input requires grad.

    ``inputs`` are the op's inputs (tensors or Python numbers), ``saved`` the
    tensors its backward needs, ``state`` the other values it reads (dims,
    exponents ..., declared by the node class). With ``saved_output=True`` the
    (first) result is saved too, after the inputs (``saved_output=2``: the first
    two). Returns ``results`` unchanged, so ops end with ``return record(...)``.
    """
    if mode.recording:
        for value in inputs:
            if getattr(value, "_requires_grad", False):
                attach(node_class, results, inputs, saved, saved_output, state)
                break
    if forward.state.active:  # forward-mode AD is on (forward.py): the results' tangents
        forward.propagate(node_class, results, inputs, saved, saved_output, state)
    return results


def read_histories(inputs):
    """Before an op's kernel speaks (a warning, an error of its own): torch's autograd reads
    each input's node first, so a view whose history cannot be rewritten (one of split's
    outputs, changed through its base) raises before the kernel runs; ``record`` would read
    it only after (fuzz 2012051: std of such a view warned, then raised)."""
    if mode.recording and any(getattr(value, "_requires_grad", False) for value in inputs):
        for value in inputs:
            if getattr(value, "_base", None) is not None:
                value.grad_fn  # noqa: B018 (read for its check)


def attach(node_class, results, inputs, saved, saved_output, state):
    """``record``'s node, once it knows some input requires grad: the results' grad_fn."""
    node = build_node(node_class, inputs, saved, state)
    outputs = results if isinstance(results, tuple) else (results,)
    for output_nr, output in enumerate(outputs):
        if output is not None and output._data.dtype.kind == "f":
            output.grad_fn, output._requires_grad = node, True
            if output_nr:  # (0, the first output, is the default)
                output._output_nr = output_nr
    if saved_output:  # (True: the first result; a number: that many results)
        node._saved = node._saved + tuple(SavedTensor(output, True)
                                          for output in outputs[:int(saved_output)])


def save_input(value):
    """What a node keeps of a value its backward needs: a SavedTensor for a tensor."""
    return SavedTensor(value, False) if is_tensor(value) else value


def new_node(node_class, inputs, saved=(), **state):
    """A ``node_class`` node for an op on ``inputs``, or None when nothing needs a gradient."""
    if mode.recording and any(getattr(value, "_requires_grad", False) for value in inputs):
        return build_node(node_class, inputs, saved, state)
    return None


def build_node(node_class, inputs, saved, state):
    """The node of ``record`` and ``new_node``, once they know some input requires grad."""
    edges, metas = [], []  # per input: where its gradient goes, its (shape, dtype)
    for value in inputs:
        edges.append(gradient_edge(value))
        data = getattr(value, "_data", None)  # None for a number
        metas.append(None if data is None else shared_meta(data.shape, data.dtype))
    node = connect(node_class(), tuple(edges), tuple(metas))
    if saved:
        node._saved = tuple([SavedTensor(kept, False) if is_tensor(kept) else kept
                             for kept in saved]) if not default_hooks.stack else \
            in_torchs_order(node_class._saved_names, saved, save_input)  # (hooks' order)
        if any(isinstance(kept, (int, float)) for kept in saved):
            # a number is kept as it is; node._saved_<name> shows it as a tensor of this class
            node._tensor_type = next(type(value) for value in inputs if is_tensor(value))
    for name, value in state.items():
        if name not in node_class._state:
            raise TypeError(f"{node_class.__name__} does not declare '{name}'")
        setattr(node, name, value)
    return node
