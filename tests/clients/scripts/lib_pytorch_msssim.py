import torch
from _show import show
from pytorch_msssim import SSIM, ms_ssim, ssim

x = (torch.arange(2 * 3 * 32 * 32, dtype=torch.float32).reshape(2, 3, 32, 32) % 29) / 28 * 255
y = x.flip(-1) * 0.8 + 10
show("ssim", ssim(x, y, data_range=255, size_average=False))
show("ssim module", SSIM(data_range=255, channel=3)(x, y))
big = torch.nn.functional.interpolate(x, size=(176, 176), mode="bilinear", align_corners=False)
show("ms_ssim", ms_ssim(big, big.flip(-2), data_range=255, win_size=3))
x.requires_grad_(True)
(1 - ssim(x, y, data_range=255)).backward()
show("grad", x.grad, 6)
