"""Crafted checkpoints that try to run code, read past their bytes, allocate what the file
does not hold, or change ember's state: ember refuses each as PyTorch 2.13 does (or loads the
same thing). The files are built here from pickle opcodes and zip records."""
import io
import pickle
import re
import struct
import tracemalloc
import warnings
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest
import torch

import ember
from ember._checkpoint.weights_only import allowed_globals

# --- pickle opcodes, written by hand so that a test can say exactly what the file holds ---
PROTO = b"\x80\x02"


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def num(n):
    if -2**31 <= n < 2**31:
        return b"J" + struct.pack("<i", n)
    encoded = pickle.encode_long(n)
    return b"\x8a" + bytes([len(encoded)]) + encoded


def text(value):
    data = value.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def tup(*items):
    return b"(" + b"".join(items) + b"t"


def empty_ordered_dict():
    return glob("collections", "OrderedDict") + b")R"


def storage_id(key="0", storage_class="FloatStorage", numel=4, legacy=False):
    fields = [text("storage"), glob("torch", storage_class), text(key), text("cpu"), num(numel)]
    return tup(*fields, *([b"N"] if legacy else [])) + b"Q"


def tensor(size, stride, offset=0, key="0", numel=4, legacy=False):
    return glob("torch._utils", "_rebuild_tensor_v2") + tup(
        storage_id(key, "FloatStorage", numel, legacy), num(offset), tup(*map(num, size)),
        tup(*map(num, stride)), b"\x89", empty_ordered_dict()) + b"R"


def zip_checkpoint(pickled, records=None):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", pickled)
        archive.writestr("archive/byteorder", "little")
        for key, data in (records or {}).items():
            archive.writestr(f"archive/data/{key}", data)
        archive.writestr("archive/version", "3\n")
    return out.getvalue()


def legacy_header_pickles():
    """The magic number, protocol version and system information pickles PyTorch writes."""
    out = io.BytesIO()
    torch.save(1, out, _use_new_zipfile_serialization=False)
    stream = io.BytesIO(out.getvalue())
    pickles = []
    for _ in range(3):
        start = stream.tell()
        pickle.load(stream)
        pickles.append(out.getvalue()[start:stream.tell()])
    return pickles


def legacy_header():
    return b"".join(legacy_header_pickles())


def legacy_checkpoint(body, records=((4, b"\0" * 16),), keys=("0",), header=None):
    out = (header if header is not None else legacy_header()) + PROTO + body + b"."
    out += PROTO + b"]" + b"".join(text(k) + b"a" for k in keys) + b"."
    for count, data in records:
        out += struct.pack("<q", count) + data
    return out


def outcome(load, data, **kwargs):
    try:
        return "ok", load(io.BytesIO(data), **kwargs)
    except Exception as exc:    # the class and message are what the tests compare
        return type(exc), str(exc)


def assert_both_refuse(data, error, fragment=None, **kwargs):
    ours, theirs = outcome(ember.load, data, **kwargs), outcome(torch.load, data, **kwargs)
    assert theirs[0] is error, theirs
    assert ours[0] is error, ours
    if fragment is not None:
        assert fragment in theirs[1] and fragment in ours[1], (ours[1], theirs[1])


def assert_ember_intact():
    assert ember.float32.itemsize == 4 and ember.float32._np == np.float32
    assert repr(ember.float32) == "ember.float32"
    assert repr(ember.device("cpu")) == "device(type='cpu')"
    assert ember.device("cpu").type == "cpu"
    assert (ember.ones(2, dtype=ember.float32) + 1).dtype is ember.float32


# --- 1. no pickle of any format runs code ---

