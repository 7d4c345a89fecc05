"""What `ember.save` does to the file system (NOTE [atomic save] in
_checkpoint/atomic_write.py): the mode a plain open() gives, symlinks written through, fsync,
nothing left behind by a kill, and the old file whole after it. PyTorch is the oracle where it
has an answer."""
import os
import signal
import stat
import subprocess
import sys
import textwrap

import pytest
import torch

import ember
from ember._checkpoint import atomic_write


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask():
    """Set the umask for one test (it is process-wide) and put it back."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


@pytest.fixture(params=[True, False], ids=["unnamed", "named"])
def tmpfile_kind(request, monkeypatch):
    """Both ways of writing: an O_TMPFILE inode and, where that is missing, a named
    temporary."""
    if request.param and not atomic_write._HAS_TMPFILE:
        pytest.skip("no O_TMPFILE here")
    monkeypatch.setattr(atomic_write, "_HAS_TMPFILE", request.param)
    return request.param


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_new_file_mode_honours_the_umask_as_pytorch(tmp_path, umask, tmpfile_kind, mask):
    umask(mask)
    ember.save({"a": ember.ones(2)}, tmp_path / "ember.pt")
    torch.save({"a": torch.ones(2)}, tmp_path / "torch.pt")
    assert _mode(tmp_path / "ember.pt") == _mode(tmp_path / "torch.pt") == 0o666 & ~mask
    assert sorted(os.listdir(tmp_path)) == ["ember.pt", "torch.pt"]


def test_replacing_a_file_keeps_its_mode_as_pytorch(tmp_path, umask, tmpfile_kind):
    umask(0o022)
    for name, save, value in (("ember.pt", ember.save, ember.ones(2)),
                              ("torch.pt", torch.save, torch.ones(2))):
        path = tmp_path / name
        path.write_bytes(b"old")
        os.chmod(path, 0o640)
        save({"a": value}, path)
        assert _mode(path) == 0o640, name
    assert ember.load(tmp_path / "ember.pt")["a"].tolist() == [1.0, 1.0]


def test_saving_through_a_symlink_writes_its_target_as_pytorch(tmp_path, tmpfile_kind):
    for name, save, value in (("ember", ember.save, ember.arange(3)),
                              ("torch", torch.save, torch.arange(3))):
        target = tmp_path / f"{name}-target.pt"
        target.write_bytes(b"old")
        link = tmp_path / f"{name}-link.pt"
        link.symlink_to(target.name)
        save({"a": value}, link)
        assert link.is_symlink() and os.readlink(link) == target.name, name
        assert torch.load(target)["a"].tolist() == [0, 1, 2], name


def test_saving_through_a_dangling_symlink_creates_its_target_as_pytorch(tmp_path,
                                                                         tmpfile_kind):
    for name, save, value in (("ember", ember.save, ember.arange(3)),
                              ("torch", torch.save, torch.arange(3))):
        link = tmp_path / f"{name}-link.pt"
        link.symlink_to(f"{name}-target.pt")
        save({"a": value}, link)
        assert link.is_symlink(), name
        assert torch.load(tmp_path / f"{name}-target.pt")["a"].tolist() == [0, 1, 2], name
    assert sorted(os.listdir(tmp_path)) == ["ember-link.pt", "ember-target.pt",
                                            "torch-link.pt", "torch-target.pt"]


def test_file_and_directory_are_fsynced_before_and_after_the_rename(tmp_path, monkeypatch,
                                                                    tmpfile_kind):
    path = tmp_path / "ckpt.pt"
    path.write_bytes(b"old")
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        # What was synced, and whether the target had its new contents by then.
        synced.append((stat.S_ISDIR(os.fstat(fd).st_mode), path.read_bytes() == b"old"))
        real_fsync(fd)
    monkeypatch.setattr(os, "fsync", fsync)
    ember.save({"a": ember.ones(2)}, path)
    assert synced == [(False, True), (True, False)]


def test_saving_to_something_that_is_no_regular_file_writes_through_it(tmp_path):
    ember.save({"a": ember.ones(2)}, os.devnull)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_saving_to_a_file_object_is_unchanged(tmp_path):
    with open(tmp_path / "ckpt.pt", "wb") as f:
        ember.save({"a": ember.ones(2)}, f)
    assert ember.load(tmp_path / "ckpt.pt")["a"].tolist() == [1.0, 1.0]
    assert os.listdir(tmp_path) == ["ckpt.pt"]


# The child blocks at a known point of the save and tells the parent through stdout, then
# sleeps until killed: "pickling" blocks while the object is pickled (the file is open, nothing
# written yet), "writing" after the first records of the zip have been written to the file.
_CHILD = textwrap.dedent("""
    import sys, time
    import ember
    from ember._checkpoint import atomic_write, writer

    def block():
        print("blocked", flush=True)
        time.sleep(60)

    class Blocker:
        def __reduce__(self):
            block()

    atomic_write._HAS_TMPFILE = sys.argv[3] == "unnamed"
    obj = {"step": 2, "weight": ember.ones(6_000_000)}
    if sys.argv[2] == "pickling":
        obj["blocker"] = Blocker()
    else:
        real_write_record, records = writer._ZipWriter.write_record, []

        def write_record(self, *args):
            real_write_record(self, *args)
            records.append(args)
            if len(records) == 5:
                block()
        writer._ZipWriter.write_record = write_record
    ember.save(obj, sys.argv[1])
""")


def _kill_a_blocked_save(path, where, temporary):
    """Start a child saving to `path` that blocks at `where`, and SIGKILL it there."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), where, temporary],
                             stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout.readline().strip() == b"blocked"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()


@pytest.mark.parametrize("where", ["pickling", "writing"])
def test_a_save_killed_midway_leaves_the_old_file_and_nothing_else(tmp_path, where):
    path = tmp_path / "ckpt.pt"
    ember.save({"step": 1, "weight": ember.zeros(3)}, path)
    old = path.read_bytes()
    before = sorted(os.listdir(tmp_path))
    _kill_a_blocked_save(path, where, "unnamed")
    assert sorted(os.listdir(tmp_path)) == before
    assert path.read_bytes() == old
    assert ember.load(path)["step"] == 1


def test_a_killed_save_through_a_named_temporary_leaves_the_old_file(tmp_path):
    # Where O_TMPFILE is missing the named temporary stays after a kill (NOTE [atomic save]);
    # the old file is whole all the same.
    path = tmp_path / "ckpt.pt"
    ember.save({"step": 1}, path)
    old = path.read_bytes()
    _kill_a_blocked_save(path, "writing", "named")
    assert path.read_bytes() == old
    leftovers = [name for name in os.listdir(tmp_path) if name != "ckpt.pt"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".ember-save-")


@pytest.mark.parametrize("existing", [False, True])
def test_a_refused_link_of_the_unnamed_file_copies_it_into_place(tmp_path, monkeypatch, umask,
                                                                 existing):
    # A /proc that refuses linkat (some sandboxes): the finished file is copied instead.
    if not atomic_write._HAS_TMPFILE:
        pytest.skip("no O_TMPFILE here")
    umask(0o022)
    path = tmp_path / "ckpt.pt"
    if existing:
        path.write_bytes(b"old")
        os.chmod(path, 0o600)

    def link(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(os, "link", link)
    ember.save({"a": ember.arange(1000)}, path)
    assert ember.load(path)["a"].tolist() == list(range(1000))
    assert os.listdir(tmp_path) == ["ckpt.pt"]
    assert _mode(path) == (0o600 if existing else 0o644)
