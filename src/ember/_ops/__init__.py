"""Op entries, one family a file. Importing this package fills the op registry."""
from ember._ops import (  # noqa: F401
    activation, contraction, conversion, creation, creation_data, creation_ranges, cumulative,
    decomposition, filling, indexing, indexing_masked, indexing_scatter, linalg, misc, pointwise,
    pointwise_binary, pointwise_logic, pointwise_math, pointwise_special, pointwise_ternary,
    random, random_inplace, reduction, reduction_stats, shape, shape_join, sorting, typing_ops,
    view, view_slicing,
)
