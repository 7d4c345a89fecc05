# Custom autograd Functions, torch.autograd.grad, higher derivatives, hooks.
import torch
from torch.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class ClampSTE(Function):
    """Clamp in the forward pass, pass the gradient straight through."""

    @staticmethod
    def forward(ctx, x, low, high):
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


x = torch.tensor([0.0, 0.5, 1.0, 2.0], requires_grad=True)
y = Exp.apply(x)
y.sum().backward()
print("exp grad", x.grad)
print("grad_fn name", type(y.grad_fn).__name__ == "ExpBackward")

x.grad = None
z = ClampSTE.apply(x * 3, 0.0, 2.0)
z.sum().backward()
print("ste", z.detach(), x.grad)

# First and second derivatives of f(u) = u^3 + 2u with torch.autograd.grad.
u = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
f = (u ** 3 + 2 * u).sum()
(df,) = torch.autograd.grad(f, u, create_graph=True)
(d2f,) = torch.autograd.grad(df.sum(), u)
print("df", df.detach(), "d2f", d2f)

# Gradients of a vector output with grad_outputs, and retain_graph.
v = torch.tensor([1.0, 2.0], requires_grad=True)
out = v * v
g1 = torch.autograd.grad(out, v, grad_outputs=torch.tensor([1.0, 0.5]), retain_graph=True)[0]
g2 = torch.autograd.grad(out, v, grad_outputs=torch.ones(2))[0]
print("vjp", g1, g2)

# A tensor hook doubling the gradient; a leaf accumulating over two backward passes.
w = torch.tensor([1.0, 1.0], requires_grad=True)
handle = w.register_hook(lambda grad: grad * 2)
(w * torch.tensor([3.0, 4.0])).sum().backward()
handle.remove()
(w * torch.tensor([3.0, 4.0])).sum().backward()
print("accumulated", w.grad)

# no_grad, detach, requires_grad_ and is_leaf.
with torch.no_grad():
    frozen = w * 2
print(frozen.requires_grad, w.is_leaf, (w * 2).is_leaf, w.detach().requires_grad)
k = torch.ones(2).requires_grad_()
print(k.requires_grad, torch.is_grad_enabled())

# Unused inputs.
p, q = torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)
print(torch.autograd.grad((p * 2).sum(), [p, q], allow_unused=True))
try:
    torch.autograd.grad((p * 2).sum(), [p, q])
except RuntimeError as error:
    print("RuntimeError:", "allow_unused" in str(error))
