"""`ember.hub` against `torch.hub`, offline: the cache directory, downloads from file:// URLs
(hash prefixes checked), state dicts loaded from a URL (including one PyTorch saved), and a
local repository's hubconf entry points."""
from __future__ import annotations

import hashlib
import pathlib

import pytest
import torch

import ember


def test_default_dir_is_torchs(monkeypatch, tmp_path):
    assert ember.hub.get_dir() == torch.hub.get_dir()
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    assert ember.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "hub")
    old = ember.hub._hub_dir[0]
    try:
        ember.hub.set_dir(tmp_path / "elsewhere")
        assert ember.hub.get_dir() == str(tmp_path / "elsewhere")
    finally:
        ember.hub._hub_dir[0] = old


def test_download_checks_the_hash(tmp_path):
    source = tmp_path / "blob.bin"
    source.write_bytes(b"ember hub" * 100)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    for lib in (torch, ember):
        target = tmp_path / f"copy_{lib.__name__}.bin"
        lib.hub.download_url_to_file(source.as_uri(), str(target), hash_prefix=digest[:8],
                                     progress=False)
        assert target.read_bytes() == source.read_bytes()
        with pytest.raises(RuntimeError, match="invalid hash value"):
            lib.hub.download_url_to_file(source.as_uri(), str(tmp_path / "bad"),
                                         hash_prefix="0000", progress=False)
        assert not (tmp_path / "bad").exists()


def test_load_state_dict_from_url_reads_torch_weights(tmp_path):
    model = torch.nn.Linear(3, 2)
    saved = tmp_path / "linear.pth"
    torch.save(model.state_dict(), saved)
    digest = hashlib.sha256(saved.read_bytes()).hexdigest()[:10]
    named = tmp_path / f"linear-{digest}.pth"
    named.write_bytes(saved.read_bytes())
    state = ember.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(tmp_path / "c"),
                                               check_hash=True, progress=False)
    theirs = torch.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(tmp_path / "t"),
                                                check_hash=True, progress=False)
    assert list(state) == list(theirs)
    for key in state:
        assert state[key].tolist() == theirs[key].tolist()
    assert (tmp_path / "c" / named.name).exists()      # cached under its file name
    again = ember.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(tmp_path / "c"))
    assert again["weight"].tolist() == state["weight"].tolist()


def test_local_hubconf(tmp_path):
    repo = pathlib.Path(tmp_path / "repo")
    repo.mkdir()
    (repo / "hubconf.py").write_text(
        "def tiny(width=2):\n    'A tiny model.'\n    import importlib\n"
        "    lib = importlib.import_module(__import__('os').environ['HUB_LIB'])\n"
        "    return lib.nn.Linear(width, 1)\n\n_private = 1\n")
    import os
    for lib in (torch, ember):
        os.environ["HUB_LIB"] = lib.__name__
        made = lib.hub.load(str(repo), "tiny", width=4, source="local")
        assert isinstance(made, lib.nn.Linear) and made.in_features == 4
        with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
            lib.hub.load(str(repo), "nope", source="local")
        with pytest.raises(ValueError, match="Unknown source"):
            lib.hub.load(str(repo), "tiny", source="ftp")
    assert ember.hub.help(str(repo), "tiny", source="local") == "A tiny model."
    assert ember.hub.list(str(repo), source="local") == ["tiny"]
