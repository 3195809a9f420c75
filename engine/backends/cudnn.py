"""``torch.backends.cudnn``: NVIDIA's deep-learning library; the engine never calls it."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """True in torch's Linux wheel, which ships cuDNN even where there is no GPU to use it."""
    return True
