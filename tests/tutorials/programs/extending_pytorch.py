"""The calls of PyTorch's notes "Extending PyTorch" (autograd.Function with setup_context, needs_input_grad, a non-tensor argument, a second output, set_materialize_grads, once_differentiable, a Module around a Function) and "Extending torch.func with autograd.Function" (generate_vmap_rule under vmap and grad), in their order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the notes'."""
import torch
import torch.nn as nn
from torch.autograd import Function
class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
linear = LinearFunction.apply
class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant
    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None
class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result
class SimpleFunc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.clone(), x.clone()
    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g1, g2):
        x, = ctx.saved_tensors
        grad_input = torch.zeros_like(x)
        if g1 is not None:
            grad_input += g1
        if g2 is not None:
            grad_input += g2
        return grad_input
from torch.autograd import gradcheck
torch.manual_seed(0)
input = (torch.randn(20, 20, dtype=torch.double, requires_grad=True), torch.randn(30, 20, dtype=torch.double, requires_grad=True))
test = gradcheck(linear, input + (None,), eps=1e-6, atol=1e-4)
print(test)
x = torch.randn(3, requires_grad=True)
y = MulConstant.apply(x, 2.5)
y.sum().backward(); print(x.grad, y.grad_fn)
x = torch.tensor(2.0, requires_grad=True)
g, = torch.autograd.grad(my_cube(x), x, create_graph=True)
gg, = torch.autograd.grad(g, x)
print(g, gg)
a, b = SimpleFunc.apply(torch.ones(2, requires_grad=True))
a.sum().backward()
class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter('bias', None)
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)
    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)
    def extra_repr(self):
        return f'input_features={self.input_features}, output_features={self.output_features}, bias={self.bias is not None}'
m = Linear(4, 3)
print(m)
out = m(torch.randn(2, 4))
print(out)
out.sum().backward()
print(m.weight.grad.shape, m.bias.grad)
class MyExp(torch.autograd.Function):
    generate_vmap_rule = True
    @staticmethod
    def forward(x):
        return x.exp()
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, g):
        result, = ctx.saved_tensors
        return g * result
xs = torch.randn(4, 3)
print(torch.vmap(MyExp.apply)(xs))
print(torch.vmap(torch.func.grad(lambda v: MyExp.apply(v).sum()))(xs))