@pytest.mark.parametrize("where", ["magic", "version", "sys_info", "object", "keys", "zip"])
def test_no_pickle_of_a_checkpoint_runs_code(tmp_path, where):
    marker = tmp_path / "marker"
    opener = PROTO + glob("builtins", "open") + tup(text(str(marker)), text("w")) + b"R."
    if where == "zip":
        data = zip_checkpoint(opener)
    else:
        pickles = legacy_header_pickles()
        names = ["magic", "version", "sys_info"]
        if where in names:
            pickles[names.index(where)] = opener
        body = tensor((4,), (1,), legacy=True) if where != "object" else opener[2:-1]
        data = legacy_checkpoint(body, header=b"".join(pickles))
        if where == "keys":
            data = data.replace(PROTO + b"]" + text("0") + b"a.", opener)
    assert_both_refuse(data, pickle.UnpicklingError, "GLOBAL open was not an allowed global")
    assert not marker.exists()


def test_blocked_modules_stay_blocked_even_when_allowlisted():
    import os
    data = zip_checkpoint(PROTO + glob("posix", "system") + tup(text("true")) + b"R.")
    with ember.serialization.safe_globals([os.system]), torch.serialization.safe_globals(
            [os.system]):
        assert_both_refuse(data, pickle.UnpicklingError,
                           "GLOBAL posix.system whose module posix is blocked")


# --- 2. views past the storage ---

EXTENTS = {
    "numel_past_storage": ((65536,), (1,), 0, "Trying to resize storage that is not resizable"),
    "huge_stride": ((2,), (2**38,), 0, "Trying to resize storage that is not resizable"),
    "offset_past_storage": ((1,), (1,), 4, "Trying to resize storage that is not resizable"),
    "negative_stride": ((2,), (-1,), 1, "Storage size calculation overflowed with sizes=[2] "
                                        "and strides=[-1]"),
    "negative_size": ((-2,), (1,), 0, "numel: integer multiplication overflow"),
    "negative_offset": ((2,), (1,), -1, "Tensor: invalid storage offset -1"),
    "numel_overflow": ((2**40, 2**40), (2**40, 1), 0, "numel: integer multiplication overflow"),
    "size_stride_lengths": ((2, 2), (1,), 0, "unequal size length (2) and stride length (1)"),
}


@pytest.mark.parametrize("case", sorted(EXTENTS))
def test_views_past_their_storage_are_refused(tmp_path, case):
    size, stride, offset, message = EXTENTS[case]
    data = zip_checkpoint(PROTO + tensor(size, stride, offset) + b".", {"0": b"\0" * 16})
    assert_both_refuse(data, RuntimeError, message)
    path = tmp_path / "view.pt"
    path.write_bytes(data)
    for load in (ember.load, torch.load):
        with pytest.raises(RuntimeError, match=re.escape(message)):
            load(path, mmap=True)
    # The legacy format checks them too (PyTorch's words differ there: compare the class).
    legacy = legacy_checkpoint(tensor(size, stride, offset, key="0", legacy=True))
    assert_both_refuse(legacy, RuntimeError)


def test_empty_views_anywhere_load_as_pytorch():
    for size, stride, offset in (((0, 5), (2**62, 1), 0), ((0,), (1,), 5)):
        data = zip_checkpoint(PROTO + tensor(size, stride, offset) + b".", {"0": b"\0" * 16})
        ours, theirs = ember.load(io.BytesIO(data)), torch.load(io.BytesIO(data))
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.sum().item() == 0


def test_views_inside_the_storage_load_as_pytorch():
    record = np.arange(4, dtype=np.float32).tobytes()
    data = zip_checkpoint(PROTO + tensor((2, 2), (1, 2), 0) + b".", {"0": record})
    np.testing.assert_array_equal(ember.load(io.BytesIO(data)).numpy(),
                                  torch.load(io.BytesIO(data)).numpy())


# --- 3. BUILD only on what PyTorch builds ---

def _build(target, state):
    return zip_checkpoint(PROTO + target + state + b"b.")


def _dict_state(**items):
    return b"}" + b"".join(text(k) + v + b"s" for k, v in items.items())


