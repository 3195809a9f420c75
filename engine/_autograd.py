"""Autograd's core: recording operations as a graph, and running it backwards.

Every differentiable operation, when one of its inputs requires grad, calls
``record``: it creates a *node* (the result's ``grad_fn``, e.g. ``MulBackward0``)
that remembers the tensors its gradient formula needs (``saved_tensors``) and
where each input's gradient must go next (``next_functions``). A leaf that
requires grad is reached through an ``AccumulateGrad`` node, which adds the
gradient into the leaf's ``.grad``.

``backward`` then walks the graph in one loop: it counts, for every node reachable
from the roots, how many gradients it will receive; a node whose gradients have all
arrived is *ready*, and the ready node recorded last runs next (a leaf's
AccumulateGrad first of all, as in torch), called once with the sum of its gradients.
Gradients are undone of broadcasting (``sum_to``) and cast to each input's dtype in
one place (``_validated``), as PyTorch's engine does.

In-place changes rewrite history: ``y.mul_(2)`` gives ``y`` a new node, and an
in-place change of a view gives its base a ``CopySlices`` node (``rebase_history``).
"""
import functools
import heapq
import inspect
import itertools
import math
import re
import warnings
import weakref

from . import _dtype
from ._tensor import Tensor

# ====================================================================== grad mode
_grad_enabled = [True]  # a list so that every module sees the same flag


def is_grad_enabled():
    """True unless inside ``no_grad()`` (or ``set_grad_enabled(False)``)."""
    return _grad_enabled[0]


class _GradModeContext:
    """A context manager that is also a decorator, like torch's grad-mode classes."""

    mode = True

    def __new__(cls, *args, **kwargs):
        # torch accepts the bare decorator too: ``@no_grad`` as well as ``@no_grad()``
        if cls in (no_grad, enable_grad) and len(args) == 1 and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._previous = _grad_enabled[0]
        _grad_enabled[0] = self.mode

    def __exit__(self, *exc_info):
        _grad_enabled[0] = self._previous
        return False

    def __call__(self, function):
        """As a decorator: every call of ``function`` runs inside a fresh copy of this mode."""
        clone = self.clone
        if inspect.isgeneratorfunction(function):
            return functools.wraps(function)(_generator_in_mode(function, clone))

        @functools.wraps(function)
        def decorated(*args, **kwargs):
            with clone():
                return function(*args, **kwargs)

        return decorated

    def clone(self):
        return type(self)()


def _generator_in_mode(function, clone):
    """A generator function whose every step (not only its creation) runs in the mode."""
    def decorated(*args, **kwargs):
        with clone():
            generator = function(*args, **kwargs)
        sent = None
        while True:
            try:
                with clone():
                    value = generator.send(sent)
            except StopIteration as stop:
                return stop.value
            sent = yield value

    return decorated


class no_grad(_GradModeContext):  # noqa: N801 - torch's name
    """Inside ``with no_grad():`` operations are not recorded: results never require grad."""

    mode = False


class enable_grad(_GradModeContext):  # noqa: N801
    """Switch recording back on inside a ``no_grad`` block."""

    mode = True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """``set_grad_enabled(False)`` switches recording off at once; as ``with``, for a block."""

    def __init__(self, mode):
        self.mode = bool(mode)
        self._previous = _grad_enabled[0]
        _grad_enabled[0] = self.mode  # torch applies it on construction too

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _grad_enabled[0] = self._previous
        return False

    def __call__(self, function):
        _grad_enabled[0] = self._previous  # as a decorator it only applies inside the call
        return super().__call__(function)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_GradModeContext):  # noqa: N801
    """Like ``no_grad``, and tensors made inside are marked ``is_inference()``."""

    def __init__(self, mode=True):
        self.mode = not mode
        self._inference = mode

    def __enter__(self):
        self._previous = _grad_enabled[0]
        self._previous_inference = _inference_mode[0]
        _grad_enabled[0] = self.mode
        _inference_mode[0] = self._inference

    def __exit__(self, *exc_info):
        _grad_enabled[0] = self._previous
        _inference_mode[0] = self._previous_inference
        return False

    def clone(self):
        return inference_mode(self._inference)


_inference_mode = [False]


def is_inference_mode_enabled():
    return _inference_mode[0]


