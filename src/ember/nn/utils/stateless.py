"""`functional_call` under its older home (ember.func.functional_call is the same call)."""
from __future__ import annotations

import warnings

from ember.func._functional_call import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call `module` with its parameters and buffers replaced; deprecated for
    ember.func.functional_call."""
    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future "
                  "version of PyTorch. Please use torch.func.functional_call instead which is a "
                  "drop-in replacement for this API.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameter_and_buffer_dicts, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
