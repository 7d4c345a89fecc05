"""Summary protocol buffers for SummaryWriter: scalars, histograms (PyTorch's bucketing),
images (PNG encoded here with zlib, no imaging library needed), text and hyper-parameters."""
from __future__ import annotations

import struct
import zlib

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto


def to_numpy(value) -> np.ndarray:
    """A tensor, array or number as a NumPy array."""
    import ember
    if isinstance(value, ember.Tensor):
        value = value.detach().cpu()
        if value.dtype == ember.bfloat16:
            value = value.float()
        return value.numpy()
    return np.asarray(value)


def scalar(name, value, new_style=False, double_precision=False) -> Summary:
    array = to_numpy(value).squeeze()
    if array.ndim != 0:
        raise AssertionError("Tensor should contain one element (0 dimensions). Was given "
                             f"size: {array.size} and {array.ndim} dimensions.")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    proto = TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision else \
        TensorProto(float_val=[number], dtype="DT_FLOAT")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def default_bins() -> list:
    """TensorFlow's histogram buckets: ±1e-12 growing by 10% up to 1e20, and 0."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def histogram(name, values, bins, max_bins=None) -> Summary:
    values = to_numpy(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        step = len(counts) // max_bins
        if len(counts) % step:
            counts = np.pad(counts, (0, step - len(counts) % step))
        counts = counts.reshape(-1, step).sum(axis=-1)
        limits = np.concatenate([limits[:-1:step], limits[-1:]])
    # Keep the buckets from the first to the last non-empty one (plus one empty bucket before).
    filled = np.cumsum(counts > 0)
    start, end = np.searchsorted(filled, [0, filled[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    proto = HistogramProto(min=values.min(), max=values.max(), num=len(values),
                           sum=values.sum(), sum_squares=values.dot(values),
                           bucket_limit=limits.tolist(), bucket=counts.tolist())
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def _png(image: np.ndarray) -> bytes:
    """A PNG file of an HxWxC uint8 image (C = 1, 3 or 4)."""
    height, width, channels = image.shape
    color_type = {1: 0, 3: 2, 4: 6}[channels]
    rows = b"".join(b"\x00" + image[y].tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """An image (or a batch, tiled into a grid) in HWC layout with 1, 3 or 4 channels."""
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats) or array.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. tensor "
                             f"shape: {array.shape}, input_format: {dataformats}")
    if dataformats.endswith("HW") and "C" not in dataformats and "N" not in dataformats:
        return array[..., None] if array.ndim == 2 else array
    if "N" in dataformats:
        array = array.transpose([dataformats.index(c) for c in "NHWC" if c in dataformats]) \
            if "C" in dataformats else array.transpose(
                [dataformats.index(c) for c in "NHW"])[..., None]
        n, h, w, c = array.shape
        columns = int(np.ceil(np.sqrt(n)))
        rows = int(np.ceil(n / columns))
        grid = np.zeros((rows * h, columns * w, c), array.dtype)
        for i in range(n):
            r, col = divmod(i, columns)
            grid[r * h:(r + 1) * h, col * w:(col + 1) * w] = array[i]
        return grid
    return array.transpose([dataformats.index(c) for c in "HWC"])


def image(tag, img, dataformats="CHW") -> Summary:
    array = to_hwc(to_numpy(img), dataformats)
    if array.shape[2] == 2:
        raise ValueError("images need 1, 3 or 4 channels")
    scale = 1 if array.dtype == np.uint8 else 255
    pixels = (array.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    if pixels.shape[2] not in (1, 3, 4):
        raise ValueError("images need 1, 3 or 4 channels")
    height, width, channels = pixels.shape
    proto = Summary.Image(height=height, width=width, colorspace=channels,
                          encoded_image_string=_png(pixels))
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def text(tag, string) -> Summary:
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[string.encode("utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata,
                                        tensor=proto)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the HParams plugin."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import metadata as hp_metadata
    from tensorboard.plugins.hparams.api_pb2 import (
        DataType,
        Experiment,
        HParamInfo,
        MetricInfo,
        MetricName,
        Status,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import (
        HParamsPluginData,
        SessionEndInfo,
        SessionStartInfo,
    )

    import ember
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for key, values in domains.items():
        if key not in hparam_dict or not isinstance(values, list) or \
                not all(isinstance(d, type(hparam_dict[key])) for d in values):
            raise TypeError(f"parameter: hparam_domain_discrete[{key}] should be a list of "
                            f"same type as hparam_dict[{key}].")
    infos, start = [], SessionStartInfo()
    for key, value in hparam_dict.items():
        if value is None:
            continue
        if isinstance(value, ember.Tensor):
            value = float(to_numpy(value).reshape(-1)[0])
        if isinstance(value, bool):
            start.hparams[key].bool_value = value
            kind, field = "DATA_TYPE_BOOL", "bool_value"
        elif isinstance(value, (int, float)):
            start.hparams[key].number_value = value
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(value, str):
            start.hparams[key].string_value = value
            kind, field = "DATA_TYPE_STRING", "string_value"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d})
                                              for d in domains[key]]) \
            if key in domains else None
        infos.append(HParamInfo(name=key, type=DataType.Value(kind), domain_discrete=domain))

    def wrap(tag, **content):
        data = HParamsPluginData(version=hp_metadata.PLUGIN_DATA_VERSION, **content)
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
            plugin_name=hp_metadata.PLUGIN_NAME, content=data.SerializeToString()))
        return Summary(value=[Summary.Value(tag=tag, metadata=meta)])
    experiment = Experiment(hparam_infos=infos,
                            metric_infos=[MetricInfo(name=MetricName(tag=k))
                                          for k in metric_dict])
    return (wrap(hp_metadata.EXPERIMENT_TAG, experiment=experiment),
            wrap(hp_metadata.SESSION_START_INFO_TAG, session_start_info=start),
            wrap(hp_metadata.SESSION_END_INFO_TAG,
                 session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