# ====================================================================== nodes
_sequence = itertools.count()  # creation order: a node always comes after its inputs' nodes


class SavedTensor:
    """A tensor a node keeps for its backward, with the version it had when saved."""

    __slots__ = ("tensor", "version", "is_output")

    def __init__(self, tensor, is_output):
        if tensor._inference and not _inference_mode[0]:
            raise RuntimeError("Inference tensors cannot be saved for backward. Please do not use "
                               "Tensors created in inference mode in computation tracked by "
                               "autograd. To work around this, you can make a clone to get a "
                               "normal tensor and use it in autograd, or use `torch.no_grad()` "
                               "instead of `torch.inference_mode()`.")
        # An output is kept as a detached alias (same memory and version counter):
        # holding the output itself would make output -> node -> output a cycle.
        self.tensor = tensor._alias_for_saving() if is_output else tensor
        self.version = tensor._version
        self.is_output = is_output


class Node:
    """A recorded operation, seen from backward: PyTorch's ``grad_fn`` objects.

    ``next_functions`` holds, for each input, ``(node, output_nr)``: the node that
    receives that input's gradient (``None`` for inputs that need none).
    """

    num_outputs = 1
    _saved = ()            # SavedTensor objects, in the order backward unpacks them
    _saved_names = ()      # torch's attribute names for them: _saved_self, _saved_other ...
    _released = False
    _pre_hooks = None      # tensor hooks: {output_nr: [fn(grad) -> grad or None]}
    _retained = None       # {output_nr: weakref to a tensor that called retain_grad()}
    _node_pre_hooks = None
    _node_hooks = None
    # Defaults on the class keep making a node cheap (one per recorded op): record() sets
    # the first two, and the metadata dict is made when first asked for.
    next_functions = ()
    _input_meta = ()       # (shape, dtype) of each input, to check returned gradients
    _metadata = None

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
            raise RuntimeError(_SECOND_BACKWARD)
        return tuple(self._unpack(saved) for saved in self._saved)

    def _unpack(self, saved):
        tensor = saved.tensor
        if saved.version is None:
            return tensor  # a saved number
        if tensor._version != saved.version:
            raise RuntimeError(_modified_message(tensor, saved, self))
        if saved.is_output and _grad_enabled[0]:
            # for a differentiable backward (create_graph) the output is this node's result
            return tensor._as_output_of(self)
        return tensor

    def __getattr__(self, name):
        """``node._saved_<what>``: what the node kept for backward, under torch's names.

        Tensors (and numbers) it saved are listed in ``_saved_names``; the other values
        (dims, sizes, exponents ...) are plain attributes: ``_saved_dim`` reads ``self.dim``.
        """
        # (Python calls __getattr__ only for names that normal lookup did not find.)
        if name.startswith("_saved_"):
            key = name[len("_saved_"):]
            if key in type(self)._saved_names:
                if self._released:
                    raise RuntimeError(_SECOND_BACKWARD)  # backward freed them
                saved = self._saved[type(self)._saved_names.index(key)]
                if saved.version is None and isinstance(saved.tensor, (int, float)):
                    return _number_as_tensor(saved.tensor)  # torch saves numbers as 0-d tensors
                return self._unpack(saved)
            if key in self.__dict__:
                return self.__dict__[key]
        raise AttributeError(f"'{self.name()}' object has no attribute '{name}'")

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
        return _RemovableHandle(self._node_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before this node; it may replace grad_outputs."""
        if self._node_pre_hooks is None:
            self._node_pre_hooks = []
        self._node_pre_hooks.append(hook)
        return _RemovableHandle(self._node_pre_hooks, hook)

    def _add_tensor_hook(self, output_nr, hook):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(output_nr, [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)


class AccumulateGrad(Node):
    """The node of a leaf: adds the gradient that reaches it into ``variable.grad``."""

    def name(self):
        return "torch::autograd::AccumulateGrad"  # torch's C++ name for this node

    def __init__(self, variable):
        self.variable = variable
        self._sequence_nr = next(_sequence)

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
        elif _grad_enabled[0]:
            variable._grad = variable._grad + grad  # create_graph: stay differentiable
        else:
            variable._grad._data += grad._data  # accumulate in place, into the same tensor
            variable._grad._bump_version()
        return ()


class _RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def _number_as_tensor(number):
    from ._creation import tensor
    return tensor(number)


def _owned_copy(grad, variable):
    """``grad`` in memory of its own, laid out like ``variable`` (no view of another tensor)."""
    from ._tensor import empty_preserving_layout
    import numpy as np

    result = empty_preserving_layout(variable, grad._data.dtype)
    if _grad_enabled[0] and grad.requires_grad:
        return result.copy_(grad)
    np.copyto(result._data, grad._data)
    return result


_SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


def _modified_message(tensor, saved, node):
    shape = ", ".join(str(n) for n in tensor._data.shape)
    described = f"[{tensor.type()} [{shape}]]"
    # the node that computed the tensor (an input's current one, as torch reports it)
    producer = node if saved.is_output else tensor.grad_fn
    if producer is not None:
        # torch names the operation here without the "Backward0" ending
        operation = re.sub(r"Backward\d*$", "", producer.name())
        described += f", which is output 0 of {operation},"
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {described} is at version {tensor._version}; expected version "
            f"{saved.version} instead. Hint: enable anomaly detection to find the operation "
            "that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True, check_nan=False).")


# ====================================================================== recording
def gradient_edge(value):
    """Where the gradient of ``value`` goes: its grad_fn, its AccumulateGrad, or nowhere."""
    if not getattr(value, "_requires_grad", False):  # (numbers have none; the property is slower)
        return (None, 0)
    node = value.grad_fn
    if node is not None:
        return (node, value._output_nr)
    return (value._grad_accumulator(), 0)


def record(node_class, results, inputs, saved=(), saved_output=False, **attributes):
    """Attach a ``node_class`` node to ``results`` when some input requires grad.

    ``inputs`` are the op's inputs (tensors or Python numbers), ``saved`` the
    tensors its backward needs, ``attributes`` the other values it needs (dims,
    exponents ...). With ``saved_output=True`` the (single) result is saved too,
    after the inputs. Returns ``results`` unchanged, so ops end with ``return record(...)``.
    """
    if not _grad_enabled[0]:
        return results
    for value in inputs:
        if getattr(value, "_requires_grad", False):  # (the property is slower; this is hot)
            break
    else:
        return results  # nothing to record: the common case stays cheap
    node = _build_node(node_class, inputs, saved, attributes)
    outputs = results if isinstance(results, tuple) else (results,)
    for output_nr, output in enumerate(outputs):
        if output is not None and output._data.dtype.kind == "f":
            output.grad_fn = node
            output._requires_grad = True
            if output_nr:
                output._output_nr = output_nr
    if saved_output:
        node._saved = node._saved + (SavedTensor(outputs[0], True),)
    return results


def new_node(node_class, inputs, saved=(), **attributes):
    """A ``node_class`` node for an op on ``inputs``, or None when nothing needs a gradient."""
    if not _grad_enabled[0]:
        return None
    for value in inputs:
        if getattr(value, "_requires_grad", False):  # (the property is slower; this is hot)
            break
    else:
        return None
    return _build_node(node_class, inputs, saved, attributes)


def _build_node(node_class, inputs, saved, attributes):
    """The node of ``record`` and ``new_node``, once they know some input requires grad."""
    node = node_class()
    node.next_functions = tuple([gradient_edge(value) for value in inputs])
    node._input_meta = tuple([(value._data.shape, value._data.dtype)
                              if isinstance(value, Tensor) else None for value in inputs])
    node._sequence_nr = next(_sequence)
    if saved:
        node._saved = tuple(SavedTensor(t, False) if isinstance(t, Tensor) else _Constant(t)
                            for t in saved)
    node.__dict__.update(attributes)
    return node


class _Constant:
    """A saved non-tensor value (e.g. a Python number) that needs no version check."""

    __slots__ = ("tensor", "version", "is_output")

    def __init__(self, value):
        self.tensor, self.version, self.is_output = value, None, False


# ====================================================================== in-place changes
def check_inplace(tensor):
    """torch refuses to change a leaf that requires grad (or a view of one) in place."""
    if tensor._inference and not _inference_mode[0]:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if not _grad_enabled[0]:
        return
    if tensor.grad_fn is None and tensor._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    base = tensor._base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def rebase_history(tensor, node):
    """After ``tensor.op_()``: ``tensor`` now holds the op's result, whose node is ``node``.

    The node may have saved ``tensor`` itself as an input; the in-place write is about to
    change those values, so the node keeps a copy of them instead (torch's original_self).
    When ``tensor`` is a view, its base changed too: the base's new history is a
    ``CopySlices`` node that runs ``node`` on the viewed region of the base's gradient.
    """
    if node is None:
        return
    for saved in node._saved:
        if saved.tensor is tensor and not saved.is_output:
            saved.tensor = tensor._alias_for_saving().clone()
            saved.version = 0
    base = tensor._base
    if base is None:
        tensor.grad_fn, tensor._requires_grad, tensor._output_nr = node, True, 0
        return
    base.grad_fn = CopySlices(base, tensor, node)
    base._requires_grad, base._output_nr = True, 0
    # the view is now a piece of the new base: its gradient goes through CopySlices
    regenerate_view_history(tensor)


def regenerate_view_history(view):
    """Make ``view``'s node a piece of its base's current history (AsStridedBackward0)."""
    base = view._base
    node = AsStridedBackward0()
    node.next_functions = (gradient_edge(base),)
    node._input_meta = ((base._data.shape, base._data.dtype),)
    node._sequence_nr = next(_sequence)
    node.geometry = _view_geometry(base, view)
    view.grad_fn, view._requires_grad, view._output_nr = node, True, 0


def _view_geometry(base, view):
    """Where ``view`` sits in ``base``: (base shape, base strides, shape, strides, offset)."""
    return (base._data.shape, base.stride(), view._data.shape, view.stride(),
            view.storage_offset() - base.storage_offset())


def _region(tensor, geometry):
    """The view of ``tensor`` (laid out like the base) that ``geometry`` describes."""
    from ._tensor import make_view
    _, _, shape, stride, offset = geometry
    return make_view(tensor, shape, stride, tensor.storage_offset() + offset)


def _laid_out_like_base(grad, geometry):
    """A tensor with the base's shape and strides (so the view's geometry fits it)."""
    from ._tensor import empty_strided

    return empty_strided(geometry[0], geometry[1], grad._data.dtype)


def _refuse_double_backward(node):
    """These nodes write gradients with numpy, unrecorded: they cannot be differentiated."""
    if _grad_enabled[0]:
        raise RuntimeError(f"engine: {node.name()} does not support create_graph=True (double "
                           "backward through an in-place change of a view)")


class CopySlices(Node):
    """base after ``view.op_()``: the view's region of base was replaced by op(view).

    Backward: outside the region the gradient passes to the old base unchanged; inside,
    it goes through the op's own node ``fn``, whose gradient for the view's old values
    goes back into the region (and its gradients for the op's other inputs go on).
    """

    def name(self):
        return "torch::autograd::CopySlices"  # torch's C++ name for this node

    def __init__(self, base, view, fn):
        super().__init__()
        self.fn = fn
        self.geometry = _view_geometry(base, view)
        # the old base's gradient edge, then the op's other inputs' edges
        self.next_functions = (gradient_edge(base),) + fn.next_functions[1:]
        self._input_meta = ((base._data.shape, base._data.dtype),) + fn._input_meta[1:]
        self._sequence_nr = next(_sequence)

    def backward(self, grad):
        _refuse_double_backward(self)
        grad_base = _laid_out_like_base(grad, self.geometry)
        grad_base._data[...] = grad._data
        region = _region(grad_base, self.geometry)
        fn_grads = _validated(self.fn, self.fn.backward(region.clone()))
        region._data[...] = 0 if fn_grads[0] is None else fn_grads[0]._data
        return (grad_base, *fn_grads[1:])

    def _release(self):
        self.fn._release()


class AsStridedBackward0(Node):
    """out = a piece of x (given by sizes, strides, offset):  the gradient lands there"""

    def backward(self, grad):
        import numpy as np

        _refuse_double_backward(self)
        grad_base = _laid_out_like_base(grad, self.geometry)
        grad_base._data[...] = 0
        # add, element by element: where an as_strided view overlaps itself, every one of
        # its elements that reads a place adds its gradient there
        region = _region(grad_base, self.geometry)._data
        np.add.at(region, (slice(None),) * region.ndim, grad._data)
        return grad_base


class CopyBackwards(Node):
    """self.copy_(src):  self's old values are gone (zero gradient), src's pass through"""

    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        from ._creation import zeros_like
        return zeros_like(grad), grad


# ====================================================================== undoing broadcasting
def sum_to(grad, shape):
    """Sum ``grad`` down to ``shape``: undo the broadcasting that stretched an input.

    Broadcasting copies an input along new leading dimensions and along dimensions of
    size 1, so its gradient is the sum over exactly those dimensions.
    """
    if grad._data.shape == shape:
        return grad
    lead = grad._data.ndim - len(shape)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    stretched = tuple(d for d, n in enumerate(shape) if n == 1 and grad._data.shape[d] != 1)
    if stretched:
        grad = grad.sum(stretched, keepdim=True)
    return grad


def _is_expandable_to(shape, target):
    if len(shape) > len(target):
        return False
    for n, m in zip(reversed(shape), reversed(target)):
        if n != m and n != 1:
            return False
    return True


def _validated(node, grads):
    """The gradients a node returned, summed to each input's shape and cast to its dtype."""
    if not isinstance(grads, tuple):
        grads = (grads,)
    if len(grads) != len(node.next_functions):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node.next_functions)}, got {len(grads)})")
    checked = []
    for index, (grad, meta) in enumerate(zip(grads, node._input_meta)):
        if grad is None or meta is None or node.next_functions[index][0] is None:
            checked.append(None)
            continue
        shape, np_dtype = meta
        if grad._data.shape != shape:
            if not _is_expandable_to(shape, grad._data.shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at "
                                   f"index {index} - got {list(grad._data.shape)} but expected "
                                   f"shape compatible with {list(shape)}")
            grad = sum_to(grad, shape)
        if grad._data.dtype != np_dtype:
            grad = grad.to(_dtype.from_numpy_dtype[np_dtype])
        checked.append(grad)
    return checked


