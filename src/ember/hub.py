"""`ember.hub`: checkpoints fetched by URL into a cache folder, and models from `hubconf.py`.

The cache is PyTorch's (`$TORCH_HOME/hub`, by default `~/.cache/torch/hub`), so a checkpoint
PyTorch downloaded once loads here without the network. `load` reads a local repository's
`hubconf.py` (source='local'); GitHub repositories (and so `list` and `help`) need their
archive downloaded, which ember does not do yet.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
READ_DATA_CHUNK = 128 * 1024
# A checkpoint's file name may carry the start of its SHA-256 after a dash: name-<hex>.ext.
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

_hub_dir: str | None = None


def _get_torch_home() -> str:
    cache = os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR)
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(cache, "torch")))


def get_dir() -> str:
    """The hub's cache folder: set_dir's, else $TORCH_HOME/hub."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    """Use folder `d` as the hub's cache from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None,
                         progress: bool = True) -> None:
    """Download `url` to the file `dst` (through a temporary file beside it), checking that
    the SHA-256 of the content starts with `hash_prefix` when given."""
    dst = os.path.expanduser(dst)
    request = Request(url, headers={"User-Agent": "ember.hub"})
    digest = hashlib.sha256() if hash_prefix is not None else None
    folder = os.path.dirname(os.path.abspath(dst))
    with urlopen(request) as response, tempfile.NamedTemporaryFile(
            delete=False, dir=folder) as out:
        try:
            while True:
                chunk = response.read(READ_DATA_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                if digest is not None:
                    digest.update(chunk)
            out.close()
            if digest is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest.hexdigest()}")')
            shutil.move(out.name, dst)
        finally:
            if os.path.exists(out.name):
                os.remove(out.name)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None,
                             progress: bool = True, check_hash: bool = False,
                             file_name: str | None = None, weights_only: bool = False):
    """The object saved at `url`, read with ember.load from the cache folder
    (`<hub dir>/checkpoints` unless `model_dir`), downloaded there first if missing."""
    from ember.serialization import load
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        found = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, found.group(1) if found else None, progress=progress)
    return load(cached, map_location=map_location, weights_only=weights_only)


def _hubconf(repo_or_dir: str, source: str):
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise NotImplementedError("ember.hub: loading from GitHub is not implemented; clone the "
                                  "repository and pass its folder with source='local'")
    path = os.path.join(os.path.expanduser(repo_or_dir), MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(os.path.dirname(path))
    missing = [name for name in getattr(module, VAR_DEPENDENCY, ())
               if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model: str):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def list(github, force_reload=False, skip_validation=False, trust_repo=None,
         verbose=True):
    """The names of the entry points the GitHub repository's `hubconf.py` offers."""
    module = _hubconf(github, "github")
    return [name for name, value in vars(module).items()
            if callable(value) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False,
         trust_repo=None):
    """The docstring of entry point `model` of the GitHub repository's `hubconf.py`."""
    return _entry(_hubconf(github, "github"), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """What entry point `model` of the repository's `hubconf.py` returns for *args, **kwargs."""
    source = source.lower()
    return _entry(_hubconf(repo_or_dir, source), model)(*args, **kwargs)
