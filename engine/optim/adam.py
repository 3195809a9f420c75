"""Adam and AdamW, as ``torch.optim.Adam`` / ``torch.optim.AdamW`` compute them on the CPU."""
from ..fidelity import dtypes
from ..ops import arithmetic, creation
from .optimizer import Optimizer, check_tensor_lr, to_scalar


class Adam(Optimizer):
    """p = p - lr * m_hat / (sqrt(v_hat) + eps), m and v running averages of g and g**2."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_tensor_lr(lr, foreach, capturable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _state_for(self, param, group):
        state = self.state[param]
        if len(state) == 0:  # created on the parameter's first step
            # the step count is a tensor (float32, or float64 under that default dtype)
            step_dtype = dtypes.float64 if dtypes.get_default_dtype() == dtypes.float64 \
                else dtypes.float32
            state["step"] = creation.tensor(0.0, dtype=step_dtype)
            state["exp_avg"] = creation.zeros_like(param)
            state["exp_avg_sq"] = creation.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = creation.zeros_like(param)
        return state

    def step(self, closure=None):
        """One update of every parameter that has a gradient."""
        return self._step_every_parameter(closure)

    def _update(self, param, group):
        # torch's single-tensor Adam (its CPU default), in the same order of operations
        state = self._state_for(param, group)
        lr, eps, weight_decay = to_scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        grad = param.grad if not group["maximize"] else -param.grad
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        state["step"] += 1

        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)  # AdamW: shrink p, outside the averages
            else:
                grad = grad.add(param, alpha=weight_decay)  # Adam: decay joins the gradient

        exp_avg.lerp_(grad, 1 - beta1)  # m = beta1 * m + (1 - beta1) * g
        # v = beta2 * v + (1 - beta2) * g**2
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        # m and v start at 0, so early averages are too small: divide by (1 - beta**t)
        step = state["step"].item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5

        if group["amsgrad"]:
            # AMSGrad divides by the largest v seen so far, so steps never grow back
            max_exp_avg_sq = state["max_exp_avg_sq"]
            arithmetic.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
            denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)  # p = p - step_size * m / denom


class AdamW(Adam):
    """Adam with decoupled weight decay: p = p * (1 - lr * wd) before the Adam step."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
