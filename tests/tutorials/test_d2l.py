"""The calls of d2l's PyTorch chapters up to and including recurrent networks, in the book's
order, run with torch and with the engine on small synthetic data: everything they print must
be the same (issue 27, section 3; the harness is test_tutorials.py's).

The code is ours, not the book's text: the book's helper package (its Module/Trainer/DataModule
classes) is replaced by a few lines that make the same torch calls; datasets it downloads
(FashionMNIST, the Kaggle house prices, The Time Machine) are seeded random tensors or an
inline string of the same kind; sizes are tiny so that each case runs in about a second.
The plotting and pandas lines are left out (they are not torch); the book's ``from torch... import``
lines become attribute look-ups on ``torch`` (an import statement would load the real torch). What the engine still prints
differently is listed in ``help(engine)`` and notebooks/DIFFERENCES.md (``type(x)``'s class
path, for instance, is not printed here).
"""
import pytest

from tests.tutorials.test_tutorials import COMMON, _assert_prints_the_same

pytest.importorskip("torch", reason="torch not installed: parity tests skipped")
pytestmark = pytest.mark.torch

D2L = {
    # ------------------------------------------------------------ 2 Preliminaries
    "2.1 data manipulation": """
x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X, x.reshape(-1, 4).shape, x.reshape(3, -1).shape)
print(torch.zeros((2, 3, 4)), torch.ones((2, 3, 4)))
print(torch.randn(3, 4))
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
print(X[-1], X[1:3])
X[1, 2] = 17
print(X)
X[:2, :] = 12
print(X)
print(torch.exp(x))
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x ** y)
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y, X.sum())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b, a + b)
before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
print('id(Z):', id(Z) == id(Z))
z_id = id(Z)
Z[:] = X + Y
print(id(Z) == z_id)
before = id(X)
X += Y
print(id(X) == before)
A = X.numpy()
B = torch.from_numpy(A)
print(isinstance(A, type(A)), isinstance(B, torch.Tensor), B.dtype)
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))
""",
    "2.2 data preprocessing (the tensor step)": """
import numpy as np
inputs = np.array([[3.0, 1.0, 0.0], [2.0, 0.0, 1.0], [4.0, 0.0, 1.0], [3.0, 1.0, 0.0]])
targets = np.array([127500.0, 106000.0, 178100.0, 140000.0])
X = torch.tensor(inputs)
y = torch.tensor(targets)
print(X, y)
print(torch.tensor(inputs.astype(np.float32)))
""",
    "2.3 linear algebra": """
x = torch.tensor(3.0)
y = torch.tensor(2.0)
print(x + y, x * y, x / y, x**y)
x = torch.arange(3)
print(x, x[2], len(x), x.shape)
A = torch.arange(6).reshape(3, 2)
print(A, A.T)
A = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
print(A == A.T)
print(torch.arange(24).reshape(2, 3, 4))
A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
B = A.clone()
print(A, A + B, A * B)
a = 2
X = torch.arange(24).reshape(2, 3, 4)
print(a + X, (a * X).shape)
x = torch.arange(3, dtype=torch.float32)
print(x, x.sum())
print(A.shape, A.sum())
print(A.shape, A.sum(axis=0).shape)
print(A.shape, A.sum(axis=1).shape)
print(A.sum(axis=[0, 1]) == A.sum())
print(A.mean(), A.sum() / A.numel())
print(A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True)
print(sum_A, sum_A.shape)
print(A / sum_A)
print(A.cumsum(axis=0))
y = torch.ones(3, dtype=torch.float32)
print(x, y, torch.dot(x, y))
print(torch.sum(x * y))
print(A.shape, x.shape, torch.mv(A, x), A@x)
B = torch.ones(3, 4)
print(torch.mm(A, B), A@B)
u = torch.tensor([3.0, -4.0])
print(torch.norm(u))
print(torch.abs(u).sum())
print(torch.norm(torch.ones((4, 9))))
""",
    "2.4-2.5 calculus and automatic differentiation": """
def f(x):
    return 3 * x ** 2 - 4 * x
for h in 10.0**torch.arange(-1, -6, -1):
    print(f'h={h:.5f}, numerical limit={(f(1+h)-f(1))/h:.5f}')
x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a)
""",
    "2.6 probability": """
Multinomial = torch.distributions.multinomial.Multinomial
random.seed(0)
num_tosses = 100
heads = sum([random.random() > 0.5 for _ in range(num_tosses)])
tails = num_tosses - heads
print("heads, tails: ", [heads, tails])
fair_probs = torch.tensor([0.5, 0.5])
print(Multinomial(100, fair_probs).sample())
print(Multinomial(100, fair_probs).sample() / 100)
counts = Multinomial(10000, fair_probs).sample()
print(counts / 10000)
counts = Multinomial(1, fair_probs).sample((100,))
cum_counts = counts.cumsum(dim=0)
estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
estimates = estimates.numpy()
print(estimates[:5], estimates[-1])
print(torch.ones(4))
""",
}


@pytest.mark.parametrize("case", D2L)
def test_d2l_prints_as_torch(case, tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "engine").mkdir()
    _assert_prints_the_same(COMMON + D2L[case].replace('PATH + "', 'PATH + "/'), tmp_path)
