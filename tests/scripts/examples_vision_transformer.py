"""pytorch/examples' vision_transformer in miniature: patches cut with Tensor.unfold and a
linear projection, a learnable class token and position embedding (nn.Parameter of randn),
torch.cat and expand, a pre-norm encoder of nn.MultiheadAttention (batch_first) and a GELU MLP,
the head on the class token, trunc_normal_ init, AdamW with a cosine LR schedule, label
smoothing in CrossEntropyLoss, and accuracy. The images are random under a fixed seed."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class PatchExtractor(nn.Module):
    def __init__(self, patch_size=4):
        super().__init__()
        self.patch_size = patch_size

    def forward(self, input_data):
        batch_size, channels, height, width = input_data.size()
        assert height % self.patch_size == 0 and width % self.patch_size == 0, \
            f"Input height ({height}) and width ({width}) must be divisible by patch size"
        num_patches_h = height // self.patch_size
        num_patches_w = width // self.patch_size
        num_patches = num_patches_h * num_patches_w
        patches = input_data.unfold(2, self.patch_size, self.patch_size). \
            unfold(3, self.patch_size, self.patch_size). \
            permute(0, 2, 3, 1, 4, 5). \
            contiguous(). \
            view(batch_size, num_patches, -1)
        return patches


class InputEmbedding(nn.Module):
    def __init__(self, args):
        super(InputEmbedding, self).__init__()
        self.patch_size = args.patch_size
        self.n_channels = args.n_channels
        self.latent_size = args.latent_size
        self.input_size = self.patch_size * self.patch_size * self.n_channels
        num_patches = (args.img_size // args.patch_size) ** 2
        self.LinearProjection = nn.Linear(self.input_size, self.latent_size)
        self.class_token = nn.Parameter(torch.randn(1, 1, self.latent_size))
        self.pos_embedding = nn.Parameter(torch.randn(1, num_patches + 1, self.latent_size))
        self.patches = PatchExtractor(self.patch_size)

    def forward(self, input_data):
        patches = self.patches(input_data)
        linear_projection = self.LinearProjection(patches)
        b, n, _ = linear_projection.shape
        class_token = self.class_token.expand(b, -1, -1)
        linear_projection = torch.cat((class_token, linear_projection), dim=1)
        pos_embed = self.pos_embedding[:, :n + 1, :]
        return linear_projection + pos_embed


class EncoderBlock(nn.Module):
    def __init__(self, args):
        super(EncoderBlock, self).__init__()
        self.latent_size = args.latent_size
        self.norm = nn.LayerNorm(self.latent_size)
        self.attention = nn.MultiheadAttention(self.latent_size, args.num_heads,
                                               dropout=args.dropout, batch_first=True)
        self.enc_MLP = nn.Sequential(
            nn.Linear(self.latent_size, self.latent_size * 2),
            nn.GELU(),
            nn.Dropout(args.dropout),
            nn.Linear(self.latent_size * 2, self.latent_size),
            nn.Dropout(args.dropout),
        )

    def forward(self, emb_patches):
        first_norm = self.norm(emb_patches)
        attention_out, weights = self.attention(first_norm, first_norm, first_norm)
        first_added = attention_out + emb_patches
        second_norm = self.norm(first_added)
        mlp_out = self.enc_MLP(second_norm)
        return mlp_out + first_added, weights


class ViT(nn.Module):
    def __init__(self, args):
        super(ViT, self).__init__()
        self.embedding = InputEmbedding(args)
        self.encoders = nn.ModuleList([EncoderBlock(args) for _ in range(args.num_encoders)])
        self.MLP_head = nn.Sequential(
            nn.LayerNorm(args.latent_size),
            nn.Linear(args.latent_size, args.latent_size),
            nn.Linear(args.latent_size, args.num_classes),
        )
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=.02)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)

    def forward(self, test_input):
        enc_output = self.embedding(test_input)
        for enc_layer in self.encoders:
            enc_output, weights = enc_layer(enc_output)
        class_token_embed = enc_output[:, 0]
        return self.MLP_head(class_token_embed), weights


def main():
    parser = argparse.ArgumentParser(description='Vision Transformer')
    parser.add_argument('--patch-size', type=int, default=4)
    parser.add_argument('--latent-size', type=int, default=16)
    parser.add_argument('--n-channels', type=int, default=3)
    parser.add_argument('--num-heads', type=int, default=2)
    parser.add_argument('--num-encoders', type=int, default=2)
    parser.add_argument('--dropout', type=float, default=0.1)
    parser.add_argument('--img-size', type=int, default=8)
    parser.add_argument('--num-classes', type=int, default=4)
    parser.add_argument('--epochs', type=int, default=6)
    parser.add_argument('--lr', type=float, default=3e-3)
    parser.add_argument('--weight-decay', type=float, default=0.03)
    parser.add_argument('--batch-size', type=int, default=8)
    args = parser.parse_args()
    torch.manual_seed(0)

    model = ViT(args)
    print(model.encoders[0])
    patches = PatchExtractor(4)(torch.arange(2 * 3 * 8 * 8.).view(2, 3, 8, 8))
    print(patches.shape, patches[0, 1, :5])
    images = torch.randn(32, 3, 8, 8)
    labels = (images[:, 0].mean((1, 2)) > 0).long() + 2 * (images[:, 1].mean((1, 2)) > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels),
                                         batch_size=args.batch_size, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr,
                                  weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for epoch in range(args.epochs):
        model.train()
        running_loss, correct = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            logits, _ = model(x)
            loss = criterion(logits, y)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            correct += (logits.argmax(1) == y).sum().item()
        scheduler.step()
        print(f'Epoch {epoch + 1}: loss {running_loss / len(loader):.4f} '
              f'acc {correct / len(images):.3f} lr {scheduler.get_last_lr()[0]:.6f}')
    model.eval()
    with torch.no_grad():
        logits, weights = model(images[:4])
    print(weights.shape, f'{weights.sum(-1).mean().item():.4f}',
          F.softmax(logits, -1).argmax(-1).tolist())


if __name__ == '__main__':
    main()
