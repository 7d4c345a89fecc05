"""ember.save / ember.load in PyTorch's checkpoint format: round trips, files passing both ways
between ember and PyTorch, storage sharing, weights-only loading, atomic writes."""
import io
import os
import pickle
import struct
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool", "complex64", "complex128", "uint16", "uint32", "uint64"]


def _values(lib, dtype_name):
    base = np.arange(12).reshape(3, 4) % 5
    dtype = getattr(lib, dtype_name)
    if dtype_name == "bool":
        return lib.tensor(base % 2 == 0)
    if dtype_name == "bfloat16":
        return lib.tensor(base.astype(np.float32)).to(dtype)
    return lib.tensor(base.astype(np.int64 if "int" in dtype_name else np.float64)).to(dtype)


def _to_numpy(t):
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.detach().numpy()


def _check_same_tensor(ours, theirs):
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_array_equal(_to_numpy(ours), _to_numpy(theirs))


def _objects(lib):
    base = lib.arange(12.0).view(3, 4)
    objs = OrderedDict()
    for name in DTYPES:
        objs[name] = _values(lib, name)
    objs["view_t"] = base.t()
    objs["view_slice"] = base[1:, ::2]
    objs["base"] = base
    objs["scalar"] = lib.tensor(3.5)
    objs["empty"] = lib.zeros(0, 3)
    objs["param"] = lib.nn.Parameter(lib.ones(2, 2))
    objs["frozen"] = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    objs["leaf"] = lib.ones(3, requires_grad=True)
    return objs


def test_ember_files_load_in_pytorch(tmp_path):
    path = tmp_path / "model.pt"
    ember.save(_objects(ember), path)
    theirs = torch.load(path)
    expected = _objects(torch)
    assert list(theirs) == list(expected)
    for key in expected:
        _check_same_tensor(theirs[key], expected[key])
        assert type(theirs[key]).__name__ == type(expected[key]).__name__
    # Views saved together still share one storage.
    assert theirs["view_t"].untyped_storage().data_ptr() == \
        theirs["base"].untyped_storage().data_ptr()


def test_pytorch_files_load_in_ember(tmp_path):
    path = tmp_path / "model.pt"
    torch.save(_objects(torch), path)
    ours = ember.load(path)
    expected = _objects(ember)
    assert list(ours) == list(expected)
    for key in expected:
        _check_same_tensor(ours[key], expected[key])
        assert type(ours[key]).__name__ == type(expected[key]).__name__
    ours["base"][0, 1] = 100.0
    assert float(ours["view_t"][1, 0]) == 100.0


def test_round_trip_through_a_file_object_keeps_everything():
    buffer = io.BytesIO()
    state = OrderedDict(a=ember.randn(2, 3), b=ember.arange(4))
    state._metadata = OrderedDict({"": {"version": 1}})
    obj = {"state": state, "dtype": ember.float16, "size": ember.Size([2, 3]),
           "device": ember.device("cpu"), "nested": [1, 2.5, "x", (None, True)]}
    ember.save(obj, buffer)
    buffer.seek(0)
    back = ember.load(buffer)
    assert back["dtype"] is ember.float16 and back["size"] == ember.Size([2, 3])
    assert back["device"] == ember.device("cpu") and back["nested"] == obj["nested"]
    assert back["state"]._metadata == state._metadata
    for key in state:
        _check_same_tensor(back["state"][key], state[key])
    buffer.seek(0)
    theirs = torch.load(buffer)
    assert theirs["dtype"] is torch.float16 and theirs["size"] == torch.Size([2, 3])


class Custom:
    def __init__(self, value):
        self.value = value


