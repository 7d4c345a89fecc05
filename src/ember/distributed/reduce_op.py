"""`ReduceOp`: how a reducing collective combines the ranks' values."""
from __future__ import annotations

import enum

__all__ = ["ReduceOp", "reduce_op"]


class _RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


class ReduceOp:
    """The reduction of all_reduce / reduce / reduce_scatter: `ReduceOp.SUM`, `AVG`, `PRODUCT`,
    `MIN`, `MAX`, `BAND`, `BOR`, `BXOR` (`ReduceOp(ReduceOp.SUM)` is the same op)."""

    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM
    UNUSED = _RedOpType.UNUSED

    def __new__(cls, op=_RedOpType.SUM):
        return as_red_op(op)


def as_red_op(op) -> _RedOpType:
    if isinstance(op, _RedOpType):
        return op
    raise TypeError(f"Invalid reduce op: expected a ReduceOp (ReduceOp.SUM ...), got "
                    f"{type(op).__name__}")


class reduce_op:
    """Deprecated alias of ReduceOp's members (`reduce_op.SUM`)."""

    SUM = _RedOpType.SUM
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
