"""The engine with one planted bug, for the fuzzer's own tests (a fuzzer that cannot fail
is a defect). ``FUZZ_PLANTED_BUG`` in the environment names the bug (``BUGS``); without it,
``x.abs()`` / ``torch.abs(x)`` add 1 to every element.

``Worker("fuzz.planted_bug", env={"FUZZ_PLANTED_BUG": name})`` imports this module as its
library; it is the engine itself, patched in that worker's process only. Each bug is one of
a family's class (families.py), planted through the engine's public surface only, so that it
stays planted whatever the engine's insides become.
"""
import contextlib
import math
import os
import sys
import warnings

import numpy as np

import engine

INT_BITS = {engine.uint8: 8, engine.int8: 8, engine.int16: 16, engine.int32: 32,
            engine.int64: 64}


def patch(owner, name, make):
    """Replace ``owner.name`` with ``make(original)``."""
    setattr(owner, name, make(getattr(owner, name)))


def patch_both(name, make):
    """The function ``engine.name`` and the method ``Tensor.name``."""
    patch(engine, name, make)
    patch(engine.Tensor, name, make)


def abs_plus_one():
    patch_both("abs", lambda abs_: lambda input, *a, **k: abs_(input, *a, **k) + 1)


def setitem_wraps():
    """extremes: a number out of an integer tensor's range is written wrapped (300 into
    uint8 writes 44) instead of refused."""
    def make(setitem):
        def wrapped(self, index, value):
            bits = INT_BITS.get(self.dtype)
            if bits and isinstance(value, int) and not isinstance(value, bool):
                low = -(1 << (bits - 1)) if self.dtype != engine.uint8 else 0
                value = (value - low) % (1 << bits) + low
            return setitem(self, index, value)
        return wrapped
    patch(engine.Tensor, "__setitem__", make)


def variance_overflows():
    """overflow: std and var square in the input's dtype, so values above the square root
    of its max give inf."""
    def make(original):
        def overflowing(input, *args, **kwargs):
            result = original(input, *args, **kwargs)
            if input.is_floating_point() and input.numel() and \
                    input.detach().abs().max().item() > math.sqrt(engine.finfo(input.dtype).max):
                result.data.fill_(math.inf)  # (.data: no version bump, no graph change)
            return result
        return overflowing
    patch_both("std", make)
    patch_both("var", make)


def empty_sum_is_nan():
    """empty: the sum of no elements is nan instead of 0."""
    def make(sum_):
        def summed(input, *args, **kwargs):
            result = sum_(input, *args, **kwargs)
            if input.numel() == 0 and result.is_floating_point():
                result.data.fill_(math.nan)
            return result
        return summed
    patch_both("sum", make)


def once_differentiable_too_eager():
    """once_differentiable: a backward so marked refuses to run at all (not only a second
    time, under create_graph)."""
    def once_differentiable(backward):
        def refused(ctx, *grad_outputs):
            raise RuntimeError("trying to differentiate twice a function that was marked "
                               "with @once_differentiable")
        return refused
    engine.autograd.function.once_differentiable = once_differentiable


def no_grad_exit_enables():
    """grad_modes: leaving no_grad switches grad mode on, whatever it was before."""
    def leave(self, *exc_info):
        engine.set_grad_enabled(True)
        return False
    engine.no_grad.__exit__ = leave