# ====================================================================== running backward
def _count_dependencies(roots):
    """For every node reachable from ``roots``: how many edges bring it a gradient.

    Found with an explicit stack (no recursion, so a graph 100,000 ops deep is fine).
    """
    dependencies = {}  # node -> number of edges into it (nodes hash by identity)
    seen, stack = set(), [node for node in roots if node is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if next_node not in seen:
                    stack.append(next_node)
    return dependencies


def _priority(node):
    """Which ready node runs first: a leaf's AccumulateGrad, then the most recent op.

    A node's consumers were all recorded after it, so running the highest sequence
    number first never runs a node before all its gradients arrived. AccumulateGrad
    comes first of all: torch stores a leaf's gradient as soon as it is complete.
    """
    return math.inf if isinstance(node, AccumulateGrad) else node._sequence_nr


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True, on_step=None):
    """Send ``grad_outputs`` back from ``outputs`` through the graph.

    A node is *ready* once every edge into it has delivered its gradient; ready nodes
    wait in a queue ordered by ``_priority`` (torch's ready queue), and running a node
    hands its gradients on, which may make more nodes ready.

    With ``accumulate`` the gradients land in the leaves' ``.grad`` (``backward``);
    otherwise those of ``inputs`` are returned instead (``autograd.grad``).
    ``on_step(node, grads, input_grads)``, if given, is told of every node that ran
    (engine.widgets.BackwardStepper replays backward with it).
    """
    roots = [output.grad_fn if output.grad_fn is not None else output._grad_accumulator()
             for output in outputs]
    dependencies = _count_dependencies(roots)
    buffers = {}  # node -> [gradient per output], summed as contributions arrive
    for output, root, grad in zip(outputs, roots, grad_outputs):
        _add_to_buffer(buffers, root, output._output_nr if output.grad_fn is not None else 0,
                       grad)
    ready = []  # a heap of (-priority, arrival, node): the highest priority pops first
    arrival = itertools.count()  # equal priorities (leaves): first come, first served
    for root in set(roots):
        if dependencies.get(root, 0) == 0:  # (a root that another root feeds waits)
            heapq.heappush(ready, (-_priority(root), next(arrival), root))

    captured = None
    if inputs is not None:
        # autograd.grad: catch the gradient arriving for each input instead of storing it
        captured = {}
        for position, tensor in enumerate(inputs):
            node = tensor.grad_fn if tensor.grad_fn is not None else tensor._grad_accumulator()
            nr = tensor._output_nr if tensor.grad_fn is not None else 0
            captured.setdefault((node, nr), []).append(position)
        targets = {node for node, _ in captured}
        needed = _needed_nodes(roots, targets)
    results = [None] * (len(inputs) if inputs is not None else 0)

    with set_grad_enabled(create_graph):
        while ready:
            _, _, node = heapq.heappop(ready)
            grads = buffers.pop(node, None)
            if captured is not None and node not in needed:
                # on the way to no input: torch neither runs nor frees it (nor what it feeds)
                if grads is not None and node in targets:
                    _capture(node, _run_tensor_hooks(node, grads), captured, results)
                continue
            input_grads = ()
            if grads is not None:  # (None: no gradient reached it, e.g. only unused outputs)
                input_grads = _run_node(node, grads, captured, results, accumulate,
                                        retain_graph)
                if on_step is not None:
                    on_step(node, grads, input_grads)
            # hand the gradients on; a node whose last gradient arrived is ready to run
            for index, (next_node, nr) in enumerate(node.next_functions):
                if next_node is None:
                    continue
                if index < len(input_grads) and input_grads[index] is not None:
                    _add_to_buffer(buffers, next_node, nr, input_grads[index])
                dependencies[next_node] -= 1
                if dependencies[next_node] == 0:
                    heapq.heappush(ready, (-_priority(next_node), next(arrival), next_node))

    if inputs is None:
        return None
    for position, grad in enumerate(results):
        if grad is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {position} appears to not "
                               "have been used in the graph. Set allow_unused=True if this is "
                               "the desired behavior.")
    return tuple(results)


