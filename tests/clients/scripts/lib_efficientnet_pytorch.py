import os

import torch
from _show import saved_by_torch, show, workdir
from efficientnet_pytorch import EfficientNet

torch.manual_seed(0)
model = EfficientNet.from_name("efficientnet-b0", num_classes=5, image_size=32,
                               width_coefficient=0.25, depth_coefficient=0.2)
state = saved_by_torch(os.path.join(workdir(), "effnet.pt"), model.state_dict)
model.load_state_dict(state)
model.eval()
x = torch.linspace(-1, 1, 2 * 3 * 32 * 32).reshape(2, 3, 32, 32)
show("logits", model(x), 3)
show("features", model.extract_features(x), 3)
print("params", sum(p.numel() for p in model.parameters()))
model.set_swish(memory_efficient=False)
show("logits plain swish", model(x), 3)
