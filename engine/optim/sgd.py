"""Stochastic gradient descent, optionally with momentum, as ``torch.optim.SGD``."""
from .optimizer import Optimizer, check_tensor_lr, to_scalar


class SGD(Optimizer):
    """p = p - lr * g, where g is the gradient (plus weight decay, through momentum)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_tensor_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        # torch's single-tensor SGD, in the same order (so rounding matches too)
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        grad = param.grad if not group["maximize"] else -param.grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)  # the gradient of (wd / 2) * p**2
        if momentum != 0:
            state = self.state[param]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()  # the first step starts from the gradient itself
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            # nesterov looks ahead: the step uses the gradient plus the updated velocity
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        param.add_(grad, alpha=-to_scalar(group["lr"]))
