"""engine.nn and engine.optim against torch 2.15, and a whole training run."""
