"""The calls of PyTorch's tutorial "A 60 Minute Blitz, A Gentle Introduction to torch.autograd", in its order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the tutorial's."""
import torch
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
nn = torch.nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 10))
for param in model.parameters():
    param.requires_grad = False
model[2] = nn.Linear(8, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
out = model(torch.randn(3, 4)).sum()
out.backward()
optimizer.step()
print(model[2].weight.grad is None, model[0].weight.grad)
print([n for n, p in model.named_parameters() if p.requires_grad])
