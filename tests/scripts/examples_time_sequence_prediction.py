"""pytorch/examples' time_sequence_prediction in miniature: two LSTMCells and a Linear layer
learn sine waves in double precision with torch.optim.LBFGS and a closure, then predict future
values by feeding their own outputs back (torch.cat / torch.stack). The waves are generated
with NumPy under a fixed seed as the original's generate_sine_wave does."""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self, hidden=12):
        super(Sequence, self).__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def generate_sine_wave(T=20, L=30, N=10):
    np.random.seed(2)
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    return np.sin(x / 1.0 / T).astype('float64')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=2)
    args = parser.parse_args()
    np.random.seed(0)
    torch.manual_seed(0)
    data = generate_sine_wave()
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    print(input.dtype, tuple(input.shape), tuple(test_target.shape))
    seq = Sequence()
    seq.double()
    print(seq, next(seq.parameters()).dtype)
    criterion = nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=6)
    for i in range(args.steps):
        print('STEP: ', i)
        calls = []

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            calls.append(round(loss.item(), 6))
            loss.backward()
            return loss
        optimizer.step(closure)
        # (5 places: the 6th differs between PyTorch's CPU kernels, tests/_capability.py)
        print('closure losses:', ['%.5f' % v for v in calls])
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            future = 10
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss: %.6f' % loss.item())
            y = pred.detach().numpy()
        print('prediction', y.shape, np.round(y[0, -4:], 4).tolist())
    state = optimizer.state[optimizer._params[0]]
    print(state['func_evals'], state['n_iter'], sorted(optimizer.state_dict()['state'][0].keys()))
    stacked = torch.stack([test_input[:, -1], pred[:, -1]], dim=1)
    print(stacked.shape, stacked.dtype)


if __name__ == '__main__':
    main()
