"""`ember.amp`: mixed precision. `autocast` and its state functions (autocast_mode.py, over the
dispatcher's `_core/dispatch/autocast.py`), the per-op policy (policy.py), `GradScaler`
(grad_scaler.py)."""
from ember.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from ember.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
