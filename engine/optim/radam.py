"""RAdam, as ``torch.optim.RAdam`` computes it on the CPU."""
from ..ops import creation
from .optimizer import Optimizer, check_betas, check_options, step_tensor, to_scalar


class RAdam(Optimizer):
    """Rectified Adam: while v's estimate is too young to trust (rho_t <= 5) the step is plain
    momentum, p = p - lr * m_hat; later it is Adam's, scaled by a rectification factor r_t."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_options(lr=(lr, "learning rate"), eps=(eps, "epsilon value"))
        check_betas(betas)
        check_options(weight_decay=(weight_decay, "weight_decay value"))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_tensor()
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_avg_sq"] = creation.zeros_like(param)
        lr, eps, weight_decay = to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"] += 1
        step = state["step"].item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        # rho: the length of the simple moving average v approximates; rho_inf its limit
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            sqrt_v = exp_avg_sq.sqrt()
            sqrt_v = sqrt_v.add(eps) if group["differentiable"] else sqrt_v.add_(eps)
            adaptive_lr = bias_correction2 ** 0.5 / sqrt_v  # (a reciprocal times, as torch)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
