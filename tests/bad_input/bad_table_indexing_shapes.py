"""More cases of test_bad_table.py (same form as bad_table_cases.py: label, call(lib), PyTorch's
message fragment or None): indexing, scatter/gather, shape and view ops, sampling grids and
sorting, as the fuzzer (tests/bad_input/fuzz_*.py) found them answered differently."""

import numpy as np

INDEXING_AND_SHAPES = [
    ("view_as another numel", lambda L: L.ones(2, 3).view_as(L.ones(5)),
     "shape '[5]' is invalid for input of size 6"),
    ("view_as a 0-d of an empty", lambda L: L.ones(0).view_as(L.ones(())),
     "shape '[]' is invalid for input of size 0"),
    ("reshape_as from a 0-d", lambda L: L.ones(()).reshape_as(L.ones(2, 3)),
     "shape '[2, 3]' is invalid for input of size 1"),
    ("reshape_as ok", lambda L: L.ones(2, 0).reshape_as(L.ones(0, 5)), None),
    # index_add / index_reduce: the index's dimensions (IndexError) before its dtype.
    ("index_add 2-d float index", lambda L: L.ones(2, 3).index_add(1, L.ones(2, 3), L.ones(2, 3)),
     "Index is supposed to be a vector, but got dim: 2"),
    ("index_reduce_ 2-d float index", lambda L: L.ones(0, dtype=L.int32).index_reduce_(
        0, L.ones(2, 3), L.ones(2, 3, dtype=L.uint8), "mean"), "Index is supposed to be a vector"),
    # index_copy: dimension, index and source dimensions, dtypes, slice shapes, index count.
    ("index_copy scalar source, 3 indices", lambda L: L.ones(2, 3).index_copy(
        1, L.ones(3), L.ones(())), "When source is scalar, index should have one element"),
    ("index_copy source of other dims", lambda L: L.ones(2, 3).index_copy(
        1, L.ones(3), L.ones(2, 2, 2, dtype=L.long)), "their dimensionality must match"),
    ("index_copy dim before index dtype", lambda L: L.ones(3).index_copy(
        5, L.ones(3), L.ones(2, 3)), "Dimension out of range"),
    ("index_copy slice shapes", lambda L: L.ones(2, 3).index_copy(
        1, L.zeros(3, dtype=L.long), L.ones(3, 3)), "Destination slice shape: 2 at dimension 1"),
    ("index_copy scalar into a matrix", lambda L: L.ones(2, 3).index_copy(
        0, L.zeros((), dtype=L.long), L.ones(())), "must have same slice shapes"),
    ("index_copy_ ok", lambda L: L.ones(2, 3).index_copy_(1, L.tensor([2, 0]), L.ones(2, 2)),
     None),
    # index_fill: the index's dtype, a complex value, the index's dims, dim, the value's range.
    ("index_fill float index, complex value", lambda L: L.ones(2, 3).index_fill(
        -2, L.ones(2, 2), 1j), "index_fill_(): Expected dtype int64 for index."),
    ("index_fill float index, value out of range", lambda L: L.ones(
        2, 3, dtype=L.int8).index_fill(0, L.ones(2, 2), 1000), "Expected dtype int64 for index"),
    ("index_fill complex into float", lambda L: L.ones(3).index_fill(0, L.tensor([0]), 1 + 0j),
     "Converting complex Scalar to non-complex type is not supported"),
    ("index_fill complex tensor into float", lambda L: L.ones(3).index_fill(
        0, L.tensor([0]), L.tensor(1 + 0j)), "Converting complex Scalar"),
    ("index_fill 2-d index before range", lambda L: L.ones(2, 3, dtype=L.int8).index_fill(
        0, L.ones(2, 2, dtype=L.long), 1000), "Index has to be a vector/scalar"),
    ("index_fill dim before range", lambda L: L.ones(2, 3, dtype=L.int8).index_fill(
        5, L.ones(2, dtype=L.long), 1000), "Dimension out of range"),
    # gather / scatter look at the index's dtype only when it has elements.
    ("scatter_add empty float index", lambda L: L.ones(2, 3).scatter_add(
        -2, L.ones(2, 0), L.ones(2, 3)), None),
    ("scatter_add empty 3-d float index", lambda L: L.ones(2, 3).scatter_add(
        1, L.ones(2, 0, 1), L.ones(2, 3)), None),
    ("scatter empty float index", lambda L: L.ones(2, 3).scatter(-2, L.ones(2, 0), 1.0), None),
    ("gather empty float index", lambda L: L.ones(2, 3).gather(-2, L.ones(2, 0, 5)), None),
    ("scatter_add empty index, src dtype", lambda L: L.ones(2, 3).scatter_add(
        -2, L.ones(2, 0), L.ones(2, 3, dtype=L.long)), "Expected self.dtype to be equal to src"),
    # scatter_reduce: the dimension, the index, the shapes, then the reduction's name.
    ("scatter_reduce dim before reduce", lambda L: L.ones(2, 3, dtype=L.int8).scatter_reduce(
        3, L.ones(2, 3), L.ones(3, dtype=L.int8), "midpoint"), "Dimension out of range"),
    ("scatter_reduce index dtype before reduce", lambda L: L.ones(2, 3).scatter_reduce(
        1, L.ones(2, 3), L.ones(3), "midpoint"), "Expected dtype int32/int64 for index"),
    ("scatter_reduce reduce before bounds", lambda L: L.ones(2, 3).scatter_reduce(
        1, L.ones(2, 3, dtype=L.long) * 7, L.ones(2, 3), "midpoint"),
     "reduce argument must be either sum, prod, mean, amax or amin, got midpoint"),
    ("scatter reduce before bounds", lambda L: L.ones(2, 3).scatter(
        1, L.ones(2, 3, dtype=L.long) * 7, 1.0, reduce="foo"),
     "reduce argument must be either add or multiply"),
    # movedim: (int, int) or (int[], int[]); a bool, a list beside an int, a longer tensor fit
    # neither; NumPy integers and 0-d integer tensors are ints.
    ("movedim bool source", lambda L: L.ones(2, 3).movedim(False, -1),
     "movedim() received an invalid combination of arguments"),
    ("movedim list and int", lambda L: L.ones(2, 3).movedim([0], 1), "invalid combination"),
    ("movedim 1-d tensor source", lambda L: L.ones(2, 3).movedim(L.tensor([0, 1]), 1),
     "invalid combination"),
    ("movedim None destination", lambda L: L.ones(2, 3).movedim(0, None), "invalid combination"),
    ("movedim numpy int ok", lambda L: L.ones(2, 3).movedim(np.int64(0), 1), None),
    ("movedim 0-d tensor ok", lambda L: L.ones(2, 3).movedim(L.tensor(0), 1), None),
    ("movedim lengths before dims", lambda L: L.ones(2, 3).movedim((1,) * 7, (2, 2, 1)),
     "should contain the same number of dims as destination"),
    # repeat_interleave: the overload by the kind of `repeats`, the parser's checks on it.
    ("repeat_interleave numpy float repeats", lambda L: L.ones(2, 3).repeat_interleave(
        repeats=np.float64(2), output_size=2), "repeat_interleave() received an invalid"),
    ("repeat_interleave numpy bool repeats", lambda L: L.ones(2, 3).repeat_interleave(
        np.bool_(True)), "invalid combination"),
    ("repeat_interleave output_size=True", lambda L: L.ones(2, 3).repeat_interleave(
        1, -1, output_size=True), "invalid combination"),
    ("repeat_interleave None repeats", lambda L: L.ones(3).repeat_interleave(
        None, 0, output_size=1), "invalid combination"),
    ("repeat_interleave int, wrong output_size", lambda L: L.ones(2, 3).repeat_interleave(
        2, 1, output_size=2), "repeat_interleave: Invalid output_size, expected 6 but got 2"),
    ("repeat_interleave int, output_size ok", lambda L: L.ones(2, 3).repeat_interleave(
        2, 1, output_size=6), None),
    ("repeat_interleave int along a dim of a 0-d", lambda L: L.ones(()).repeat_interleave(2, 0),
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("repeat_interleave(bool 2-d repeats)", lambda L: L.repeat_interleave(
        L.ones(2, 3, dtype=L.bool)), "not implemented for 'Bool'"),
    ("repeat_interleave(0-d repeats)", lambda L: L.repeat_interleave(
        L.ones((), dtype=L.long)), "repeat_interleave only accept 1D vector as repeat"),
    ("repeat_interleave 2-d tensor repeats", lambda L: L.ones(3).repeat_interleave(
        L.tensor([[2.0]]), 0), "repeats must be 0-dim or 1-dim tensor"),
    # tensor_split: a tensor, a list of indices or a number of sections, by name or by kind.
    ("tensor_split list and bool dim", lambda L: L.ones(2, 3).tensor_split([1, 2, 1], False),
     "tensor_split() received an invalid combination of arguments"),
    ("tensor_split float indices", lambda L: L.ones(2, 3).tensor_split((1.5,)),
     "invalid combination"),
    ("tensor_split sections=list", lambda L: L.tensor_split(L.ones(2, 3), dim=3, sections=[1]),
     "invalid combination"),
    ("tensor_split bool sections", lambda L: L.tensor_split(L.ones(2, 3), True),
     "invalid combination"),
    ("tensor_split None", lambda L: L.tensor_split(L.ones(2, 3), None), "invalid combination"),
    ("tensor_split dim=None", lambda L: L.tensor_split(L.ones(2, 3), 2, dim=None),
     "invalid combination"),
    ("tensor_split float tensor", lambda L: L.tensor_split(L.ones(2, 3), L.tensor([1.0, 2])),
     "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float"),
    ("tensor_split sections=0-d tensor ok", lambda L: L.tensor_split(
        L.ones(2, 3), sections=L.tensor(2)), None),
    # index_put: masks and index shapes, the values' shape, then their dtype, then bounds.
    ("index_put mask shape before dtype", lambda L: L.ones(2, 3, 4, dtype=L.bool).index_put(
        [L.ones(2, 3, dtype=L.bool), L.ones(2, 3, dtype=L.bool)], L.ones(3, dtype=L.uint8)),
     "The shape of the mask [2, 3] at index 0 does not match"),
    ("index_put values' shape before dtype", lambda L: L.ones(2, 3).index_put(
        [L.tensor([0, 5])], L.ones(4, dtype=L.float64)), "shape mismatch: value tensor"),
    ("index_put dtype before bounds", lambda L: L.ones(2, 3).index_put(
        [L.tensor([0, 5])], L.ones(3, dtype=L.float64)), "Index put requires the source"),
    ("masked_select shapes", lambda L: L.ones(2, 0, 3).masked_select(L.ones(2, 3, dtype=L.bool)),
     "The size of tensor a (2) must match the size of tensor b (0) at non-singleton dimension 1"),
    ("unflatten of a 0-d", lambda L: L.ones(()).unflatten(0, (1,)),
     "unflatten got an unexpected error"),
    ("view(float) is view(float64)", lambda L: L.ones(1, 2, 3, 2, dtype=L.bfloat16).view(float),
     "self.size(-1) must be divisible by 4 to view BFloat16 as Double (different element sizes)"
     ", but got 2"),
    ("view(bool) ok", lambda L: L.ones(2, 3).view(bool), None),
    ("view(float64) of a transpose", lambda L: L.ones(2, 3).t().view(L.float64),
     "self.stride(-1) must be 1 to view Float as Double (different element sizes), but got 3"),
]

GRID_SAMPLING = [
    # The common checks first: size(0) of a 0-d input or grid is PyTorch's IndexError.
    ("grid_sampler_3d 0-d grid", lambda L: L.grid_sampler_3d(L.ones(3), L.ones(()), 0, 0, False),
     "Dimension specified as 0 but tensor has no dimensions"),
    ("grid_sampler_2d 0-d input", lambda L: L.grid_sampler_2d(
        L.ones(()), L.ones(1, 2, 2, 2), 0, 0, False), "Dimension specified as 0"),
    ("grid_sample 0-d input", lambda L: L.nn.functional.grid_sample(
        L.ones(()), L.ones(1, 2, 2, 2), align_corners=False), "Dimension specified as 0"),
    ("grid_sampler_2d batch before dims", lambda L: L.grid_sampler_2d(
        L.ones(3), L.ones(2, 3), 0, 0, False), "expected grid and input to have same batch size"),
    ("grid_sampler_3d grid's last size", lambda L: L.grid_sampler_3d(
        L.ones(3), L.ones(3), 0, 0, False), "expected grid to have size -1 in last dimension"),
    ("grid_sampler_2d empty spatial dim", lambda L: L.grid_sampler_2d(
        L.ones(1, 2, 0, 2), L.ones(1, 2, 2, 2), 0, 0, False), "with dimension 2 being empty"),
    ("grid_sampler_2d grid dtype", lambda L: L.grid_sampler_2d(
        L.ones(1, 2, 2, 2), L.ones(1, 2, 2, 2, dtype=L.float64), 0, 0, False),
     "expected scalar type Float but found Double"),
    ("grid_sampler_2d complex", lambda L: L.grid_sampler_2d(
        L.ones(1, 2, 2, 2, dtype=L.complex64), L.ones(1, 2, 2, 2, dtype=L.complex64), 0, 0,
        False), "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'ComplexFloat'"),
    ("grid_sampler_3d long", lambda L: L.grid_sampler_3d(
        L.ones(1, 2, 2, 2, 2, dtype=L.long), L.ones(1, 2, 2, 2, 3, dtype=L.long), 0, 0, False),
     "not implemented for 'Long'"),
]

SORTING = [
    # sort / argsort: `stable` picks the overload whose dim and descending are keywords only.
    ("argsort positional dim with stable", lambda L: L.argsort(L.ones(2, 3), 1, stable=True),
     "argsort() received an invalid combination of arguments - got (Tensor, int, stable=bool)"),
    ("sort positional dim with stable", lambda L: L.sort(L.ones(2, 3), 1, stable=True),
     "sort() received an invalid combination of arguments"),
    ("argsort stable=None", lambda L: L.argsort(L.ones(2, 3), stable=None),
     "invalid combination of arguments"),
    ("argsort stable=0", lambda L: L.ones(2, 3).argsort(stable=0), "invalid combination"),
    ("argsort descending=None", lambda L: L.ones(2, 3).argsort(descending=None),
     "invalid combination"),
    ("argsort dim=True", lambda L: L.argsort(L.ones(2, 3), dim=True), "invalid combination"),
    ("argsort out= without stable", lambda L: L.argsort(
        L.ones(2, 3), out=L.empty(2, 3, dtype=L.long)), "invalid combination"),
    ("argsort dim twice", lambda L: L.argsort(L.ones(2, 3), 1, dim=1), "invalid combination"),
    ("argsort dim past int64", lambda L: L.argsort(L.ones(2, 3), 2**63),
     "Overflow when unpacking long long"),
    ("argsort complex, dim first", lambda L: L.ones(2, 3, dtype=L.complex64).argsort(dim=3),
     "Dimension out of range"),
    ("argsort stable with out ok", lambda L: L.argsort(
        L.tensor([3.0, 1.0]), stable=True, out=L.empty(2, dtype=L.long)), None),
    ("argsort 0-d int tensor dim ok", lambda L: L.argsort(L.tensor([[3.0, 1.0]]), L.tensor(1)),
     None),
    ("sort stable=None ok", lambda L: L.sort(L.tensor([3.0, 1.0]), stable=None), None),
    # unique / unique_consecutive: the flags tested for truth first, then the op's parser.
    ("unique_consecutive int flag", lambda L: L.ones(2, 3).unique_consecutive(1),
     "argument 'return_inverse'"),
    ("unique_consecutive tensor flag", lambda L: L.ones(3).unique_consecutive(L.tensor(True)),
     "must be bool, not Tensor"),
    ("unique_consecutive array of two", lambda L: L.ones(3).unique_consecutive(
        False, np.array([1, 2])), "The truth value of an array with more than one element"),
    ("unique_consecutive numpy bool", lambda L: L.unique_consecutive(
        L.ones(3), return_counts=np.bool_(True)), "must be bool, not numpy.bool"),
    ("unique sorted=None", lambda L: L.unique(L.ones(3), None), "argument 'sorted'"),
    ("unique dim=1.5", lambda L: L.unique(L.ones(2, 3), dim=1.5), "must be int, not float"),
    ("unique_consecutive numpy dim ok", lambda L: L.unique_consecutive(
        L.ones(2, 3), dim=np.int64(0)), None),
    # narrow, squeeze, multinomial: the parser's checks before the kernel's.
    ("narrow bool start", lambda L: L.ones(2, 3).narrow(1, False, 1),
     "narrow() received an invalid combination of arguments"),
    ("narrow bool length", lambda L: L.ones(2, 3).narrow(1, 0, True), "invalid combination"),
    ("narrow numpy start ok", lambda L: L.ones(2, 3).narrow(1, np.int64(0), 1), None),
    ("squeeze(True)", lambda L: L.ones(2, 3).squeeze(True), "invalid combination"),
    ("squeeze(None) function", lambda L: L.squeeze(L.ones(2, 3), None), "invalid combination"),
    ("squeeze varargs ok", lambda L: L.ones(1, 2, 1).squeeze(0, 2), None),
    ("squeeze [1] of a 0-d", lambda L: L.ones(()).squeeze([1]), "Dimension out of range"),
    ("squeeze (-1, -1) of a 0-d", lambda L: L.ones(()).squeeze((-1, -1)),
     "dim 0 appears multiple times in the list of dims"),
    ("squeeze 5 of a 0-d", lambda L: L.ones(()).squeeze(5), "Dimension out of range"),
    ("multinomial replacement=None", lambda L: L.ones(1, 2, 2, 2).multinomial(1, None),
     "argument 'replacement'"),
    ("multinomial num_samples=None", lambda L: L.ones(1, 2, 2, 2).multinomial(None),
     "argument 'num_samples'"),
    ("multinomial replacement=1", lambda L: L.ones(2, 2).multinomial(1, 1), "must be bool"),
    # as_strided: the parser's checks first; a negative size is PyTorch's overflow message.
    ("as_strided tensor size", lambda L: L.ones(2, 3, 4).as_strided(L.ones(2), (2, 1, 2), 2),
     "must be tuple of ints, not Tensor"),
    ("as_strided bool offset", lambda L: L.as_strided(L.ones(2, 3), (2,), (1,), True),
     "argument 'storage_offset'"),
    ("as_strided bare int size", lambda L: L.ones(2, 3).as_strided(2, 3),
     "must be tuple of ints, not int"),
    ("as_strided ndarray stride", lambda L: L.ones(2, 3).as_strided((2, 3), np.array([0, 1])),
     "must be tuple of ints, not numpy.ndarray"),
    ("as_strided negative size", lambda L: L.ones(2, 3).as_strided((2, -1), (2, 1)),
     "Storage size calculation overflowed with sizes=[2, -1] and strides=[2, 1]"),
    ("as_strided numpy offset ok", lambda L: L.ones(2, 3).as_strided(
        (2, 3), (3, 1), np.int64(0)), None),
    # scatter: the fourth argument by position (tensor or number), `src=` a tensor, `value=` a
    # number, `reduce` a keyword string.
    ("scatter 5 positional", lambda L: L.ones(2, 3).scatter(
        1, L.zeros(2, 3, dtype=L.long), L.ones(2, 3), 1), "scatter() received an invalid"),
    ("scatter_ 5 positional", lambda L: L.ones(2, 3).scatter_(
        1, L.zeros(2, 3, dtype=L.long), L.ones(2, 3), 1), "scatter_() received an invalid"),
    ("scatter value twice", lambda L: L.ones(2, 3).scatter(
        1, L.zeros(2, 3, dtype=L.long), 1, value=2.5), "invalid combination"),
    ("scatter reduce=None", lambda L: L.ones(2, 3).scatter(
        1, L.zeros(2, 3, dtype=L.long), 0.5, reduce=None), "invalid combination"),
    ("scatter src=number", lambda L: L.ones(2, 3).scatter(
        1, L.zeros(2, 3, dtype=L.long), src=0.5), "invalid combination"),
    ("scatter value=tensor", lambda L: L.ones(2, 3).scatter(
        1, L.zeros(2, 3, dtype=L.long), value=L.ones(2, 3)), "invalid combination"),
    ("scatter dim=None", lambda L: L.ones(2, 3).scatter(
        None, L.zeros(2, 3, dtype=L.long), 0.5), "invalid combination"),
    ("scatter complex into float", lambda L: L.ones(2, 3).scatter(
        1, L.zeros(2, 3, dtype=L.long), 1j), "value cannot be converted to type float"),
    ("scatter 1000 into int8", lambda L: L.ones(2, 3, dtype=L.int8).scatter(
        1, L.zeros(2, 3, dtype=L.long), 1000), "value cannot be converted to type int8_t"),
    ("scatter value=, reduce= ok", lambda L: L.ones(2, 3).scatter(
        1, L.tensor([[0], [2]]), value=5, reduce="multiply"), None),
]

SEARCHING = [
    # A Scalar takes an int as int64 or uint64; past that PyTorch's parser overflows first.
    ("index_add alpha 2**64", lambda L: L.ones(2, 3).index_add(
        0, L.ones(2, 2), L.ones(2, 3), alpha=2**64), "int too big to convert"),
    ("index_add alpha below int64", lambda L: L.ones(2, 3).index_add(
        0, L.ones(2, 2), L.ones(2, 3), alpha=-2**63 - 1), "can't convert negative int"),
    ("index_fill value 2**70", lambda L: L.ones(2, 3).index_fill(
        0, L.ones(2, 2, dtype=L.long), 2**70), "int too big to convert"),
    ("isin 2**70", lambda L: L.isin(2**70, L.ones(3)), "int too big to convert"),
    # None where the schema takes none.
    ("bucketize right=None", lambda L: L.bucketize(L.ones(2, 3), L.ones(3), right=None),
     "bucketize() received an invalid combination of arguments"),
    ("isin assume_unique=None", lambda L: L.isin(L.ones(3), L.ones(3), assume_unique=None),
     "isin() received an invalid combination of arguments"),
    ("searchsorted out_int32=None", lambda L: L.searchsorted(
        L.ones(3), L.ones(2), out_int32=None), "searchsorted() received an invalid"),
    ("searchsorted out_int32='a'", lambda L: L.searchsorted(
        L.ones(3), L.ones(2), out_int32="a"), "invalid combination"),
    ("searchsorted side=None ok", lambda L: L.searchsorted(L.ones(3), L.ones(2), side=None),
     None),
]

INT_LISTS = [
    # NOTE [int lists]: the first item decides (a bool there is a TypeError); later items are
    # converted (a bool is 0 or 1, a float is refused).
    ("flip (True, 0)", lambda L: L.ones(2, 3).flip((True, 0)),
     "must be tuple of ints, but found element of type bool at pos 0"),
    ("flip (0, True) ok", lambda L: L.ones(2, 3).flip((0, True)), None),
    ("permute (True, 0)", lambda L: L.ones(2, 3).permute((True, 0)),
     "found element of type bool at pos 0"),
    ("permute(True, 0) varargs", lambda L: L.ones(2, 3).permute(True, 0), None),
    ("permute(1, False) ok", lambda L: L.ones(2, 3).permute(1, False), None),
    ("zeros((True, 2))", lambda L: L.zeros((True, 2)), "found element of type bool at pos 0"),
    ("zeros((2, True)) ok", lambda L: L.zeros((2, True)), None),
    ("zeros(b'x')", lambda L: L.zeros(b"x"), "must be tuple of ints, not bytes"),
    ("flip(b'x')", lambda L: L.ones(2, 3).flip(b"x"), "must be tuple of ints, not bytes"),
    ("view(True, 6)", lambda L: L.ones(1, 6).view(True, 6), None),
    ("roll dims (True,)", lambda L: L.ones(2, 3).roll((1,), (True,)),
     "found element of type bool at pos 0"),
    ("amax dim (True,)", lambda L: L.ones(2, 3).amax((True,)),
     "found element of type bool at pos 0"),
    ("movedim (True,)", lambda L: L.ones(2, 3).movedim((True,), (0,)), "invalid combination"),
    ("zeros((2, 3.0))", lambda L: L.zeros((2, 3.0)), None),
    ("flip((0, 1.5))", lambda L: L.flip(L.ones(2, 3), (0, 1.5)), None),
    ("zeros((2, 3.0)) message", lambda L: L.ones((2, 3.0)), None),
    # An int list beside another positional argument takes no varargs and no bare int.
    ("split_with_sizes(1, 1)", lambda L: L.ones(2).split_with_sizes(1, 1),
     "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not int"),
    ("split_with_sizes((1, True), 0) ok", lambda L: L.ones(2).split_with_sizes((1, True), 0),
     None),
    ("rot90 method bare int dims", lambda L: L.ones(2, 3).rot90(1, 0),
     "must be tuple of ints, not int"),
    ("split of a 0-d", lambda L: L.ones(()).split(1, 5),
     "split expects at least a 1-dimensional tensor"),
    ("split_with_sizes of a 0-d", lambda L: L.ones(()).split_with_sizes([1], 0),
     "split expects at least a 1-dimensional tensor"),
    # A required size list given as no varargs at all is missing (or, for view, no overload).
    ("view()", lambda L: L.ones(2, 3).view(), "view() received an invalid combination"),
    ("view() of one element", lambda L: L.ones(1).view(), "invalid combination"),
    ("reshape()", lambda L: L.ones(2, 3).reshape(),
     'reshape() missing 1 required positional arguments: "shape"'),
    ("flip()", lambda L: L.ones(()).flip(), 'flip() missing 1 required positional arguments'),
    ("permute() of a 0-d", lambda L: L.ones(()).permute(), "missing 1 required positional"),
    ("new_zeros()", lambda L: L.ones(2).new_zeros(), "missing 1 required positional"),
    ("permute(()) of a 0-d ok", lambda L: L.ones(()).permute(()), None),
    ("view(np.int64(6)) ok", lambda L: L.ones(2, 3).view(np.int64(6)), None),
    ("bincount uint16", lambda L: L.bincount(L.ones(2, 3, dtype=L.uint16)),
     "\"bincount_cpu\" not implemented for 'UInt16'"),
    ("kthvalue bool, dim first", lambda L: L.ones(3, dtype=L.bool).kthvalue(1, 5),
     "Dimension out of range"),
    ("histc complex max", lambda L: L.ones(3).histc(1, max=1 + 1j),
     "value cannot be converted to type double without overflow"),
    ("repeat_interleave(repeats=) ok", lambda L: L.repeat_interleave(repeats=L.tensor([1, 2])),
     None),
    ("repeat_interleave() of nothing", lambda L: L.repeat_interleave(),
     "repeat_interleave() received an invalid combination of arguments"),
    ("repeat_interleave no repeats, output_size", lambda L: L.repeat_interleave(
        L.zeros(0, dtype=L.long), output_size=1), None),
]
