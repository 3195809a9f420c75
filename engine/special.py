"""torch.special: the special functions under their SciPy-like names.

Each is the engine's own operation (``torch.special.erf`` is ``torch.erf``: same values,
node and ``out=``); only the argument errors name ``special_erf()``, as torch's do. The
functions of torch.special the engine does not have (i0, ndtr, zeta ...) are
absent: using one raises AttributeError.
"""
import functools

from .ops import pointwise, reduce, unary
from .ops.common import overloads

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p",
           "log_softmax", "logit", "logsumexp", "multigammaln", "polygamma", "psi", "round",
           "sinc", "softmax", "xlogy"]


def _special(name, op, op_name=None):
    """``op`` under the name ``special_<name>``: torch's parser errors name it so."""
    op_name = op_name or op.__name__

    @functools.wraps(op)
    def function(*args, **kwargs):
        try:
            return op(*args, **kwargs)
        except TypeError as error:
            message = str(error)
            if not message.startswith(op_name + "("):
                raise
            raise TypeError(f"special_{name}{message[len(op_name):]}") from None

    function.__name__ = function.__qualname__ = name
    return function


erf = _special("erf", pointwise.erf)
erfc = _special("erfc", pointwise.erfc)
erfinv = _special("erfinv", pointwise.erfinv)
logit = _special("logit", pointwise.logit)
xlogy = _special("xlogy", pointwise.xlogy)
sinc = _special("sinc", pointwise.sinc)
expit = _special("expit", unary.sigmoid)
exp2 = _special("exp2", unary.exp2)
expm1 = _special("expm1", unary.expm1)
log1p = _special("log1p", unary.log1p)
digamma = _special("digamma", unary.digamma)
psi = _special("psi", unary.digamma)
gammaln = _special("gammaln", unary.lgamma)
polygamma = _special("polygamma", unary.polygamma)
multigammaln = _special("multigammaln", pointwise.mvlgamma)


@overloads("(Tensor input, int dim, torch.dtype dtype = None)")
def special_softmax(input, dim, dtype=None):
    """torch.softmax without out= (torch.special's has none)"""
    return reduce.softmax(input, dim, dtype)


@overloads("(Tensor input, int dim, *, torch.dtype dtype = None)")
def special_log_softmax(input, dim, *, dtype=None):
    """torch.log_softmax without out=, its dtype by keyword only"""
    return reduce.log_softmax(input, dim, dtype)


softmax = _special("softmax", special_softmax, "special_softmax")
log_softmax = _special("log_softmax", special_log_softmax, "special_log_softmax")
logsumexp = _special("logsumexp", reduce.logsumexp)


def special_round(input, *, decimals=0, out=None):
    """out = input rounded to ``decimals`` places (torch.round with decimals=, 0 by default)"""
    return unary.round(input, decimals=decimals, out=out)


round = _special("round", special_round, "round")  # noqa: A001 - torch.special.round
