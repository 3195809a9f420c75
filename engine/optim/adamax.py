"""Adamax, as ``torch.optim.Adamax`` computes it on the CPU."""
from ..ops import arithmetic, creation
from .optimizer import Optimizer, check_betas, check_options, step_tensor, to_scalar


class Adamax(Optimizer):
    """Adam with the infinity norm: p = p - lr / (1 - beta1**t) * m / u, where
    u = max(beta2 * u, |g| + eps) replaces Adam's sqrt(v)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_options(lr=(lr, "learning rate"), eps=(eps, "epsilon value"))
        check_betas(betas)
        check_options(weight_decay=(weight_decay, "weight_decay value"))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_tensor()
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_inf"] = creation.zeros_like(param)
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg.lerp_(grad, 1 - beta1)
        # u = max(beta2 * u, |g| + eps): the largest recent |g|, decaying
        arithmetic.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
        clr = to_scalar(group["lr"]) / (1 - beta1 ** state["step"].item())  # m's bias correction
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
