"""ChannelShuffle: interleave groups of channels (as in ShuffleNet)."""
from __future__ import annotations

from ember.nn._functional.sampling import channel_shuffle
from ember.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """(N, g*k, *) with channels reordered as the transpose of a (g, k) grid."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
