"""Tensors, nodes, the backward walk, grad modes, memory and the mistakes learners make."""
