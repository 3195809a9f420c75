"""``engine.nn.utils``: helpers around a model's parameters, as ``torch.nn.utils``."""
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, \
    get_total_norm
from . import rnn  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "rnn", "vector_to_parameters"]