def _run_node(node, grads, captured, results, accumulate, retain_graph):
    """Run one node on the gradients of its outputs: hooks, then its backward."""
    grads = _run_tensor_hooks(node, grads)
    if captured is not None:
        _capture(node, grads, captured, results)
        if isinstance(node, AccumulateGrad):
            return ()  # autograd.grad leaves .grad alone
    if node._node_pre_hooks:
        for hook in node._node_pre_hooks:
            replaced = hook(tuple(grads))
            if replaced is not None:
                grads = list(replaced)
    if isinstance(node, AccumulateGrad):
        if accumulate:
            node.backward(grads[0])
            for hook in node._node_hooks or ():
                hook((), tuple(grads))  # a leaf's node sends nothing on: grad_inputs is ()
        return ()
    input_grads = _validated(node, node.backward(*grads))
    if node._node_hooks:
        for hook in node._node_hooks:
            replaced = hook(tuple(input_grads), tuple(grads))
            if replaced is not None:
                input_grads = list(replaced)
    if not retain_graph:
        node._release()
    return input_grads


def _capture(node, grads, captured, results):
    """autograd.grad: keep the gradients arriving at the inputs' nodes."""
    for nr, grad in enumerate(grads):
        for position in captured.get((node, nr), ()):
            results[position] = grad


