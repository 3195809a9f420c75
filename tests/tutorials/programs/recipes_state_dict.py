"""The calls of PyTorch's recipes "What is a state_dict", "Saving and loading models", "Saving and loading a general checkpoint", "Warmstarting a model" and "Zeroing out gradients", in their order, on small made-up data.

Our code, run by tests/tutorials/test_tutorials_imports.py with PyTorch and with
``sys.modules["torch"] = engine``: the import statements are the recipes'."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import os
import tempfile
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x
net = Net()
print(net)
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
print()
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
d = tempfile.mkdtemp()
PATH = os.path.join(d, "state_dict_model.pt")
torch.save(net.state_dict(), PATH)
model = Net()
print(model.load_state_dict(torch.load(PATH, weights_only=True)))
model.eval()
x = torch.randn(2, 3, 32, 32)
print(torch.equal(model(x), net.eval()(x)))
EPOCH = 5
LOSS = 0.4
out = net(x); loss = out.sum(); loss.backward(); optimizer.step()
torch.save({
            'epoch': EPOCH,
            'model_state_dict': net.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(),
            'loss': LOSS,
            }, os.path.join(d, "model.pt"))
model = Net()
optimizer2 = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
checkpoint = torch.load(os.path.join(d, "model.pt"), weights_only=True)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer2.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
print(epoch, loss, optimizer2.state_dict()['state'][0]['momentum_buffer'].shape)
model.train()
netA = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
netB = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2), nn.Linear(2, 1))
torch.save(netA.state_dict(), os.path.join(d, "a.pt"))
print(netB.load_state_dict(torch.load(os.path.join(d, "a.pt"), weights_only=True), strict=False))
try:
    netB.load_state_dict(torch.load(os.path.join(d, "a.pt"), weights_only=True))
except RuntimeError as e:
    print(str(e))
net.zero_grad()
print(net.conv1.bias.grad)
optimizer.zero_grad()
print(net.conv1.bias.grad)
