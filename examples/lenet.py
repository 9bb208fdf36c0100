"""The demo LeNet as a PyTorch module: the network examples/demo_models.cpp builds.

Documentation only; nothing in etkit runs this file. etkit-make-demo writes
lenet.etrecord the way ExecuTorch would after
    ep = torch.export.export(LeNet(), (torch.randn(1, 1, 32, 32),))
    edge = executorch.exir.to_edge(ep, generate_etrecord=True)
so its stack traces point at the lines below (only this file's frames: the
torch-internal frames a real trace continues with are left out) and its
nn_module_stack entries name the modules defined here. The demo's weights are
deterministic pseudo-random values (demo::weights), not trained ones.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Features(nn.Module):
    """[1, 1, 32, 32] -> [1, 16, 5, 5]"""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.pool2 = nn.MaxPool2d(2)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.pool1(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = self.pool2(x)
        return x


class Classifier(nn.Module):
    """[1, 400] -> [1, 10] logits; each Linear exports as permute_copy + addmm."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        return self.fc3(x)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = Features()
        self.classifier = Classifier()

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)
