"""Module hooks: your functions that a module call runs before and after ``forward``, and
that backward runs when the gradients of the module's inputs and outputs are known.

* ``register_forward_pre_hook(hook)``: ``hook(module, args)`` before forward, may replace the
  arguments (``with_kwargs=True``: ``hook(module, args, kwargs)``, returns both);
* ``register_forward_hook(hook)``: ``hook(module, args, output)`` after it, may replace the
  output (``always_call=True``: also when forward raised);
* ``register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` once the gradients
  of the outputs are known, may replace them;
* ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` once those
  of the inputs are, may replace them;
* ``register_backward_hook(hook)`` (deprecated): a node hook on the node that made the first
  output, which sees that node's gradients (end of this file).

A module keeps each kind in an ordered dict keyed by the handle's id (``Module.__init__``);
the ``register_module_*`` functions here add hooks that every module runs, before its own.
The backward hooks work as torch's: the module's tensor inputs, then its outputs, pass
through an identity ``BackwardHookFunction`` (its node, ``BackwardHookFunctionBackward``,
shows in the graph); node hooks on those two nodes see the gradients go by.
``Module.__call__`` comes here only when some hook is registered.
"""
import functools
import warnings
import weakref
from collections import OrderedDict

from ...autograd.function import Function
from ...core.grad_mode import is_grad_enabled
from ...core.tensor import Tensor
from ...utils.hooks import RemovableHandle

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook"]


class GlobalHooks:
    """The hooks every module runs (``register_module_*``); ``registered`` has the ids of them
    all, so that a module call tests one dict (each handle removes its id from it too)."""

    def __init__(self):
        self.forward_pre, self.forward = OrderedDict(), OrderedDict()
        self.forward_with_kwargs, self.forward_always_called = OrderedDict(), OrderedDict()
        self.backward_pre, self.backward = OrderedDict(), OrderedDict()
        self.registered = OrderedDict()
        self.is_full_backward_hook = None  # True: register_module_full_backward_hook's; False:
        # register_module_backward_hook's (the two kinds cannot be mixed)

    def add(self, hooks, hook, *flags):
        """Put ``hook`` into ``hooks``, marked in each of ``flags`` (dicts)."""
        handle = RemovableHandle(hooks, extra_dict=[*flags, self.registered])
        hooks[handle.id] = hook
        for marks in (*flags, self.registered):
            marks[handle.id] = True
        return handle


global_hooks = GlobalHooks()


