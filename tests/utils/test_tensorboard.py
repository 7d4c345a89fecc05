"""SummaryWriter writes event files that TensorBoard's own reader reads back, with the same
tags, steps, values, histograms and runs as PyTorch's SummaryWriter."""
import struct
import zlib

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_multiplexer import EventMultiplexer
from torch.utils.tensorboard import SummaryWriter as TorchWriter

import ember
from ember.utils.tensorboard import SummaryWriter


def _log(writer_cls, lib, path):
    values = lib.tensor(np.linspace(-2.0, 3.0, 97))
    with writer_cls(str(path)) as writer:
        for step in range(4):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_scalar("tensor_scalar", lib.tensor(step * 0.5), step)
            writer.add_scalars("curves", {"a": step, "b": 2.0 * step}, step)
        writer.add_histogram("weights", values, 0)
        writer.add_histogram("weights_few_bins", values, 1, bins=5, max_bins=3)
        writer.add_text("note", "hello", 0)
        writer.add_hparams({"lr": 0.1, "opt": "sgd", "nesterov": True}, {"acc": 0.5},
                           run_name="hp")


def _runs(path):
    multiplexer = EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(path))
    multiplexer.Reload()
    return multiplexer


def test_events_read_back_like_pytorchs(tmp_path):
    _log(SummaryWriter, ember, tmp_path / "ours")
    _log(TorchWriter, torch, tmp_path / "theirs")
    ours, theirs = _runs(tmp_path / "ours"), _runs(tmp_path / "theirs")
    assert sorted(ours.Runs()) == sorted(theirs.Runs())
    for run in theirs.Runs():
        ours_tags, their_tags = ours.Runs()[run], theirs.Runs()[run]
        for kind in ("scalars", "histograms", "tensors"):
            assert sorted(ours_tags[kind]) == sorted(their_tags[kind]), (run, kind)
        for tag in their_tags["scalars"]:
            assert [(e.step, e.value) for e in ours.Scalars(run, tag)] == \
                [(e.step, e.value) for e in theirs.Scalars(run, tag)]
        for tag in their_tags["histograms"]:
            a = ours.Histograms(run, tag)[0].histogram_value
            b = theirs.Histograms(run, tag)[0].histogram_value
            assert (a.min, a.max, a.num, a.bucket_limit, a.bucket) == \
                (b.min, b.max, b.num, b.bucket_limit, b.bucket)
            assert a.sum == pytest.approx(b.sum) and a.sum_squares == pytest.approx(b.sum_squares)


def _decode_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        chunks.setdefault(kind, b"")
        chunks[kind] += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    width, height, _, color, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    channels = {0: 1, 2: 3, 6: 4}[color]
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [raw[y * (width * channels + 1) + 1:(y + 1) * (width * channels + 1)]
            for y in range(height)]
    return np.frombuffer(b"".join(rows), np.uint8).reshape(height, width, channels)


@pytest.mark.parametrize("shape,formats", [((3, 4, 5), "CHW"), ((4, 5, 3), "HWC"),
                                           ((4, 5), "HW"), ((1, 4, 5), "CHW")])
def test_images_are_pngs_of_the_right_pixels(tmp_path, shape, formats):
    values = np.random.default_rng(0).random(shape).astype(np.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_image("img", ember.tensor(values), 0, dataformats=formats)
    accumulator = EventAccumulator(str(tmp_path))
    accumulator.Reload()
    event = accumulator.Images("img")[0]
    pixels = _decode_png(event.encoded_image_string)
    hwc = {"CHW": lambda: values.transpose(1, 2, 0), "HWC": lambda: values,
           "HW": lambda: values[..., None]}[formats]()
    expected = (hwc * 255).clip(0, 255).astype(np.uint8)
    np.testing.assert_array_equal(pixels, expected)
    assert (event.height, event.width) == expected.shape[:2]


def test_bad_calls_raise():
    with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary"):
        SummaryWriter("/tmp/ember-tb-bad").add_hparams([], {})
    with pytest.raises(NotImplementedError, match="add_graph"):
        SummaryWriter("/tmp/ember-tb-bad").add_graph(None)
    with pytest.raises(AssertionError, match="one element"):
        SummaryWriter("/tmp/ember-tb-bad").add_scalar("x", ember.ones(2))
