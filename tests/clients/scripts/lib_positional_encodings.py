import torch
from _show import show
from positional_encodings.torch_encodings import (
    PositionalEncoding1D,
    PositionalEncoding2D,
    PositionalEncoding3D,
    PositionalEncodingPermute2D,
    Summer,
)

show("1d", PositionalEncoding1D(10)(torch.zeros(1, 6, 10)))
show("2d", PositionalEncoding2D(8)(torch.zeros(1, 4, 5, 8)))
show("3d", PositionalEncoding3D(6)(torch.zeros(1, 2, 3, 4, 6)))
show("permute", PositionalEncodingPermute2D(6)(torch.zeros(1, 6, 3, 3)))
show("summer", Summer(PositionalEncoding1D(4))(torch.ones(2, 3, 4)))
