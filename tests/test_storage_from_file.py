"""`UntypedStorage.from_file`, byte slices of a storage and `asarray(storage, dtype=)` (what
safetensors reads files with) against PyTorch."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("shared", [False, True])
def test_from_file_slices_and_asarray(tmp_path, shared):
    path = tmp_path / "bytes.bin"
    data = np.arange(16, dtype=np.float32)
    path.write_bytes(data.tobytes())
    results = []
    for lib in (torch, ember):
        storage = lib.UntypedStorage.from_file(str(path), shared, 48)
        part = storage[8:24]
        results.append((len(storage), len(part), storage[4],
                        lib.asarray(part, dtype=lib.uint8).tolist(),
                        lib.asarray(part, dtype=lib.uint8).view(lib.float32).tolist()))
    assert results[0] == results[1]


def test_from_file_past_the_end(tmp_path):
    path = tmp_path / "short.bin"
    path.write_bytes(b"abc")
    with pytest.raises(RuntimeError):
        torch.UntypedStorage.from_file(str(path), False, 10)
    with pytest.raises(RuntimeError):
        ember.UntypedStorage.from_file(str(path), False, 10)


def test_a_tensors_storage_slice_shares_memory():
    t = ember.arange(4, dtype=ember.float32)
    view = ember.asarray(t.untyped_storage()[4:8], dtype=ember.uint8).view(ember.float32)
    view[0] = 7
    assert t.tolist() == [0.0, 7.0, 2.0, 3.0]
