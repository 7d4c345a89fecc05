"""The inductor tests compile into a cache folder of their own (NOTE [the kernel cache])."""
import atexit
import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="ember-inductor-tests-")
os.environ["EMBER_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)
