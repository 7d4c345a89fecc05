"""The key-value stores against PyTorch's on the same operations (one process; the TCP and
file stores also through a second client)."""
import datetime

import pytest

import ember.distributed as dist

torch_dist = pytest.importorskip("torch.distributed")


def _script(store, other):
    """Operations on `store` (and on `other`, a second client of the same table)."""
    out = []
    store.set("a", "one")
    store.set("b", b"\x00\x01")
    out.append(other.get("a"))
    out.append(store.get("b"))
    out.append(store.add("n", 5))
    out.append(other.add("n", -2))
    out.append(store.get("n"))
    out.append(store.compare_set("a", "one", "uno"))
    out.append(store.compare_set("a", "nope", "x"))
    out.append(store.compare_set("fresh", "", "new"))
    out.append(store.check(["a", "n"]))
    out.append(store.check(["a", "missing"]))
    out.append(store.num_keys())
    out.append(store.delete_key("b"))
    out.append(store.delete_key("b"))
    out.append(store.num_keys())
    return out


def _kinds(lib, tmp_path, name):
    if name == "hash":
        store = lib.HashStore()
        return store, store
    if name == "file":
        path = str(tmp_path / f"{lib.__name__}.store")
        return lib.FileStore(path, 1), lib.FileStore(path, 1)
    master = lib.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=10))
    return master, lib.TCPStore("127.0.0.1", master.port, 1, False,
                                timeout=datetime.timedelta(seconds=10))


@pytest.mark.parametrize("name", ["hash", "file", "tcp"])
def test_store_operations_match_pytorch(tmp_path, name):
    ours = _script(*_kinds(dist, tmp_path, name))
    theirs = _script(*_kinds(torch_dist, tmp_path, name))
    if name == "hash":
        assert ours == theirs
    else:
        # PyTorch's file and TCP stores count keys of their own, and its FileStore answers
        # True to deleting a key twice: compared up to the key counts and the first delete.
        assert ours[:-4] == theirs[:-4] and ours[-3] == theirs[-3]
        assert ours[-2] is False and ours[-1] == ours[-4] - 1


def test_prefix_store_and_missing_key_timeout():
    base = dist.HashStore()
    store = dist.PrefixStore("job", base)
    store.set("k", "v")
    assert base.get("job/k") == b"v" and store.get("k") == b"v"
    store.set_timeout(datetime.timedelta(milliseconds=50))
    with pytest.raises(dist.DistStoreError):
        store.get("absent")
    theirs = torch_dist.HashStore()
    theirs.set_timeout(datetime.timedelta(milliseconds=50))
    with pytest.raises(torch_dist.DistStoreError):
        theirs.get("absent")
