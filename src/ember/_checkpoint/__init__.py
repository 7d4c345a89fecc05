"""Checkpoint files in PyTorch's format, for `ember.save` / `ember.load` (serialization.py):
writer.py pickles and zips, reader.py unzips and unpickles (legacy.py: the pre-1.6 format),
weights_only.py is the unpickler and allow-list of `weights_only=True` (NOTE [weights-only
unpickling]), atomic_write.py puts a saved file in place (NOTE [atomic save]).

NOTE [checkpoint format]: a checkpoint is an uncompressed zip archive `<name>/...` holding
`data.pkl` (the object, pickled with protocol 2), one `data/<key>` record per storage (its raw
little-endian bytes, 64-byte aligned), and `version`, `byteorder`, `.format_version`,
`.storage_alignment`, `.data/serialization_id`. In the pickle a tensor is a call of
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)` (v3 with
an explicit dtype for dtypes that have no typed storage class), a Parameter of
`torch._utils._rebuild_parameter`, and a storage a persistent id
`('storage', torch.<Type>Storage, key, location, numel)`. ember writes these names as pickle
globals without importing torch (a pure-Python pickler with stand-ins for them) and maps them back
to its own functions when loading. Views of one storage keep sharing it.
"""
