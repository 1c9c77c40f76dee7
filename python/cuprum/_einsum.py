"""NumPy's ``einsum``, composed from cuprum's operations: the subscripts are parsed on the
host; each operand's repeated labels become diagonal views, labels of one operand only
are summed out, and the operands are contracted two at a time by one batched
``matmul`` (the shared labels kept as the batch, the summed ones as the inner
dimension). An operation without a sum (a transpose, a diagonal) is a view of its
operand, as NumPy's."""

from __future__ import annotations

import operator

import cuprum
from cuprum._lazy import numpy

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_KWARGS = ("out", "dtype", "order", "casting", "optimize")


def _sublist_term(sub):
    """One sublist of the sublist form (ints in ``[0, 52)`` and ``...``) as subscripts."""
    if isinstance(sub, (str, bytes)) or not hasattr(sub, "__iter__"):
        raise TypeError("each subscript list must be a sequence of integers or Ellipsis")
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
            continue
        try:
            k = operator.index(s)
        except TypeError:
            raise TypeError(
                "each subscript must be either an integer or an ellipsis to provide "
                "subscripts strings"
            ) from None
        if not 0 <= k < 52:
            raise ValueError("subscript is not within the valid range [0, 52)")
        out.append(_LETTERS[k])
    return "".join(out)


def _from_sublists(args):
    """The sublist form ``op0, sub0, op1, sub1, ..., [subout]`` as a subscripts string
    and the operands."""
    ops, terms = [], []
    args = list(args)
    while len(args) >= 2:
        ops.append(args.pop(0))
        terms.append(_sublist_term(args.pop(0)))
    subscripts = ",".join(terms)
    if args:
        subscripts += "->" + _sublist_term(args[0])
    return subscripts, ops


def _term_labels(term, k, ndim):
    """The labels of operand ``k``'s term: letters, and ``('.', j)`` for the ``j``-th
    of its broadcast (ellipsis) dimensions counted from the right."""
    if term.count("...") > 1 or term.replace("...", "").count("."):
        raise ValueError(
            f"einstein sum subscripts string contains a '.' that is not part of an ellipsis "
            f"('...') in operand {k}"
        )
    for c in term.replace("...", ""):
        if c not in _LETTERS:
            raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                             "subscripts must be letters")  # fmt: skip
    if "..." not in term:
        if len(term) != ndim:
            more = "more" if len(term) < ndim else "fewer"
            raise ValueError(
                f"operand has {more} dimensions than subscripts given in einstein sum, but "
                "no '...' ellipsis provided to broadcast the extra dimensions."
                if more == "more"
                else f"einstein sum subscripts string contains too many subscripts for operand {k}"
            )
        return list(term), 0
    head, tail = term.split("...")
    n_ell = ndim - len(head) - len(tail)
    if n_ell < 0:
        raise ValueError(
            f"einstein sum subscripts string contains too many subscripts for operand {k}"
        )
    ell = [(".", j) for j in range(n_ell - 1, -1, -1)]
    return list(head) + ell + list(tail), n_ell


def _parse(subscripts, operands):
    """The labels of each operand and of the output."""
    s = subscripts.replace(" ", "")
    for c in s:
        if c not in _LETTERS and c not in ".,->":
            raise ValueError(f"invalid subscript '{c}' in einstein sum subscripts string, "
                             "subscripts must be letters")  # fmt: skip
    if s.count("->") > 1 or s.replace("->", "").count("-") or s.replace("->", "").count(">"):
        raise ValueError(
            "einstein sum subscript string does not contain proper '->' output specified"
        )
    explicit = "->" in s
    ins, out = s.split("->") if explicit else (s, None)
    terms = ins.split(",")
    if len(terms) > len(operands):
        raise ValueError("fewer operands provided to einstein sum function than specified in "
                         "the subscripts string")  # fmt: skip
    if len(terms) < len(operands):
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string")  # fmt: skip
    labels, n_ell = [], 0
    for k, (term, op) in enumerate(zip(terms, operands)):
        ls, e = _term_labels(term, k, op.ndim)
        labels.append(ls)
        n_ell = max(n_ell, e)
    ell = [(".", j) for j in range(n_ell - 1, -1, -1)]
    if not explicit:
        counts = {}
        for ls in labels:
            for lab in ls:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        return labels, ell + sorted(c for c, n in counts.items() if n == 1)
    if out.count("...") > 1 or out.replace("...", "").count("."):
        raise ValueError("einstein sum subscripts string contains a '.' that is not part of "
                         "an ellipsis ('...') in the output")  # fmt: skip
    if "," in out:
        raise ValueError("einstein sum subscripts string contains a ',' in the output")
    seen = set().union(*(set(ls) for ls in labels)) if labels else set()
    res = []
    for c in out.replace("...", "."):
        if c == ".":
            res += ell
            continue
        if c in res:
            raise ValueError(
                f"einstein sum subscripts string includes output subscript '{c}' multiple times"
            )
        if c not in seen:
            raise ValueError(
                f"einstein sum subscripts string included output subscript '{c}' which never "
                "appeared in an input"
            )
        res.append(c)
    if n_ell and "..." not in out:
        raise ValueError(
            "output has more dimensions than subscripts given in einstein sum, but no '...' "
            "ellipsis provided to broadcast the extra dimensions."
        )
    return labels, res


