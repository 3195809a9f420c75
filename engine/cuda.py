"""``torch.cuda``: the engine computes on the CPU only, so no GPU is ever available.

``torch.cuda.is_available()`` is how PyTorch code picks a device; here it is False,
and moving a tensor to ``'cuda'`` raises the error PyTorch's CPU build raises.
"""


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Seeding the (absent) GPU generators does nothing, as in PyTorch without CUDA."""


manual_seed_all = manual_seed
