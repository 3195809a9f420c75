"""``Module``: the base class of every layer and model, as ``torch.nn.Module``.

A module keeps three ordered dicts, filled by plain attribute assignment:

* ``_parameters``: its own ``Parameter`` objects (``self.weight = Parameter(...)``),
* ``_buffers``: tensors that are state but not learned (``register_buffer``),
* ``_modules``: its submodules (``self.fc = Linear(...)``).

Everything else (``parameters()``, ``state_dict()``, ``zero_grad()``, ``train()``,
``to()``, the printed tree) walks those dicts, children in the order they were assigned.
"""
from collections import OrderedDict, namedtuple

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ...fidelity.dtypes import as_dtype
from ...ops.convert import parse_to
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter, is_lazy
from . import hooks
from .hooks import (register_module_backward_hook, register_module_forward_hook,  # noqa: F401
                    register_module_forward_pre_hook, register_module_full_backward_hook,
                    register_module_full_backward_pre_hook)


def typename(value):
    """The type name torch's messages use: ``torch.FloatTensor`` for a tensor, else the class."""
    if isinstance(value, Tensor):
        return value.type()
    module = type(value).__module__
    name = type(value).__qualname__
    return name if module in (None, "builtins") else f"{module}.{name}"


def _addindent(text, spaces):
    """Indent every line but the first (a child's repr nested inside its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


# torch keeps the name above private in torch.nn.modules.module; other modules use this one
indent_after_first_line = _addindent


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")

    __str__ = __repr__


class Module:
    """Base class for layers and models: subclass it, assign layers in ``__init__``,
    compute in ``forward``, and call the module (``model(x)``) to run ``forward``."""

    training = True
    _version = 1  # the state_dict layout's version, saved in state_dict()._metadata (torch's)

    def __init__(self, *args, **kwargs):
        # (torch's words for arguments given to a layer that takes none: nn.Softmax2d(1))
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__: our own __setattr__ would look for these dicts
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        # the hooks, each kind in the order they run, keyed by their handle's id (hooks.py)
        for kind in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_backward_pre_hooks", "_backward_hooks"):
            object.__setattr__(self, kind, OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        if self._backward_hooks or self._backward_pre_hooks or self._forward_hooks or \
                self._forward_pre_hooks or hooks.global_hooks.registered:  # (torch's order)
            return hooks.call_with_hooks(self, args, kwargs)  # torch's _call_impl, with hooks
        return self.forward(*args, **kwargs)

    # ------------------------------------------------------------ hooks (hooks.py runs them)
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` runs before forward; it may return new args (one value or a
        tuple). ``with_kwargs=True``: ``hook(module, args, kwargs)`` -> ``(args, kwargs)``."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` runs after forward; it may return a new output.
        ``always_call=True``: it runs even when forward raised."""
        handle = RemovableHandle(self._forward_hooks, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients of the outputs are known; it
        may return new ones."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """Deprecated: ``hook(module, grad_input, grad_output)`` as a hook on the node that made
        the first output (its inputs, not always the module's): use
        register_full_backward_hook."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the inputs are
        known; it may return new grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    # ------------------------------------------------------------ registration
    def _check_name(self, kind, name, existing):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in existing:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        """Add ``param`` (a Parameter, or None for an absent one) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not learned; ``persistent`` puts it in state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a submodule under ``name`` (what ``self.name = module`` does)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    # ------------------------------------------------------------ attributes
    def __setattr__(self, name, value):
        """Parameters, modules and buffers go into their dicts; anything else is ordinary."""
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep=self._parameters)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if "_modules" not in self.__dict__:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep=self._modules)
            self._modules[name] = value
        elif "_modules" in self.__dict__ and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            self._modules[name] = value
        elif isinstance(value, Buffer) or "_buffers" in self.__dict__ and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):  # (nn.Buffer(...) says whether it is persistent)
                self.register_buffer(name, value, value.persistent)
            else:
                self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Remove ``name`` from every place but ``keep`` (an attribute changes kind)."""
        for place in (self.__dict__, self._parameters, self._buffers, self._modules):
            if place is not keep:
                place.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        # Python calls this only when normal lookup failed: look in the three dicts
        for place in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(place)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for place in (self._parameters, self._buffers, self._modules):
            if name in place:
                del place[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # ------------------------------------------------------------ walking the tree
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(dotted name, module)`` for this module ('' ) and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                                remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        """``(name, module)`` for the direct submodules (each module once)."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, kind, prefix, recurse, remove_duplicate):
        """The entries of ``_parameters`` or ``_buffers`` of this module (and descendants)."""
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        seen = set()
        for module_prefix, module in modules:
            for name, value in getattr(module, kind).items():
                if value is None or (remove_duplicate and value in seen):
                    continue  # a tensor shared by two modules is listed once
                seen.add(value)
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``('0.weight', Parameter)`` pairs: dotted names, in registration order."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ training state
    def train(self, mode=True):
        """Training mode (Dropout drops); ``train(False)`` is ``eval()``. Recursive."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of the last backward (by default ``.grad`` becomes None)."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                if param.grad.grad_fn is not None:
                    param.grad.detach_()
                else:
                    param.grad.requires_grad_(False)
                param.grad.zero_()

    # ------------------------------------------------------------ state_dict
    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name, detached but sharing memory."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # saved with it, as torch's checkpoints
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": self._version}
        for name, param in self._parameters.items():
            if param is not None:  # (a lazy layer's uninitialized parameter: itself)
                lazy = is_lazy(param)
                destination[prefix + name] = param if keep_vars or lazy else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                keep = keep_vars or is_lazy(buffer)  # (a lazy batch norm's statistics)
                destination[prefix + name] = buffer if keep else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the tensors of ``state_dict`` into this module's parameters and buffers."""
        missing, unexpected, errors = [], [], []
        for prefix, module in self.named_modules():
            prefix = prefix + "." if prefix else ""
            module._load_own(state_dict, prefix, missing, unexpected, errors, assign)
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _load_own(self, state_dict, prefix, missing, unexpected, errors, assign):
        """Load this module's own entries; note keys that are missing or unknown."""
        local = {name: value for name, value in self._parameters.items() if value is not None}
        local.update((name, value) for name, value in self._buffers.items()
                     if value is not None and name not in self._non_persistent_buffers_set)
        for name, current in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if is_lazy(current) and isinstance(value, Tensor) and not is_lazy(value):
                current.materialize(value.shape)  # a lazy layer takes the loaded shape
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
                continue
            if value.shape != current.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{current.shape}.")
                continue
            if assign:
                if isinstance(current, Parameter) and not isinstance(value, Parameter):
                    value = Parameter(value, requires_grad=current.requires_grad)
                setattr(self, name, value)
            else:
                with no_grad():
                    current.copy_(value)  # in place: optimizers keep holding the same tensors
        for key in state_dict:
            if key.startswith(prefix):
                first, *rest = key[len(prefix):].split(".", 1)
                if (rest and first not in self._modules) or (not rest and first not in local):
                    unexpected.append(key)

    # ------------------------------------------------------------ dtype
    def _apply(self, fn):
        """Convert every parameter (in place: ``param.data = fn(param)``), grad and buffer."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
            if param.grad is not None:
                with no_grad():
                    param.grad.data = fn(param.grad)
        for name, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[name] = fn(buffer)
        return self

    def to(self, *args, **kwargs):
        """``to(dtype)`` converts the floating point parameters and buffers; ``to(device)``
        moves every tensor, which only 'cpu' allows here (a module without tensors moves
        anywhere, as in torch); ``memory_format=`` lays out the 4-d and 5-d ones. The
        arguments are read as Tensor.to reads them (``m.to(1.5)`` is ``m.to(torch.float64)``)."""
        device, dtype, _, copy, memory_format = parse_to(args, kwargs)
        if copy:
            raise RuntimeError(".to() does not accept copy argument")
        if dtype is not None:
            dtype = as_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")
        if device is not None:
            self._apply(lambda t: t.to(device))
        if memory_format is not None:
            self._apply(lambda t: t.to(memory_format=memory_format) if t.dim() in (4, 5)
                        else t)
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def cpu(self):
        return self

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    # ------------------------------------------------------------ printing
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text between the parentheses of this module's repr: override to describe it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]  # a leaf module fits on one line
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
