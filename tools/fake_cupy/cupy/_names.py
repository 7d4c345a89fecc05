"""The names CuPy 14.2 defines (read off its wheel's __init__ files): the strict fake offers
only these, as CuPy would."""


def _words(text):
    return frozenset(text.split())


CUPY = _words("""
AxisError ComplexWarning ElementwiseKernel Inf Infinity ModuleDeprecationWarning NAN NINF NZERO
NaN PINF PZERO RankWarning RawKernel RawModule ReductionKernel TooHardError
VisibleDeprecationWarning abs absolute acos acosh add all allclose alltrue amax amin angle
annotations any append apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh
arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around array array2string
array_equal array_equiv array_repr array_split array_str asanyarray asarray asarray_chkfinite
ascontiguousarray asfarray asfortranarray asin asinh asnumpy astype atan atan2 atanh atleast_1d
atleast_2d atleast_3d average bartlett base_repr binary_repr bincount bitwise_and bitwise_count
bitwise_invert bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
blackman bool_ broadcast broadcast_arrays broadcast_to byte byte_bounds c_ can_cast cbrt
cdouble ceil cfloat choose clear_memo clip column_stack common_type complex128 complex64
complex_ complexfloating compress concat concatenate conj conjugate convolve copy copysign
copyto corrcoef correlate cos cosh count_nonzero cov cross csingle cuda cumprod cumproduct
cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag diag_indices
diag_indices_from diagflat diagonal diff digitize disable_experimental_feature_warning divide
divmod dot double dsplit dstack dtype e ediff1d einsum empty empty_like equal euler_gamma
exceptions exp exp2 expand_dims expm1 extract eye fabs fft fill_diagonal finfo fix flatiter
flatnonzero flip fliplr flipud float16 float32 float64 float_ float_power floating floor
floor_divide fmax fmin fmod format_float_positional format_float_scientific frexp fromDlpack
from_dlpack frombuffer fromfile fromfunction fromiter fromstring full full_like fuse gcd
generic genfromtxt get_array_module get_default_memory_pool get_default_pinned_memory_pool
get_printoptions gradient greater greater_equal half hamming hanning heaviside histogram
histogram2d histogramdd hsplit hstack hypot i0 identity iinfo imag in1d index_exp indices
inexact inf infty inner int16 int32 int64 int8 int_ intc integer interp intersect1d intp invert
is_available isclose iscomplex iscomplexobj isdtype isfinite isfortran isin isinf isnan
isneginf isposinf isreal isrealobj isscalar issctype issubclass_ issubdtype issubsctype
iterable ix_ kaiser kron lcm ldexp left_shift less less_equal lexsort linalg linspace load
loadtxt log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or
logical_xor logspace longlong make_aligned_dtype mask_indices matmul matrix_transpose max
maximum may_share_memory mean median memoize meshgrid mgrid min min_scalar_type minimum
mintypecode mod modf moveaxis msort multiply nan nan_to_num nanargmax nanargmin nancumprod
nancumsum nanmax nanmean nanmedian nanmin nanprod nanstd nansum nanvar ndarray ndim ndindex
negative newaxis nextafter nonzero not_equal number obj2sctype ogrid ones ones_like outer
packbits pad partition percentile permute_dims pi piecewise place poly poly1d polyadd polyfit
polymul polynomial polysub polyval positive pow power printoptions prod product promote_types
ptp put put_along_axis putmask quantile r_ rad2deg radians random ravel ravel_multi_index real
real_if_close reciprocal remainder repeat require reshape resize result_type right_shift rint
roll rollaxis roots rot90 round round_ row_stack s_ save savetxt savez savez_compressed
sctype2char searchsorted select set_printoptions setdiff1d setxor1d shape shares_memory short
show_config sign signbit signedinteger sin sinc single singlecomplex sinh size sometrue sort
sort_complex split sqrt square squeeze stack std subtract sum swapaxes take take_along_axis tan
tanh tensordot testing tile trace transpose trapezoid trapz tri tril tril_indices
tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide trunc typename
ubyte ufunc uint uint16 uint32 uint64 uint8 uintc uintp ulonglong union1d unique unique_all
unique_counts unique_inverse unique_values unpackbits unravel_index unsignedinteger unwrap
ushort vander var vdot vectorize vsplit vstack where who zeros zeros_like
""")

LINALG = _words("""
LinAlgError annotations cholesky cond cross det eig eigh eigvals eigvalsh inv lstsq matmul
matrix_power matrix_rank matrix_transpose norm pinv qr slogdet solve svd tensorinv tensorsolve
""")

SPECIAL = _words("""
annotations bdtr bdtrc bdtri beta betainc betaincinv betaln binom boxcox boxcox1p btdtr btdtri
cbrt chdtr chdtrc chdtri cosdg cosm1 cotdg digamma ellipeinc ellipj ellipk ellipkinc ellipkm1
entr erf erfc erfcinv erfcx erfinv exp1 exp10 exp2 expi expit expm1 expn exprel fdtr fdtrc
fdtri gamma gammainc gammaincc gammainccinv gammaincinv gammaln gammasgn gdtr gdtrc huber i0
i0e i1 i1e inv_boxcox inv_boxcox1p j0 j1 k0 k0e k1 k1e kl_div lambertw log1p log_expit log_ndtr
log_softmax loggamma logit logsumexp lpmv multigammaln nbdtr nbdtrc nbdtri ndtr ndtri pdtr
pdtrc pdtri poch polygamma pseudo_huber psi radian rel_entr rgamma round shichi sici sinc sindg
softmax sph_harm sph_harm_y spherical_yn tandg wright_bessel xlog1py xlogy y0 y1 yn zeta zetac
""")

FFT = _words("""
config fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2 irfftn
rfft rfft2 rfftfreq rfftn
""")
