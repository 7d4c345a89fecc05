"""pytorch/examples' language_translation in miniature: a Seq2Seq nn.Transformer with token
embeddings scaled by sqrt(emb_size), a PositionalEncoding buffer, create_mask building the
square subsequent mask and the padding masks (src_key_padding_mask, tgt_key_padding_mask,
memory_key_padding_mask), pad_sequence with batch_first=False and a collate_fn in a DataLoader,
CrossEntropyLoss(ignore_index=PAD_IDX), Adam with betas and eps, xavier_uniform_ init of every
matrix, and greedy_decode through model.encode / model.decode. The "language pair" is a toy
task written here: the target sentence is the source reversed, with BOS/EOS."""
import math

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import Transformer
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

PAD_IDX, BOS_IDX, EOS_IDX = 1, 2, 3
VOCAB = 12


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 32):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super(TokenEmbedding, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size,
                 tgt_vocab_size, dim_feedforward=32, dropout=0.1):
        super(Seq2SeqTransformer, self).__init__()
        self.transformer = Transformer(d_model=emb_size, nhead=nhead,
                                       num_encoder_layers=num_encoder_layers,
                                       num_decoder_layers=num_decoder_layers,
                                       dim_feedforward=dim_feedforward, dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src, src_mask):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt, memory, tgt_mask):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory,
                                        tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz))) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    return mask


def create_mask(src, tgt):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len)).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


def make_pairs(n):
    pairs = []
    for _ in range(n):
        length = int(torch.randint(2, 6, (1,)))
        src = torch.randint(4, VOCAB, (length,))
        pairs.append((src, src.flip(0)))
    return pairs


def collate_fn(batch):
    src_batch, tgt_batch = [], []
    for src_sample, tgt_sample in batch:
        src_batch.append(torch.cat([torch.tensor([BOS_IDX]), src_sample, torch.tensor([EOS_IDX])]))
        tgt_batch.append(torch.cat([torch.tensor([BOS_IDX]), tgt_sample, torch.tensor([EOS_IDX])]))
    src_batch = pad_sequence(src_batch, padding_value=PAD_IDX)
    tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX)
    return src_batch, tgt_batch


def train_epoch(model, optimizer, loader, loss_fn):
    model.train()
    losses = 0
    for src, tgt in loader:
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                       src_padding_mask)
        optimizer.zero_grad()
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        losses += loss.item()
    return losses / len(list(loader))


def evaluate(model, loader, loss_fn):
    model.eval()
    losses = 0
    for src, tgt in loader:
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask,
                       src_padding_mask)
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        losses += loss.item()
    return losses / len(list(loader))


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long)
    for i in range(max_len - 1):
        tgt_mask = (generate_square_subsequent_mask(ys.size(0)).type(torch.bool))
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


def main():
    torch.manual_seed(0)
    transformer = Seq2SeqTransformer(1, 1, 16, 2, VOCAB, VOCAB)
    for p in transformer.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    print(sum(p.numel() for p in transformer.parameters()), len(transformer.state_dict()))
    print([k for k in transformer.state_dict() if 'layers.0.multihead' in k])
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    optimizer = torch.optim.Adam(transformer.parameters(), lr=0.001, betas=(0.9, 0.98), eps=1e-9)

    train_pairs, val_pairs = make_pairs(24), make_pairs(8)
    train_loader = DataLoader(train_pairs, batch_size=8, collate_fn=collate_fn, shuffle=True)
    val_loader = DataLoader(val_pairs, batch_size=8, collate_fn=collate_fn)
    src, tgt = next(iter(val_loader))
    print(src.shape, tgt.shape, src[:, 0].tolist())
    masks = create_mask(src, tgt[:-1, :])
    print([tuple(m.shape) for m in masks], masks[1][:3, :3], masks[2][0].tolist())

    for epoch in range(1, 4):
        train_loss = train_epoch(transformer, optimizer, train_loader, loss_fn)
        val_loss = evaluate(transformer, val_loader, loss_fn)
        print(f"Epoch: {epoch}, Train loss: {train_loss:.4f}, Val loss: {val_loss:.4f}")

    transformer.eval()
    sentence = torch.tensor([BOS_IDX, 5, 9, 7, EOS_IDX]).view(-1, 1)
    num_tokens = sentence.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    with torch.no_grad():
        tgt_tokens = greedy_decode(transformer, sentence, src_mask, max_len=num_tokens + 3,
                                   start_symbol=BOS_IDX).flatten()
    print('translation:', tgt_tokens.tolist(), tgt_tokens.dtype)


if __name__ == '__main__':
    main()
