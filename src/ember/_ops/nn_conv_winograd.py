"""Winograd F(2x2, 3x3): the 3x3, stride-1, undilated, ungrouped 2-d convolutions (the bulk
of CNN work) with 2.25x fewer multiplications than the column matrix (nn_conv.py).

NOTE [Winograd F(2x2, 3x3)]: the padded input is cut into 4x4 tiles two apart; each output
2x2 tile is Y = A^T [(G g G^T) * (B^T d B)] A, with the elementwise product summed over input
channels. So the whole convolution is: transform every input tile (V = B^T d B, 16 values),
transform the weight (U = G g G^T), one batched matmul of the 16 (O, C) @ (C, tiles)
products, and transform back. The transforms are sums and differences of strided slices
(long rows, no per-tile Python); the weight's gradient is the same product with the output's
gradient brought to tile space (A dY A^T), and the input's gradient is the convolution of the
output's gradient with the flipped, transposed weight. The transforms only add and subtract,
so float32 results stay within a few ulps of the direct sums.
"""
from __future__ import annotations

import numpy as np

# G (4x3): the weight transform. Applied on both sides of every 3x3 kernel it is one matrix,
# kron(G, G) (16x9), so the transforms of all O*C kernels are one BLAS product each way
# (a batched product of 3x3 matrices or an einsum runs 10-50x slower).
_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
_G_BOTH_SIDES = np.kron(_G, _G)

# Below these sizes (output tiles in the batch; output times input channels) the column
# matrices image by image (NOTE [ungrouped convolution image by image], nn_conv.py) are as
# fast or faster: measured at 16, 32, 64 and 128 channels on 8x8 to 32x32 maps
# (benchmarks/bench_conv.py and the ResNet training step).
MIN_TILES = 256
MIN_CHANNEL_PRODUCT = 128 * 64


def applicable(weight_shape, stride, dilation, groups) -> bool:
    return (len(weight_shape) == 4 and weight_shape[2] == 3 and weight_shape[3] == 3
            and groups == 1 and tuple(stride) == (1, 1) and tuple(dilation) == (1, 1))


def _tiles(size):
    return (size + 1) // 2


# NOTE [Winograd phase planes]: the padded input (N, C, 2 Hh, 2 Wh) is split once into its four
# phase planes P[r, s] = d[..., r::2, s::2], laid out (C, N * Hh * Wh) plus a zero tail. Tile
# (a, b) sits at flat position f = (n * Hh + a) * Wh + b of every plane, and its element
# (k, l) is P[k % 2, l % 2][:, f + (k // 2) * Wh + l // 2]: each of the 16 tile elements of
# every tile is ONE contiguous slice of a plane, so the transforms are a few dozen long
# vector operations. Tiles with a = Hh - 1 or b = Wh - 1 are not real (they read across a
# row or image edge); they are computed (13% more work for 32x32 images) and dropped.

def _planes(xp, x, top, left, hh, wh):
    """The phase planes (2, 2, C, N * hh * wh + wh + 1) of x placed at (top, left) in zeros of
    spatial size (2 hh, 2 wh); x is cropped where it does not fit."""
    n, c = x.shape[:2]
    size = n * hh * wh
    planes = xp.zeros((2, 2, c, size + wh + 1), x.dtype)
    grid = planes[:, :, :, :size].reshape(2, 2, c, n, hh, wh)
    for r in range(2):
        for s in range(2):
            # Rows of the padded image with parity r hold x's rows first_row, +2, ...
            first_row = (r - top) % 2
            first_col = (s - left) % 2
            a0 = (first_row + top) // 2
            b0 = (first_col + left) // 2
            rows = x[:, :, first_row::2, first_col::2][:, :, :hh - a0, :wh - b0]
            grid[r, s, :, :, a0:a0 + rows.shape[2], b0:b0 + rows.shape[3]] = \
                rows.transpose(1, 0, 2, 3)
    return planes


