"""``torch.random``: seeding the default generator, and its state as a tensor.

The generator itself (engine/fidelity/random.py) works on numpy bytes; here its state becomes
what torch gives: a uint8 tensor of 5056 bytes (``get_rng_state()``, ``Generator.get_state()``),
and only such a tensor is taken back (``set_rng_state``, ``Generator.set_state``), with torch's
errors for anything else. A state saved by torch restores the engine's generator and the other
way round: the bytes have torch's layout.
"""
from .core.tensor import Tensor, wrap
from .fidelity import dtypes
from .fidelity.messages import type_name
from .fidelity.random import (Generator, default_generator, initial_seed,  # noqa: F401
                              manual_seed, seed)

_STATE_SIZE = 5056  # bytes of torch's CPUGeneratorImplState


def _generator_get_state(self):
    """The generator's state: a uint8 tensor of 5056 bytes, torch's layout."""
    return wrap(self.state_bytes())


def _generator_set_state(self, new_state):
    """Restore a state from ``get_state()`` (the engine's or torch's); returns the generator."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type_name(new_state)}")
    if new_state.dtype != dtypes.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    if new_state.numel() != _STATE_SIZE:
        raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                           f"the input RNG state size to be {new_state.numel()}")
    return self.set_state_bytes(new_state.contiguous()._data.reshape(-1))


Generator.get_state = _generator_get_state
Generator.set_state = _generator_set_state


def get_rng_state():
    """The default generator's state, a uint8 tensor (as ``torch.get_rng_state()``)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from a uint8 tensor of get_rng_state()'s."""
    default_generator.set_state(new_state)

