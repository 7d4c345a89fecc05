"""pytorch/examples' super_resolution in miniature: the sub-pixel convolution network
(Conv2d layers, ReLU, nn.PixelShuffle) with orthogonal initialisation and calculate_gain,
MSELoss, Adam, training epochs and a test pass reporting PSNR with math.log10, then a
checkpoint written to memory and loaded back. Low- and high-resolution image pairs are made from
random images with F.avg_pool2d instead of the BSDS300 download."""
import argparse
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


def main():
    parser = argparse.ArgumentParser(description='PyTorch Super Res Example')
    parser.add_argument('--upscale_factor', type=int, default=2)
    parser.add_argument('--batchSize', type=int, default=4)
    parser.add_argument('--testBatchSize', type=int, default=4)
    parser.add_argument('--nEpochs', type=int, default=3)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--seed', type=int, default=123)
    opt = parser.parse_args()
    print(opt)
    torch.manual_seed(opt.seed)

    # smooth random "images": blurred noise, so that upscaling has something to learn
    high = F.avg_pool2d(torch.rand(20, 1, 18, 18), 3, stride=1)
    low = F.avg_pool2d(high, opt.upscale_factor)
    train_set = TensorDataset(low[:12], high[:12])
    test_set = TensorDataset(low[12:], high[12:])
    training_data_loader = DataLoader(dataset=train_set, batch_size=opt.batchSize, shuffle=True)
    testing_data_loader = DataLoader(dataset=test_set, batch_size=opt.testBatchSize,
                                     shuffle=False)

    model = Net(upscale_factor=opt.upscale_factor)
    print(model)
    w = model.conv2.weight.view(16, -1)
    print('orthogonal:', torch.allclose(w @ w.t(), 2 * torch.eye(16), atol=1e-4))
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=opt.lr)

    def train(epoch):
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0], batch[1]
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()
            print("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(
                epoch, iteration, len(training_data_loader), loss.item()))
        print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(
            epoch, epoch_loss / len(training_data_loader)))

    def test():
        avg_psnr = 0
        with torch.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0], batch[1]
                prediction = model(input)
                mse = criterion(prediction, target)
                psnr = 10 * math.log10(1 / mse.item())
                avg_psnr += psnr
        print("===> Avg. PSNR: {:.3f} dB".format(avg_psnr / len(testing_data_loader)))

    for epoch in range(1, opt.nEpochs + 1):
        train(epoch)
        test()

    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    restored = torch.load(buffer, weights_only=False)
    out = restored(low[:1])
    print(type(restored).__name__, out.shape, '{:.4f}'.format(out.mean().item()))
    print(F.pixel_unshuffle(out, 2).shape, nn.PixelShuffle(2))


if __name__ == "__main__":
    main()
