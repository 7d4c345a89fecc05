"""The symbolic bytecode interpreter (CPython 3.11): runs a code object's instructions over
VariableTrackers instead of values, so tensor ops land in the OutputGraph and Python runs
during capture. Calls into user functions and module forwards are inlined (a child
translator). Anything it cannot follow raises Unsupported: the graph break."""
from __future__ import annotations

import dis
import operator
import traceback
import types

from ember._dynamo import config
from ember._dynamo.bind import bind_arguments
from ember._dynamo.exc import Unsupported, unimplemented
from ember._dynamo.source import BuiltinSource, CellSource, GlobalSource
from ember._dynamo.variables.base import ConstantVariable, LazyVariable, NullVariable
from ember._dynamo.variables.builtin import binary
from ember._dynamo.variables.containers import (
    BaseListVariable,
    DictVariable,
    IteratorVariable,
    ListVariable,
    TupleVariable,
)
from ember._dynamo.variables.functions import UserFunctionVariable
from ember._dynamo.variables.nn_module import NNModuleVariable
from ember._dynamo.variables.tensor import TensorVariable

# BINARY_OP's argument -> the operator function (dis._nb_ops order, in-place forms after).
_BINARY = [operator.add, operator.and_, operator.floordiv, operator.lshift, operator.matmul,
           operator.mul, operator.mod, operator.or_, operator.pow, operator.rshift,
           operator.sub, operator.truediv, operator.xor, operator.iadd, operator.iand,
           operator.ifloordiv, operator.ilshift, operator.imatmul, operator.imul,
           operator.imod, operator.ior, operator.ipow, operator.irshift, operator.isub,
           operator.itruediv, operator.ixor]
_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
            ">": operator.gt, ">=": operator.ge}
_NULL = NullVariable()


class FrameReturn(Exception):
    def __init__(self, value):
        self.value = value


