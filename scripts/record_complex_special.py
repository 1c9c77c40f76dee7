"""Records NumPy's complex ufuncs over the special-value grid, for
`crates/cuprum/tests/complex_special.rs` (the fixture it compares cuprum with):

    python3 -m pip install numpy          # only this script needs it
    python3 scripts/record_complex_special.py [OUT]

OUT defaults to crates/cuprum/tests/fixtures/complex_special.txt. The fixture is text, one
line per (function, dtype, row of inputs): `name dtype re,im re,im ...`. A value is the
shortest repr of the float32 (complex64) or float64 (complex128) part that reads back to the
same bits (`1e-40`, `-0`, `inf`, `nan`), so the signs of zeros survive; a NaN's sign is not
recorded (C99 leaves it unspecified). Boolean results are `0` / `1`, real results one value.

The inputs are not stored per result: the test rebuilds them from the `part` and `exps`
lines at the top, in the same order as here.
- Unary functions: every z = re + i im with re and im from PARTS (re-major: one line per re).
- multiply, divide: a and b both from BPARTS x BPARTS (one line per a). add and subtract
  are IEEE arithmetic of each part, with nothing special to record.
- power: a from BPARTS x BPARTS plus a few ordinary values, b from EXPONENTS (one line per a).
"""
import math
import os
import sys
import warnings

import numpy as np

# Each part of the unary grid: signed zeros, a subnormal, 1, ordinary values, a large finite
# value (near the top of the type's range), infinities and NaN.
PARTS = {
    "c64": [0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 0.5, -2.5, 3.0, 1e38, -1e38, math.inf, -math.inf, math.nan],
    "c128": [0.0, -0.0, 1e-310, -1e-310, 1.0, -1.0, 0.5, -2.5, 3.0, 1e308, -1e308, math.inf, -math.inf, math.nan],
}
# Each part of the binary grid.
BPARTS = [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan]
# Bases of power beyond the binary grid: ordinary values (NumPy's integer powers multiply).
POWER_BASES = [(0.5, -1.5), (-2.0, 0.0), (0.0, 3.0), (1e-3, 2.0)]
# Exponents of power: NumPy's special cases (0, 1, 2, 3, small integers by repeated
# multiplication, -1 and other negative integers through a reciprocal), integers beyond its
# range, non-integers, imaginary and special exponents.
EXPONENTS = [
    (0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0),
    (7.0, 0.0), (-1.0, 0.0), (-2.0, 0.0), (-3.0, 0.0), (100.0, 0.0), (0.5, 0.0), (-0.5, 0.0),
    (2.0, 1.0), (0.0, 1.0), (1.0, -1.0), (math.inf, 0.0), (-math.inf, 0.0), (0.0, math.inf),
    (math.nan, 0.0), (0.0, math.nan), (1.0, math.nan),
]

UNARY = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "square", "reciprocal",
    "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh",
    "arccosh", "arctanh", "absolute", "angle", "sign", "conjugate", "real", "imag",
    "negative", "rint", "isnan", "isinf", "isfinite",
]
BINARY = ["multiply", "divide", "power"]
TYPES = {"c64": np.complex64, "c128": np.complex128}


def text(v):
    """The shortest repr of a float32/float64 value that reads back to its bits."""
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if np.isnan(v):
        return "nan"
    s = repr(float(v)) if isinstance(v, np.float64) else str(v)
    if s.endswith(".0"):
        s = s[:-2]
    assert type(v)(s) == v and np.signbit(type(v)(s)) == np.signbit(v), (v, s)
    return s


def values(r):
    if np.iscomplexobj(r):
        return [f"{text(x.real)},{text(x.imag)}" for x in r]
    return [text(x) for x in r]


def grid(parts, t):
    return np.array([complex(re, im) for re in parts for im in parts], dtype=t)


def pairs(a_list, b_list, t):
    a = np.array([complex(*x) for x in a_list for _ in b_list], dtype=t)
    b = np.array([complex(*y) for _ in a_list for y in b_list], dtype=t)
    return a, b


def lines(name, d, results, row):
    out = values(results)
    return [f"{name} {d} " + " ".join(out[i:i + row]) for i in range(0, len(out), row)]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "crates", "cuprum", "tests", "fixtures",
        "complex_special.txt")
    warnings.simplefilter("ignore")
    rec = [
        f"# NumPy {np.__version__}'s complex ufuncs over the special-value grid, recorded by",
        "# scripts/record_complex_special.py (which says the format); checked by",
        "# crates/cuprum/tests/complex_special.rs. Do not edit: re-record.",
    ]
    bgrid = [(re, im) for re in BPARTS for im in BPARTS]
    for d, t in TYPES.items():
        ft = np.float32 if d == "c64" else np.float64
        rec.append(f"part {d} " + " ".join(text(ft(p)) for p in PARTS[d]))
    rec.append("bpart " + " ".join(text(np.float64(p)) for p in BPARTS))
    rec.append("pbase " + " ".join(f"{text(np.float64(a))},{text(np.float64(b))}" for a, b in POWER_BASES))
    rec.append("exps " + " ".join(f"{text(np.float64(a))},{text(np.float64(b))}" for a, b in EXPONENTS))
    with np.errstate(all="ignore"):
        for d, t in TYPES.items():
            z = grid(PARTS[d], t)
            n = len(PARTS[d])
            for name in UNARY:
                rec += lines(name, d, getattr(np, name)(z), n)
            for name in BINARY:
                if name == "power":
                    a, b = pairs(bgrid + POWER_BASES, EXPONENTS, t)
                    row = len(EXPONENTS)
                else:
                    a, b = pairs(bgrid, bgrid, t)
                    row = len(bgrid)
                rec += lines(name, d, getattr(np, name)(a, b), row)
    with open(out, "w") as f:
        f.write("\n".join(rec) + "\n")
    print(f"{out}: {len(rec)} lines, {os.path.getsize(out)} bytes")


if __name__ == "__main__":
    main()
