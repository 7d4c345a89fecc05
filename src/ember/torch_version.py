"""`ember.torch_version.TorchVersion`: a version string that compares as a version.

`TorchVersion("2.13.0") >= (2, 2)`, `>= "2.2.0a0"` and `>= packaging.version.Version("2.2")` all
compare PEP 440 versions (release numbers, then pre-, post-, dev-releases and local labels), as
programs gating on `torch.__version__` expect; a string that is no version compares as text.
"""
from __future__ import annotations

import re

__all__ = ["TorchVersion"]

_PATTERN = re.compile(
    r"v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|alpha|b|beta|c|rc|pre|preview)[-_.]?(?P<pre_n>\d+)?)?"
    r"(?:-(?P<post_bare>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n>\d+)?(?P<post_mark>))?"
    r"(?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d+)?)?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?",
    re.IGNORECASE)
_PHASES = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def _key(text: str):
    """The sort key of a PEP 440 version, or None when `text` is no version."""
    found = _PATTERN.fullmatch(text.strip())
    if found is None:
        return None
    g = found.groupdict()
    release = [int(n) for n in g["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    has_post = g["post_bare"] is not None or g["post_mark"] is not None
    if g["pre"] is not None:
        pre = (_PHASES[g["pre"].lower()], int(g["pre_n"] or 0))
    elif not has_post and g["dev"] is not None:
        pre = (-1, 0)           # 1.0.dev0 comes before 1.0a0
    else:
        pre = (3, 0)            # a final release comes after its pre-releases
    post = (int(g["post_bare"] or g["post_n"] or 0),) if has_post else (-1,)
    dev = (0, int(g["dev_n"] or 0)) if g["dev"] is not None else (1, 0)
    local = () if g["local"] is None else tuple(
        (1, int(part)) if part.isdigit() else (0, part.lower())
        for part in re.split(r"[-_.]", g["local"]))
    return (int(g["epoch"] or 0), tuple(release), pre, post, dev, local)


def _other_key(other):
    if isinstance(other, str):
        return _key(other)
    if isinstance(other, (tuple, list)):
        return _key(".".join(str(part) for part in other))
    if hasattr(other, "release") and hasattr(other, "epoch"):     # packaging's Version
        return _key(str(other))
    return None


class TorchVersion(str):
    """A `str` (as `__version__` always was) whose comparisons with strings, tuples such as
    `(2, 1)` and packaging's `Version` compare versions."""

    __slots__ = ()

    def _compare(self, other, test):
        mine, theirs = _key(self), _other_key(other)
        if mine is None or theirs is None:
            if isinstance(other, str):
                return test(str(self), str(other))
            return NotImplemented
        return test(mine, theirs)

    def __eq__(self, other):
        return self._compare(other, lambda a, b: a == b)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    # `!=` stays str's (as PyTorch's TorchVersion: "2.13.0" != (2, 13) is True).
    __hash__ = str.__hash__
