import kornia
import kornia.augmentation as K
import torch
from _show import show

img = (torch.arange(2 * 3 * 8 * 8, dtype=torch.float32).reshape(2, 3, 8, 8) % 17) / 16
show("gray", kornia.color.rgb_to_grayscale(img))
show("hsv", kornia.color.rgb_to_hsv(img))
show("blur", kornia.filters.gaussian_blur2d(img, (3, 3), (1.5, 1.5)))
show("sobel", kornia.filters.sobel(img))
show("canny", kornia.filters.canny(img)[1])
angle = torch.tensor([30.0, 45.0])
center = torch.tensor([[4.0, 4.0], [3.5, 3.5]])
M = kornia.geometry.transform.get_rotation_matrix2d(center, angle, torch.ones(2, 2))
show("rotation matrix", M)
show("warp", kornia.geometry.transform.warp_affine(img, M, (8, 8)))
show("resize", kornia.geometry.transform.resize(img, (4, 6)))
show("hflip", kornia.geometry.transform.hflip(img))
show("erode", kornia.morphology.erosion(img, torch.ones(3, 3)))
show("ssim", kornia.metrics.ssim(img, img.flip(-1), 3))
show("psnr", kornia.metrics.psnr(img, img * 0.9, 1.0))
torch.manual_seed(0)
aug = K.AugmentationSequential(
    K.RandomHorizontalFlip(p=0.5), K.RandomAffine(degrees=15.0, p=1.0), K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0),
)
out = aug(img)
show("augmented", out, 3)
show("params", aug._params[1].data["angle"] if hasattr(aug, "_params") else None, 3)
show("normalize", K.Normalize(mean=torch.tensor([0.5, 0.5, 0.5]), std=torch.tensor([0.2, 0.2, 0.2]))(img))
pts = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])
show("transform points", kornia.geometry.linalg.transform_points(kornia.geometry.conversions.convert_affinematrix_to_homography(M[:1]), pts))