class InstructionTranslator:
    """Runs one frame's code symbolically. The root translator (parent None) is the frame
    being compiled; a child runs an inlined call and hands back its return value."""

    def __init__(self, fn, symbolic_locals, output, parent=None, stop_at=None):
        self.fn = fn
        self.code = fn.__code__
        self.instructions = list(dis.get_instructions(self.code))
        self.index_of = {inst.offset: i for i, inst in enumerate(self.instructions)}
        self.f_globals = fn.__globals__
        cells = fn.__closure__ or ()
        self.cells = dict(zip(self.code.co_freevars, cells))
        self.locals = dict(symbolic_locals)
        self.output = output
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.stack = []
        self.ip = 0
        self.kw_names = None
        self.stop_at = stop_at        # root only: the offset of the graph break
        self.current = None

    # ----------------------------------------------------------------- running
    def run(self):
        """Run to the end. The root returns ("return", var) or, at `stop_at`, ("break",
        instruction); a child returns its frame's return value."""
        while True:
            inst = self.instructions[self.ip]
            self.current = inst
            if self.parent is None and inst.offset == self.stop_at:
                return ("break", inst)
            self.ip += 1
            try:
                handler = getattr(self, inst.opname, None)
                if handler is None:
                    unimplemented(f"unsupported opcode {inst.opname}")
                handler(inst)
            except FrameReturn as done:
                if self.parent is None:
                    return ("return", done.value)
                return done.value
            except Unsupported as error:
                self._annotate(error, inst)
                raise

    def _annotate(self, error, inst):
        lineno = inst.positions.lineno if inst.positions else None
        frames = error.__dict__.setdefault("user_stack", [])
        frames.insert(0, traceback.FrameSummary(self.code.co_filename, lineno,
                                                self.code.co_name, lookup_line=False))
        if self.parent is None:
            error.offset = inst.offset

    def push(self, var):
        self.stack.append(var)

    def pop(self):
        return self.stack.pop()

    def popn(self, n):
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def jump(self, inst):
        self.ip = self.index_of[inst.argval]

    # ----------------------------------------------------------------- calls
    def call_function(self, fn, args, kwargs):
        return fn.call(self, args, kwargs)

    def inline_call(self, fn, args, kwargs, fn_source):
        if self.depth >= config.inline_depth_limit:
            unimplemented("inlining went deeper than config.inline_depth_limit")
        code = fn.__code__
        if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):
            unimplemented(f"{fn.__name__} is a generator or coroutine")
        if code.co_exceptiontable or code.co_cellvars:
            unimplemented(f"{fn.__name__} has try/with blocks or inner closures")
        bound = bind_arguments(fn, args, kwargs)
        child = InstructionTranslator(fn, bound, self.output, parent=self)
        return child.run()

    # ----------------------------------------------------------------- no-ops
    def NOP(self, inst):
        pass

    RESUME = PRECALL = COPY_FREE_VARS = EXTENDED_ARG = CACHE = NOP

    def MAKE_CELL(self, inst):
        unimplemented("a local variable captured by an inner function (cell variable)")

    # ----------------------------------------------------------------- names
    def LOAD_FAST(self, inst):
        if inst.argval not in self.locals:
            unimplemented(f"read of the unbound local {inst.argval!r}")
        var = self.locals[inst.argval]
        if isinstance(var, LazyVariable):
            var = self.locals[inst.argval] = self.output.wrap(var.value, var.source)
        self.push(var)

    LOAD_FAST__LOAD_FAST = LOAD_FAST

    def STORE_FAST(self, inst):
        self.locals[inst.argval] = self.pop()

    def DELETE_FAST(self, inst):
        self.locals.pop(inst.argval, None)

    def LOAD_CONST(self, inst):
        self.push(ConstantVariable(inst.argval))

    def LOAD_GLOBAL(self, inst):
        if inst.arg & 1:
            self.push(_NULL)
        self.push(self._global(inst.argval))

    def _global(self, name):
        stored = self.output.stored_global(self.f_globals, name)
        if stored is not None:
            return stored
        if name in self.f_globals:
            return self.output.wrap(self.f_globals[name], GlobalSource(name, self.f_globals))
        builtins = self.f_globals.get("__builtins__")
        table = builtins if isinstance(builtins, dict) else vars(builtins)
        if name not in table:
            unimplemented(f"name {name!r} is not defined")
        return self.output.wrap(table[name], BuiltinSource(name, table))

    def STORE_GLOBAL(self, inst):
        self.output.record_store_global(self.f_globals, inst.argval, self.pop())

    def LOAD_DEREF(self, inst):
        cell = self.cells.get(inst.argval)
        if cell is None:
            unimplemented(f"closure variable {inst.argval!r} of this frame")
        self.push(self.output.wrap(cell.cell_contents, CellSource(cell, inst.argval)))

    LOAD_CLASSDEREF = LOAD_DEREF

    def STORE_DEREF(self, inst):
        unimplemented(f"assignment to the closure variable {inst.argval!r}")

    def LOAD_ATTR(self, inst):
        self.push(self.pop().getattr(self, inst.argval))

    def LOAD_METHOD(self, inst):
        owner = self.pop()
        self.push(_NULL)
        self.push(owner.getattr(self, inst.argval))

    def STORE_ATTR(self, inst):
        owner = self.pop()
        owner.setattr(self, inst.argval, self.pop())

    # ----------------------------------------------------------------- calls
    def PUSH_NULL(self, inst):
        self.push(_NULL)

    def KW_NAMES(self, inst):
        self.kw_names = self.code.co_consts[inst.arg]

    def CALL(self, inst):
        args = self.popn(inst.arg)
        callable_or_self = self.pop()
        below = self.pop()
        if isinstance(below, NullVariable):
            fn = callable_or_self
        else:
            fn, args = below, [callable_or_self, *args]
        kwargs = {}
        if self.kw_names:
            names = self.kw_names
            kwargs = dict(zip(names, args[len(args) - len(names):]))
            args = args[:len(args) - len(names)]
        self.kw_names = None
        self.push(self.call_function(fn, args, kwargs))

    def CALL_FUNCTION_EX(self, inst):
        kwargs = self.pop() if inst.arg & 1 else DictVariable({})
        args = self.pop()
        fn = self.pop()
        if not isinstance(self.pop(), NullVariable):
            unimplemented("CALL_FUNCTION_EX on a method")
        if not isinstance(kwargs, DictVariable):
            unimplemented("** of something not a dict")
        self.push(self.call_function(fn, args.unpack(self), dict(kwargs.items)))

    def MAKE_FUNCTION(self, inst):
        code = self.pop().as_constant()
        if inst.arg != 0:
            unimplemented("defining a function with defaults or a closure inside the function")
        self.push(UserFunctionVariable(types.FunctionType(code, self.f_globals)))

    # ----------------------------------------------------------------- operators
    def BINARY_OP(self, inst):
        right = self.pop()
        left = self.pop()
        self.push(binary(self, _BINARY[inst.arg], left, right))

    def COMPARE_OP(self, inst):
        right = self.pop()
        left = self.pop()
        self.push(binary(self, _COMPARE[inst.argval], left, right))

    def _unary(op):
        def handle(self, inst):
            value = self.pop()
            if isinstance(value, TensorVariable):
                self.push(self.output.call_op("call_function", op, [value], {}))
            else:
                self.push(ConstantVariable(op(value.as_constant())))
        return handle

    UNARY_NEGATIVE = _unary(operator.neg)
    UNARY_POSITIVE = _unary(operator.pos)
    UNARY_INVERT = _unary(operator.invert)

    def UNARY_NOT(self, inst):
        self.push(ConstantVariable(not self.pop().truth(self)))

    def IS_OP(self, inst):
        right = self.pop()
        left = self.pop()
        same = _identical(left, right)
        self.push(ConstantVariable(same != bool(inst.arg)))

    def CONTAINS_OP(self, inst):
        container = self.pop()
        item = self.pop().as_constant()
        if isinstance(container, DictVariable):
            found = item in container.items
        elif isinstance(container, BaseListVariable):
            found = item in [i.as_constant() for i in container.items]
        else:
            found = item in container.as_constant()
        self.push(ConstantVariable(found != bool(inst.arg)))

    def BINARY_SUBSCR(self, inst):
        index = self.pop()
        owner = self.pop()
        if isinstance(owner, TensorVariable):
            self.push(self.output.call_op("call_function", operator.getitem, [owner, index], {}))
        elif isinstance(owner, (BaseListVariable, DictVariable, NNModuleVariable)):
            self.push(owner.getitem(self, index))
        else:
            self.push(ConstantVariable(owner.as_constant()[index.as_constant()]))

    def STORE_SUBSCR(self, inst):
        index = self.pop()
        owner = self.pop()
        value = self.pop()
        if isinstance(owner, TensorVariable):
            self.output.call_op("call_function", operator.setitem, [owner, index, value], {},
                                mutates=True)
        elif isinstance(owner, (ListVariable, DictVariable)):
            owner.setitem(self, index, value)
        else:
            unimplemented(f"item assignment on {owner}")

    # ----------------------------------------------------------------- building values
    def BUILD_TUPLE(self, inst):
        self.push(TupleVariable(self.popn(inst.arg)))

    def BUILD_LIST(self, inst):
        self.push(ListVariable(self.popn(inst.arg)))

    def BUILD_MAP(self, inst):
        items = self.popn(2 * inst.arg)
        self.push(DictVariable({items[i].as_constant(): items[i + 1]
                                for i in range(0, len(items), 2)}))

    def BUILD_CONST_KEY_MAP(self, inst):
        keys = self.pop().as_constant()
        self.push(DictVariable(dict(zip(keys, self.popn(inst.arg)))))

    def BUILD_SLICE(self, inst):
        parts = [p.as_constant() for p in self.popn(inst.arg)]
        self.push(ConstantVariable(slice(*parts)))

    def BUILD_STRING(self, inst):
        self.push(ConstantVariable("".join(p.as_constant() for p in self.popn(inst.arg))))

    def FORMAT_VALUE(self, inst):
        spec = self.pop().as_constant() if inst.arg & 0x04 else ""
        value = self.pop().as_constant()
        convert = {0x01: str, 0x02: repr, 0x03: ascii}.get(inst.arg & 0x03)
        if convert is not None:
            value = convert(value)
        self.push(ConstantVariable(format(value, spec)))

    def LIST_APPEND(self, inst):
        value = self.pop()
        self.stack[-inst.arg].items.append(value)

    def LIST_EXTEND(self, inst):
        value = self.pop()
        self.stack[-inst.arg].items.extend(value.unpack(self))

    def LIST_TO_TUPLE(self, inst):
        self.push(TupleVariable(self.pop().items))

    def DICT_MERGE(self, inst):
        value = self.pop()
        if not isinstance(value, DictVariable):
            unimplemented("** of something not a dict")
        self.stack[-inst.arg].items.update(value.items)

    DICT_UPDATE = DICT_MERGE

    def UNPACK_SEQUENCE(self, inst):
        items = self.pop().unpack(self)
        if len(items) != inst.arg:
            unimplemented(f"unpacking {len(items)} values into {inst.arg}")
        self.stack.extend(reversed(items))

    # ----------------------------------------------------------------- the stack
    def POP_TOP(self, inst):
        self.pop()

    def COPY(self, inst):
        self.push(self.stack[-inst.arg])

    def SWAP(self, inst):
        self.stack[-1], self.stack[-inst.arg] = self.stack[-inst.arg], self.stack[-1]

    def RETURN_VALUE(self, inst):
        raise FrameReturn(self.pop())

    # ----------------------------------------------------------------- jumps and loops
    def JUMP_FORWARD(self, inst):
        self.jump(inst)

    JUMP_BACKWARD = JUMP_BACKWARD_NO_INTERRUPT = JUMP_FORWARD

    def _jump_if(truth_wanted):
        def handle(self, inst):
            if self.pop().truth(self) == truth_wanted:
                self.jump(inst)
        return handle

    POP_JUMP_FORWARD_IF_TRUE = POP_JUMP_BACKWARD_IF_TRUE = _jump_if(True)
    POP_JUMP_FORWARD_IF_FALSE = POP_JUMP_BACKWARD_IF_FALSE = _jump_if(False)

    def _jump_if_none(none_wanted):
        def handle(self, inst):
            if _is_none(self.pop()) == none_wanted:
                self.jump(inst)
        return handle

    POP_JUMP_FORWARD_IF_NONE = POP_JUMP_BACKWARD_IF_NONE = _jump_if_none(True)
    POP_JUMP_FORWARD_IF_NOT_NONE = POP_JUMP_BACKWARD_IF_NOT_NONE = _jump_if_none(False)

    def _jump_or_pop(truth_wanted):
        def handle(self, inst):
            if self.stack[-1].truth(self) == truth_wanted:
                self.jump(inst)
            else:
                self.pop()
        return handle

    JUMP_IF_TRUE_OR_POP = _jump_or_pop(True)
    JUMP_IF_FALSE_OR_POP = _jump_or_pop(False)

    def GET_ITER(self, inst):
        value = self.pop()
        if isinstance(value, IteratorVariable):
            self.push(value)
        elif isinstance(value, NNModuleVariable):
            self.push(value.iterate(self))
        elif isinstance(value, ListVariable):
            self.push(IteratorVariable(value.items))
        else:
            self.push(IteratorVariable(value.unpack(self)))

    def FOR_ITER(self, inst):
        iterator = self.stack[-1]
        if not isinstance(iterator, IteratorVariable):
            unimplemented(f"iterating over {iterator}")
        item = iterator.next()
        if item is None:
            self.pop()
            self.jump(inst)
        else:
            self.push(item)


def _is_none(var) -> bool:
    if isinstance(var, ConstantVariable):
        return var.value is None
    if isinstance(var, (TensorVariable, BaseListVariable, DictVariable, NNModuleVariable)):
        return False
    if getattr(var, "value", None) is not None:
        return False
    unimplemented(f"`is None` test on {var}")


def _identical(left, right) -> bool:
    if isinstance(left, ConstantVariable) and isinstance(right, ConstantVariable):
        return left.value is right.value
    if isinstance(right, ConstantVariable) and right.value is None:
        return _is_none(left)
    if isinstance(left, ConstantVariable) and left.value is None:
        return _is_none(right)
    if left is right:
        return True
    if hasattr(left, "value") and hasattr(right, "value") and left.source and right.source:
        return left.value is right.value
    unimplemented(f"`is` between {left} and {right}")
