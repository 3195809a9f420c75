"""engine.distributions against torch.distributions."""
