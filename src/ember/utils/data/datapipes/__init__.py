"""`ember.utils.data.datapipes`: PyTorch's DataPipes (deprecated there, still used by older
pipelines): the base classes and decorators (datapipe.py, _decorator.py), the iterable pipes
(iter.py) and the map-style ones (map.py)."""
from ember.utils.data.datapipes import datapipe, iter, map

__all__ = ["datapipe", "iter", "map"]
