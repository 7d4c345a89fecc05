"""Damaged checkpoints never crash ember.load: valid files (zip from ember and PyTorch, legacy
from PyTorch) mutated byte by byte (seeded flips, overwrites, truncations, insertions, also
inside the pickle of a re-zipped file so that the zip's CRC does not catch them) are loaded in
a child process, so a segfault or hang names its mutant instead of killing the test run."""
import io
import json
import random
import struct
import subprocess
import sys
import zipfile
from collections import OrderedDict
from pathlib import Path

import torch

import ember

# Run in the child: load every mutant (zip ones also with mmap=True), print each outcome as it
# ends, so a crash leaves the mutant it died on as the last "start" line.
CHILD = r"""
import json, sys, warnings
from pathlib import Path
import numpy as np
import ember
warnings.simplefilter("ignore")
try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:
    byte_bounds = np.byte_bounds
FATAL = (MemoryError, RecursionError, SystemError)

def tensors(obj, seen=None):
    if isinstance(obj, ember.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for value in list(obj.values()):
            yield from tensors(value)
    elif isinstance(obj, (list, tuple, set)):
        for value in obj:
            yield from tensors(value)

def inside_storage(t):
    array = t._data
    if not isinstance(array, np.ndarray) or array.size == 0:
        return True
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    low, high = byte_bounds(array)
    root_low, root_high = byte_bounds(root)
    return root_low <= low and high <= root_high

for path in sorted(Path(sys.argv[1]).iterdir()):
    for mmap in ([False, True] if path.name.startswith("zip") else [False]):
        name = f"{path.name} mmap={mmap}"
        print(json.dumps(["start", name]), flush=True)
        try:
            loaded = ember.load(path, mmap=mmap)
        except FATAL as exc:
            print(json.dumps(["fatal", name, repr(exc)]), flush=True)
            continue
        except Exception as exc:
            print(json.dumps(["refused", name, type(exc).__name__]), flush=True)
            continue
        for t in tensors(loaded):
            if not inside_storage(t):
                print(json.dumps(["outside", name, str(t.shape)]), flush=True)
            t = t.detach()
            if t.layout is ember.strided:
                t.sum()
                t.clone()
        print(json.dumps(["loaded", name]), flush=True)
print(json.dumps(["done"]), flush=True)
"""


def _state():
    base = torch.arange(12.0).view(3, 4)
    return OrderedDict([
        ("base", base), ("rows", base[1:]), ("cols", base[:, ::2]), ("t", base.t()),
        ("param", torch.nn.Parameter(torch.ones(2, 2))), ("ints", torch.tensor([1, 2, 3])),
        ("flags", torch.tensor([True, False])), ("half", torch.ones(3, dtype=torch.float16)),
        ("nested", OrderedDict([("step", 3), ("lr", 0.1), ("names", ["a", "b"])])),
    ])


def _seeds() -> dict:
    ours = ember.nn.Parameter(ember.ones(2))
    base = ember.arange(6.0).view(2, 3)
    buffer = io.BytesIO()
    ember.save({"base": base, "view": base[:, 1:], "p": ours,
                "u16": ember.ones(2, dtype=ember.uint16), "meta": OrderedDict(a=1)}, buffer)
    seeds = {"zip_ember": buffer.getvalue()}
    buffer = io.BytesIO()
    torch.save(_state(), buffer)
    seeds["zip_torch"] = buffer.getvalue()
    buffer = io.BytesIO()
    torch.save(_state(), buffer, _use_new_zipfile_serialization=False)
    seeds["legacy_torch"] = buffer.getvalue()
    return seeds


def _mutate_number(data: bytes, rng: random.Random) -> bytes:
    """One small int of the pickle (a BININT1: sizes, strides, offsets, counts) replaced by
    another small one or by a large or negative 4-byte int."""
    positions = [i for i in range(len(data) - 1) if data[i] == 0x4B]       # K: BININT1
    if not positions:
        return _mutate(data, rng)
    at = rng.choice(positions)
    if rng.random() < 0.5:
        return data[:at + 1] + bytes([rng.randrange(256)]) + data[at + 2:]
    value = rng.choice([-1, -7, 2**31 - 1, -2**31, 2**16, 2**20, 2**30 + 3])
    return data[:at] + b"J" + struct.pack("<i", value) + data[at + 2:]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(4)
    at = rng.randrange(len(data))
    if kind == 0:      # flip bits of one to three bytes
        out = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            out[rng.randrange(len(out))] ^= rng.randint(1, 255)
        return bytes(out)
    if kind == 1:      # overwrite a byte with a boundary value
        return data[:at] + bytes([rng.choice([0, 1, 0x7F, 0x80, 0xFF])]) + data[at + 1:]
    if kind == 2:      # truncate
        return data[:at]
    return data[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + data[at:]


def _rezipped(data: bytes, rng: random.Random) -> bytes:
    """`data` (a zip checkpoint) with its data.pkl mutated and stored with a valid CRC."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            content = zin.read(info.filename)
            if info.filename.endswith("data.pkl"):
                mutate = _mutate_number if rng.random() < 0.6 else _mutate
                content = mutate(content, rng)
            zout.writestr(info, content)
    return out.getvalue()


def _write_mutants(directory: Path) -> int:
    rng = random.Random(20261207)
    count = 0
    for name, data in _seeds().items():
        for k in range(70):
            mutate = _mutate_number if name.startswith("legacy") and k % 2 else _mutate
            (directory / f"{name}_raw{k:03d}").write_bytes(mutate(data, rng))
            count += 1
        if name.startswith("zip"):
            for k in range(70):
                (directory / f"{name}_pickle{k:03d}").write_bytes(_rezipped(data, rng))
                count += 1
    return count


def test_mutated_checkpoints_load_or_refuse_without_crashing(tmp_path):
    count = _write_mutants(tmp_path)
    assert count >= 300
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True,
                           text=True, timeout=120, cwd=Path(__file__).parent.parent,
                           env={**__import__("os").environ, "PYTHONPATH": "src"})
    events = [json.loads(line) for line in child.stdout.splitlines() if line.startswith("[")]
    started = [e[1] for e in events if e[0] == "start"]
    finished = {e[1] for e in events if e[0] in ("refused", "loaded", "fatal")}
    crashed = [n for n in started if n not in finished]
    assert child.returncode == 0 and events[-1] == ["done"], \
        f"the loader died (rc {child.returncode}) on {crashed[-1:]}: {child.stderr[-2000:]}"
    assert not crashed
    bad = [e for e in events if e[0] in ("fatal", "outside")]
    assert not bad, bad
    loaded = sum(e[0] == "loaded" for e in events)
    refused = sum(e[0] == "refused" for e in events)
    assert loaded and refused, (loaded, refused)     # the mutants reach both outcomes