def _input_transform(xp, planes, hh, wh):
    """V (16, C, L) = B^T d B of every tile (NOTE [Winograd phase planes]), L = N hh wh."""
    c, total = planes.shape[2:]
    length = total - wh - 1
    # B^T along the tile's rows: row k of tile a is plane row-phase k % 2 shifted by
    # (k // 2) * wh; each result keeps one column phase and one more element for the shift.
    def row(k, s):
        start = (k // 2) * wh
        return planes[k % 2, s, :, start:start + length + 1]
    t = [[row(0, s) - row(2, s), row(1, s) + row(2, s), row(2, s) - row(1, s),
          row(1, s) - row(3, s)] for s in range(2)]
    v = xp.empty((4, 4, c, length), planes.dtype)
    for i in range(4):
        def col(k):
            return t[k % 2][i][:, k // 2:k // 2 + length]
        # ... and B on the right, along the tile's columns.
        xp.subtract(col(0), col(2), out=v[i, 0])
        xp.add(col(1), col(2), out=v[i, 1])
        xp.subtract(col(2), col(1), out=v[i, 2])
        xp.subtract(col(1), col(3), out=v[i, 3])
    return v.reshape(16, c, length)


def _weight_transform(xp, w):
    """U (16, O, C) = G g G^T of each 3x3 kernel."""
    o, c = w.shape[:2]
    transform = xp.asarray(_G_BOTH_SIDES, dtype=w.dtype)
    return xp.matmul(transform, w.reshape(o * c, 9).T).reshape(16, o, c)


def _output_transform(xp, m, n, hh, wh, height, width):
    """Y (N, O, height, width) = A^T M A of every real tile of M (16, O, N hh wh)."""
    o, length = m.shape[1:]
    m = m.reshape(4, 4, o, length)
    # A^T along the tile's rows (in place: these arrays are the largest of the convolution).
    p = xp.empty((2, 4, o, length), m.dtype)
    xp.add(m[0], m[1], out=p[0])
    p[0] += m[2]
    xp.subtract(m[1], m[2], out=p[1])
    p[1] -= m[3]
    # Channel-first result, made batch-first by one copy with long rows at the end.
    out = xp.empty((o, n, 2 * (hh - 1), 2 * (wh - 1)), m.dtype)
    part = xp.empty((o, length), m.dtype)
    for r in range(2):
        xp.add(p[r, 0], p[r, 1], out=part)
        part += p[r, 2]
        out[:, :, r::2, 0::2] = part.reshape(o, n, hh, wh)[:, :, :hh - 1, :wh - 1]
        xp.subtract(p[r, 1], p[r, 2], out=part)
        part -= p[r, 3]
        out[:, :, r::2, 1::2] = part.reshape(o, n, hh, wh)[:, :, :hh - 1, :wh - 1]
    return xp.ascontiguousarray(out[:, :, :height, :width].transpose(1, 0, 2, 3))


def _grad_to_tiles(xp, grad, hh, wh):
    """A dY A^T (16, O, N hh wh) of every 2x2 tile of grad (N, O, <= 2 hh, <= 2 wh); the
    tiles past grad's edge are zeros, so the tiles that are not real add nothing."""
    planes = _planes(xp, grad, 0, 0, hh, wh)
    o, total = planes.shape[2:]
    length = total - wh - 1
    y = planes[:, :, :, :length]
    t = [(y[0, s], y[0, s] + y[1, s], y[0, s] - y[1, s], -y[1, s]) for s in range(2)]
    m = xp.empty((4, 4, o, length), grad.dtype)
    for i in range(4):
        c0, c1 = t[0][i], t[1][i]
        m[i, 0] = c0
        xp.add(c0, c1, out=m[i, 1])
        xp.subtract(c0, c1, out=m[i, 2])
        xp.negative(c1, out=m[i, 3])
    return m.reshape(16, o, length)


def conv3x3(xp, x, weight, padding):
    """conv_forward (nn_conv.py) for a 3x3 kernel, stride 1, no dilation or groups."""
    n, _, h, w = x.shape
    height, width = h + 2 * padding[0] - 2, w + 2 * padding[1] - 2
    hh, wh = _tiles(height) + 1, _tiles(width) + 1
    planes = _planes(xp, x, padding[0], padding[1], hh, wh)
    m = xp.matmul(_weight_transform(xp, weight), _input_transform(xp, planes, hh, wh))
    return _output_transform(xp, m, n, hh, wh, height, width)


def conv3x3_input_grad(xp, grad, weight, in_size, padding):
    """The input's gradient: the output's gradient, padded by 2 - padding, convolved with
    the kernel flipped and its channel axes swapped."""
    flipped = xp.ascontiguousarray(weight[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    n = grad.shape[0]
    hh, wh = _tiles(in_size[0]) + 1, _tiles(in_size[1]) + 1
    planes = _planes(xp, grad, 2 - padding[0], 2 - padding[1], hh, wh)
    m = xp.matmul(_weight_transform(xp, flipped), _input_transform(xp, planes, hh, wh))
    return _output_transform(xp, m, n, hh, wh, in_size[0], in_size[1])


def conv3x3_weight_grad(xp, x, grad, padding):
    """The weight's gradient: G^T [sum over tiles of (A dY A^T) (B^T d B)^T] G."""
    c = x.shape[1]
    o, height, width = grad.shape[1:]
    hh, wh = _tiles(height) + 1, _tiles(width) + 1
    planes = _planes(xp, x, padding[0], padding[1], hh, wh)
    du = xp.matmul(_grad_to_tiles(xp, grad, hh, wh),
                   _input_transform(xp, planes, hh, wh).transpose(0, 2, 1))
    transform = xp.asarray(_G_BOTH_SIDES, dtype=du.dtype)
    return xp.matmul(du.reshape(16, o * c).T, transform).reshape(o, c, 3, 3)
