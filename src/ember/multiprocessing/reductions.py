"""How CPU tensors cross process boundaries in ember.multiprocessing (NOTE [shared tensors],
_ops/tensor_storage.py): pickled by multiprocessing's ForkingPickler (Queues, Pipes, a spawned
child's arguments), a tensor's storage is moved into shared memory first (as PyTorch does) and
its memory's file descriptor travels instead of its bytes; the receiver maps the same memory,
so in-place writes on either side are seen by both. Tensors on other devices, and shared
storages without a descriptor, are pickled by value."""
from __future__ import annotations

import mmap
from multiprocessing.reduction import DupFd, ForkingPickler

import numpy as np

from ember._core import dtype as dt
from ember._core.device import CPU


def _rebuild_shared(fd_holder, nbytes, np_dtype, shape, strides, offset, requires_grad,
                    as_parameter):
    import ember
    from ember._core import dispatch
    from ember._core.storage import UntypedStorage
    from ember._ops.tensor_storage import register_shared
    fd = fd_holder.detach()
    buffer = mmap.mmap(fd, nbytes)
    root = np.ndarray((nbytes,), np.uint8, buffer=buffer)
    data = np.ndarray(shape, np_dtype, buffer=buffer, offset=offset, strides=strides)
    tensor = dispatch.wrap(data, dt.NP_TO_DTYPE[np.dtype(np_dtype)], CPU)
    storage = UntypedStorage(root, CPU)
    tensor._storage = storage
    register_shared(storage, fd)
    if as_parameter:
        return ember.nn.Parameter(tensor, requires_grad)
    return tensor.requires_grad_(requires_grad) if requires_grad else tensor


def reduce_tensor(tensor):
    """ForkingPickler's reduction of an ember tensor (see the module's docstring)."""
    from ember._ops.tensor_storage import share_memory_, shared_fd
    if tensor._requires_grad and tensor._grad_fn is not None:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., putting "
            "it on the queue).")
    if tensor._device is not CPU:
        return tensor.__reduce_ex__(2)
    share_memory_(tensor)
    fd = shared_fd(tensor._storage)
    if fd is None:
        return tensor.__reduce_ex__(2)
    data = tensor._data
    root = tensor._storage._array
    base = np.asarray(root).__array_interface__["data"][0]
    offset = data.__array_interface__["data"][0] - base if data.size else 0
    import ember
    return (_rebuild_shared, (DupFd(fd), int(np.asarray(root).nbytes), data.dtype, data.shape,
                              data.strides, offset, tensor._requires_grad,
                              isinstance(tensor, ember.nn.Parameter)))


_installed = [False]


def init_reductions() -> None:
    """Register the tensor reductions with ForkingPickler (done on importing
    ember.multiprocessing, as PyTorch does for torch.multiprocessing)."""
    if _installed[0]:
        return
    import ember
    for cls in (ember.Tensor, ember.nn.Parameter):
        ForkingPickler.register(cls, reduce_tensor)
    _installed[0] = True
