"""Adagrad, as ``torch.optim.Adagrad`` computes it on the CPU."""
from ..ops import creation
from .optimizer import Optimizer, check_options, step_tensor, to_scalar


class Adagrad(Optimizer):
    """p = p - clr * g / (sqrt(s) + eps), s the sum of every g**2 so far (each coordinate's
    step shrinks as its gradients add up); clr = lr / (1 + (t - 1) * lr_decay)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_options(lr=(lr, "learning rate"), lr_decay=(lr_decay, "lr_decay value"),
                      weight_decay=(weight_decay, "weight_decay value"),
                      initial=(initial_accumulator_value, "initial_accumulator_value value"),
                      eps=(eps, "epsilon value"))
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # unlike the other optimizers, Adagrad's state exists from the start, for every
        # parameter (a state_dict shows it before the first step)
        for group in self.param_groups:
            for param in group["params"]:
                self._new_state(param)

    def _new_state(self, param):
        state = self.state[param]
        state["step"] = step_tensor()
        state["sum"] = creation.full_like(param, self.defaults["initial_accumulator_value"])
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state = self._new_state(param)
        step_t, state_sum = state["step"], state["sum"]
        step_t += 1
        step = step_t.item()
        grad = param.grad if not group["maximize"] else -param.grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = to_scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + group["eps"] if group["differentiable"] else \
            state_sum.sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)
