"""`ember.utils.tensorboard`: `SummaryWriter` (writer.py) logs scalars, histograms, images, text
and hyper-parameters into event files that TensorBoard reads; the summaries are built in
summary.py over the tensorboard package's protocol buffers (loaded on first use)."""
try:
    import tensorboard  # noqa: F401
except ImportError:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above "
                      "(pip install tensorboard)") from None

from ember.utils.tensorboard.writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
