"""ember.backends.kleidiai: Arm's KleidiAI micro-kernels, which ember does not use."""


def is_available() -> bool:
    return False
