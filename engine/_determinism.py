"""``torch.use_deterministic_algorithms`` and its debug mode (PyTorch's reproducibility
recipe): the engine's operations are deterministic whatever the mode (one thread, numpy), so
the switches only keep what they were told and report it back, as torch's do."""
from .fidelity.messages import type_name

_mode = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms only (the engine has no others)."""
    for name, value, where in (("mode", mode, " (position 1)"), ("warn_only", warn_only, "")):
        if not isinstance(value, bool):
            raise TypeError(f"_set_deterministic_algorithms(): argument '{name}'{where} must be "
                            f"bool, not {type_name(value)}")
    _mode.update(enabled=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    return _mode["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    return _mode["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """0 / "default": off; 1 / "warn": on, warning only; 2 / "error": on."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError("debug_mode must be str or int, but got "
                        f"{type(debug_mode)}")
    elif debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _mode["enabled"]:
        return 0
    return 1 if _mode["warn_only"] else 2