def test_weights_only_refuses_other_globals_as_pytorch(tmp_path):
    path = tmp_path / "custom.pt"
    ember.save({"c": Custom(3)}, path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ember.load(path)
    assert ember.load(path, weights_only=False)["c"].value == 3
    with ember.serialization.safe_globals([Custom]):
        assert ember.load(path)["c"].value == 3
    with pytest.raises(pickle.UnpicklingError):
        ember.load(path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path)


def test_a_failed_save_leaves_the_old_file_untouched(tmp_path):
    path = tmp_path / "ckpt.pt"
    ember.save({"a": ember.ones(2)}, path)
    before = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ember.save({"a": ember.zeros(3), "bad": lambda: 1}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt"]


def test_module_and_optimizer_checkpoint_passes_to_pytorch(tmp_path):
    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = ember.nn.Parameter(ember.randn(3, 2))
            self.register_buffer("steps", ember.tensor(5))

    net = Net()
    opt = ember.optim.Adam(net.parameters(), lr=0.01)
    net.weight.grad = ember.ones(3, 2)
    opt.step()
    ember.save({"model": net.state_dict(), "optim": opt.state_dict()}, tmp_path / "c.pt")
    theirs = torch.load(tmp_path / "c.pt")
    assert list(theirs["model"]) == ["weight", "steps"]
    p = torch.nn.Parameter(torch.zeros(3, 2))
    t_opt = torch.optim.Adam([p], lr=0.01)
    t_opt.load_state_dict(theirs["optim"])
    assert float(t_opt.state[p]["step"]) == 1.0
    np.testing.assert_allclose(t_opt.state[p]["exp_avg"].numpy(),
                               opt.state[net.weight]["exp_avg"].numpy())


def test_sets_and_builtins_load_weights_only():
    buffer = io.BytesIO()
    ember.save({"s": {1, 2}, "c": complex(1, 2), "b": bytearray(b"ab")}, buffer)
    buffer.seek(0)
    assert ember.load(buffer) == {"s": {1, 2}, "c": complex(1, 2), "b": bytearray(b"ab")}
    # frozenset is not on PyTorch's weights-only list: both refuse it.
    buffer = io.BytesIO()
    ember.save({"f": frozenset({3})}, buffer)
    for load in (ember.load, torch.load):
        buffer.seek(0)
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL frozenset was not an allowed"):
            load(buffer)


def test_map_location_and_bad_files(tmp_path):
    path = tmp_path / "x.pt"
    ember.save([ember.ones(2)], path)
    assert ember.load(path, map_location="cpu")[0].device.type == "cpu"
    seen = []
    ember.load(path, map_location=lambda t, loc: seen.append(loc))
    assert seen == ["cpu"]
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(RuntimeError, match="could not read the checkpoint"):
        ember.load(bad)


def test_legacy_pytorch_files_load(tmp_path):
    path = tmp_path / "old.pt"
    base = torch.arange(6.0).view(2, 3)
    torch.save({"a": base, "b": base[1:], "i": torch.tensor([1, 2], dtype=torch.int32)}, path,
               _use_new_zipfile_serialization=False)
    ours = ember.load(path)
    np.testing.assert_array_equal(ours["a"].numpy(), base.numpy())
    np.testing.assert_array_equal(ours["b"].numpy(), base[1:].numpy())
    assert ours["i"].dtype == ember.int32 and ours["i"].tolist() == [1, 2]
    ours["a"][1, 0] = 50.0
    assert float(ours["b"][0, 0]) == 50.0


def test_mmap_loading_maps_storages_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"w": torch.arange(1000.0)}, path)
    ours = ember.load(path, mmap=True)
    assert ours["w"].sum().item() == float(sum(range(1000)))
    ours["w"][0] = 5.0
    assert torch.load(path)["w"][0].item() == 0.0
    with pytest.raises(ValueError, match="mmap"):
        ember.load(io.BytesIO(path.read_bytes()), mmap=True)


@pytest.mark.parametrize("damage", ["empty", "truncated", "garbage_tail", "missing_record"])
def test_damaged_files_give_a_clear_error(tmp_path, damage):
    path = tmp_path / "d.pt"
    ember.save({"w": ember.arange(100.0), "v": ember.ones(3)}, path)
    data = path.read_bytes()
    if damage == "empty":
        data = b""
    elif damage == "truncated":
        data = data[:len(data) // 2]
    elif damage == "garbage_tail":
        data = data[:-30] + b"\x00" * 30
    else:
        import zipfile
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
            for item in zin.infolist():
                if not item.filename.endswith("data/0"):
                    zout.writestr(item, zin.read(item.filename))
        data = out.getvalue()
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match=r"could not read the checkpoint .*d\.pt"):
        ember.load(path)


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo this-must-not-run",))


