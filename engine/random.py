"""``torch.random``: seeding the default generator."""
from .fidelity.random import (default_generator, get_rng_state, initial_seed, manual_seed, seed,  # noqa: F401
                      set_rng_state)
