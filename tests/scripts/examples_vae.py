"""pytorch/examples' VAE program in miniature: fully connected encoder and decoder, the
reparameterisation trick with torch.randn_like, the loss as binary cross entropy summed plus
the KL divergence, Adam, train and test loops and sampling under torch.no_grad(). The images are
random values in [0, 1) drawn under a fixed seed instead of MNIST, and nothing is saved."""
import argparse

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

D_IN, D_HID, D_Z = 64, 32, 4


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(D_IN, D_HID)
        self.fc21 = nn.Linear(D_HID, D_Z)
        self.fc22 = nn.Linear(D_HID, D_Z)
        self.fc3 = nn.Linear(D_Z, D_HID)
        self.fc4 = nn.Linear(D_HID, D_IN)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, D_IN))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, D_IN), reduction='sum')
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch, model, optimizer, train_loader, log_interval):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.4f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader),
                loss.item() / len(data)))
    print('====> Epoch: {} Average loss: {:.4f}'.format(
        epoch, train_loss / len(train_loader.dataset)))


def test(epoch, model, test_loader):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 4)
                comparison = torch.cat([data[:n], recon_batch.view(-1, 1, 8, 8)[:n]])
                print('comparison', tuple(comparison.shape),
                      '{:.4f}'.format(comparison.sum().item()))
    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))


def main():
    parser = argparse.ArgumentParser(description='VAE Example')
    parser.add_argument('--batch-size', type=int, default=16)
    parser.add_argument('--epochs', type=int, default=3)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--log-interval', type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    images = torch.rand(80, 1, 8, 8)
    labels = torch.randint(0, 10, (80,))
    train_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(images[:64], labels[:64]),
        batch_size=args.batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(images[64:], labels[64:]),
        batch_size=args.batch_size, shuffle=False)

    model = VAE()
    print(model)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        train(epoch, model, optimizer, train_loader, args.log_interval)
        test(epoch, model, test_loader)
        with torch.no_grad():
            sample = torch.randn(8, D_Z)
            sample = model.decode(sample).cpu()
            print('sample', sample.view(8, 1, 8, 8).shape,
                  '{:.4f} {:.4f}'.format(sample.mean().item(), sample.max().item()))
    print({k: tuple(v.shape) for k, v in model.state_dict().items()})


if __name__ == "__main__":
    main()
