"""Resume functions: where a graph break splits a frame, the rest of the frame becomes a new
function — the original bytecode behind a short prologue that puts the saved stack back and
jumps to the instruction after the break. Its arguments are the frame's locals and stack, so
the compile wrapper captures it like any other frame (NOTE [how capture runs])."""
from __future__ import annotations

import dis
import types

_RESUME_CODES = {}
_OP = dis.opmap
_NO_LOCATION = 15


def can_resume(code) -> str | None:
    """Why this code object cannot be split at a break (None when it can)."""
    if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):
        return "generators and coroutines are not split"
    if code.co_exceptiontable:
        return "a frame with try/with blocks is not split"
    if code.co_cellvars:
        return "a frame whose locals are captured by inner functions is not split"
    if code.co_freevars and len(code.co_varnames) + code.co_stacksize + len(code.co_freevars) > 0xFF:
        return "a frame with this many locals and closure variables is not split"
    return None


def in_loop(instructions, offset) -> bool:
    """Whether `offset` lies inside a loop (a backward jump after it reaches back before)."""
    return any(inst.offset > offset and inst.argval is not None and "BACKWARD" in inst.opname
               and inst.argval <= offset for inst in instructions)


def resume_function(fn, offset, null_slots, unbound):
    """The function running `fn`'s code from `offset`, given (locals..., stack values...):
    `null_slots` marks the stack slots that hold a NULL (put back with PUSH_NULL),
    `unbound` the locals that had no value at the break (deleted again)."""
    code = fn.__code__
    key = (id(code), offset, null_slots, unbound)   # id: hashing a code object reads it all
    known = _RESUME_CODES.get(key)
    if known is None:
        known = _RESUME_CODES[key] = (code, _build(code, offset, null_slots, unbound))
    resumed = known[1]
    return types.FunctionType(resumed, fn.__globals__, resumed.co_name, None, fn.__closure__)


def _emit(out, opname, arg=0):
    if arg > 0xFF:
        _emit(out, "EXTENDED_ARG", arg >> 8)
        arg &= 0xFF
    out += bytes((_OP[opname], arg))


def _build(code, offset, null_slots, unbound):
    base = len(code.co_varnames)
    stack_names = tuple(f"___stack{base}_{i}" for i, null in enumerate(null_slots) if not null)
    varnames = code.co_varnames + stack_names
    prologue = bytearray()
    if code.co_freevars:
        _emit(prologue, "COPY_FREE_VARS", len(code.co_freevars))
    _emit(prologue, "RESUME", 0)
    for name in unbound:
        _emit(prologue, "DELETE_FAST", varnames.index(name))
    values = iter(stack_names)
    for null in null_slots:
        if null:
            _emit(prologue, "PUSH_NULL")
        else:
            _emit(prologue, "LOAD_FAST", varnames.index(next(values)))
    # jump over the original code up to `offset` (a relative jump: 3.11 has no absolute ones)
    units = offset // 2
    prologue += bytes((_OP["EXTENDED_ARG"], units >> 8, _OP["JUMP_FORWARD"], units & 0xFF))
    lines = bytearray()
    remaining = len(prologue) // 2
    while remaining:
        step = min(remaining, 8)
        lines.append(0x80 | (_NO_LOCATION << 3) | (step - 1))
        remaining -= step
    flags = code.co_flags & ~(0x04 | 0x08)
    lineno = _line_at(code, offset)
    return code.replace(
        co_code=bytes(prologue) + _shift_free_vars(code, len(stack_names)), co_linetable=bytes(lines) + code.co_linetable,
        co_varnames=varnames, co_nlocals=len(varnames), co_argcount=len(varnames),
        co_posonlyargcount=0, co_kwonlyargcount=0, co_flags=flags,
        co_stacksize=code.co_stacksize + len(null_slots),
        co_name=f"ember_resume_in_{code.co_name}_at_{lineno}",
        co_qualname=f"ember_resume_in_{code.co_qualname}_at_{lineno}")


def _shift_free_vars(code, added):
    """The body with every closure-variable index moved past the `added` locals (3.11 numbers
    locals, then cells, then free variables, in one table). `can_resume` keeps the indices
    within one byte, so no instruction changes size."""
    body = bytearray(code.co_code)
    if not code.co_freevars or not added:
        return bytes(body)
    for inst in dis.get_instructions(code):
        if inst.opcode in dis.hasfree and inst.opname != "MAKE_CELL":
            body[inst.offset + 1] = inst.arg + added
    return bytes(body)


def _line_at(code, offset):
    line = code.co_firstlineno
    for start, _end, lineno in code.co_lines():
        if start > offset:
            break
        if lineno is not None:
            line = lineno
    return line


def clear():
    _RESUME_CODES.clear()
