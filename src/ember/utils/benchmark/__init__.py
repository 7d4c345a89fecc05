"""`ember.utils.benchmark`: `Timer` (timer.py) and `Measurement` (common.py), as
torch.utils.benchmark has them for Python statements."""
from ember.utils.benchmark.common import Measurement, TaskSpec
from ember.utils.benchmark.timer import Timer

__all__ = ["Measurement", "TaskSpec", "Timer"]
