"""The ``Optimizer`` base class: parameter groups, per-parameter state, and checkpoints.

An optimizer holds a list of *parameter groups*: dicts with a ``"params"`` list and
the options (``lr``, ``momentum`` ...) for those parameters. Options not given in a
group come from ``defaults``. ``state`` maps each parameter tensor to its own dict
(momentum buffers, running averages ...), filled by the subclass's ``step()``.
"""
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from ..core.grad_mode import enable_grad, set_grad_enabled
from ..core.tensor import Tensor
from ..fidelity import dtypes
from ..fidelity.dtypes import legacy_type_name
from ..ops import creation


class _RequiredParameter:
    """Marks an option that every parameter group must give (no default)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def step_tensor(value=0.0):
    """A parameter's step counter (or another scalar of its state), as torch keeps it: a 0-d
    float32 tensor (float64 under that default dtype), read back with ``.item()``."""
    step_dtype = dtypes.float64 if dtypes.get_default_dtype() == dtypes.float64 \
        else dtypes.float32
    return creation.tensor(value, dtype=step_dtype)


def check_tensor_lr(lr, foreach=None, capturable=False):
    """torch also takes the learning rate as a tensor (its schedulers then fill it in place):
    a 1-element one; Adam and AdamW refuse it with foreach=True unless capturable."""
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")


def to_scalar(value):
    """A hyperparameter as torch's steps read it: a 1-element tensor becomes 0-d (torch then
    computes with the tensor, in its dtype, and passes it where a number goes), a number stays."""
    return value.squeeze() if isinstance(value, Tensor) and value.dim() != 0 else value


def check_options(**checks):
    """torch's checks of an optimizer's numeric options, in its order: ``name=(value, label)``
    raises ValueError("Invalid {label}: {value}") when value is negative."""
    for name, (value, label) in checks.items():
        if name == "lr":
            check_tensor_lr(value)
        if not 0.0 <= value:
            raise ValueError(f"Invalid {label}: {value}")


def check_betas(betas):
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _typename(obj):
    """The name torch's messages use: 'torch.FloatTensor' for a tensor, 'int' for 5."""
    if isinstance(obj, Tensor):
        return legacy_type_name(obj.dtype)
    cls = obj.__class__
    module = cls.__module__ or ""
    return cls.__qualname__ if module in ("", "builtins") else f"{module}.{cls.__qualname__}"


class Optimizer:
    """Base class: keeps ``param_groups`` and ``state``; subclasses implement ``step()``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)  # parameter tensor -> its state (tensors hash by identity)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]  # a plain list is one group
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group):
        """Add a group of parameters (with its own options) to optimize from now on."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        # named_parameters() gives (name, tensor) pairs: keep the names beside the tensors
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p
                                 for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            # the update writes into the tensor itself, which only a leaf can take
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Forget the gradients: ``.grad = None`` (default), or fill them with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    # the zeroed gradient must not keep a graph alive (create_graph=True)
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """Update the parameters once from their ``.grad`` (each optimizer defines it)."""
        raise NotImplementedError

    def _step_every_parameter(self, closure):
        """Update once every parameter that has a ``.grad`` (unused or frozen ones are left
        alone); each optimizer's ``_update(param, group)`` is its rule for one parameter."""
        loss = self._run_closure(closure)
        with self._no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, group)
        return loss

    def _update(self, param, group):
        raise NotImplementedError

    def _run_closure(self, closure):
        """``closure()`` recomputes the loss (with its gradients) before a step."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _no_grad(self):
        """Updating parameters in place is not part of the model: autograd stays out."""
        return set_grad_enabled(self.defaults["differentiable"])

    # ------------------------------------------------------------ checkpoints
    def state_dict(self):
        """The optimizer's state, with each parameter replaced by its position (0, 1, ...)."""
        positions = {}  # id(param) -> its number, counted across all groups in order
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            positions.update({id(p): i for i, p in enumerate(group["params"], start)
                              if id(p) not in positions})
            packed["params"] = [positions[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        # the state tensors themselves (not copies), keyed by position, as torch does
        packed_state = {(positions[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Take the options and state of ``state_dict``, matching parameters by position."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])  # written into below
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")

        # saved position -> this optimizer's parameter at that position
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            """Floating state takes the parameter's dtype; ``step`` is kept as saved."""
            if isinstance(value, Tensor):
                if key != "step" and param.is_floating_point():
                    return value.to(dtype=param.dtype)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v  # state for no parameter is kept as it is

        for group, new_group in zip(groups, saved_groups):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