def test_weights_only_refuses_a_pickle_that_would_run_code(tmp_path, capfd):
    path = tmp_path / "evil.pt"
    ember.save({"x": _Evil()}, path)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL (posix|os)\.system whose module "
                                                      r"(posix|os) is blocked"):
        ember.load(path)
    assert "this-must-not-run" not in capfd.readouterr().out


def test_a_save_killed_midway_leaves_a_loadable_file(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    path = tmp_path / "big.pt"
    ember.save({"step": 1}, path)
    code = ("import ember, sys; t = ember.ones(40_000_000)\n"
            "print('ready', flush=True)\n"
            "ember.save({'step': 2, 't': t}, sys.argv[1])\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE)
    assert child.stdout.readline().strip() == b"ready"
    time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    loaded = ember.load(path)
    assert loaded["step"] in (1, 2)
    # NOTE [atomic save]: the unnamed temporary leaves nothing after a kill.
    assert os.listdir(tmp_path) == ["big.pt"]


def test_loads_in_threads_do_not_mix_their_storages(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    paths = []
    for k in range(8):
        base = ember.arange(12.0).view(3, 4) + 100 * k
        path = tmp_path / f"c{k}.pt"
        ember.save({"base": base, "view": base[1:]}, path)
        paths.append(path)
    with ThreadPoolExecutor(4) as pool:
        loaded = list(pool.map(lambda p: [ember.load(p) for _ in range(5)][-1], paths))
    for k, state in enumerate(loaded):
        assert state["base"][0, 0].item() == 100 * k
        state["base"][1, 0] = -1.0
        assert state["view"][0, 0].item() == -1.0


@pytest.mark.filterwarnings("ignore:Detected pickle protocol 3")
@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("protocol", [2, 3])
def test_dtypes_and_views_saved_at_each_protocol_load_in_pytorch(protocol):
    # A dtype met twice is written once and fetched from the memo after.
    base = ember.arange(12.0).reshape(3, 4)
    state = {"base": base, "view": base[1:, ::2], "dtype": ember.float64,
             "again": ember.float64, "half": ember.ones(3, dtype=ember.complex32),
             "size": ember.Size([2, 3])}
    buffer = io.BytesIO()
    ember.save(state, buffer, pickle_protocol=protocol)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert loaded["dtype"] is torch.float64 and loaded["again"] is torch.float64
    shared = loaded["base"].untyped_storage().data_ptr()
    assert loaded["view"].untyped_storage().data_ptr() == shared
    assert loaded["view"].tolist() == [[4.0, 6.0], [8.0, 10.0]]
    assert loaded["half"].dtype == torch.complex32 and loaded["size"] == torch.Size([2, 3])
    buffer.seek(0)
    again = ember.load(buffer)
    assert again["dtype"] is ember.float64 and again["view"].tolist() == [[4.0, 6.0], [8.0, 10.0]]


def test_records_past_the_zip64_limit_stay_aligned_and_load(tmp_path, monkeypatch):
    # The large-record path (zip64 sizes and offsets) with the limit lowered, so that a small
    # file takes it: Python's zipfile, torch.load and ember.load (mmap too) read it, and every
    # record's data starts 64-byte aligned.
    import zipfile

    from ember._checkpoint import writer
    monkeypatch.setattr(writer, "_ZIP64_LIMIT", 1000)
    base = ember.arange(600.0)
    path = tmp_path / "big.pt"
    ember.save({"base": base, "view": base[100:400:3]}, path)
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        raw = path.read_bytes()
        for info in archive.infolist():
            header = info.header_offset
            name_len, extra_len = struct.unpack("<HH", raw[header + 26:header + 30])
            assert (header + 30 + name_len + extra_len) % 64 == 0, info.filename
    theirs = torch.load(path)
    assert theirs["view"].tolist() == base[100:400:3].tolist()
    for mmap in (False, True):
        ours = ember.load(path, mmap=mmap)
        assert ours["view"].tolist() == base[100:400:3].tolist()
