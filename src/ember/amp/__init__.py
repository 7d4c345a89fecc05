"""`ember.amp`: mixed-precision helpers. Built: `GradScaler` (grad_scaler.py). Not built yet:
`autocast` (it needs a per-op precision policy in the dispatcher); `ember.amp.autocast` raises
AttributeError until then."""
from ember.amp.grad_scaler import GradScaler

__all__ = ["GradScaler"]
