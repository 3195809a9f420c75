"""engine.utils (engine.utils.data) against torch.utils."""
