"""``torch.backends.mps``: Apple's GPUs; not available here."""


def is_available():
    return False


def is_built():
    return False
