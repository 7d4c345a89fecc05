"""The README's main job: `make demo` (or `python -m ember.demo [--short] [--out DIR]`).

Trains a small CNN to read digits, written as the PyTorch program a user would write
(`import ember as torch`): a dataset generated on the spot (ten 5x7 glyphs drawn into 16x16
images with random shifts, stroke widths, noise and erased pixels; nothing is downloaded),
DataLoader, Conv2d/BatchNorm/MaxPool/Dropout/Linear, AdamW with a one-cycle schedule, a tqdm
progress bar, a test accuracy, and a checkpoint that real PyTorch loads. `--short` (or
EMBER_DEMO_SHORT=1) runs a few hundred samples for the tests.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

# The ten digits as 5x7 bitmaps ('#' is ink).
GLYPHS = {
    0: [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    1: ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    2: [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    3: ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    4: ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    5: ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    6: ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    7: ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    8: [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    9: [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
}
SIZE = 16


def make_digits(count: int, seed: int):
    """`count` noisy 1x16x16 digit images (float32 in [0, 1]) and their labels."""
    rng = np.random.default_rng(seed)
    glyphs = np.stack([np.array([[c == "#" for c in row] for row in GLYPHS[d]], np.float32)
                       for d in range(10)])
    labels = rng.integers(0, 10, count)
    images = np.zeros((count, SIZE, SIZE), np.float32)
    for i, label in enumerate(labels):
        glyph = glyphs[label]
        if rng.random() < 0.5:                       # a bolder stroke
            glyph = np.maximum(glyph, np.roll(glyph, 1, axis=1))
        scale = 2 if rng.random() < 0.35 else 1      # some digits drawn twice as tall
        glyph = np.kron(glyph, np.ones((scale, 1), np.float32))[:SIZE]
        h, w = glyph.shape
        top = rng.integers(0, SIZE - h + 1)
        left = rng.integers(0, SIZE - w + 1)
        images[i, top:top + h, left:left + w] = glyph
    images *= rng.uniform(0.6, 1.0, (count, 1, 1)).astype(np.float32)
    images += rng.normal(0.0, 0.15, images.shape).astype(np.float32)
    images[rng.random(images.shape) < 0.05] = 0.0    # erased pixels
    return np.clip(images, 0.0, 1.0)[:, None], labels.astype(np.int64)


def build_model(nn):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Dropout(0.1),
        nn.Linear(64, 10),
    )


def _progress(iterable, total, description):
    try:
        from tqdm import tqdm
    except ImportError:
        print(f"{description} (install tqdm for a progress bar)")
        return iterable
    return tqdm(iterable, total=total, desc=description, unit="batch", leave=True,
                dynamic_ncols=True)


def main(argv=None) -> None:
    import ember as torch
    from ember import nn
    from ember.utils.data import DataLoader, TensorDataset

    parser = argparse.ArgumentParser(prog="python -m ember.demo",
                                     description="Train a small CNN on generated digits.")
    parser.add_argument("--short", action="store_true",
                        default=os.environ.get("EMBER_DEMO_SHORT") == "1",
                        help="a quick run on a few hundred samples (used by the tests)")
    parser.add_argument("--out", default="runs", help="folder for the checkpoint")
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    n_train, n_test = (512, 256) if args.short else (8000, 2000)
    epochs = args.epochs or (1 if args.short else 3)
    x_train, y_train = make_digits(n_train, seed=1)
    x_test, y_test = make_digits(n_test, seed=2)
    train = DataLoader(TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train)),
                       batch_size=64, shuffle=True)
    test = DataLoader(TensorDataset(torch.from_numpy(x_test), torch.from_numpy(y_test)),
                      batch_size=256)

    model = build_model(nn)
    print(model)
    print(f"{sum(p.numel() for p in model.parameters()):,} parameters; {n_train} training "
          f"and {n_test} test images of 16x16 digits, generated on the spot")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-3,
                                                    total_steps=epochs * len(train))
    loss_fn = nn.CrossEntropyLoss()

    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        model.train()
        bar = _progress(train, len(train), f"epoch {epoch}/{epochs}")
        for images, labels in bar:
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(loss=f"{loss.item():.3f}", lr=f"{scheduler.get_last_lr()[0]:.1e}")
        accuracy = evaluate(torch, model, test)
        print(f"epoch {epoch}: loss {loss.item():.4f}, test accuracy {100 * accuracy:.1f}%")
    elapsed = time.perf_counter() - start

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "digits_cnn.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epochs": epochs, "test_accuracy": accuracy}, path)
    print(f"trained in {elapsed:.1f} s; final test accuracy {100 * accuracy:.1f}%")
    print(f"saved the checkpoint to {path} (loads in PyTorch: torch.load({path!r}))")


def evaluate(torch, model, loader) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(dim=1) == labels).sum().item()
            total += labels.numel()
    return correct / total


if __name__ == "__main__":
    main(sys.argv[1:])
