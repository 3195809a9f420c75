"""NAdam, as ``torch.optim.NAdam`` computes it on the CPU."""
from ..ops import creation
from .optimizer import Optimizer, check_betas, check_options, step_tensor, to_scalar


class NAdam(Optimizer):
    """Adam with Nesterov momentum: the step mixes this gradient and the running average m,
    weighted by a momentum schedule mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_options(lr=(lr, "learning rate"), eps=(eps, "epsilon value"))
        check_betas(betas)
        check_options(weight_decay=(weight_decay, "weight_decay value"),
                      momentum_decay=(momentum_decay, "momentum_decay value"))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_tensor()
            state["mu_product"] = step_tensor(1.0)  # the product of every mu so far
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_avg_sq"] = creation.zeros_like(param)
        lr, eps, weight_decay = to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], \
            state["mu_product"]
        state["step"] += 1
        step = state["step"].item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        mu_product *= mu  # a float32 tensor: rounded there, as torch's
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_now = mu_product.item()
        mu_product_next = mu_product_now * mu_next
        if group["differentiable"]:
            denom = denom.add(eps)
            param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product_now)), denom)
            param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
        else:
            denom.add_(eps)
            # the gradient's share, then the average's (Nesterov: m looked one step ahead)
            param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_now))
            param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))
