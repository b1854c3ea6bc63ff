# The RNN of the reference with the weight split, each state recorded
# before it is updated: the output is one step late (state 0 is the
# zeros, the last state is lost).  A bug.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, fin, hidden):
        super().__init__()
        self.i2h = nn.Linear(fin + hidden, hidden)
        self.fin = fin
        self.hidden = hidden

    def forward(self, x):
        wx = self.i2h.weight[:, :self.fin]
        wh = self.i2h.weight[:, self.fin:]
        h = torch.zeros(x.shape[1], self.hidden)
        outs = []
        for t in range(x.shape[0]):
            outs.append(h.unsqueeze(0))
            h = torch.tanh(x[t] @ wx.t() + h @ wh.t() + self.i2h.bias)
        return torch.cat(outs, dim=0)


def get_inputs():
    return [torch.randn(12, 2, 3)]


def get_init_inputs():
    return [3, 4]
