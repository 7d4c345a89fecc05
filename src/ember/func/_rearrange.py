"""ember.func.rearrange: einops-style reordering of a tensor's elements by a pattern such as
"b (h h1) w c -> b h w (c h1)": one reshape into the elementary axes of the left side, one
permute into the order of the right side, one reshape into the right side's groups."""
from __future__ import annotations

import math

from ember.autograd.functional import _stack

_ELLIPSIS = "\u2026"     # "..." once parsed, so that it reads as one identifier character


class _Side:
    """One side of a pattern: its groups (lists of axis names; [] for a unit axis "1" or
    "()"; the ellipsis on its own at top level, else inside its group)."""

    def __init__(self, expression):
        self.identifiers = []
        self.groups = []
        self.has_ellipsis = False
        self.ellipsis_in_brackets = False
        if "." in expression:
            if "..." not in expression:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if expression.count("...") != 1 or expression.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); only "
                                 "one ellipsis for tensor ")
            expression = expression.replace("...", _ELLIPSIS)
            self.has_ellipsis = True
        group = None
        name = ""
        for char in expression + " ":
            if char in "() ":
                if name:
                    self._add(name, group)
                    name = ""
                if char == "(":
                    if group is not None:
                        raise ValueError("Axis composition is one-level (brackets inside "
                                         "brackets not allowed)")
                    group = []
                elif char == ")":
                    if group is None:
                        raise ValueError("Brackets are not balanced")
                    self.groups.append(group)
                    group = None
            elif char.isalnum() or char in "_" + _ELLIPSIS:
                name += char
            else:
                raise ValueError(f"Unknown character '{char}'")
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{expression}'")

    def _add(self, name, group):
        if name in self.identifiers:
            raise ValueError(f"Indexing expression contains duplicate dimension '{name}'")
        if name == _ELLIPSIS:
            self.ellipsis_in_brackets = group is not None
        elif name.isdecimal():
            if int(name) != 1:
                raise ValueError("rearrange only supports unnamed axes of size 1")
            if group is None:
                self.groups.append([])
            return
        elif not name.isidentifier():
            raise ValueError(f"Invalid axis identifier: {name}\nnot a valid python identifier")
        elif name[0] == "_" or name[-1] == "_":
            raise ValueError(f"Invalid axis identifier: {name}\naxis name should should not "
                             "start or end with underscore")
        self.identifiers.append(name)
        if name == _ELLIPSIS and group is None:
            self.groups.append(_ELLIPSIS)       # stands for as many top-level groups as needed
        elif group is None:
            self.groups.append([name])
        else:
            group.append(name)


def _parse(pattern, axes_lengths):
    sides = pattern.split("->")
    if len(sides) != 2:
        raise ValueError("Pattern must contain a single '->' separator")
    if "..." in axes_lengths:
        raise ValueError("'...' is not an allowed axis identifier")
    left, right = _Side(sides[0]), _Side(sides[1])
    if not left.has_ellipsis and right.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern "
                         f"{pattern}")
    if left.ellipsis_in_brackets:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for length in axes_lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    only_one_side = set(left.identifiers) ^ set(right.identifiers)
    if only_one_side:
        raise ValueError("Identifiers only on one side of rearrange expression (should be on "
                         f"both): {only_one_side}")
    unmatched = axes_lengths.keys() - set(left.identifiers)
    if unmatched:
        raise ValueError(f"Identifiers not found in rearrange expression: {unmatched}")
    return left, right


def _expand_ellipsis(groups, names):
    expanded = []
    for group in groups:
        if group == _ELLIPSIS:
            expanded.extend([n] for n in names)
        else:
            pieces = []
            for axis in group:
                pieces.extend(names if axis == _ELLIPSIS else [axis])
            expanded.append(pieces)
    return expanded


def rearrange(tensor, pattern: str, **axes_lengths):
    """Reorder (transpose, split, merge, add or drop unit axes of) a tensor, or of a list of
    tensors stacked along a new first dim, by an einops pattern."""
    if isinstance(tensor, (list, tuple)):
        tensor = _stack(tensor, 0)
    left, right = _parse(pattern, axes_lengths)
    ndim = tensor.dim()
    fixed = len(left.groups) - (1 if left.has_ellipsis else 0)
    if left.has_ellipsis:
        if fixed > ndim:
            raise ValueError(f"Number of dimensions in pattern ({fixed}) must be less than or "
                             f"equal to the number of dimensions in the tensor ({ndim})")
    elif fixed != ndim:
        raise ValueError(f"Number of dimensions in pattern ({fixed}) must be equal to the "
                         f"number of dimensions in the tensor ({ndim})")
    ellipsis_names = [f"{_ELLIPSIS}{i}" for i in range(ndim - fixed)]
    left_groups = _expand_ellipsis(left.groups, ellipsis_names)
    right_groups = _expand_ellipsis(right.groups, ellipsis_names)

    sizes = dict(axes_lengths)
    for group, dim_size in zip(left_groups, tensor.shape):
        unknown = [axis for axis in group if axis not in sizes]
        known = math.prod(sizes[axis] for axis in group if axis in sizes)
        if len(unknown) > 1:
            raise ValueError(f"Could not infer sizes for {set(unknown)}")
        if unknown:
            if known == 0 or dim_size % known:
                raise ValueError(f"Shape mismatch, can't divide axis of length {dim_size} in "
                                 f"chunks of {known}")
            sizes[unknown[0]] = dim_size // known
        elif known != dim_size:
            raise ValueError(f"Shape mismatch, {dim_size} != {known}")

    elementary = [axis for group in left_groups for axis in group]
    position = {axis: i for i, axis in enumerate(elementary)}
    order = [position[axis] for group in right_groups for axis in group]
    result = tensor.reshape([sizes[axis] for axis in elementary])
    if order != list(range(len(order))):
        result = result.permute(order)
    return result.reshape([math.prod(sizes[axis] for axis in group) for group in right_groups])
