"""Whether a boolean-mask subscript is the load half of an augmented assignment.

``x[mask] += v`` is, for Python, three steps: ``t = x[mask]`` (a gather, which must count
the mask on the host first), ``t += v``, ``x[mask] = t`` (a scatter, which counts again).
When the subscript being evaluated is exactly that statement's load, and the value ``v``
is one plain name or constant (nothing of the user's runs between the load and the
store), ``ndarray.__getitem__`` hands back a pending selection instead, and the store
becomes one masked update on the device (``if (mask) x = x op v``) without a host round
trip. The result is NumPy's, element for element: nothing can observe ``t``.

The test reads the caller's bytecode (``dis``, so each CPython's spelling of the
statement is covered); anything unexpected answers ``False`` and the subscript is an
ordinary gather. Answers are kept per code object and instruction.
"""

from __future__ import annotations

import dis
import sys

# Python's spellings of one augmented operator (3.11+: BINARY_OP's argrepr; 3.9-3.10:
# the INPLACE_* opcodes). `@=` is left out: a masked selection is 1-D per row.
_AUGMENTED = {
    "+=",
    "-=",
    "*=",
    "/=",
    "//=",
    "%=",
    "**=",
    "&=",
    "|=",
    "^=",
    "<<=",
    ">>=",
}
_INPLACE_OPCODES = {
    "INPLACE_ADD",
    "INPLACE_SUBTRACT",
    "INPLACE_MULTIPLY",
    "INPLACE_TRUE_DIVIDE",
    "INPLACE_FLOOR_DIVIDE",
    "INPLACE_MODULO",
    "INPLACE_POWER",
    "INPLACE_AND",
    "INPLACE_OR",
    "INPLACE_XOR",
    "INPLACE_LSHIFT",
    "INPLACE_RSHIFT",
}
# Loads that push one value and run none of the user's code.
_PLAIN_LOADS = {
    "LOAD_FAST",
    "LOAD_FAST_CHECK",
    "LOAD_FAST_BORROW",
    "LOAD_DEREF",
    "LOAD_CLASSDEREF",
    "LOAD_CONST",
    "LOAD_SMALL_INT",
    "LOAD_NAME",
    "LOAD_GLOBAL",
}

_answers: dict[tuple[object, int], bool] = {}
_MAX_ANSWERS = 4096


def augmented_load(depth: int = 1) -> bool:
    """True when the caller's current instruction is the subscript load of
    ``x[key] op= name``. Called by ``ndarray.__getitem__`` (compiled code adds no frame,
    so the frame below this function's is the user's: ``depth`` 1)."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return False
    key = (frame.f_code, frame.f_lasti)
    answer = _answers.get(key)
    if answer is None:
        answer = _analyse(frame.f_code, frame.f_lasti)
        if len(_answers) < _MAX_ANSWERS:
            _answers[key] = answer
    return answer


def _analyse(code: object, lasti: int) -> bool:
    try:
        ins = list(dis.get_instructions(code))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 (an unreadable code object: the ordinary path)
        return False
    at = next((n for n, i in enumerate(ins) if i.offset == lasti), None)
    if at is None or not _is_subscript(ins[at]):
        return False
    before = ins[max(0, at - 2) : at]
    if not (_copies_key(before) or (before and before[-1].opname == "DUP_TOP_TWO")):
        return False
    after = ins[at + 1 : at + 6]
    if len(after) < 3 or any(_is_target(i) for i in after):
        return False
    load, op, *tail = after
    if not _plain_load(load) or not _in_place(op):
        return False
    names = [i.opname for i in tail]
    if names[:3] == ["SWAP", "SWAP", "STORE_SUBSCR"]:
        return [tail[0].arg, tail[1].arg] == [3, 2]
    return names[:2] == ["ROT_THREE", "STORE_SUBSCR"]


def _is_subscript(i: dis.Instruction) -> bool:
    return i.opname == "BINARY_SUBSCR" or (i.opname == "BINARY_OP" and i.argrepr == "[]")


def _copies_key(before: list[dis.Instruction]) -> bool:
    return len(before) == 2 and all(i.opname == "COPY" and i.arg == 2 for i in before)


def _is_target(i: dis.Instruction) -> bool:
    return bool(getattr(i, "is_jump_target", False))


def _plain_load(i: dis.Instruction) -> bool:
    return i.opname in _PLAIN_LOADS and not i.argrepr.startswith("NULL")


def _in_place(i: dis.Instruction) -> bool:
    if i.opname == "BINARY_OP":
        return i.argrepr in _AUGMENTED
    return i.opname in _INPLACE_OPCODES
