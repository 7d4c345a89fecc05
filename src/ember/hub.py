"""`ember.hub`: models and weights by URL or repository. Weights download into the same cache
PyTorch uses (`$TORCH_HOME/hub`, else `$XDG_CACHE_HOME/torch/hub`, else `~/.cache/torch/hub`),
so a checkpoint fetched by either is found by both; `load` runs a repository's `hubconf.py`
entry point (`source='local'` for a directory; 'github' fetches the repository's archive)."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile

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

_hub_dir = [None]


def get_dir() -> str:
    """The hub's cache directory."""
    if _hub_dir[0] is not None:
        return _hub_dir[0]
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")),
        "torch")
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d) -> None:
    _hub_dir[0] = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None,
                         progress: bool = True) -> None:
    """Download `url` to `dst` (through a temporary file beside it), checking that the file's
    SHA-256 starts with `hash_prefix` when one is given."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(delete=False, dir=folder) as tmp:
        try:
            request = urllib.request.Request(url, headers={"User-Agent": "ember.hub"})
            with urllib.request.urlopen(request) as response:
                while True:
                    block = response.read(READ_DATA_CHUNK)
                    if not block:
                        break
                    tmp.write(block)
                    digest.update(block)
            tmp.close()
            if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest.hexdigest()}")')
            shutil.move(tmp.name, dst)
        finally:
            if os.path.exists(tmp.name):
                os.remove(tmp.name)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None,
                             progress: bool = True, check_hash: bool = False,
                             file_name: str | None = None, weights_only: bool = False):
    """The object saved at `url` (a state dict), downloaded once into `model_dir`
    (default `<hub dir>/checkpoints`) and loaded with `ember.load`. With `check_hash`, the
    file name's `-<sha256 prefix>.` part must match the contents."""
    import ember
    model_dir = os.path.join(get_dir(), "checkpoints") if model_dir is None else model_dir
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        found = HASH_REGEX.search(name) if check_hash else None
        download_url_to_file(url, cached, found.group(1) if found else None, progress)
    if zipfile.is_zipfile(cached) and _legacy_zip(cached):
        with zipfile.ZipFile(cached) as archive:
            member = archive.infolist()[0].filename
            archive.extractall(model_dir)
        cached = os.path.join(model_dir, member)
    return ember.load(cached, map_location=map_location, weights_only=weights_only)


def _legacy_zip(path: str) -> bool:
    """A zip holding one saved file (PyTorch's old packaging), not a checkpoint archive."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    return len(names) == 1 and not names[0].endswith("data.pkl")


def _repo_dir(repo_or_dir: str, source: str, force_reload: bool) -> str:
    if source == "local":
        return repo_or_dir
    if source != "github":
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    owner_name, _, ref = repo_or_dir.partition(":")
    owner, name = owner_name.split("/")
    ref = ref or "main"
    target = os.path.join(get_dir(), f"{owner}_{name}_{ref.replace('/', '_')}")
    if force_reload or not os.path.exists(target):
        archive = os.path.join(get_dir(), f"{ref.replace('/', '_')}.zip")
        os.makedirs(get_dir(), exist_ok=True)
        download_url_to_file(f"https://github.com/{owner}/{name}/zipball/{ref}", archive)
        with zipfile.ZipFile(archive) as zipped:
            top = zipped.namelist()[0].split("/")[0]
            zipped.extractall(get_dir())
        os.remove(archive)
        shutil.rmtree(target, ignore_errors=True)
        shutil.move(os.path.join(get_dir(), top), target)
    return target


def _hubconf(repo_dir: str):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    return module


def _entry(hubconf, model: str):
    found = getattr(hubconf, model, None)
    if found is None or not callable(found):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return found


def list(github, force_reload=False, skip_validation=False, trust_repo="check",
         verbose=True, *, source: str = "github"):
    """The entry points of a repository's hubconf.py."""
    hubconf = _hubconf(_repo_dir(github, source, force_reload))
    return [name for name in dir(hubconf)
            if callable(getattr(hubconf, name)) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False,
         trust_repo="check", *, source: str = "github"):
    """An entry point's docstring."""
    return _entry(_hubconf(_repo_dir(github, source, force_reload)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """What a repository's (or a local directory's) hubconf entry point `model` returns."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    return _entry(_hubconf(_repo_dir(repo_or_dir, source, force_reload)), model)(*args,
                                                                                  **kwargs)