def _needed_nodes(roots, targets):
    """The nodes from which a node in ``targets`` can be reached: with
    ``inputs`` (autograd.grad), only these run, as in torch.

    Post-order with an explicit stack (graphs can be 100,000 ops deep).
    """
    needed, seen = set(), set()
    stack = [(node, False) for node in roots if node is not None]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            if any(n is not None and (n in targets or n in needed)
                   for n, _ in node.next_functions):
                needed.add(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        stack.extend((n, False) for n, _ in node.next_functions
                     if n is not None and n not in seen)
    return needed


def _add_to_buffer(buffers, node, output_nr, grad):
    grads = buffers.get(node)
    if grads is None:
        grads = buffers[node] = [None] * node.num_outputs
    if grads[output_nr] is None:
        grads[output_nr] = grad
    else:
        grads[output_nr] = grads[output_nr] + grad  # several consumers: gradients add up


def _run_tensor_hooks(node, grads):
    """Hooks registered with ``tensor.register_hook``, then ``retain_grad``'s capture."""
    if node._pre_hooks:
        for nr, hooks in node._pre_hooks.items():
            for hook in list(hooks):
                # (an unused output of a node with several gets None, as in torch)
                replaced = hook(grads[nr])
                if replaced is not None:
                    grads[nr] = replaced
    if node._retained:
        for nr, reference in node._retained.items():
            tensor = reference()
            if tensor is not None and grads[nr] is not None:
                grad = grads[nr]
                if tensor._grad is None:
                    tensor._grad = grad if _grad_enabled[0] else grad.detach().clone()
                elif _grad_enabled[0]:
                    tensor._grad = tensor._grad + grad
                else:
                    tensor._grad._data += grad._data
    return grads


# ====================================================================== public entry points
def _make_grads(outputs, grad_outputs):
    """The starting gradients: ones for scalar outputs, else the ones given (checked)."""
    from ._creation import ones_like

    grads = []
    for index, (output, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            if output._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if output._data.dtype.kind != "f":
                raise RuntimeError("grad can be implicitly created only for real scalar "
                                   f"outputs but got {output.dtype!r}")
            grads.append(ones_like(output))
            continue
        if not isinstance(grad, Tensor):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
        if grad._data.shape != output._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of "
                               f"{grad.shape} and output[{index}] has a shape of "
                               f"{output.shape}.")
        if grad._data.dtype.kind != output._data.dtype.kind and \
                not (grad._data.dtype.kind == "f" and output._data.dtype.kind == "f"):
            raise RuntimeError("For complex Tensors, both grad_output and output are required "
                               "to have the same dtype. Mismatch in dtype: grad_output["
                               f"{index}] has a dtype of {grad.dtype} and output[{index}] has "
                               f"a dtype of {output.dtype}.")
        grads.append(grad)
    return grads


def _as_tuple(value):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return (value,)
    return tuple(value)


def _check_outputs(outputs):
    for index, output in enumerate(outputs):
        if not output.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                               "have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate into the leaves' ``.grad`` the gradient of ``tensors`` (sum of all)."""
    if grad_variables is not None:  # the old name of grad_tensors, still accepted
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments "
                               "both passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    _check_outputs(outputs)
    grads = _make_grads(outputs, grads)
    if create_graph and not _warned_about_create_graph:
        _warn_create_graph_cycle()
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        found = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                             allow_unused=True, accumulate=False)
        for tensor, grad in zip(inputs, found):
            if grad is not None:
                _accumulate_into(tensor, grad)
        return None
    run_backward(outputs, grads, retain_graph, create_graph)
    return None


