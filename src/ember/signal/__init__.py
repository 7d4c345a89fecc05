"""ember.signal, as torch.signal: `windows` (loaded with the package)."""
from ember.signal import windows

__all__ = ["windows"]
