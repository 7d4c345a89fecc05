"""Op entries, one family a file. Importing this package fills the op registry."""
from ember._ops import (  # noqa: F401
    conversion, creation, linalg, pointwise, reduction, view,
)
