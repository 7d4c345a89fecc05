"""`nn.DataParallel`: a wrapper whose `module` child holds the model (so state_dict keys gain
PyTorch's "module." prefix). PyTorch splits each batch across `device_ids` and gathers the
outputs on `output_device`; with one device it moves the inputs there and calls the module,
and without CUDA it calls the module as it is. ember does the last two, and runs a batch for
several devices whole on the first one (NOTE [one device for DataParallel]).

NOTE [one device for DataParallel]: ember has no multi-GPU replication. Given several
device_ids, the batch runs whole on device_ids[0] and the output stays there (PyTorch
gathers on output_device, by default device_ids[0]: the same place). The values equal
PyTorch's up to the batch statistics of layers such as BatchNorm, which PyTorch computes per
replica.
"""
from __future__ import annotations

from ember._core.device import device as as_device
from ember.nn.modules.module import Module


def _cuda_available() -> bool:
    import ember
    return ember.cuda.is_available()


def _device_of(index):
    return as_device(index if not isinstance(index, int) else f"cuda:{index}")


class DataParallel(Module):
    """Run `module` on the batch on device_ids[0] (the CPU without CUDA)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if not _cuda_available():
            self.device_ids = []
            return
        import ember
        if device_ids is None:
            device_ids = list(range(ember.cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.device_ids = [_device_of(d).index for d in device_ids]
        self.output_device = _device_of(output_device).index
        self.src_device_obj = _device_of(self.device_ids[0])

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in (*self.module.parameters(), *self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    f"module must have its parameters and buffers on device "
                    f"{self.src_device_obj} (device_ids[0]) but found one of them on device: "
                    f"{t.device}")
        from ember.utils._pytree_api import tree_map
        moved = tree_map(lambda x: x.to(self.src_device_obj) if hasattr(x, "to") and
                         hasattr(x, "device") else x, (inputs, kwargs))
        return self.module(*moved[0], **moved[1])


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """`module(*inputs)` as DataParallel runs it, without keeping a wrapper (it needs a GPU,
    as PyTorch's does)."""
    if not _cuda_available():
        raise RuntimeError("device type could not be determined")
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    wrapper = DataParallel(module, device_ids, output_device, dim)
    return wrapper(*inputs, **(module_kwargs or {}))
