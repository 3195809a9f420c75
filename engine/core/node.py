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
from ..fidelity.scalars import number_as_tensor
from .grad_mode import mode

_sequence = itertools.count()  # creation order: a node always comes after its inputs' nodes


def connect(node, edges, input_meta):
    """A node made by hand, not by ``record`` (CopySlices, a custom Function's): its edges,
    its inputs' shapes and dtypes, its place in creation order."""
    node.next_functions, node._input_meta, node._sequence_nr = edges, input_meta, next(_sequence)
    if mode.anomaly:  # anomaly detection: the node remembers where the forward pass made it
        mode.anomaly.node_built(node)
    return node


def is_tensor(value):
    return hasattr(value, "_data")


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved.

    (A node keeps a saved number, or None, as it is: there is nothing to check.)
    """

    __slots__ = ("tensor", "version", "is_output")

    def __init__(self, tensor, is_output):
        if tensor._inference and not mode.inference:
            raise RuntimeError(messages.INFERENCE_SAVED)
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
    both can be read back as ``node._saved_<name>``, as in torch.
    """

    num_outputs = 1
    _saved_names = ()      # torch's names for the saved tensors, in the order backward reads them
    _state = frozenset()   # the declared values (annotations), collected by __init_subclass__
    # Defaults on the class keep making a node cheap (one per recorded op).
    _saved = ()            # SavedTensor objects (numbers as they are), as _saved_names says
    _released = False
    _pre_hooks = None      # tensor hooks: {output_nr: [fn(grad) -> grad or None]}
    _retained = None       # {output_nr: weakref to a tensor that called retain_grad()}
    _node_pre_hooks = None
    _node_hooks = None
    _metadata = None
    next_functions = ()
    _input_meta = ()       # (shape, dtype) of each input, to check returned gradients

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        declared = set(cls.__dict__.get("__annotations__", ()))
        cls._state = frozenset(declared | cls._state)
        for name in (*cls.__dict__.get("_saved_names", ()), *declared):
            setattr(cls, "_saved_" + name, property(lambda node, n=name: node._saved_value(n)))

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
        return tuple([self._unpack(saved) for saved in self._saved])

    def _unpack(self, saved):
        if saved.__class__ is not SavedTensor:
            return saved  # a saved number, or None
        tensor = saved.tensor
        if tensor._version != saved.version:
            # torch names the node that computed the tensor (an input's current one)
            producer = self if saved.is_output else tensor.grad_fn
            raise RuntimeError(messages.modified_by_inplace(
                tensor, saved.version, producer and producer.name(), bool(mode.anomaly)))
        if saved.is_output and mode.grad_enabled:
            # for a differentiable backward (create_graph) the output is this node's result
            return tensor._as_output_of(self)
        return tensor

    def _saved_value(self, name):
        """``node._saved_<name>``: a saved tensor (a saved number shows as a 0-d tensor), or a
        declared value."""
        if name in type(self)._saved_names:
            if self._released:
                raise RuntimeError(messages.SECOND_BACKWARD)  # backward freed them
            saved = self._saved[type(self)._saved_names.index(name)]
            if isinstance(saved, (int, float)):
                return number_as_tensor(saved, tensor_type)
            return self._unpack(saved)
        if name in type(self)._state:
            return getattr(self, name)
        raise AttributeError(f"'{self.name()}' object has no attribute '_saved_{name}'")

    def _release(self):
        """Free the saved tensors (after backward without retain_graph)."""
        if self._saved:
            self._saved = ()
            self._released = True

    # ------------------------------------------------------------ hooks
    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after this node; it may replace grad_inputs."""
        if self._node_hooks is None:
            self._node_hooks = []
        self._node_hooks.append(hook)
        return RemovableHandle(self._node_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node; it may replace grad_outputs."""
        if self._node_pre_hooks is None:
            self._node_pre_hooks = []
        self._node_pre_hooks.append(hook)
        return RemovableHandle(self._node_pre_hooks, hook)

    def _add_tensor_hook(self, output_nr, hook):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def _retain_output(self, output_nr, reference):
        """retain_grad(): keep the gradient of this output on the tensor ``reference`` names."""
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = reference


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
        elif mode.grad_enabled:
            variable._grad = variable._grad + grad  # create_graph: stay differentiable
        else:  # accumulate in place, into the same tensor (inf - inf is nan, silently)
            quietly(np.add, variable._grad._data, grad._data, variable._grad._data)
            variable._grad._bump_version()
        return ()


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _owned_copy(grad, variable):
    """``grad`` in memory of its own, laid out like ``variable`` (no view of another tensor)."""
    result = variable._empty_like(grad._data.dtype)
    if mode.grad_enabled and grad.requires_grad:
        return result.copy_(grad)
    np.copyto(result._data, grad._data)
    return result


