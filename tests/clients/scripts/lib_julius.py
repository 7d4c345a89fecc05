import julius
import torch
from _show import show

sig = torch.sin(torch.arange(400, dtype=torch.float32) * 0.3) + torch.cos(torch.arange(400, dtype=torch.float32) * 1.7)
show("resample", julius.resample_frac(sig, 4, 3), 3)
show("lowpass", julius.lowpass_filter(sig, 0.1), 3)
show("highpass", julius.highpass_filter(sig, 0.2), 3)
show("bands", julius.split_bands(sig, 16000, n_bands=3), 3)
show("fftconv", julius.fft_conv1d(sig.view(1, 1, -1), torch.ones(1, 1, 9) / 9), 3)
show("lowpasses", julius.LowPassFilters([0.05, 0.2])(sig), 3)
