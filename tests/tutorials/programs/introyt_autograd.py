"""The calls of PyTorch's tutorial "Introduction to PyTorch on YouTube: the fundamentals of autograd (without its profiler: PyTorch 2.15 refuses the tutorial's use_cuda=)", in its order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the tutorial's."""
import torch
import math
a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a)
b = torch.sin(a)
print(b)
c = 2 * b
print(c)
d = c + 1
print(d)
out = d.sum()
print(out)
print('d:')
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions)
print('\nc:')
print(c.grad_fn)
print('\nb:')
print(b.grad_fn)
print('\na:')
print(a.grad_fn)
out.backward()
print(a.grad)
BATCH_SIZE = 16
DIM_IN = 1000
HIDDEN_SIZE = 100
DIM_OUT = 10
class TinyModel(torch.nn.Module):
    def __init__(self):
        super(TinyModel, self).__init__()
        self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
        self.relu = torch.nn.ReLU()
        self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)
    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x
torch.manual_seed(0)
some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)
model = TinyModel()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad)
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
prediction = model(some_input)
loss = (ideal_output - prediction).pow(2).sum()
print(loss)
loss.backward()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])
optimizer.step()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])
for i in range(0, 5):
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    loss.backward()
print(model.layer2.weight.grad[0][0:10])
optimizer.zero_grad(set_to_none=False)
print(model.layer2.weight.grad[0][0:10])
a = torch.ones(2, 3, requires_grad=True)
print(a)
b1 = 2 * a
print(b1)
a.requires_grad = False
b2 = 2 * a
print(b2)
a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = a + b
print(c1)
with torch.no_grad():
    c2 = a + b
print(c2)
c3 = a * b
print(c3)
def add_tensors1(x, y):
    return x + y
@torch.no_grad()
def add_tensors2(x, y):
    return x + y
a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = add_tensors1(a, b)
print(c1)
c2 = add_tensors2(a, b)
print(c2)
x = torch.rand(5, requires_grad=True)
y = x.detach()
print(x)
print(y)
a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
try:
    torch.sin_(a)
except RuntimeError as e:
    print(e)
device = torch.device('cpu')
run_on_gpu = False
if torch.cuda.is_available():
    device = torch.device('cuda')
    run_on_gpu = True
x = torch.randn(2, 3, requires_grad=True)
y = torch.rand(2, 3, requires_grad=True)
z = torch.ones(2, 3, requires_grad=True)
for _ in range(1000):
    z = (z / x) * y
x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
def exp_adder(x, y):
    return 2 * x.exp() + 3 * y
inputs = (torch.rand(1), torch.rand(1))
print(inputs)
print(torch.autograd.functional.jacobian(exp_adder, inputs))
inputs = (torch.rand(3), torch.rand(3))
print(inputs)
print(torch.autograd.functional.jacobian(exp_adder, inputs))
def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y
inputs = torch.randn(3)
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
print(torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients))
