"""The calls of PyTorch's tutorial "a custom Function's jvp under forward-mode AD (Extending PyTorch, forward mode)", in its order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the tutorial's."""
import torch
fwAD = torch.autograd.forward_ad
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        r = torch.exp(foo)
        print("in forward, tangent:", fwAD.unpack_dual(foo).tangent, fwAD.unpack_dual(r).tangent)
        ctx.result = r
        return r
    @staticmethod
    def jvp(ctx, gI):
        print("jvp grad mode", torch.is_grad_enabled(), ctx.result.requires_grad, ctx.result.grad_fn)
        return gI * 2
class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        return foo * 3
    @staticmethod
    def backward(ctx, g):
        return g * 3
p = torch.tensor([1., 2.], requires_grad=True)
t = torch.tensor([1., 1.])
with fwAD.dual_level():
    d = fwAD.make_dual(p, t)
    out = Fn.apply(d)
    print(fwAD.unpack_dual(out).tangent)
    try:
        o2 = NoJvp.apply(d)
        print(fwAD.unpack_dual(o2).tangent)
    except Exception as e:
        print(type(e).__name__, e)
    with torch.no_grad():
        out = Fn.apply(d)
        print(fwAD.unpack_dual(out).tangent)
    d2 = fwAD.make_dual(torch.tensor([1., 2.]), t)
    out = Fn.apply(d2)
    print(fwAD.unpack_dual(out).tangent)
