"""RMSprop, as ``torch.optim.RMSprop`` computes it on the CPU."""
from ..ops import creation
from .optimizer import Optimizer, check_options, step_tensor, to_scalar


class RMSprop(Optimizer):
    """p = p - lr * g / (sqrt(v) + eps), v a running average of g**2 (``alpha`` its decay).

    ``centered`` divides by an estimate of g's variance instead (v minus the squared running
    average of g); ``momentum`` keeps a velocity of those scaled steps.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_options(lr=(lr, "learning rate"), eps=(eps, "epsilon value"),
                      momentum=(momentum, "momentum value"),
                      weight_decay=(weight_decay, "weight_decay value"),
                      alpha=(alpha, "alpha value"))
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay,
                    "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        # torch's single-tensor RMSprop, operation by operation (so the rounding is the same)
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_tensor()
            state["square_avg"] = creation.zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = creation.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = creation.zeros_like(param)
        alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
        grad = param.grad if not group["maximize"] else -param.grad
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)  # v = a v + (1 - a) g^2
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)  # the running mean of g: v - mean^2 is a variance
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if group["differentiable"] else avg.add_(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-to_scalar(group["lr"]))
        else:
            param.addcdiv_(grad, avg, value=-to_scalar(group["lr"]))
