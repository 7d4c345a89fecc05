"""`ember.utils.backend_registration`: registering an out-of-tree back-end (a "privateuse1"
device) and its kernels. A plug-in package calls, typically from its `ember.backends` entry
point:

    rename_privateuse1_backend("npdev")                    # ember.device("npdev") works
    register_device_backend("npdev", xp, to_host, from_host) # how its arrays hold data
    register_kernel("add.Tensor", "npdev", my_add)          # its own kernel for any op
    @impl("aten::neg", "PrivateUse1")                       # the same, as torch.library's impl
    def my_neg(xp, self): ...
    ember._register_device_module("npdev", module)           # ember.npdev
    generate_methods_for_privateuse1_backend()               # Tensor.npdev(), .is_npdev

The functions live with the other back-ends in ember/_backends/privateuse1.py.
"""
from __future__ import annotations

from ember._backends.privateuse1 import (  # noqa: F401  (the public names of this module)
    _get_privateuse1_backend_name,
    generate_methods_for_privateuse1_backend,
    impl,
    register_device_backend,
    register_kernel,
    register_privateuse1_backend,
    rename_privateuse1_backend,
)
