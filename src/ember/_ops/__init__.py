"""Op entries, one family a file. Importing this package fills the op registry: the families in
EAGER are imported, those in LAZY are indexed (by `_generated/op_index.py`, which the bindings
import) and load on first use (NOTE [op families load on first use], _core/registry.py). The
families import only the core, the back-ends, the generator, typed storage and each other;
autograd, nn and the facade are reached through NOTE [upcalls] (_core/upcalls.py)."""
import importlib as _importlib

from ember._ops import complex_half_ops, conversion  # noqa: F401  (EAGER)

EAGER = ("complex_half_ops", "conversion")

# Indexed by `_generated/op_index.py` (tools/gen_bindings.py); a new family file goes here.
LAZY = (
    "activation",
    "contraction",
    "creation",
    "creation_data",
    "creation_ranges",
    "cumulative",
    "decomposition",
    "fft",
    "fft_stft",
    "filling",
    "indexing",
    "indexing_masked",
    "indexing_scatter",
    "linalg",
    "linalg_checks",
    "linalg_deprecated",
    "linalg_factor",
    "linalg_frontends",
    "linalg_solve",
    "linalg_spectral",
    "misc",
    "misc_complex",
    "misc_copies",
    "misc_hashing",
    "misc_numeric",
    "misc_stats",
    "misc_tensor",
    "nn_activation",
    "nn_activation_backward",
    "nn_conv",
    "nn_conv_api",
    "nn_ctc",
    "nn_distance",
    "nn_dropout",
    "nn_embedding",
    "nn_embedding_bag",
    "nn_fold",
    "nn_fractional",
    "nn_functions",
    "nn_functions_layers",
    "nn_grid",
    "nn_linear",
    "nn_loss",
    "nn_loss_bce",
    "nn_loss_pointwise",
    "nn_norm",
    "nn_padding",
    "nn_pooling",
    "nn_rnn",
    "nn_rrelu",
    "nn_sampling",
    "pointwise",
    "pointwise_binary",
    "pointwise_logic",
    "pointwise_math",
    "pointwise_special",
    "pointwise_ternary",
    "random",
    "random_distributions",
    "random_inplace",
    "reduction",
    "reduction_stats",
    "shape",
    "shape_join",
    "sorting",
    "sparse",
    "sparse_blocked",
    "sparse_csc",
    "sparse_legacy",
    "special_functions",
    "special_polynomials",
    "tensor_attributes",
    "tensor_storage",
    "typing_ops",
    "view",
    "view_backward",
    "view_slicing",
    "windows",
    "foreach",
)

# Over every kernel entered for an op, as each op is built: the complex32 wrappers (NOTE
# [complex32 storage]).
complex_half_ops.install()


def load_families() -> None:
    """Import every LAZY family (tools that read every op's module-level state)."""
    for name in LAZY:
        _importlib.import_module(f"ember._ops.{name}")
