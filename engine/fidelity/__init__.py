"""PyTorch bit for bit: what makes the engine's answers identical to torch's, and that
you can skip to understand autograd. See README.md.
"""
