"""Op entries, one family a file. Importing this package fills the op registry."""
from ember._ops import (  # noqa: F401
    conversion, creation, cumulative, indexing, linalg, pointwise, pointwise_math, random,
    reduction, shape, sorting, view,
)