def third_derivative_detached():
    """third_derivative: autograd.grad(create_graph=True) of a gradient's graph (a second
    derivative) returns gradients without a graph."""
    made_by_backward = []  # nodes of the graphs that create_graph=True gradients carry
    grad = engine.autograd.grad

    def nodes(tensors):
        seen, stack = set(), [t.grad_fn for t in tensors if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if id(node) not in seen:
                seen.add(id(node))
                stack += [n for n, _ in node.next_functions if n is not None]
        return seen

    def planted(outputs, inputs, *args, **kwargs):
        outputs_list = [outputs] if isinstance(outputs, engine.Tensor) else list(outputs)
        second = bool(nodes(outputs_list) & {id(n) for n in made_by_backward})
        result = grad(outputs, inputs, *args, **kwargs)
        if kwargs.get("create_graph"):
            if second:
                return tuple(g.detach() if g is not None else None for g in result)
            made_by_backward.extend(g.grad_fn for g in result
                                    if g is not None and g.grad_fn is not None)
        return result
    engine.autograd.grad = planted


def keepdim_keyword_ignored():
    """signatures: ``keepdim=`` given by keyword is ignored by the reductions (by position it
    works)."""
    def make(original):
        def reduced(*args, **kwargs):
            kwargs.pop("keepdim", None)
            return original(*args, **kwargs)
        return reduced
    for name in ("sum", "mean", "amax", "amin", "std", "var", "logsumexp", "prod", "argmax",
                 "max", "min", "norm"):
        patch_both(name, make)


def elementwise_contiguous():
    """layouts: elementwise results of non-contiguous inputs come back row-major (torch keeps
    the input's layout)."""
    def make(original):
        return lambda input, *args, **kwargs: original(input, *args, **kwargs).contiguous()
    for name in ("exp", "neg", "abs", "relu", "sigmoid", "sqrt", "sign", "round", "clone",
                 "float", "double", "__mul__", "__add__"):
        patch(engine.Tensor, name, make)


def neg_loses_zero_sign():
    """zero_signs: the negation of a tensor outside autograd is computed as ``0 - x``, so
    -(0.0) is 0.0 (torch: -0.0) and -(-0.0) stays 0.0."""
    def make(original):
        def negated(input, *args, **kwargs):
            if input.is_floating_point() and not input.requires_grad:
                return 0 - input
            return original(input, *args, **kwargs)
        return negated
    patch_both("neg", make)
    patch(engine.Tensor, "__neg__", make)


def clone_bumps_version():
    """versions: clone() returns a tensor whose version counter is already 1."""
    def make(clone):
        def cloned(input, *args, **kwargs):
            result = clone(input, *args, **kwargs)
            result._bump_version()
            return result
        return cloned
    patch_both("clone", make)


def log_warns():
    """warnings: log of a non-positive number lets numpy's RuntimeWarning through."""
    def make(log):
        def logged(input, *args, **kwargs):
            if input.is_floating_point() and input.numel() and input.detach().min().item() <= 0:
                with np.errstate(all="warn"), warnings.catch_warnings():
                    warnings.simplefilter("always")
                    np.log(np.zeros(1))
            return log(input, *args, **kwargs)
        return logged
    patch_both("log", make)


def mm_checks_dtype_first():
    """check_order: mm checks the dtypes before the shapes (torch: the shapes first)."""
    names = {engine.float32: "float", engine.float64: "double", engine.float16: "c10::Half",
             engine.int64: "long int", engine.int32: "int", engine.int16: "short int",
             engine.int8: "signed char", engine.uint8: "unsigned char", engine.bool: "bool"}

    def make(mm):
        def checked(input, mat2, *args, **kwargs):
            if input.dtype != mat2.dtype:
                raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                                   f"{names[input.dtype]} != {names[mat2.dtype]}")
            return mm(input, mat2, *args, **kwargs)
        return checked
    patch_both("mm", make)


def tangent_doubled():
    """transforms: forward mode's tangents come out twice as large (unpack_dual, which
    torch.func's jvp, jacfwd and hessian read them through)."""
    forward_ad = engine.autograd.forward_ad

    def make(unpack_dual):
        def unpacked(tensor, *args, **kwargs):
            primal, tangent = unpack_dual(tensor, *args, **kwargs)
            return forward_ad.UnpackedDualTensor(primal, None if tangent is None
                                                 else tangent * 2)
        return unpacked
    patch(forward_ad, "unpack_dual", make)


def hook_result_ignored():
    """hooks: a tensor hook's returned gradient is dropped (the hook runs, its gradient does
    not replace the one flowing on)."""
    def make(register_hook):
        def registered(self, hook):
            return register_hook(self, lambda grad: (hook(grad), None)[1])
        return registered
    patch(engine.Tensor, "register_hook", make)


def inner_jvp_doubled():
    """nested_forward: a jvp inside a jvp gives its tangents twice as large (one level)."""
    func, depth = engine.func, []

    def make(jvp):
        def nested(*args, **kwargs):
            depth.append(1)
            try:
                out = jvp(*args, **kwargs)
            finally:
                depth.pop()
            if not depth:
                return out
            return (out[0], _doubled(out[1]), *out[2:])
        return nested
    patch(func, "jvp", make)


def _doubled(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_doubled(v) for v in value)
    return value * 2


