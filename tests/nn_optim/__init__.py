"""engine.nn and engine.optim against torch 2.13, and a whole training run."""