def register_module_forward_pre_hook(hook):
    """A forward pre-hook for every module (run before each module's own)."""
    return global_hooks.add(global_hooks.forward_pre, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """A forward hook for every module (run before each module's own)."""
    flags = [global_hooks.forward_with_kwargs] if with_kwargs else []
    if always_call:
        flags.append(global_hooks.forward_always_called)
    return global_hooks.add(global_hooks.forward, hook, *flags)


def register_module_full_backward_pre_hook(hook):
    """A backward pre-hook for every module."""
    return global_hooks.add(global_hooks.backward_pre, hook)


def register_module_full_backward_hook(hook):
    """A full backward hook for every module."""
    _set_global_kind(True)
    return global_hooks.add(global_hooks.backward, hook)


def register_module_backward_hook(hook):
    """A (deprecated, not full) backward hook for every module (Module.register_backward_hook)."""
    _set_global_kind(False)
    return global_hooks.add(global_hooks.backward, hook)


def _set_global_kind(full):
    if global_hooks.is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    global_hooks.is_full_backward_hook = full


def backward_hooks(module, full):
    """The module's full backward hooks (``full``), or its non-full ones: the global ones of that
    kind first."""
    found = list(global_hooks.backward.values()) \
        if global_hooks.is_full_backward_hook is full else []
    if module._is_full_backward_hook is full:
        found += module._backward_hooks.values()
    return found


# ====================================================================== a module call with hooks
def call_with_hooks(module, args, kwargs):
    """``module(*args, **kwargs)`` when some hook is registered: as torch's ``_call_impl``."""
    call = HookedCall(module, args, kwargs)
    try:
        return call.run()
    except Exception:
        call.run_always_called_hooks()  # (their own errors are warnings: forward's wins)
        raise


class HookedCall:
    """One call of a module that has hooks: the arguments and result as the hooks change them."""

    def __init__(self, module, args, kwargs):
        self.module, self.args, self.kwargs = module, args, kwargs
        self.result, self.called = None, set()  # the always_call hooks that have run

    def run(self):
        module = self.module
        backward_pre = [*global_hooks.backward_pre.values(), *module._backward_pre_hooks.values()]
        backward = backward_hooks(module, True)
        self.run_forward_pre_hooks()
        backward_hook = None
        if backward or backward_pre:
            backward_hook = BackwardHook(module, backward, backward_pre)
            self.args = backward_hook.setup_input_hook(self.args)
        self.result = module.forward(*self.args, **self.kwargs)
        for hook_id, hook in self.forward_hooks():
            if hook_id in module._forward_hooks_always_called or \
                    hook_id in global_hooks.forward_always_called:
                self.called.add(hook_id)
            self.run_forward_hook(hook_id, hook)
        if backward_hook is not None:
            if not isinstance(self.result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor "
                              f"or a tuple of Tensors but received {type(self.result)}",
                              stacklevel=4)
            self.result = backward_hook.setup_output_hook(self.result)
        non_full = backward_hooks(module, False)
        if non_full:
            register_non_full_backward_hooks(module, non_full, self.args, self.result)
        return self.result

    def forward_hooks(self):
        return [*global_hooks.forward.items(), *self.module._forward_hooks.items()]

    def run_forward_pre_hooks(self):
        module = self.module
        for hook_id, hook in [*global_hooks.forward_pre.items(),
                              *module._forward_pre_hooks.items()]:
            if hook_id in module._forward_pre_hooks_with_kwargs:
                returned = hook(module, self.args, self.kwargs)
                if returned is None:
                    continue
                if not (isinstance(returned, tuple) and len(returned) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {returned}.")
                self.args, self.kwargs = returned
            else:
                returned = hook(module, self.args)
                if returned is not None:
                    self.args = returned if isinstance(returned, tuple) else (returned,)

    def run_forward_hook(self, hook_id, hook):
        if hook_id in self.module._forward_hooks_with_kwargs or \
                hook_id in global_hooks.forward_with_kwargs:
            returned = hook(self.module, self.args, self.kwargs, self.result)
        else:
            returned = hook(self.module, self.args, self.result)
        if returned is not None:
            self.result = returned

    def run_always_called_hooks(self):
        """After forward (or a hook) raised: the always_call hooks that have not run yet."""
        module = self.module
        for kind, hooks, always in (("global module", global_hooks.forward,
                                     global_hooks.forward_always_called),
                                    ("module", module._forward_hooks,
                                     module._forward_hooks_always_called)):
            for hook_id, hook in list(hooks.items()):
                if hook_id not in always or hook_id in self.called:
                    continue
                try:
                    self.run_forward_hook(hook_id, hook)
                except Exception as error:  # noqa: BLE001 - torch turns it into a warning
                    warnings.warn(f"{kind} forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {error}", stacklevel=4)


# ====================================================================== backward hooks
class BackwardHookFunction(Function):
    """The identity, as a node in the graph: the module's inputs, and then its outputs, pass
    through it, and hooks on its node see their gradients."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """The full backward (pre-)hooks of one module call, set up as torch's BackwardHook: a
    node hook on the outputs' identity node keeps grad_output (and runs the pre-hooks), one
    on the inputs' identity node calls the hooks with grad_input and grad_output."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module, self.user_hooks, self.user_pre_hooks = module, user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_positions = self.output_positions = None

    @staticmethod
    def spread(positions, values, size):
        """The tensors' values back at their positions among all arguments (None elsewhere)."""
        spread = [None] * size
        for position, value in zip(positions, values):
            spread[position] = value
        return tuple(spread)

    def through_identity(self, on_node, args):
        """``args`` with their tensors passed through BackwardHookFunction (when some requires
        grad and grad mode is on); ``on_node(node)`` gets its node. Also the tensors' positions."""
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        passed = BackwardHookFunction.apply(*tensors)
        nodes = [t.grad_fn for t in passed if t.grad_fn is not None
                 and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        on_node(nodes[0])
        replaced = list(args)
        for position, tensor in zip(positions, passed):
            replaced[position] = tensor
        return (tuple(replaced) if type(args) is tuple else type(args)(*replaced)), positions

    def setup_input_hook(self, args):
        result, self.input_positions = self.through_identity(
            lambda node: node.register_hook(self.input_hook), args)
        self.n_inputs = len(args)
        return result

    def input_hook(self, grad_inputs, _):
        if self.grad_outputs is None:
            return None  # a gradient reached the inputs without passing the outputs
        grads = self.spread(self.input_positions, grad_inputs, self.n_inputs)
        for hook in self.user_hooks:
            returned = hook(self.module, grads, self.grad_outputs)
            if returned is None:
                continue
            if len(returned) != len(grads):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(returned)}, but expected {len(grads)}")
            grads = returned
        self.grad_outputs = None
        return tuple(grads[i] for i in self.input_positions)

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        passed, self.output_positions = self.through_identity(
            lambda node: node.register_hook(self.output_hook), outputs)
        self.n_outputs = len(outputs)
        return passed[0] if single else passed

    def output_hook(self, _, grad_outputs):
        self.grad_outputs = self.spread(self.output_positions, grad_outputs, self.n_outputs)
        for hook in self.user_pre_hooks:
            returned = hook(self.module, self.grad_outputs)
            if returned is None:
                continue
            if len(returned) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(returned)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = returned
        grad_outputs = self.grad_outputs
        if self.input_positions is None:  # no input requires grad: the hooks run from here
            self.run_without_inputs()
        return tuple(grad_outputs[i] for i in self.output_positions)

    def run_without_inputs(self):
        if self.user_hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            grads = (None,) * self.n_inputs
            for hook in self.user_hooks:
                returned = hook(self.module, grads, self.grad_outputs)
                if returned is not None and not (isinstance(returned, tuple)
                                                 and all(g is None for g in returned)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
        self.grad_outputs = None


# ====================================================================== register_backward_hook
class WrappedHook:
    """A module's non-full backward hook as a node hook: ``hook(module, *args)``."""

    def __init__(self, hook, module):
        functools.update_wrapper(self, hook)
        self.hook, self.module = hook, weakref.ref(module)

    def __call__(self, *args):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


def register_non_full_backward_hooks(module, hooks, args, result):
    """register_backward_hook's: node hooks on the grad_fn of the first output tensor (they see
    that node's grad_input and grad_output, not the module's), with torch's warnings."""
    first = result
    while not isinstance(first, Tensor):
        first = next(v for v in first.values() if isinstance(v, Tensor)) \
            if isinstance(first, dict) else first[0]
    node = first.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(WrappedHook(hook, module))
    message = _non_full_hook_warning(args, result, node)
    if message:
        warnings.warn(message, FutureWarning, stacklevel=4)


_MISSING = " This hook will be missing some of the grad_{}."
_USE_FULL = " Please use register_full_backward_hook to get the documented behavior."


def _non_full_hook_warning(inputs, result, node):
    """Why a non-full backward hook will not see what its name promises (None: it will)."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            return ("Using non-full backward hooks on a Module that does not return a single "
                    "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                    "versions." + _MISSING.format("output") + _USE_FULL)
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            return ("Using non-full backward hooks on a Module that does not take as input a "
                    "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                    "future versions." + _MISSING.format("input") + _USE_FULL)
    else:
        inputs = (inputs,)
    output_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and node not in output_nodes):
        return ("Using a non-full backward hook when outputs are nested in python data "
                "structure is deprecated and will be removed in future versions. This hook will "
                "be missing some grad_output.")
    if len(output_nodes) > 1:
        return ("Using a non-full backward hook when outputs are generated by different "
                "autograd Nodes is deprecated and will be removed in future versions. This hook "
                "will be missing some grad_output." + _USE_FULL)
    input_nodes = {i.grad_fn for i in inputs if i.grad_fn is not None}
    if input_nodes != {next_node for next_node, _ in node.next_functions}:
        return ("Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_input." + _USE_FULL)
    return None
