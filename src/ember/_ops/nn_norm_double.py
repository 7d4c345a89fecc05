"""Second derivatives of the normalisation layers: the derivatives of native_batch_norm_backward,
native_layer_norm_backward and native_group_norm_backward (nn_norm.py).

NOTE [normalisation double backward]: the backward ops are fused array kernels (they run in
every training step), so they cannot be differentiated by recording them. Their own
derivatives re-express the same gradients (NOTE [normalisation gradient]) as a composite of
differentiable ember ops of (grad_out, input, weight), with the statistics recomputed from the
input (in training they are functions of it), and take that composite's vector-Jacobian
product with the incoming gradients through autograd itself. This runs only when a second
derivative is asked for (gradient penalties, Hessian-vector products, gradgradcheck); first
derivatives keep the fused kernels. Forward-mode AD, which ember derives from the backward's
derivatives, comes with it.
"""
from __future__ import annotations

from ember._core import dispatch, upcalls


def _normalized(x, axes, eps):
    """(x_hat, rstd) of x over `axes`, from differentiable ops."""
    mean = x.mean(axes, keepdim=True)
    centered = x - mean
    rstd = ((centered * centered).mean(axes, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd


def _input_grad(dy, x_hat, rstd, axes):
    """NOTE [normalisation gradient] in ember ops."""
    return rstd * (dy - dy.mean(axes, keepdim=True)
                   - x_hat * (dy * x_hat).mean(axes, keepdim=True))


def batch_norm_grads(c):
    """(grad_input, grad_weight, grad_bias) of batch norm as a composite of c's tensors."""
    def composite(g, x, w):
        axes = (0,) + tuple(range(2, x.ndim))
        shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        dy = g if w is None else g * w.reshape(shape)
        if c.train:
            x_hat, rstd = _normalized(x, axes, c.eps)
            grad_input = _input_grad(dy, x_hat, rstd, axes)
        else:
            rstd = (c.running_var + c.eps).rsqrt().reshape(shape)
            x_hat = (x - c.running_mean.reshape(shape)) * rstd
            grad_input = dy * rstd
        return grad_input, (g * x_hat).sum(axes), g.sum(axes)
    return _vjp(c, composite, ("grad_out", "input", "weight"))


def layer_norm_grads(c):
    def composite(g, x, w):
        count = len(c.normalized_shape)
        axes = tuple(range(x.ndim - count, x.ndim))
        lead = tuple(range(x.ndim - count))
        x_hat, rstd = _normalized(x, axes, _eps_of(c.rstd, x, axes))
        dy = g if w is None else g * w
        grad_weight = (g * x_hat).sum(lead) if lead else g * x_hat
        grad_bias = g.sum(lead) if lead else g
        return _input_grad(dy, x_hat, rstd, axes), grad_weight, grad_bias
    return _vjp(c, composite, ("grad_out", "input", "weight"))


def group_norm_grads(c):
    def composite(g, x, w):
        n, channels, group = c.N, c.C, c.group
        xs = x.reshape(n, group, -1)
        x_hat, rstd = _normalized(xs, (2,), _eps_of(c.rstd.reshape(n, group, 1), xs, (2,)))
        gs = g.reshape(n, channels, -1)
        dy = gs if w is None else gs * w.reshape(1, channels, 1)
        grad_input = _input_grad(dy.reshape(n, group, -1), x_hat, rstd, (2,))
        grad_weight = (gs * x_hat.reshape(n, channels, -1)).sum((0, 2))
        return grad_input.reshape(x.shape), grad_weight, gs.sum((0, 2))
    return _vjp(c, composite, ("grad_out", "input", "weight"))


def _eps_of(rstd, x, axes):
    """Layer and group norm's backward ops get rstd = 1 / sqrt(var + eps), not eps: the
    constant (detached, per row) that makes var(x) + eps equal rstd^-2, so the recomputed
    statistics have the saved values and the derivatives of the forward's."""
    x = x.detach()
    return rstd.detach().reshape(x.var(axes, unbiased=False, keepdim=True).shape) ** -2 \
        - x.var(axes, unbiased=False, keepdim=True)


def _vjp(c, composite, names):
    """{argument name: its gradient} for the backward op's node (NOTE [normalisation double
    backward]); computed once per node call and kept in c.memo."""
    if c.memo is not None:
        return c.memo
    # ember.autograd sits above the op registry: reached through NOTE [upcalls].
    create_graph = dispatch.state.grad_enabled()      # the engine's create_graph
    with upcalls.enable_grad():
        # Fresh aliases, so the gradients are partial ones: grad_out itself depends on the
        # input through the first backward, and that path is not this node's to count.
        args = [None if t is None else t.view_as(t) if t.requires_grad else t
                for t in (getattr(c, name) for name in names)]
        wanted = [(name, t) for name, t in zip(names, args)
                  if t is not None and t.requires_grad]
        outputs = composite(*args)
    pairs = [(out, g) for out, g in zip(outputs, c.grads)
             if g is not None and out.requires_grad]
    grads = [None] * len(wanted)
    if pairs and wanted:
        grads = upcalls.grad([out for out, _ in pairs], [t for _, t in wanted],
                              [g for _, g in pairs], create_graph=create_graph,
                              allow_unused=True)
    c.memo = {name: g for (name, _), g in zip(wanted, grads)}
    return c.memo


def derivatives(grads_of, statistics):
    """The `derivatives=` entry of a normalisation backward op. The saved statistics get
    none: the composite recomputes them from the input, so their part flows through it."""
    formulas = {name: (lambda c, name=name: grads_of(c).get(name))
                for name in ("grad_out", "input", "weight")}
    formulas.update({name: (lambda c: None) for name in statistics})
    return formulas