_warned_about_create_graph = False


def _warn_create_graph_cycle():
    """torch warns once per process: .grad now holds a graph that leads back to the leaf."""
    global _warned_about_create_graph
    _warned_about_create_graph = True
    warnings.warn(
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak. We recommend using "
        "autograd.grad when creating the graph to avoid this. If you have to use this "
        "function, make sure to reset the .grad fields of your parameters to None after use "
        "to break the cycle and avoid the leak. (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)", UserWarning, stacklevel=3)


def _accumulate_into(tensor, grad):
    if tensor._grad is None:
        tensor._grad = grad if _grad_enabled[0] else grad.detach().clone()
    else:
        tensor._grad = tensor._grad + grad


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` untouched)."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    for tensor in inputs:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    _check_outputs(outputs)
    grads = _make_grads(outputs, grads)
    results = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                           allow_unused=allow_unused, accumulate=False)
    if materialize_grads:
        from ._creation import zeros_like
        results = tuple(zeros_like(t) if g is None else g for t, g in zip(inputs, results))
    return results


def warn_non_leaf_grad():
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
        "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
        "Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf "
        "Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information."
        + TRIGGERED_IN_TENSOR_BODY, UserWarning, stacklevel=3)


# torch's warnings from C++ end with where they were raised: torch 2.13's Linux wheel says
TRIGGERED_IN_TENSOR_BODY = (" (Triggered internally at /__w/pytorch/pytorch/build/aten/src/"
                            "ATen/core/TensorBody.h:493.)")


def retain_grad(tensor):
    """Keep ``.grad`` on a non-leaf tensor after backward (leaves keep theirs anyway)."""
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.grad_fn is None or tensor._retains_grad:
        return
    node = tensor.grad_fn
    if node._retained is None:
        node._retained = {}
    node._retained[tensor._output_nr] = weakref.ref(tensor)
    tensor._retains_grad = True


def register_hook(tensor, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        return tensor.grad_fn._add_tensor_hook(tensor._output_nr, hook)
    # a leaf's hooks live on its AccumulateGrad node: the leaf keeps that node from now on
    node = tensor._hooked_accumulator = tensor._grad_accumulator()
    return node._add_tensor_hook(0, hook)
