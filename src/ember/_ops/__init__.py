"""Op entries, one family a file. Importing this package fills the op registry."""
from ember._ops import (  # noqa: F401
    contraction, conversion, creation, creation_ranges, pointwise, pointwise_logic, pointwise_ternary, cumulative, indexing, indexing_masked,
    indexing_scatter, linalg,
    pointwise_math, pointwise_binary, pointwise_special, random, random_inplace, reduction, reduction_stats, shape, sorting, view,
    filling, activation, misc,
    shape_join, view_slicing, typing_ops,
)