def mutation_context_ignored():
    """mutation_on_saved: allow_mutation_on_saved_tensors does nothing (a saved tensor changed
    in place fails backward's version check, as without the context)."""
    graph = engine.autograd.graph

    @contextlib.contextmanager
    def ignored():
        yield object()
    graph.allow_mutation_on_saved_tensors = ignored


def triangle_ignores_diagonal():
    """structure: tril and triu keep the main diagonal's triangle whatever diagonal= says."""
    for name in ("tril", "triu"):
        patch_both(name, lambda original: lambda input, *args, **kwargs: original(input))


def roll_backwards():
    """shape_reduce: torch.roll and x.roll shift the other way."""
    def make(roll):
        def rolled(input, shifts, *args, **kwargs):
            back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
            return roll(input, back, *args, **kwargs)
        return rolled
    patch_both("roll", make)


def logit_ignores_eps():
    """pointwise_more: logit never clamps its input to [eps, 1 - eps]."""
    patch_both("logit", lambda logit: lambda input, eps=None, *a, **k: logit(input, *a, **k))


def shrinks_by_clamping():
    """nn_more: softshrink and hardtanh written as clamps (a learner's version): softshrink's
    band keeps -0.0 and its graph has other nodes; hardtanh's gradient at a bound is 1."""
    functional = engine.nn.functional

    def softshrink(input, lambd=0.5):
        return input - input.clamp(-lambd, lambd)

    def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
        return input.clamp(min_val, max_val)
    functional.softshrink, functional.hardtanh = softshrink, hardtanh


def inverse_transposed():
    """linalg: inverse gives the inverse of A^T (right for symmetric matrices only)."""
    def make(inverse):
        return lambda input, *args, **kwargs: inverse(input.mT, *args, **kwargs)
    patch_both("inverse", make)
    patch(engine.linalg, "inv", make)


def integer_tensor_reads_as_zero():
    """int_tensors: an integer tensor given for an int (a dim, a size, a count) is read as 0,
    whatever its value (its __index__)."""
    engine.Tensor.__index__ = lambda self: 0


def nearest_resize_rounds():
    """nn_recent: interpolate's nearest mode rounds the source index instead of flooring it
    (nearest-exact's rule), whatever the mode asked."""
    functional = engine.nn.functional
    interpolate = functional.interpolate

    def rounded(input, size=None, scale_factor=None, mode="nearest", *args, **kwargs):
        mode = "nearest-exact" if mode == "nearest" else mode
        return interpolate(input, size, scale_factor, mode, *args, **kwargs)
    functional.interpolate = rounded


def half_through_float64():
    """half: a float64 tensor becomes float16 in one rounding (numpy's), where torch rounds
    to float32 first (1 + 2**-11 + 2**-30 becomes 1.001 instead of 1.0)."""
    def make(half):
        def direct(self, *args, **kwargs):
            if self.dtype == engine.float64 and not self.requires_grad:
                return engine.from_numpy(self.numpy().astype(np.float16))
            return half(self, *args, **kwargs)
        return direct
    patch(engine.Tensor, "half", make)


BUGS = {"abs": abs_plus_one, "extremes": setitem_wraps, "overflow": variance_overflows,
        "empty": empty_sum_is_nan, "once_differentiable": once_differentiable_too_eager,
        "grad_modes": no_grad_exit_enables, "third_derivative": third_derivative_detached,
        "signatures": keepdim_keyword_ignored, "layouts": elementwise_contiguous,
        "zero_signs": neg_loses_zero_sign, "versions": clone_bumps_version,
        "warnings": log_warns, "check_order": mm_checks_dtype_first,
        "transforms": tangent_doubled, "hooks": hook_result_ignored,
        "nested_forward": inner_jvp_doubled, "mutation_on_saved": mutation_context_ignored,
        "structure": triangle_ignores_diagonal,
        "shape_reduce": roll_backwards,
        "pointwise_more": logit_ignores_eps,
        "nn_more": shrinks_by_clamping, "linalg": inverse_transposed,
        "int_tensors": integer_tensor_reads_as_zero, "nn_recent": nearest_resize_rounds,
        "half": half_through_float64}

BUGS[os.environ.get("FUZZ_PLANTED_BUG", "abs")]()
sys.modules[__name__] = engine
