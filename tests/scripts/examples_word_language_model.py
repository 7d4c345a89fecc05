"""pytorch/examples' word_language_model in miniature: an RNNModel (embedding, LSTM or GRU,
dropout, decoder with tied weights), a TransformerModel (PositionalEncoding buffer,
nn.TransformerEncoder, a square subsequent mask), batchify / get_batch over a corpus tensor,
repackage_hidden, clip_grad_norm_, the manual SGD update p.data.add_(p.grad, alpha=-lr),
evaluation perplexity with math.exp, annealing the learning rate, and a few generated words.
The corpus is a sequence of word ids drawn from a tiny Markov chain under a fixed seed."""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    """Sines and cosines of the position added to the embeddings."""

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """Container module with an encoder, a transformer encoder and a decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src))
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


class SmallTransformer(nn.Module):
    """The same model built from nn.TransformerEncoder directly, with the mask PyTorch makes."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.pos_encoder = PositionalEncoding(ninp, dropout, max_len=64)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.ninp = ninp

    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        src = self.pos_encoder(self.encoder(src) * math.sqrt(self.ninp))
        return F.log_softmax(self.decoder(self.transformer_encoder(src, mask)), dim=-1)


def make_corpus(ntokens, length):
    transition = torch.rand(ntokens, ntokens) ** 4
    words = [0]
    for _ in range(length - 1):
        words.append(torch.multinomial(transition[words[-1]], 1).item())
    return torch.tensor(words, dtype=torch.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def evaluate(model, data_source, args, ntokens, criterion):
    model.eval()
    total_loss = 0.
    if args.model != 'Transformer':
        hidden = model.init_hidden(args.eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args.bptt)
            if args.model == 'Transformer':
                output = model(data)
                output = output.view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(model, train_data, args, ntokens, criterion, lr, epoch):
    model.train()
    total_loss = 0.
    if args.model != 'Transformer':
        hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        model.zero_grad()
        if args.model == 'Transformer':
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()

        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)

        total_loss += loss.item()
        if batch % args.log_interval == 0 and batch > 0:
            cur_loss = total_loss / args.log_interval
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | grad norm {:6.3f} | '
                  'loss {:5.3f} | ppl {:8.3f}'.format(
                      epoch, batch, len(train_data) // args.bptt, lr, total_norm.item(),
                      cur_loss, math.exp(cur_loss)))
            total_loss = 0


def generate(model, args, ntokens, nwords):
    model.eval()
    input = torch.randint(ntokens, (1, 1), dtype=torch.long)
    words = []
    with torch.no_grad():
        if args.model == 'Transformer':
            for i in range(nwords):
                output = model(input, False)
                word_weights = output[-1].squeeze().div(args.temperature).exp()
                word_idx = torch.multinomial(word_weights, 1)[0]
                word_tensor = torch.Tensor([[word_idx]]).long()
                input = torch.cat([input, word_tensor], 0)
                words.append(word_idx.item())
        else:
            hidden = model.init_hidden(1)
            for i in range(nwords):
                output, hidden = model(input, hidden)
                word_weights = output.squeeze().div(args.temperature).exp()
                word_idx = torch.multinomial(word_weights, 1)[0]
                input.fill_(word_idx)
                words.append(word_idx.item())
    return words


def run(args, corpus, ntokens):
    torch.manual_seed(args.seed)
    train_data = batchify(corpus[:240], args.batch_size)
    val_data = batchify(corpus[240:], args.eval_batch_size)
    if args.model == 'Transformer':
        model = TransformerModel(ntokens, args.emsize, args.nhead, args.nhid, args.nlayers,
                                 args.dropout)
    else:
        model = RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout,
                         args.tied)
    print(model)
    criterion = nn.NLLLoss()
    lr = args.lr
    best_val_loss = None
    for epoch in range(1, args.epochs + 1):
        train(model, train_data, args, ntokens, criterion, lr, epoch)
        val_loss = evaluate(model, val_data, args, ntokens, criterion)
        print('| end of epoch {:3d} | valid loss {:5.3f} | valid ppl {:8.3f}'.format(
            epoch, val_loss, math.exp(val_loss)))
        if not best_val_loss or val_loss < best_val_loss:
            best_val_loss = val_loss
        else:
            # Anneal the learning rate if no improvement has been seen in the validation dataset.
            lr /= 4.0
    print('generated', generate(model, args, ntokens, 8))


def main():
    parser = argparse.ArgumentParser(description='PyTorch Wikitext-2 RNN/LSTM/GRU/Transformer')
    parser.add_argument('--emsize', type=int, default=16)
    parser.add_argument('--nhid', type=int, default=16)
    parser.add_argument('--nlayers', type=int, default=2)
    parser.add_argument('--lr', type=float, default=5.0)
    parser.add_argument('--clip', type=float, default=0.25)
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--eval-batch-size', type=int, default=2)
    parser.add_argument('--bptt', type=int, default=6)
    parser.add_argument('--dropout', type=float, default=0.2)
    parser.add_argument('--nhead', type=int, default=2)
    parser.add_argument('--temperature', type=float, default=1.0)
    parser.add_argument('--log-interval', type=int, default=3)
    parser.add_argument('--seed', type=int, default=1111)
    args = parser.parse_args()

    torch.manual_seed(0)
    ntokens = 12
    corpus = make_corpus(ntokens, 300)
    print(corpus[:20].tolist(), torch.bincount(corpus, minlength=ntokens).tolist())
    for model, tied in [('LSTM', True), ('GRU', False), ('RNN_TANH', False), ('Transformer', False)]:
        args.model, args.tied = model, tied
        run(args, corpus, ntokens)

    torch.manual_seed(3)
    small = SmallTransformer(ntokens, 8, 2, 16, 1, dropout=0.1)
    data, targets = get_batch(batchify(corpus, 4), 0, 5)
    output = small(data)
    loss = F.nll_loss(output.view(-1, ntokens), targets)
    loss.backward()
    print(nn.Transformer.generate_square_subsequent_mask(3))
    print(output.shape, '{:.4f}'.format(loss.item()),
          '{:.4f}'.format(small.encoder.weight.grad.norm().item()))
    print([name for name, _ in small.named_buffers()], len(small.state_dict()))


if __name__ == '__main__':
    main()
