"""Writing a file so that it is either the old one or the whole new one, never half of either:
`replace_file(path, write)` (what `ember.save` does with a path).

NOTE [atomic save]: the new contents go into a fresh inode in the target's directory, are
fsynced, and only then take the target's name by a rename; the directory is fsynced after it,
so a crash or a kill at any moment leaves the old file (or none) under that name, not a
truncated one. The side effects of that rename are made to match a plain `open(path, "wb")`:

- mode: a new file gets 0o666 less the umask, applied by the kernel at creation (no
  os.umask() round trip, which would race with other threads). When a regular file is
  replaced, its permission bits are kept, as truncating it in place would keep them. Its owner
  and group are not (the new inode belongs to the writer, as with any rename-based save), and
  hard links to the old file keep the old contents. A writable file in a directory the writer
  may not write to cannot be replaced (PermissionError) where open() would truncate it.
- symlinks: the path is resolved and the link's target replaced, so the link stays; a dangling
  link creates its target, as open() would.
- something other than a regular file (/dev/null, a FIFO) cannot be renamed over: it is opened
  and written through, without the guarantee above.
- leftovers: on Linux the new inode is unnamed (O_TMPFILE), so a process killed while writing
  leaves nothing behind. It is named only at the end: straight under the target's name when
  there is no file there yet (linkat cannot overwrite), otherwise under a random
  `.ember-save-*` name that the very next call renames over the target; a kill can leave a
  named file only in that window of two system calls. Where O_TMPFILE or /proc is missing
  (other systems, some filesystems) a named `.ember-save-*` temporary is written instead and
  removed on failure; a kill while writing leaves it. Where /proc refuses the link, the
  finished unnamed file is copied into such a named temporary.
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from typing import BinaryIO

_PREFIX = ".ember-save-"
_HAS_TMPFILE = hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")


def replace_file(path: str, write: Callable[[BinaryIO], None]) -> None:
    """Call `write(stream)` to produce the new contents of `path` and put them in place
    atomically (NOTE [atomic save])."""
    target = os.path.realpath(path)
    try:
        existing = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        if stat.S_ISDIR(existing.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        with open(target, "wb") as stream:
            write(stream)
        return
    directory, name = os.path.split(target)
    directory_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = _open_unnamed(directory_fd)
        if fd is None:
            _replace_through_named_temporary(directory_fd, name, existing, write)
        else:
            try:
                _write_and_sync(fd, existing, write)
                if not _link_into_place(fd, directory_fd, name, existing is None):
                    _replace_through_named_temporary(directory_fd, name, existing,
                                                     _copy_of(fd))
            finally:
                os.close(fd)
        os.fsync(directory_fd)      # makes the rename itself durable
    finally:
        os.close(directory_fd)


def _open_unnamed(directory_fd: int) -> int | None:
    """An unnamed inode in the directory, open for writing; None where there is none to
    have."""
    if not _HAS_TMPFILE:
        return None
    try:
        return os.open(".", os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o666,
                       dir_fd=directory_fd)
    except OSError as exc:
        # The filesystem has no O_TMPFILE (the named temporary works there); any other error
        # (a read-only directory, no permission) is the caller's.
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _write_and_sync(fd: int, existing, write) -> None:
    with os.fdopen(fd, "wb", closefd=False) as stream:
        write(stream)
    if existing is not None:
        os.fchmod(fd, stat.S_IMODE(existing.st_mode))
    os.fsync(fd)


# What linkat() of /proc/self/fd/N answers where that is refused (a restricted /proc, a
# sandbox): the contents are then copied to a named temporary instead.
_LINK_REFUSED = (errno.EPERM, errno.ENOENT, errno.EXDEV, errno.EOPNOTSUPP, errno.EINVAL)


def _link_into_place(fd: int, directory_fd: int, name: str, target_missing: bool) -> bool:
    """Give the unnamed inode `fd` the name `name`; False where linking it is refused."""
    # Linking /proc/self/fd/N with AT_SYMLINK_FOLLOW names the unnamed inode; os.link makes
    # that linkat() call only when given a directory fd (plain link() would try to link the
    # /proc symlink itself).
    source = f"/proc/self/fd/{fd}"
    names = [name] if target_missing else []
    while True:
        temporary = names.pop() if names else _PREFIX + secrets.token_hex(8)
        try:
            os.link(source, temporary, dst_dir_fd=directory_fd, follow_symlinks=True)
        except FileExistsError:
            continue        # the target, created meanwhile by someone else, or a name taken
        except OSError as exc:
            if exc.errno in _LINK_REFUSED:
                return False
            raise
        if temporary == name:
            return True
        break
    try:
        os.replace(temporary, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    except BaseException:
        os.unlink(temporary, dir_fd=directory_fd)
        raise
    return True


def _copy_of(fd: int):
    """A `write` that copies the file `fd` into its stream."""
    def write(stream):
        stream.flush()
        size, offset = os.fstat(fd).st_size, 0
        while offset < size:
            offset += os.sendfile(stream.fileno(), fd, offset, size - offset)
    return write


def _replace_through_named_temporary(directory_fd: int, name: str, existing, write) -> None:
    while True:
        temporary = _PREFIX + secrets.token_hex(8)
        try:
            fd = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC,
                         0o666, dir_fd=directory_fd)
            break
        except FileExistsError:
            continue
    try:
        try:
            _write_and_sync(fd, existing, write)
        finally:
            os.close(fd)
        os.replace(temporary, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    except BaseException:
        os.unlink(temporary, dir_fd=directory_fd)
        raise