def _diagonals(a, labels, k):
    """``a`` with each repeated label taken once (a diagonal view)."""
    labels = list(labels)
    while True:
        for p, lab in enumerate(labels):
            if lab in labels[p + 1 :]:
                q = labels.index(lab, p + 1)
                break
        else:
            return a, labels
        if a.shape[p] != a.shape[q]:
            raise ValueError(
                f"dimensions in operand {k} for collapsing index '{lab}' don't match "
                f"({a.shape[p]} != {a.shape[q]})"
            )
        a = a.diagonal(0, p, q)
        labels = [x for i, x in enumerate(labels) if i not in (p, q)] + [lab]


def _sum_out(a, labels, keep, dtype):
    """``a`` summed over its labels not in ``keep`` (in ``dtype``; a logical or for
    bools)."""
    axes = tuple(i for i, lab in enumerate(labels) if lab not in keep)
    if not axes:
        return a, labels
    if dtype.kind == "b":
        a = cuprum.any(a, axis=axes)
    else:
        a = cuprum.sum(a, axis=axes, dtype=dtype)
    return a, [lab for lab in labels if lab in keep]


def _contract(a, la, b, lb, keep, sizes):
    """The product of ``a`` and ``b`` summed over their shared labels not in ``keep``: one
    batched ``matmul``."""
    batch = [x for x in la if x in lb and x in keep]
    inner = [x for x in la if x in lb and x not in keep]
    left = [x for x in la if x not in lb]
    right = [x for x in lb if x not in la]

    def arrange(x, lx, order):
        x = x.transpose([lx.index(lab) for lab in order])
        shape = tuple(sizes[lab] for lab in order)
        return cuprum.broadcast_to(x, shape) if x.shape != shape else x

    def prod(ls):
        n = 1
        for lab in ls:
            n *= sizes[lab]
        return n

    at = arrange(a, la, batch + left + inner).reshape(prod(batch), prod(left), prod(inner))
    bt = arrange(b, lb, batch + inner + right).reshape(prod(batch), prod(inner), prod(right))
    r = cuprum.matmul(at, bt)
    return r.reshape(tuple(sizes[lab] for lab in batch + left + right)), batch + left + right


def einsum(*operands, **kwargs):
    """The Einstein summation of the operands (NumPy's ``einsum``): a subscripts string
    (``'ij,jk->ik'``, with ``...`` for broadcast dimensions and an implicit output of the
    labels seen once, in alphabetical order) or the sublist form ``einsum(a, [0, 1], b,
    [1, 2], [0, 2])``; ``dtype``, ``casting`` (``'safe'``), ``out``; ``optimize`` is
    accepted (the operands are contracted left to right)."""
    bad = [k for k in kwargs if k not in _KWARGS]
    if bad:
        raise TypeError(f"Did not understand the following kwargs: {bad}")
    if not operands:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand, or at least one operand and its corresponding subscripts "
                         "list")  # fmt: skip
    if isinstance(operands[0], str):
        subscripts, ops = operands[0], list(operands[1:])
    else:
        subscripts, ops = _from_sublists(operands)
    if not ops:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand, or at least one operand and its corresponding subscripts "
                         "list")  # fmt: skip
    ops = [cuprum.asarray(op) for op in ops]
    labels, out_labels = _parse(subscripts, ops)

    if len(ops) == 1 and set(labels[0]) <= set(out_labels):
        # no sum: a view (a transpose of a diagonal) in the operand's dtype, whatever
        # `dtype` and `casting` say, as NumPy's
        a, la = _diagonals(ops[0], labels[0], 0)
        return _finish(a.transpose([la.index(lab) for lab in out_labels]), kwargs.get("out"))

    dtype = kwargs.get("dtype")
    casting = kwargs.get("casting", "safe")
    dtype = numpy.result_type(*[op.dtype for op in ops]) if dtype is None else numpy.dtype(dtype)
    for k, op in enumerate(ops):
        if not numpy.can_cast(op.dtype, dtype, casting):
            raise TypeError(
                f"Iterator operand {k} dtype could not be cast from {op.dtype!r} to "
                f"{dtype!r} according to the rule {casting!r}"
            )

    # each operand's diagonals, and the size of each label (1 broadcasts)
    sizes = {}
    for k, op in enumerate(ops):
        ops[k], labels[k] = _diagonals(op, labels[k], k)
        for lab, n in zip(labels[k], ops[k].shape):
            m = sizes.get(lab, 1)
            if m != n and m != 1 and n != 1:
                name = "..." if isinstance(lab, tuple) else lab
                raise ValueError(
                    f"operands could not be broadcast together: the label '{name}' has "
                    f"sizes {m} and {n}"
                )
            sizes[lab] = n if m == 1 else m

    out_set = set(out_labels)
    if len(ops) == 1:
        a, la = ops[0], labels[0]
        a, la = _sum_out(a.astype(dtype, copy=False), la, out_set, dtype)
        return _finish(a.transpose([la.index(lab) for lab in out_labels]), kwargs.get("out"))

    ops = [op.astype(dtype, copy=False) for op in ops]
    a, la = ops[0], labels[0]
    for k in range(1, len(ops)):
        keep = set(out_set).union(*(set(ls) for ls in labels[k + 1 :]))
        a, la = _sum_out(a, la, keep | set(labels[k]), dtype)
        b, lb = _sum_out(ops[k], labels[k], keep | set(la), dtype)
        a, la = _contract(a, la, b, lb, keep, sizes)
    a, la = _sum_out(a, la, out_set, dtype)
    shape = tuple(sizes[lab] for lab in out_labels)
    r = a.transpose([la.index(lab) for lab in out_labels])
    if r.shape != shape:
        r = cuprum.broadcast_to(r, shape)
    return _finish(r.astype(dtype, copy=False), kwargs.get("out"))


def _finish(r, out):
    if out is None:
        return r
    out[...] = r
    return out