tensor_type = None  # the Tensor class: core/tensor.py sets it (it imports this module)


# ====================================================================== recording
def gradient_edge(value):
    """Where the gradient of ``value`` goes: its grad_fn, its AccumulateGrad, or nowhere."""
    if not getattr(value, "_requires_grad", False):  # (numbers have none; the property is slower)
        return (None, 0)
    node = value._grad_fn if value._base is None else value.grad_fn  # (the property: views)
    if node is not None:
        return (node, value._output_nr)
    if value._creation_meta is not None and value._base._requires_grad:
        return (None, 0)  # a view made in no_grad mode requires grad as its base, yet leads nowhere
    return (value._grad_accumulator(), 0)


def record(node_class, results, inputs, saved=(), saved_output=False, **state):
    """Attach a ``node_class`` node to ``results`` when some input requires grad.

    ``inputs`` are the op's inputs (tensors or Python numbers), ``saved`` the
    tensors its backward needs, ``state`` the other values it reads (dims,
    exponents ..., declared by the node class). With ``saved_output=True`` the
    (single) result is saved too, after the inputs. Returns ``results`` unchanged,
    so ops end with ``return record(...)``.
    """
    if not mode.recording:
        return results
    for value in inputs:
        if getattr(value, "_requires_grad", False):  # (the property is slower; this is hot)
            break
    else:
        return results  # nothing to record: the common case stays cheap
    node = _build_node(node_class, inputs, saved, state)
    outputs = results if isinstance(results, tuple) else (results,)
    for output_nr, output in enumerate(outputs):
        if output is not None and output._data.dtype.kind == "f":
            output._grad_fn, output._requires_grad = node, True  # (the grad_fn setter inline)
            if output._base is not None:  # a view notes its memory's version, as the setter does
                output._attr_version = output._vc.value
            if output_nr:
                output._output_nr = output_nr
    if saved_output:
        node._saved = node._saved + (SavedTensor(outputs[0], True),)
    return results


def new_node(node_class, inputs, saved=(), **state):
    """A ``node_class`` node for an op on ``inputs``, or None when nothing needs a gradient."""
    for value in inputs if mode.recording else ():
        if getattr(value, "_requires_grad", False):
            return _build_node(node_class, inputs, saved, state)
    return None


# ``(shape, dtype)``, one tuple for every node that keeps these: fewer new objects for Python's
# garbage collector, which passes over each of them while a graph lives
shared_meta = functools.lru_cache(maxsize=1024)(lambda shape, dtype: (shape, dtype))


def _build_node(node_class, inputs, saved, state):
    """The node of ``record`` and ``new_node``, once they know some input requires grad."""
    node = node_class()
    edges, meta = [], []  # (one loop for both: this runs for every recorded op)
    for value in inputs:
        data = getattr(value, "_data", None)  # a tensor's numpy data; None for a number
        if data is not None and value._requires_grad and value._base is None:  # (inline: hot)
            edges.append((value._grad_fn, value._output_nr) if value._grad_fn is not None
                         else (value._grad_accumulator(), 0))
        else:  # a number, a tensor that needs no gradient, a view
            edges.append(gradient_edge(value))
        meta.append(None if data is None else shared_meta(data.shape, data.dtype))
    node.next_functions, node._input_meta, node._sequence_nr = tuple(edges), tuple(meta), \
        next(_sequence)
    if saved:
        node._saved = tuple([SavedTensor(kept, False) if hasattr(kept, "_data") else kept
                             for kept in saved])
    for name, value in state.items():
        if name not in node_class._state:
            raise TypeError(f"{node_class.__name__} does not declare '{name}'")
        setattr(node, name, value)
    if mode.anomaly:  # anomaly detection: the node remembers where the forward pass made it
        mode.anomaly.node_built(node)
    return node
