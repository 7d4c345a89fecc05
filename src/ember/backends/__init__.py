"""ember.backends: PyTorch's switches for the libraries it runs on (torch.backends.cudnn,
.cuda, .mps, .mkldnn, .mkl, .openmp). ember runs on NumPy and, for CUDA, on CuPy, so most of
these are flags that scripts set and read (`cudnn.benchmark = True`) and that change nothing;
`cuda.matmul.allow_tf32` is the float32 matmul precision switch, as in PyTorch."""
from ember.backends import cuda, cudnn, mkl, mkldnn, mps, openmp

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
