"""Three of pytorch/examples' small programs in miniature. regression: fit a random polynomial
(make_features with torch.cat of powers, F.smooth_l1_loss, a manual update of fc.weight.data
and fc.bias.data, poly_desc). mnist_rnn: an LSTM with batch_first over image rows, the last
step's output into a Linear layer, Adadelta and StepLR. siamese_network: twin CNN towers,
pairs made by a Dataset with a torch.Generator, random_split, BCELoss on the sigmoid of the
concatenated features, and a TripletMarginLoss / pairwise_distance check. The data are random
under fixed seeds. Losses print with 4 decimals where the originals print 6: ember's float32 sums
add in another order than PyTorch's vectorised ones, so the last bit may differ."""
from itertools import count

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

POLY_DEGREE = 4


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def regression():
    torch.manual_seed(7)
    W_target = torch.randn(POLY_DEGREE, 1) * 5
    b_target = torch.randn(1) * 5

    def f(x):
        return x.mm(W_target) + b_target.item()

    def get_batch(batch_size=32):
        random = torch.randn(batch_size)
        x = make_features(random)
        y = f(x)
        return x, y

    fc = torch.nn.Linear(W_target.size(0), 1)
    for batch_idx in count(1):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)
        if loss < 1e-3 or batch_idx >= 60:
            break
    print('Loss: {:.4f} after {} batches'.format(loss, batch_idx))
    print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
    print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))


class RowLSTM(nn.Module):
    def __init__(self):
        super(RowLSTM, self).__init__()
        self.rnn = nn.LSTM(input_size=8, hidden_size=16, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(16)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, input):
        # Shape of input is (batch_size, 1, 8, 8); the LSTM reads (batch_size, 8, 8)
        input = input.reshape(-1, 8, 8)
        output, hidden = self.rnn(input)
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        return F.log_softmax(output, dim=1)


def mnist_rnn():
    torch.manual_seed(1)
    images = torch.rand(48, 1, 8, 8)
    labels = (images.sum((1, 2, 3)) * 3).long() % 10
    loader = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True)
    model = RowLSTM()
    optimizer = optim.Adadelta(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, 3):
        model.train()
        for batch_idx, (data, target) in enumerate(loader):
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            print('RNN Train Epoch: {} [{}/{}]\tLoss: {:.4f}'.format(
                epoch, batch_idx * len(data), len(loader.dataset), loss.item()))
        scheduler.step()
    model.eval()
    with torch.no_grad():
        output = model(images)
        pred = output.argmax(dim=1, keepdim=True)
        correct = pred.eq(labels.view_as(pred)).sum().item()
    print('RNN accuracy {}/{}'.format(correct, len(images)))


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, 3), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Sequential(nn.Linear(8 * 2, 16), nn.ReLU(inplace=True), nn.Linear(16, 1))
        self.sigmoid = nn.Sigmoid()
        self.cnn.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.cnn(x)
        return output.view(output.size()[0], -1)

    def forward(self, input1, input2):
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        output = torch.cat((output1, output2), 1)
        output = self.fc(output)
        return self.sigmoid(output)


class PairDataset(Dataset):
    def __init__(self, images, labels, generator):
        self.images, self.labels, self.generator = images, labels, generator
        self.group = {int(c): (labels == c).nonzero().view(-1) for c in labels.unique()}

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        image_1 = self.images[index]
        class_1 = int(self.labels[index])
        if index % 2 == 0:
            candidates = self.group[class_1]
            target = torch.tensor(1, dtype=torch.float)
        else:
            candidates = (self.labels != class_1).nonzero().view(-1)
            target = torch.tensor(0, dtype=torch.float)
        pick = torch.randint(0, len(candidates), (1,), generator=self.generator)
        image_2 = self.images[candidates[pick].item()]
        return image_1, image_2, target


def siamese():
    torch.manual_seed(11)
    images = torch.rand(40, 1, 10, 10)
    labels = torch.randint(0, 4, (40,))
    images += labels.view(-1, 1, 1, 1) * 0.3
    dataset = PairDataset(images, labels, torch.Generator().manual_seed(3))
    train_set, test_set = random_split(dataset, [32, 8], generator=torch.Generator().manual_seed(4))
    print('split', train_set.indices[:6], len(test_set))
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    model = SiameseNetwork()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    criterion = nn.BCELoss()
    for epoch in range(1, 3):
        model.train()
        for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
            optimizer.zero_grad()
            outputs = model(images_1, images_2).squeeze()
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()
        print('Siamese Epoch: {} Loss: {:.4f} lr {:.4f}'.format(epoch, loss.item(),
                                                              scheduler.get_last_lr()[0]))
        scheduler.step()
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for images_1, images_2, targets in DataLoader(test_set, batch_size=4):
            outputs = model(images_1, images_2).squeeze()
            test_loss += criterion(outputs, targets).sum().item()
            pred = torch.where(outputs > 0.5, 1, 0)
            correct += pred.eq(targets.view_as(pred)).sum().item()
    print('Siamese test loss {:.4f}, accuracy {}/{}'.format(test_loss / 2, correct, len(test_set)))
    anchor = model.forward_once(images[:3])
    positive = model.forward_once(images[3:6])
    negative = model.forward_once(images[6:9])
    triplet = nn.TripletMarginLoss(margin=1.0, p=2)(anchor, positive, negative)
    print('triplet {:.4f}'.format(triplet.item()),
          F.pairwise_distance(anchor, positive).shape,
          '{:.4f}'.format(F.cosine_similarity(anchor, negative).mean().item()))


if __name__ == '__main__':
    regression()
    mnist_rnn()
    siamese()