@pytest.mark.parametrize("form", ["dict", "slots"])
@pytest.mark.parametrize("target", ["dtype", "class", "int"])
def test_build_on_dtypes_and_classes_is_refused(target, form):
    state = {"dtype": _dict_state(itemsize=num(1), _np=text("int32"), _name=text("int32")),
             "class": _dict_state(__repr__=num(1), __eq__=num(1)),
             "int": _dict_state(real=num(1))}[target]
    if form == "slots":
        state = tup(b"N", state)
    pushed = {"dtype": glob("torch", "float32"), "class": glob("torch", "device"),
              "int": num(3)}[target]
    assert_both_refuse(_build(pushed, state), pickle.UnpicklingError,
                       "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                       "`add_safe_globals`, but got")
    assert_ember_intact()


@pytest.mark.parametrize("form", ["dict", "slots"])
def test_build_on_an_interned_device_cannot_change_it(form):
    device = glob("torch", "device") + tup(text("cpu")) + b"R"
    state = _dict_state(type=text("cuda"), __repr__=num(1))
    if form == "slots":
        state = tup(b"N", state)
    assert_both_refuse(_build(device, state), AttributeError)
    assert_ember_intact()


def test_build_on_fresh_containers_loads_as_pytorch():
    ordered = _build(empty_ordered_dict(), _dict_state(_metadata=num(3)))
    ours, theirs = ember.load(io.BytesIO(ordered)), torch.load(io.BytesIO(ordered))
    assert ours == theirs == OrderedDict() and ours._metadata == theirs._metadata == 3
    counter = _build(glob("collections", "Counter") + b")R", _dict_state(extra=num(1)))
    assert ember.load(io.BytesIO(counter)) == torch.load(io.BytesIO(counter)) == Counter()
    empty_set = _build(glob("builtins", "set") + b")R", _dict_state(extra=num(1)))
    assert_both_refuse(empty_set, AttributeError)


class Point:
    def __init__(self, x=0):
        self.x = x


def test_build_on_an_allowlisted_class_sets_its_state():
    data = _build(glob(__name__, "Point") + b")\x81", _dict_state(x=num(7)))
    assert_both_refuse(data, pickle.UnpicklingError, f"GLOBAL {__name__}.Point was not")
    with ember.serialization.safe_globals([Point]), torch.serialization.safe_globals([Point]):
        assert ember.load(io.BytesIO(data)).x == torch.load(io.BytesIO(data)).x == 7


OPCODES = {
    "INST": (b"(ibuiltins\nset\n.", "Unsupported operand 105"),
    "OBJ": (b"(" + glob("builtins", "set") + b"o.", "Unsupported operand 111"),
    "LONG4": (b"\x8b\x01\x00\x00\x00\x05.", "Unsupported operand 139"),
    "BINBYTES": (b"C\x01a.", "Unsupported operand 67"),
    "SHORT_BINUNICODE": (b"\x8c\x01a.", "Unsupported operand 140"),
    "STACK_GLOBAL": (text("os") + text("system") + b"\x93.", "Unsupported operand 147"),
    "REDUCE_non_allowed": (num(3) + b")R.", "Trying to call reduce for unrecognized function"),
    "NEWOBJ_non_class": (num(3) + b")\x81.", "Can only create new object for nn.Parameter or "
                                             "classes allowlisted via `add_safe_globals`"),
    "APPEND_to_set": (glob("builtins", "set") + b")R" + num(1) + b"a.",
                      "Can only append to lists, but got <class 'set'>"),
    "SETITEM_on_list": (b"]" + num(1) + num(2) + b"s.", "Can only SETITEM for dict, "
                                                       "collections.OrderedDict"),
    "persistent_id_str": (text("x") + b"Q.", None),
    "persistent_id_not_storage": (tup(text("module")) + b"Q.",
                                  "Only persistent_load of storage is allowed"),
}


@pytest.mark.parametrize("case", sorted(OPCODES))
def test_opcodes_that_touch_state_are_refused_as_pytorch(case):
    body, message = OPCODES[case]
    assert_both_refuse(zip_checkpoint(PROTO + body), pickle.UnpicklingError, message)
    assert_ember_intact()


def test_persistent_ids_that_are_not_storage_tuples_are_refused():
    for body in (num(0) + b"Q.", b")Q.", tup(text("storage")) + b"Q."):
        data = zip_checkpoint(PROTO + body)
        assert outcome(torch.load, data)[0] != "ok"
        assert outcome(ember.load, data)[0] is pickle.UnpicklingError


# --- 4. no allocation the file's bytes cannot back ---

def _peak_bytes(data) -> int:
    tracemalloc.start()
    try:
        outcome(ember.load, data)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_short_record_is_refused_before_allocating():
    declared = tensor((2**31,), (1,), numel=2**31)
    for records in ({"0": b"\0" * 16}, {"0": b""}):
        data = zip_checkpoint(PROTO + declared + b".", records)
        assert_both_refuse(data, RuntimeError, "does not match expected size (8589934592 bytes")
        assert _peak_bytes(data) < 16 * 2**20
    # An empty record whose tensor claims elements: refused, never zero-filled.
    data = zip_checkpoint(PROTO + tensor((2**31,), (1,), numel=0) + b".", {"0": b""})
    assert_both_refuse(data, RuntimeError, "Trying to resize storage that is not resizable")
    assert _peak_bytes(data) < 16 * 2**20


def test_a_legacy_storage_larger_than_the_file_is_refused_before_allocating():
    data = legacy_checkpoint(tensor((4,), (1,), numel=2**58, legacy=True))
    assert_both_refuse(data, RuntimeError)
    assert _peak_bytes(data) < 16 * 2**20


# --- 5. the allow-list is PyTorch's ---

REFUSED_BY_PYTORCH = ["builtins.slice", "builtins.frozenset", "torch.strided", "torch.sparse_coo",
                      "builtins.getattr", "builtins.eval", "collections.defaultdict",
                      "torch.nn.modules.linear.Linear", "numpy.core.multiarray._reconstruct",
                      "torch._utils._rebuild_parameter_v2", "ember.float32", "torch.memory_format"]


def test_ember_allows_no_global_pytorch_refuses():
    from torch._weights_only_unpickler import _get_allowed_globals
    theirs = set(_get_allowed_globals())
    assert set(allowed_globals()) <= theirs
    for full_name in sorted(theirs) + REFUSED_BY_PYTORCH:
        module, _, name = full_name.rpartition(".")
        data = zip_checkpoint(PROTO + glob(module, name) + b".")
        torch_ok = outcome(torch.load, data)[0] == "ok"
        kind, found = outcome(ember.load, data)
        assert torch_ok or kind != "ok", full_name
        if torch_ok and kind != "ok":
            assert kind is pickle.UnpicklingError and "ember cannot load it" in found, full_name


def test_pytorch_named_globals_load_as_ember_objects():
    data = zip_checkpoint(PROTO + tup(glob("torch", "float16"), glob("torch", "Size"),
                                      glob("torch.nn.parameter", "Parameter"),
                                      glob("__builtin__", "set")) + b".")
    from ember.nn.parameter import Parameter
    assert ember.load(io.BytesIO(data)) == (ember.float16, ember.Size, Parameter, set)


@pytest.mark.parametrize("prefix", ["TORCH", "EMBER"])
def test_force_weights_only_environment_variables(monkeypatch, prefix):
    data = zip_checkpoint(PROTO + glob("builtins", "slice") + tup(num(1)) + b"R.")
    loaders = [ember.load] + ([torch.load] if prefix == "TORCH" else [])
    monkeypatch.setenv(f"{prefix}_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    for load in loaders:
        with pytest.warns(UserWarning, match="FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
            assert load(io.BytesIO(data)) == slice(1)
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL slice was not"):
            load(io.BytesIO(data), weights_only=True)      # a caller's choice stands
    monkeypatch.delenv(f"{prefix}_FORCE_NO_WEIGHTS_ONLY_LOAD")
    monkeypatch.setenv(f"{prefix}_FORCE_WEIGHTS_ONLY_LOAD", "true")
    for load in loaders:
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL slice was not"):
            load(io.BytesIO(data), weights_only=False)
    monkeypatch.setenv(f"{prefix}_FORCE_NO_WEIGHTS_ONLY_LOAD", "yes")
    for load in loaders:
        with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or"):
            load(io.BytesIO(data))


def test_weights_only_refuses_an_explicit_pickle_module_and_warns_of_load_args():
    data = zip_checkpoint(PROTO + num(1) + b".")
    for load in (ember.load, torch.load):
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit "
                                               "pickle_module is specified"):
            load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
        with pytest.warns(UserWarning, match="pickle_load_args only works if"):
            assert load(io.BytesIO(data), encoding="latin1") == 1
        with pytest.raises(TypeError, match="errors"), warnings.catch_warnings():
            warnings.simplefilter("ignore")          # the same warning, then the refusal
            load(io.BytesIO(data), errors="strict")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert load(io.BytesIO(data), pickle_module=pickle, weights_only=False) == 1


# --- 6. legacy records ---

@pytest.mark.parametrize("records, message", [
    (((-1, b"\0" * 16),), "storage has wrong byte size"),
    (((3, b"\0" * 16),), "storage has wrong byte size"),
    (((8, b"\0" * 32),), "storage has wrong byte size"),
    (((4, b"\0" * 8),), "unexpected EOF, expected 8 more bytes"),
])
def test_legacy_records_must_match_their_storage(records, message):
    data = legacy_checkpoint(tensor((4,), (1,), legacy=True), records=records)
    assert_both_refuse(data, RuntimeError, message)


def test_mmap_of_a_legacy_file_is_refused(tmp_path):
    path = tmp_path / "old.pt"
    path.write_bytes(legacy_checkpoint(tensor((4,), (1,), legacy=True)))
    for load in (ember.load, torch.load):
        with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
            load(path, mmap=True)
    assert ember.load(path).tolist() == torch.load(path).tolist() == [0.0] * 4


def _parameter_with_state(**state):
    return glob("torch._utils", "_rebuild_parameter_with_state") + tup(
        tensor((4,), (1,)), b"\x88", empty_ordered_dict(), _dict_state(**state)) + b"R"


def test_parameter_attributes_load_as_pytorch():
    data = zip_checkpoint(PROTO + _parameter_with_state(note=num(3)) + b".",
                          {"0": b"\0" * 16})
    ours, theirs = ember.load(io.BytesIO(data)), torch.load(io.BytesIO(data))
    assert ours.note == theirs.note == 3 and ours.requires_grad and theirs.requires_grad


@pytest.mark.parametrize("build", [False, True])
@pytest.mark.parametrize("name", ["_dtype", "_version", "sum", "shape"])
def test_a_file_cannot_set_a_parameters_own_attributes(name, build):
    # ember's internals (storage, dtype, version counter) and methods are not a file's to set,
    # as state of _rebuild_parameter_with_state or through BUILD.
    if build:
        param = glob("torch._utils", "_rebuild_parameter") + tup(
            tensor((4,), (1,)), b"\x88", empty_ordered_dict()) + b"R"
        data = zip_checkpoint(PROTO + param + _dict_state(**{name: num(1)}) + b"b.",
                              {"0": b"\0" * 16})
    else:
        data = zip_checkpoint(PROTO + _parameter_with_state(**{name: num(1)}) + b".",
                              {"0": b"\0" * 16})
    with pytest.raises(pickle.UnpicklingError, match=f"may not set the attribute '{name}'"):
        ember.load(io.BytesIO(data))
    assert_ember_intact()
