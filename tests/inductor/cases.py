"""Small functions traced and compiled in both libraries: each case is (name, make(lib) ->
function of tensors, input shapes). `lib` is ember or torch; the functions' parameter names
become the placeholders' names."""


def pointwise_chain(lib):
    return lambda x, y: ((x * 2 + y).relu() - x.exp() / (y.abs() + 1)).sigmoid()


def softmax(lib):
    return lambda x: lib.softmax(x, -1)


def log_softmax(lib):
    return lambda x: lib.log_softmax(x, 1)


def layer_norm(lib):
    return lambda x, w, b: lib.nn.functional.layer_norm(x, (16,), w, b)


def gelu(lib):
    return lambda x: lib.nn.functional.gelu(x) * lib.nn.functional.gelu(x, approximate="tanh")


def linear(lib):
    return lambda x, w, b: lib.nn.functional.linear(x, w, b)


def matmul(lib):
    return lambda a, b: lib.matmul(a, b)


def mlp(lib):
    F = lib.nn.functional

    def forward(x, w1, b1, w2, b2):
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
    return forward


def reductions(lib):
    return lambda x: (x.sum(0), x.mean(1, keepdim=True), x.amax(-1), (x * x).sum())


def sum_of_products(lib):
    return lambda x, y: (x * y).sum()


def cross_entropy(lib):
    target = [1, 0, 3, 2, 1, 0, 3, 2]
    return lambda x: lib.nn.functional.cross_entropy(x, lib.tensor(target))


CASES = [
    ("pointwise_chain", pointwise_chain, [(8, 16), (8, 16)]),
    ("softmax", softmax, [(8, 16)]),
    ("log_softmax", log_softmax, [(8, 16)]),
    ("layer_norm", layer_norm, [(8, 16), (16,), (16,)]),
    ("gelu", gelu, [(8, 16)]),
    ("linear", linear, [(8, 16), (4, 16), (4,)]),
    ("matmul", matmul, [(8, 16), (16, 4)]),
    ("mlp", mlp, [(8, 16), (32, 16), (32,), (4, 32), (4,)]),
    ("reductions", reductions, [(8, 16)]),
    ("sum_of_products", sum_of_products, [(8, 16), (8, 16)]),
    ("cross_entropy", cross_entropy, [(8, 4)]),
]
