"""``engine.distributions``: probability distributions, mirroring ``torch.distributions``.

A distribution's parameters are tensors: ``Normal(loc, scale)`` samples with
``sample()`` (no gradient) or ``rsample()`` (differentiable: loc + eps * scale) and scores
values with ``log_prob(x)``, built from engine operations so gradients flow back to the
parameters. Samples use the same random streams as torch's, so a seeded sample is torch's
bit for bit.

The engine has Normal, Uniform, Bernoulli, Categorical and Multinomial (no KL
divergences, transforms or other distributions yet).
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .multinomial import Multinomial
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Multinomial",
           "Normal", "Uniform", "constraints"]
