"""The instruction at a graph break, run for real: the replay rebuilds the stack the
instruction expects, runs it here, and hands the resulting stack to the resume function.
A call of a plain Python function goes through capture again (its own frame, as PyTorch's
frame hook would see it)."""
from __future__ import annotations

import types

# The opcodes a graph break may split at. Anything else runs the whole frame eagerly.
STEPPABLE = frozenset({"CALL", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
                       "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP", "LOAD_ATTR",
                       "LOAD_METHOD", "STORE_ATTR", "BINARY_SUBSCR", "COMPARE_OP",
                       "BINARY_OP", "UNARY_NOT"})
NULL = object()   # a NULL stack slot, rebuilt by the resume prologue


def run_instruction(inst, stack, kw_names, next_offset, call):
    """Run `inst` on the real `stack` (changed in place). Returns the offset to resume at.
    `call(fn, args, kwargs)` runs a callee (through capture where it applies)."""
    from ember._dynamo.symbolic_convert import _BINARY, _COMPARE
    name = inst.opname
    if name == "CALL":
        args = stack[len(stack) - inst.arg:]
        del stack[len(stack) - inst.arg:]
        callable_or_self = stack.pop()
        below = stack.pop()
        if below is NULL:
            fn = callable_or_self
        else:
            fn, args = below, [callable_or_self, *args]
        kwargs = {}
        if kw_names:
            kwargs = dict(zip(kw_names, args[len(args) - len(kw_names):]))
            args = args[:len(args) - len(kw_names)]
        stack.append(call(fn, args, kwargs))
    elif name.startswith("POP_JUMP"):
        if bool(stack.pop()) == name.endswith("TRUE"):
            return inst.argval
    elif name in ("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"):
        if bool(stack[-1]) == (name == "JUMP_IF_TRUE_OR_POP"):
            return inst.argval
        stack.pop()
    elif name == "LOAD_ATTR":
        stack.append(getattr(stack.pop(), inst.argval))
    elif name == "LOAD_METHOD":
        owner = stack.pop()
        stack.extend((NULL, getattr(owner, inst.argval)))
    elif name == "STORE_ATTR":
        owner = stack.pop()
        setattr(owner, inst.argval, stack.pop())
    elif name == "UNARY_NOT":
        stack.append(not stack.pop())
    else:
        right = stack.pop()
        left = stack.pop()
        if name == "BINARY_SUBSCR":
            stack.append(left[right])
        elif name == "COMPARE_OP":
            stack.append(_COMPARE[inst.argval](left, right))
        else:
            stack.append(_BINARY[inst.arg](left, right))
    return next_offset


def is_capturable(fn) -> bool:
    """A callee the compile wrapper would capture as its own frame: a plain Python function
    outside ember."""
    from ember._dynamo.variables.functions import is_ember_function, is_library_function
    return isinstance(fn, types.FunctionType) and not is_ember_function(fn) and \
        not is_library_function(fn) and not getattr(fn, "_ember_dynamo_disable", False)


__all__ = ["NULL", "STEPPABLE", "is_capturable", "run_instruction"]
