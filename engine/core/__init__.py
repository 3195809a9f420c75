"""The core of autograd, the part to read: tensors, nodes, the backward walk, grad modes.

Read it in this order: ``grad_mode.py`` (is recording on?), ``node.py`` (what an
operation records), ``backward.py`` (the walk), ``history.py`` (in-place changes),
``tensor.py`` (the Tensor, which ties them together). See README.md.
"""
