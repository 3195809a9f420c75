"""``torch.func.functional_call(module, tensors, args, kwargs)``: the module's forward, run
with the given tensors in place of its parameters and buffers, which are put back after.

That makes a module a function of its weights, which ``grad`` and ``vmap`` need:
``grad(lambda p: loss(functional_call(model, p, (x,)), y))(params)``.

As torch's, the swap writes the given tensors straight into the module's ``_parameters`` /
``_buffers`` (so a plain tensor may stand for a Parameter), sets any other dotted name as
an attribute, and, with ``tie_weights`` (the default), a tensor given for one of several
tied names (the same Parameter under two names) stands for all of them.
"""
from ..core.tensor import Tensor
from ..nn.modules.module import Module
from ..ops.join import stack
from .batched import BatchedTensor

_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with ``parameter_and_buffer_dicts`` (one dict, or a
    tuple/list of dicts with no key in two of them) in place of its state."""
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    if tie_weights:
        tensors = _untied(module, tensors)
    if strict:
        _check_keys(module, tensors)
    originals = _swap_all(module, tensors)
    try:
        return module(*args, **kwargs)
    finally:
        _swap_all(module, originals)


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of ``models`` (modules of one class,
    in one mode) stacked along a new first dimension, by name, for ``vmap`` over an ensemble:
    ``vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)))(params, buffers, xs)``.
    A stacked parameter is a new leaf (an optimizer can train it); a buffer is just stacked."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    named = [dict(m.named_parameters()) for m in models]
    params = {name: _stacked_leaf([n[name] for n in named], name) for name in named[0]}
    named = [dict(m.named_buffers()) for m in models]
    buffers = {name: _stacked_leaf([n[name] for n in named], name) for name in named[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    flags = {t.requires_grad for t in tensors}
    if len(flags) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = stack(tensors)
    return stacked.detach().requires_grad_() if flags == {True} else stacked


def _named_state(module):
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untied(module, tensors):
    """A tensor given for one of a group of tied names, given for all of the group."""
    names_of = {}
    for name, tensor in _named_state(module).items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: group for group in names_of.values() if len(group) > 1 for name in group}
    given = [name for name in tensors if name in tied]
    for name in given:
        group = tied[name]
        if len(group & set(given)) > 1 and len({id(tensors[n]) for n in group
                                                if n in tensors}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, "
                             "which are tied. Consider using tie_weights=False")
    untied = dict(tensors)
    for name in given:
        for other in tied[name]:
            untied[other] = tensors[name]
    return untied


def _check_keys(module, tensors):
    valid = set(_named_state(module))
    missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" +
                           "\n\t".join(errors))


def _swap_all(module, tensors):
    """Puts each tensor in place; returns what was there (undone if one swap fails)."""
    originals = {}
    try:
        for name, tensor in tensors.items():
            originals[name] = _swap(module, name, tensor)
    except Exception:
        for name, original in originals.items():
            _swap(module, name, original)
        raise
    return originals


def _owner(module, name):
    owner = module
    for part in name.split(".")[:-1] if "." in name else []:
        try:
            child = getattr(owner, part)
        except AttributeError as error:
            raise AttributeError(f"{owner._get_name()} has no attribute `{part}`") from error
        if not isinstance(child, Module):
            raise TypeError(f"submodule `{part}`: {child} is not an instance of "
                            "torch.nn.Module")
        owner = child
    return owner


def _swap(module, name, tensor):
    owner, attribute = _owner(module, name), name.rpartition(".")[2]
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor) and \
            not isinstance(tensor, BatchedTensor):  # (torch's BatchedTensor is a Tensor)
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if attribute == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for place in (owner._parameters, owner._buffers):
        if attribute in place:
            original = place[attribute]
            if tensor is _MISSING:
                del place[attribute]
            else:
                place[attribute] = tensor
            return original
    original = getattr(owner, attribute, _MISSING)
    if original is not _MISSING and original is not None and not isinstance(original, Tensor):
        raise TypeError(f"attribute `{attribute}`: {original} is not an instance of "
                        "torch.Tensor")
    if tensor is not _MISSING:
        setattr(owner, attribute, tensor)
    elif original is not _MISSING:
        delattr(owner, attribute)
    return original
