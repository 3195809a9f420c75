"""How torch's ``autograd.Function.apply`` takes keyword arguments.

Fidelity machinery, not part of the engine's story: a reader can skip this module.

A Function written in torch 2's style (``forward`` without ``ctx``, then ``setup_context``)
has its arguments bound to ``forward``'s signature first, defaults included (Python's
``inspect``, its errors): ``F.apply(x)`` of ``forward(x, k=2)`` gives ``setup_context`` the
inputs ``(x, 2)``, and a vmap rule an in_dim for ``k``. Then torch's C++ ``apply`` puts
keyword arguments in the places of ``forward``'s positional parameters, refusing any other
(a keyword-only one: only a transform takes those) in its own words.
"""
import functools
import inspect

_signature = functools.lru_cache(maxsize=1024)(inspect.signature)  # (read once per forward)


def bound(forward, args, kwargs):
    """``(args, kwargs)`` of a torch 2 style Function: forward's defaults filled in, the
    keyword-only arguments left in kwargs."""
    arguments = _signature(forward).bind(*args, **kwargs)
    arguments.apply_defaults()
    return arguments.args, arguments.kwargs


def positional(forward, args, kwargs, skipped):
    """``args`` with ``kwargs`` put in the places of ``forward``'s positional parameters after
    the first ``skipped`` (``ctx``), as torch's C++ apply does, with its errors."""
    if not kwargs:
        return args
    names = [p.name for p in _signature(forward).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][skipped:]
    places = list(args)
    for name, value in kwargs.items():
        if name not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{name}'")
        position = names.index(name)
        if position < len(args):
            raise TypeError(f"forward() got multiple values for argument '{name}'")
        places.extend([_MISSING] * (position + 1 - len(places)))
        places[position] = value
    for position, value in enumerate(places):
        if value is _MISSING:
            raise TypeError(f"forward() missing required argument: '{names[position]}' "
                            f"(position {position})")
    return tuple(places)


_MISSING = object()
