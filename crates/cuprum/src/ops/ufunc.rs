//! The one table of NumPy's element-wise operations (ufuncs). Each row says what an
//! operation is called, how many operands it takes, which dtype it computes in and returns
//! for operands promoted to a dtype (or why it refuses that dtype), and the C++
//! *expression* that computes it from its operands' expressions. `ops` builds its kernels
//! from the rows (`out = <expression>;`, one ElementwiseKernel per operation and dtypes) and
//! [`fuse`](crate::fuse) builds fused kernels from the same rows (`const T v3 = <expression>;`),
//! so NumPy's semantics are written once.
//!
//! The table holds NumPy's element-wise operations in full: arithmetic, `floor_divide`,
//! `remainder` and `fmod` with NumPy's integer results for a zero divisor and `MIN // -1`,
//! rounding, predicates, logical, bitwise and shift operations, exponentials, logarithms,
//! circular and hyperbolic functions and their inverses (complex ones on the principal
//! branches, with C99 Annex G's values at infinities, NaNs and signed zeros, as NumPy:
//! `complex.cuh` and `ufunc.cuh` say which clause each implements, and
//! `tests/complex_special.rs` checks them against NumPy), `sign`, `square`, `reciprocal`,
//! `conj`, `real`, `imag`, `angle`, `nextafter`, `i0`. What needs
//! statements (NumPy's remainder, exact integer powers, NaN-propagating
//! maximum/minimum/clip, lexicographic complex comparisons) is a helper of `ufunc.cuh`;
//! there a 64-bit integer division takes the 32-bit instruction sequence when both operands
//! fit.
//!
//! Conventions of a row:
//! - `types(op, c)` gets the dtype NumPy promotes the operands to (`ops::promote`, weak
//!   scalars included; for a unary operation, its operand's dtype) and returns the [`Loop`]:
//!   the dtype the operation computes in and the dtype of its result. Refusals are
//!   `ErrorKind::DType` (or `Unsupported`) errors that say which operation and dtype.
//! - `expr(x, loop)` gets one C++ expression per operand, each already of `loop.compute`'s C
//!   type (a `where` condition: `bool`). Operand expressions are pure and cheap (names or
//!   casts of names), so an expression may use one twice. The result must have
//!   `loop.out`'s C type. What needs statements goes into a `__device__` helper of
//!   `include/cuprum/ufunc.cuh` (bundled with every kernel) and the expression calls it.
//!
//! Adding a ufunc (e.g. `floor`):
//! 1. a row in the `ufuncs!` invocation below: `Floor = "floor", 1, float_fn, |x, l|
//!    math_call("floor", l.compute, x[0]);` — a dtype rule (one of the `fn(Op, DType) ->
//!    Result<Loop>` rules here, or a new one) and an expression;
//! 2. the public function in `ops/unary.rs` / `ops/binary.rs` (`unary_fns!` /
//!    `binary_fns!`) and the `Array` method in `ops/methods.rs`;
//! 3. the traced method in `fuse/var.rs` (`unary_methods!` / `binary_methods!`);
//! 4. in tests: the NVRTC checks already compile every row for every dtype (`Op::ALL`);
//!    add the operation to the `Un` / `Bin` lists of `tests/fuse.rs`, whose property tests
//!    run random expressions through `fuse` and through `ops` and compare them, and give it
//!    a host-reference test in `tests/ufuncs.rs` (its own NumPy dtype table and reference
//!    per operation). The `_into` form, the masked updates and the in-place paths come with
//!    the row.
//!
//! A dtype rule sees only the promoted dtype: an operation whose operands all convert to
//! one type fits as is (logical operations compute in the promoted type, so a weak scalar is
//! range-checked against it as everywhere, and take truth values in the expression;
//! `isnan` of an integer is `false` in the expression); the first operand of a row with
//! `condition: true` is converted to bool and left out of the promotion (`where`). A
//! compute type of a lower kind than the promoted one would convert weak scalars without
//! NumPy's range check in `fuse`: keep the compute type's kind at least the promoted one's.

use crate::array::{DType, DTypeKind, Scalar};
use crate::error::{Result, bail};

/// The dtypes one operation computes in and returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Loop {
    /// The dtype every operand is converted to before the operation.
    pub(crate) compute: DType,
    /// The dtype of the result.
    pub(crate) out: DType,
}

impl Loop {
    /// Computes in `d` and returns `d`.
    pub(crate) fn same(d: DType) -> Loop {
        Loop { compute: d, out: d }
    }
}

/// One operation of the table.
pub(crate) struct Ufunc {
    /// NumPy's name (kernel names and messages).
    pub(crate) name: &'static str,
    /// Number of operands.
    pub(crate) arity: usize,
    /// The first operand is a condition: converted to bool, left out of the promotion.
    pub(crate) condition: bool,
    /// The loop for operands promoted to a dtype, or why the operation refuses it.
    pub(crate) types: fn(Op, DType) -> Result<Loop>,
    /// The C++ expression of the result from the operands' expressions.
    pub(crate) expr: fn(&[&str], Loop) -> String,
}

macro_rules! ufuncs {
    ($($(#[$doc:meta])* $v:ident = $name:literal, $arity:literal, $cond:literal, $types:expr, $expr:expr;)*) => {
        /// Every built-in element-wise operation (a row of the table).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum Op {
            $($(#[$doc])* $v,)*
        }

        /// The rows, in the order of [`Op`].
        static ROWS: &[Ufunc] = &[$(Ufunc {
            name: $name,
            arity: $arity,
            condition: $cond,
            types: $types,
            expr: $expr,
        }),*];

        impl Op {
            /// Every operation.
            pub(crate) const ALL: &'static [Op] = &[$(Op::$v),*];
        }
    };
}

ufuncs! {
    /// `a + b` (bool: logical or).
    Add = "add", 2, false, same, |x, l| if l.compute == DType::Bool { bin(x, "||") } else { bin(x, "+") };
    /// `a - b`.
    Sub = "subtract", 2, false, no_bool, |x, _| bin(x, "-");
    /// `a * b` (bool: logical and).
    Mul = "multiply", 2, false, same, |x, l| if l.compute == DType::Bool { bin(x, "&&") } else { bin(x, "*") };
    /// True division.
    Div = "divide", 2, false, true_divide, |x, _| bin(x, "/");
    /// NumPy's remainder (sign of the divisor).
    Rem = "remainder", 2, false, remainder, remainder_expr;
    /// `a ** b`.
    Pow = "power", 2, false, bool_as_int8, power_expr;
    /// NaN-propagating maximum (complex: lexicographic, a NaN in either part propagates).
    Maximum = "maximum", 2, false, same, |x, _| call("cuprum::maximum", x);
    /// NaN-propagating minimum (complex: lexicographic, a NaN in either part propagates).
    Minimum = "minimum", 2, false, same, |x, _| call("cuprum::minimum", x);
    /// `a == b`.
    Equal = "equal", 2, false, comparison, |x, _| bin(x, "==");
    /// `a != b`.
    NotEqual = "not_equal", 2, false, comparison, |x, _| bin(x, "!=");
    /// `a < b` (complex: lexicographic).
    Less = "less", 2, false, comparison, |x, l| ordered(x, l, "<", "cuprum::lex_less");
    /// `a <= b`.
    LessEqual = "less_equal", 2, false, comparison, |x, l| ordered(x, l, "<=", "cuprum::lex_less_equal");
    /// `a > b`.
    Greater = "greater", 2, false, comparison, |x, l| ordered(x, l, ">", "cuprum::lex_greater");
    /// `a >= b`.
    GreaterEqual = "greater_equal", 2, false, comparison, |x, l| ordered(x, l, ">=", "cuprum::lex_greater_equal");
    /// `-a` (unsigned integers wrap).
    Neg = "negative", 1, false, no_bool, |x, l| if l.compute.kind() == DTypeKind::UnsignedInt {
        format!("({})(0 - {})", l.compute.c_type(), x[0])
    } else {
        format!("(-{})", x[0])
    };
    /// `+a`: the operand's values in a new array (an error for bool, as NumPy's).
    Pos = "positive", 1, false, no_bool, |x, _| x[0].to_owned();
    /// `|a|` (complex: the real magnitude).
    Abs = "absolute", 1, false, absolute, absolute_expr;
    /// Square root.
    Sqrt = "sqrt", 1, false, float_fn, |x, l| math_call("sqrt", l.compute, x[0]);
    /// `e^a`.
    Exp = "exp", 1, false, float_fn, |x, l| math_call("exp", l.compute, x[0]);
    /// Natural logarithm.
    Log = "log", 1, false, float_fn, |x, l| math_call("log", l.compute, x[0]);
    /// Sine.
    Sin = "sin", 1, false, float_fn, |x, l| math_call("sin", l.compute, x[0]);
    /// Cosine.
    Cos = "cos", 1, false, float_fn, |x, l| math_call("cos", l.compute, x[0]);
    /// Tangent.
    Tan = "tan", 1, false, float_fn, |x, l| math_call("tan", l.compute, x[0]);
    /// Hyperbolic tangent.
    Tanh = "tanh", 1, false, float_fn, |x, l| math_call("tanh", l.compute, x[0]);
    /// `a` limited to `[lo, hi]` (NaN propagates).
    Clip = "clip", 3, false, real_only, |x, _| call("cuprum::clip", x);
    /// `x` where the condition holds, else `y`.
    Where = "where", 3, true, same, |x, _| format!("({} ? {} : {})", x[0], x[1], x[2]);
    /// NumPy's `//`: the quotient rounded toward minus infinity.
    FloorDiv = "floor_divide", 2, false, remainder, floor_divide_expr;
    /// C's `fmod` (the sign of the dividend).
    Fmod = "fmod", 2, false, remainder, fmod_expr;
    /// Largest integer not above `a` (integers and bools unchanged).
    Floor = "floor", 1, false, rounding, |x, l| rounded("floor", x[0], l);
    /// Smallest integer not below `a`.
    Ceil = "ceil", 1, false, rounding, |x, l| rounded("ceil", x[0], l);
    /// `a` rounded toward zero.
    Trunc = "trunc", 1, false, rounding, |x, l| rounded("trunc", x[0], l);
    /// `a` rounded to the nearest integer, halves to even (integers compute in a float).
    Rint = "rint", 1, false, rint_rule, |x, l| math_call("rint", l.compute, x[0]);
    /// `np.round(a)`: halves to even; integers unchanged, bools through float16.
    Round = "round", 1, false, round_rule, |x, l| match l.compute.kind() {
        DTypeKind::Float | DTypeKind::Complex => math_call("rint", l.compute, x[0]),
        _ => x[0].to_owned(),
    };
    /// Whether `a` is NaN (either part of a complex number).
    IsNan = "isnan", 1, false, predicate, |x, l| float_predicate("isnan", x[0], l, "false");
    /// Whether `a` is infinite.
    IsInf = "isinf", 1, false, predicate, |x, l| float_predicate("isinf", x[0], l, "false");
    /// Whether `a` is finite.
    IsFinite = "isfinite", 1, false, predicate, |x, l| float_predicate("isfinite", x[0], l, "true");
    /// Whether the sign bit of `a` is set (integers compute in a float).
    Signbit = "signbit", 1, false, signbit_rule, |x, l| match l.compute {
        DType::F32 | DType::F64 => call("cuprum::sign_bit", x),
        _ => float_predicate("signbit", x[0], l, "false"),
    };
    /// Logical and of the truth values.
    LogicalAnd = "logical_and", 2, false, predicate, |x, l| logical_expr(x, l, "&&");
    /// Logical or.
    LogicalOr = "logical_or", 2, false, predicate, |x, l| logical_expr(x, l, "||");
    /// Logical exclusive or.
    LogicalXor = "logical_xor", 2, false, predicate, |x, l| logical_expr(x, l, "!=");
    /// Logical not.
    LogicalNot = "logical_not", 1, false, predicate, |x, l| format!("(!{})", truth(x[0], l));
    /// Bitwise and (bool: logical and).
    BitAnd = "bitwise_and", 2, false, bitwise, |x, l| bitwise_expr(x, l, "&", "&&");
    /// Bitwise or (bool: logical or).
    BitOr = "bitwise_or", 2, false, bitwise, |x, l| bitwise_expr(x, l, "|", "||");
    /// Bitwise exclusive or (bool: not equal).
    BitXor = "bitwise_xor", 2, false, bitwise, |x, l| bitwise_expr(x, l, "^", "!=");
    /// Bitwise not, NumPy's `invert` (bool: logical not).
    Invert = "invert", 1, false, bitwise, |x, l| if l.compute == DType::Bool {
        format!("(!{})", x[0])
    } else {
        format!("({})(~{})", l.compute.c_type(), x[0])
    };
    /// `a << b` (amounts outside the type's bits give 0).
    LeftShift = "left_shift", 2, false, shift, |x, _| call("cuprum::left_shift", x);
    /// `a >> b` (amounts outside the type's bits give 0, or -1 for negative values).
    RightShift = "right_shift", 2, false, shift, |x, l| if l.compute.kind() == DTypeKind::SignedInt {
        call("cuprum::right_shift_signed", x)
    } else {
        call("cuprum::right_shift_unsigned", x)
    };
    /// Base-2 logarithm.
    Log2 = "log2", 1, false, float_fn, |x, l| math_call("log2", l.compute, x[0]);
    /// Base-10 logarithm.
    Log10 = "log10", 1, false, float_fn, |x, l| math_call("log10", l.compute, x[0]);
    /// `log(1 + a)`, accurate for small `a`.
    Log1p = "log1p", 1, false, float_fn, |x, l| math_call("log1p", l.compute, x[0]);
    /// `e^a - 1`, accurate for small `a`.
    Expm1 = "expm1", 1, false, float_fn, |x, l| math_call("expm1", l.compute, x[0]);
    /// `2^a`.
    Exp2 = "exp2", 1, false, float_fn, |x, l| math_call("exp2", l.compute, x[0]);
    /// Inverse sine.
    Arcsin = "arcsin", 1, false, float_fn, |x, l| math_call("asin", l.compute, x[0]);
    /// Inverse cosine.
    Arccos = "arccos", 1, false, float_fn, |x, l| math_call("acos", l.compute, x[0]);
    /// Inverse tangent.
    Arctan = "arctan", 1, false, float_fn, |x, l| math_call("atan", l.compute, x[0]);
    /// Hyperbolic sine.
    Sinh = "sinh", 1, false, float_fn, |x, l| math_call("sinh", l.compute, x[0]);
    /// Hyperbolic cosine.
    Cosh = "cosh", 1, false, float_fn, |x, l| math_call("cosh", l.compute, x[0]);
    /// Inverse hyperbolic sine.
    Arcsinh = "arcsinh", 1, false, float_fn, |x, l| math_call("asinh", l.compute, x[0]);
    /// Inverse hyperbolic cosine.
    Arccosh = "arccosh", 1, false, float_fn, |x, l| math_call("acosh", l.compute, x[0]);
    /// Inverse hyperbolic tangent.
    Arctanh = "arctanh", 1, false, float_fn, |x, l| math_call("atanh", l.compute, x[0]);
    /// The angle of the point `(b, a)`: `atan2(a, b)`, quadrant-aware.
    Arctan2 = "arctan2", 2, false, real_float_fn, |x, l| math_call2("atan2", l.compute, x[0], x[1]);
    /// `sqrt(a^2 + b^2)` without overflow.
    Hypot = "hypot", 2, false, real_float_fn, |x, l| match l.compute {
        DType::F32 | DType::F64 => format!("cuprum::safe_hypot({}, {})", x[0], x[1]),
        _ => math_call2("hypot", l.compute, x[0], x[1]),
    };
    /// Cube root.
    Cbrt = "cbrt", 1, false, real_float_fn, |x, l| math_call("cbrt", l.compute, x[0]);
    /// The next representable value after `a` towards `b` (in the operands' float type:
    /// a 16-bit float steps by its own last bit).
    Nextafter = "nextafter", 2, false, real_float_fn, |x, l| match l.compute {
        DType::F32 | DType::F64 => math_call2("nextafter", l.compute, x[0], x[1]),
        _ => call("cuprum::nextafter16", x),
    };
    /// `a * 2**b` of float64 operands, `b` an integer's value (NumPy's `ldexp`, whose
    /// operands differ in type: the Python package converts both to float64 and the result
    /// back to NumPy's result type, one rounding, inside `cuprum.fuse`).
    Ldexp = "ldexp", 2, false, float64_only, |x, _| call("cuprum::ldexp", x);
    /// The mantissa of NumPy's `frexp` of a float64 (`0.5 <= |m| < 1`; infinities and NaN
    /// as they are): exact in any narrower float type, the Python package's `frexp` inside
    /// `cuprum.fuse`.
    FrexpMantissa = "frexp_mantissa", 1, false, float64_only, |x, _| call("cuprum::frexp_mantissa", x);
    /// The exponent of NumPy's `frexp` of a float64, as int32 (0 for infinities and NaN).
    FrexpExponent = "frexp_exponent", 1, false, float64_to_int32, |x, _| call("cuprum::frexp_exponent", x);
    /// The modified Bessel function of the first kind, order 0 (CuPy's `i0`: a ufunc).
    I0 = "i0", 1, false, real_float_fn, |x, l| math_call("cyl_bessel_i0", l.compute, x[0]);
    /// -1, 0 or 1 by the sign of `a` (NaN stays NaN; complex: `a / |a|`).
    Sign = "sign", 1, false, no_bool_loop, sign_expr;
    /// `a * a`.
    Square = "square", 1, false, bool_as_int8, |x, l| if l.compute.kind() == DTypeKind::Complex {
        call("cuprum::square", x)
    } else {
        Op::Mul.expr(&[x[0], x[0]], l)
    };
    /// `1 / a` (integers: truncated, and 0 for 0).
    Reciprocal = "reciprocal", 1, false, bool_as_int8, reciprocal_expr;
    /// Complex conjugate (real numbers unchanged).
    Conj = "conjugate", 1, false, bool_as_int8, |x, l| if l.compute.kind() == DTypeKind::Complex {
        call("cuprum::conj", x)
    } else {
        x[0].to_owned()
    };
    /// Real part (real numbers unchanged).
    Real = "real", 1, false, real_part, |x, l| if l.compute.kind() == DTypeKind::Complex {
        call("cuprum::real", x)
    } else {
        x[0].to_owned()
    };
    /// Imaginary part (real numbers: 0 of their own type).
    Imag = "imag", 1, false, real_part, |x, l| if l.compute.kind() == DTypeKind::Complex {
        call("cuprum::imag", x)
    } else {
        format!("((void)({}), ({})0)", x[0], l.out.c_type())
    };
    /// The angle of a complex number in radians (real numbers: 0, or pi when negative).
    Angle = "angle", 1, false, angle_rule, angle_expr;
    /// The angle in degrees (NumPy's `angle(z, deg=True)`: the radians times `180 / pi`
    /// in the result's type).
    AngleDeg = "angle_deg", 1, false, angle_rule, angle_deg_expr;
}

impl Op {
    /// The row of this operation.
    pub(crate) fn row(self) -> &'static Ufunc {
        &ROWS[self as usize]
    }

    /// NumPy's name.
    pub(crate) fn name(self) -> &'static str {
        self.row().name
    }

    /// The loop for operands promoted to `c`.
    pub(crate) fn types(self, c: DType) -> Result<Loop> {
        (self.row().types)(self, c)
    }

    /// The expression of the result from operand expressions of the loop's compute type.
    pub(crate) fn expr(self, operands: &[&str], l: Loop) -> String {
        (self.row().expr)(operands, l)
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub(crate) fn is_comparison(self) -> bool {
        matches!(
            self,
            Op::Equal | Op::NotEqual | Op::Less | Op::LessEqual | Op::Greater | Op::GreaterEqual
        )
    }
}

// ---- dtype rules ---------------------------------------------------------------------

/// Computes in and returns the promoted dtype.
fn same(_: Op, c: DType) -> Result<Loop> {
    Ok(Loop::same(c))
}

/// A comparison: computes in the promoted dtype, returns bool.
fn comparison(_: Op, c: DType) -> Result<Loop> {
    Ok(Loop {
        compute: c,
        out: DType::Bool,
    })
}

/// Refuses bool operands, as NumPy does for `-`.
fn no_bool(op: Op, c: DType) -> Result<Loop> {
    if c.kind() == DTypeKind::Bool {
        match op {
            Op::Neg => bail!(
                DType,
                "boolean negative, the `-` operator, is not supported (as in NumPy): cast to an integer type first"
            ),
            Op::Pos => bail!(
                DType,
                "boolean positive, the `+` operator, is not supported (as in NumPy): cast to an integer type first"
            ),
            _ => bail!(
                DType,
                "boolean {}, the `-` operator, is not supported (as in NumPy): use a logical kernel or cast to an integer type first",
                op.name()
            ),
        }
    }
    Ok(Loop::same(c))
}

/// True division: integers and bools divide in float64.
fn true_divide(_: Op, c: DType) -> Result<Loop> {
    Ok(match c.kind() {
        DTypeKind::Bool | DTypeKind::SignedInt | DTypeKind::UnsignedInt => Loop::same(DType::F64),
        _ => Loop::same(c),
    })
}

/// Remainder: not for complex numbers; bools compute in int8.
fn remainder(op: Op, c: DType) -> Result<Loop> {
    match c.kind() {
        DTypeKind::Complex => bail!(DType, "{} is not defined for {c} operands", op.name()),
        DTypeKind::Bool => Ok(Loop::same(DType::I8)),
        _ => Ok(Loop::same(c)),
    }
}

/// Bools compute in int8 (NumPy has no bool loop: power, square, reciprocal, conjugate).
fn bool_as_int8(_: Op, c: DType) -> Result<Loop> {
    Ok(if c.kind() == DTypeKind::Bool {
        Loop::same(DType::I8)
    } else {
        Loop::same(c)
    })
}

/// NumPy's `round` (`around`): integers keep their type; bools go through `rint`, so
/// they round in float16 (`np.round(np.array([True]))` is float16).
fn round_rule(_: Op, c: DType) -> Result<Loop> {
    Ok(if c == DType::Bool {
        Loop::same(DType::F16)
    } else {
        Loop::same(c)
    })
}

/// A ufunc without a bool loop that NumPy does not reach by casting (`sign`): bools are
/// refused with NumPy's message.
fn no_bool_loop(op: Op, c: DType) -> Result<Loop> {
    if c == DType::Bool {
        bail!(
            DType,
            "ufunc '{}' did not contain a loop with signature matching types bool (as in \
             NumPy): cast to an integer type first",
            op.name()
        );
    }
    Ok(Loop::same(c))
}

/// floor, ceil, trunc: integers and bools keep their type (NumPy 2), no complex numbers.
fn rounding(op: Op, c: DType) -> Result<Loop> {
    if c.kind() == DTypeKind::Complex {
        bail!(
            DType,
            "{} is not defined for {c} operands (as in NumPy)",
            op.name()
        );
    }
    Ok(Loop::same(c))
}

/// rint: integers and bools compute in the float type NumPy picks; complex numbers round
/// each part.
fn rint_rule(_: Op, c: DType) -> Result<Loop> {
    Ok(Loop::same(float_loop(c)))
}

/// isnan, isinf, isfinite and the logical operations: any dtype (computed in the promoted
/// one, so a weak scalar is range-checked against it as for any operation), a bool result.
fn predicate(_: Op, c: DType) -> Result<Loop> {
    Ok(Loop {
        compute: c,
        out: DType::Bool,
    })
}

/// signbit: real numbers (integers through their float type), a bool result.
fn signbit_rule(op: Op, c: DType) -> Result<Loop> {
    if c.kind() == DTypeKind::Complex {
        bail!(
            DType,
            "{} is not defined for {c} operands (as in NumPy)",
            op.name()
        );
    }
    Ok(Loop {
        compute: float_loop(c),
        out: DType::Bool,
    })
}

/// Bitwise operations: integers and bools only.
fn bitwise(op: Op, c: DType) -> Result<Loop> {
    match c.kind() {
        DTypeKind::Float | DTypeKind::Complex => bail!(
            DType,
            "{} is only defined for integer and bool operands (as in NumPy), got {c}",
            op.name()
        ),
        _ => Ok(Loop::same(c)),
    }
}

/// Shifts: integers only; bools compute in int8.
fn shift(op: Op, c: DType) -> Result<Loop> {
    match c.kind() {
        DTypeKind::Float | DTypeKind::Complex => bail!(
            DType,
            "{} is only defined for integer operands (as in NumPy), got {c}",
            op.name()
        ),
        DTypeKind::Bool => Ok(Loop::same(DType::I8)),
        _ => Ok(Loop::same(c)),
    }
}

/// A floating-point function of real numbers only (arctan2, hypot, cbrt).
fn real_float_fn(op: Op, c: DType) -> Result<Loop> {
    if c.kind() == DTypeKind::Complex {
        bail!(
            DType,
            "{} is not defined for {c} operands (as in NumPy)",
            op.name()
        );
    }
    Ok(Loop::same(float_loop(c)))
}

/// The real float type of a complex type's parts.
pub(crate) fn real_of(c: DType) -> DType {
    match c {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        other => other,
    }
}

/// real, imag: complex numbers give their parts' float type, others keep their type.
fn real_part(_: Op, c: DType) -> Result<Loop> {
    Ok(Loop {
        compute: c,
        out: real_of(c),
    })
}

/// angle: complex numbers give their parts' type; real numbers compute in the float type
/// NumPy picks for `arctan2(0, x)`, where `0` is a weak Python int: bools promote with it
/// to int64 and so compute in float64, integers keep their type (int8 → float16).
fn angle_rule(_: Op, c: DType) -> Result<Loop> {
    Ok(match c.kind() {
        DTypeKind::Complex => Loop {
            compute: c,
            out: real_of(c),
        },
        DTypeKind::Bool => Loop::same(DType::F64),
        _ => Loop::same(float_loop(c)),
    })
}

/// float64 operands only (the pieces of `ldexp` and `frexp`, which the Python package
/// converts to float64).
fn float64_only(op: Op, c: DType) -> Result<Loop> {
    if c != DType::F64 {
        bail!(
            DType,
            "{} computes in float64 only (cuprum.ldexp and cuprum.frexp convert to it), got \
             {c} operands",
            op.name()
        );
    }
    Ok(Loop::same(c))
}

/// float64 to int32 (`frexp`'s exponent).
fn float64_to_int32(op: Op, c: DType) -> Result<Loop> {
    float64_only(op, c)?;
    Ok(Loop {
        compute: c,
        out: DType::I32,
    })
}

/// Real numbers only (maximum, minimum, clip).
fn real_only(op: Op, c: DType) -> Result<Loop> {
    if c.kind() == DTypeKind::Complex {
        bail!(DType, "{} is not supported for {c} operands", op.name());
    }
    Ok(Loop::same(c))
}

/// Absolute value: complex numbers give their real magnitude.
fn absolute(_: Op, c: DType) -> Result<Loop> {
    Ok(match c {
        DType::C64 => Loop {
            compute: c,
            out: DType::F32,
        },
        DType::C128 => Loop {
            compute: c,
            out: DType::F64,
        },
        _ => Loop::same(c),
    })
}

/// A floating-point function: computes in the float type NumPy picks for the operand.
fn float_fn(_: Op, c: DType) -> Result<Loop> {
    Ok(Loop::same(float_loop(c)))
}

/// The loop type NumPy picks for a float function of `d` (first of `e f d F D` that `d`
/// casts to safely; bfloat16 keeps its own type).
pub(crate) fn float_loop(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::U8 => DType::F16,
        DType::I16 | DType::U16 => DType::F32,
        DType::I32 | DType::U32 | DType::I64 | DType::U64 => DType::F64,
        other => other,
    }
}

// ---- expressions ---------------------------------------------------------------------

/// `(x0 op x1)`.
fn bin(x: &[&str], op: &str) -> String {
    format!("({} {op} {})", x[0], x[1])
}

/// `f(x0, x1, ...)`.
fn call(f: &str, x: &[&str]) -> String {
    format!("{f}({})", x.join(", "))
}

fn is_half(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16)
}

/// A comparison that orders: the operator for real numbers, `lex` for complex ones.
fn ordered(x: &[&str], l: Loop, op: &str, lex: &str) -> String {
    if l.compute.kind() == DTypeKind::Complex {
        call(lex, x)
    } else {
        bin(x, op)
    }
}

/// `f(x)` of a math function computing in `t` (`x` already of type `t`): `sqrtf` for
/// float32, `sqrt` for float64, through float for the 16-bit floats, cuprum's complex
/// functions for complex numbers.
pub(crate) fn math_call(f: &str, t: DType, x: &str) -> String {
    match t {
        DType::F32 => format!("{f}f({x})"),
        DType::F64 => format!("{f}({x})"),
        DType::F16 | DType::BF16 => format!("({})({f}f((float)({x})))", t.c_type()),
        _ => format!("cuprum::{f}({x})"),
    }
}

/// `f(x, y)` of a two-argument math function computing in the real float type `t`.
fn math_call2(f: &str, t: DType, x: &str, y: &str) -> String {
    match t {
        DType::F32 => format!("{f}f({x}, {y})"),
        DType::F64 => format!("{f}({x}, {y})"),
        _ => format!("({})({f}f((float)({x}), (float)({y})))", t.c_type()),
    }
}

/// floor / ceil / trunc: the math function for floats, the value itself otherwise.
fn rounded(f: &str, x: &str, l: Loop) -> String {
    if l.compute.kind() == DTypeKind::Float {
        math_call(f, l.compute, x)
    } else {
        x.to_owned()
    }
}

/// A float predicate (`isnan` ...): CUDA's for float and double, through float for the
/// 16-bit floats, cuprum's for complex numbers, `exact` (its answer) for integers and bools.
fn float_predicate(f: &str, x: &str, l: Loop, exact: &str) -> String {
    match l.compute {
        DType::F32 | DType::F64 => format!("{f}({x})"),
        DType::F16 | DType::BF16 => format!("{f}((float)({x}))"),
        DType::C64 | DType::C128 => format!("cuprum::{f}({x})"),
        _ => format!("((void)({x}), {exact})"),
    }
}

/// The truth value (non-zero) of an operand of the loop's compute type.
fn truth(x: &str, l: Loop) -> String {
    if l.compute == DType::Bool {
        x.to_owned()
    } else {
        cast_expr(DType::Bool, x)
    }
}

/// A logical operation of the operands' truth values.
fn logical_expr(x: &[&str], l: Loop, op: &str) -> String {
    format!("({} {op} {})", truth(x[0], l), truth(x[1], l))
}

/// A bitwise operation: the C operator for integers (converted back to the type), the
/// logical one for bools.
fn bitwise_expr(x: &[&str], l: Loop, int_op: &str, bool_op: &str) -> String {
    if l.compute == DType::Bool {
        bin(x, bool_op)
    } else {
        format!("({})({} {int_op} {})", l.compute.c_type(), x[0], x[1])
    }
}

fn floor_divide_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    match t.kind() {
        DTypeKind::SignedInt => call("cuprum::floor_divide_signed", x),
        DTypeKind::UnsignedInt => call("cuprum::floor_divide_unsigned", x),
        _ if is_half(t) => format!(
            "({})cuprum::floor_divide_float<float>((float)({}), (float)({}))",
            t.c_type(),
            x[0],
            x[1]
        ),
        _ => format!(
            "cuprum::floor_divide_float<{}>({}, {})",
            t.c_type(),
            x[0],
            x[1]
        ),
    }
}

fn fmod_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    match t.kind() {
        DTypeKind::SignedInt => call("cuprum::fmod_signed", x),
        DTypeKind::UnsignedInt => call("cuprum::remainder_unsigned", x),
        _ => math_call2("fmod", t, x[0], x[1]),
    }
}

fn sign_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    let ct = t.c_type();
    match t.kind() {
        DTypeKind::SignedInt => format!("({ct})(({0} > 0) - ({0} < 0))", x[0]),
        DTypeKind::UnsignedInt => format!("({ct})({} != 0)", x[0]),
        _ if is_half(t) => format!("({ct})cuprum::sign<float>((float)({}))", x[0]),
        _ => call("cuprum::sign", x),
    }
}

fn reciprocal_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    let ct = t.c_type();
    match t {
        DType::F32 => format!("(1.0f / {})", x[0]),
        DType::F64 => format!("(1.0 / {})", x[0]),
        DType::F16 | DType::BF16 => format!("({ct})(1.0f / (float)({}))", x[0]),
        DType::C64 | DType::C128 => call("cuprum::reciprocal", x),
        _ if t.kind() == DTypeKind::SignedInt => call("cuprum::reciprocal_signed", x),
        _ => call("cuprum::reciprocal_unsigned", x),
    }
}

fn angle_expr(x: &[&str], l: Loop) -> String {
    if l.compute.kind() == DTypeKind::Complex {
        call("cuprum::arg", x)
    } else {
        let zero = match l.compute {
            DType::F64 => "0.0",
            _ => "0.0f",
        };
        math_call2("atan2", l.compute, zero, x[0])
    }
}

/// NumPy's `angle(z, deg=True)`: the angle in the result's type, then `*= 180 / pi` with
/// the factor a weak scalar of that type (a 16-bit float rounds the angle, the factor and
/// the product, as NumPy's half multiplication does).
fn angle_deg_expr(x: &[&str], l: Loop) -> String {
    let rad = angle_expr(x, l);
    match l.out {
        DType::F64 => format!("({rad} * 57.29577951308232)"),
        DType::F32 => format!("({rad} * 57.29578f)"),
        t => {
            let ct = t.c_type();
            format!("({ct})((float)({rad}) * (float)(({ct})(57.29578f)))")
        }
    }
}

fn remainder_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    match t.kind() {
        DTypeKind::SignedInt => call("cuprum::remainder_signed", x),
        DTypeKind::UnsignedInt => call("cuprum::remainder_unsigned", x),
        _ if is_half(t) => format!(
            "({})cuprum::remainder_float<float>((float)({}), (float)({}))",
            l.out.c_type(),
            x[0],
            x[1]
        ),
        _ => format!(
            "cuprum::remainder_float<{}>({}, {})",
            t.c_type(),
            x[0],
            x[1]
        ),
    }
}

fn power_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    match t.kind() {
        DTypeKind::SignedInt => call("cuprum::power_signed", x),
        DTypeKind::UnsignedInt => call("cuprum::power_unsigned", x),
        DTypeKind::Complex => call("cuprum::pow", x),
        _ if t == DType::F64 => call("pow", x),
        _ if t == DType::F32 => call("powf", x),
        _ => format!("({})powf((float)({}), (float)({}))", t.c_type(), x[0], x[1]),
    }
}

fn absolute_expr(x: &[&str], l: Loop) -> String {
    let t = l.compute;
    let ct = t.c_type();
    match t.kind() {
        DTypeKind::Bool | DTypeKind::UnsignedInt => x[0].to_owned(),
        DTypeKind::SignedInt => format!("({0} < 0 ? ({ct})-{0} : {0})", x[0]),
        DTypeKind::Complex => call("cuprum::abs", x),
        _ if is_half(t) => format!("({ct})fabsf((float)({}))", x[0]),
        _ => call("fabs", x),
    }
}

/// `cuprum::cast<CT>(x)`: NumPy's `astype` conversion of `x` to `to`.
pub(crate) fn cast_expr(to: DType, x: &str) -> String {
    format!("cuprum::cast<{}>({x})", to.c_type())
}

// ---- shared rewrites -----------------------------------------------------------------

/// `x ** p` for the exponents NumPy's `**` computes without `pow`: the square and cube as
/// multiplications, `0.5` as a square root (also exact where `pow` is not, and cheaper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SmallPower {
    /// `x * x`
    Square,
    /// `x * x * x`
    Cube,
    /// `sqrt(x)`
    Sqrt,
}

impl SmallPower {
    /// The rewrite of `** exponent`, if the exponent is 2, 3 (integer or float) or 0.5.
    pub(crate) fn of(exponent: &Scalar) -> Option<SmallPower> {
        match exponent.dtype().kind() {
            DTypeKind::SignedInt | DTypeKind::UnsignedInt => match exponent.as_i128()? {
                2 => Some(SmallPower::Square),
                3 => Some(SmallPower::Cube),
                _ => None,
            },
            DTypeKind::Float => {
                let v = exponent.to_f64();
                if v == 2.0 {
                    Some(SmallPower::Square)
                } else if v == 3.0 {
                    Some(SmallPower::Cube)
                } else if v == 0.5 {
                    Some(SmallPower::Sqrt)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The loop of `x ** p` for operands promoted to `c` (power's, or sqrt's).
    pub(crate) fn types(self, c: DType) -> Result<Loop> {
        match self {
            SmallPower::Square | SmallPower::Cube => Op::Pow.types(c),
            SmallPower::Sqrt => Op::Sqrt.types(c),
        }
    }

    /// The expression of `x ** p`, `x` already of the loop's compute type: built from the
    /// multiply and sqrt rows.
    pub(crate) fn expr(self, x: &str, l: Loop) -> String {
        match self {
            SmallPower::Square => Op::Mul.expr(&[x, x], l),
            SmallPower::Cube => Op::Mul.expr(&[&Op::Mul.expr(&[x, x], l), x], l),
            SmallPower::Sqrt => Op::Sqrt.expr(&[x], l),
        }
    }
}

/// NumPy compares integers exactly: an integer array of dtype `c` against an integer
/// scalar outside `c`'s range has the same answer for every element. That answer, when
/// `scalar` (on the left when `scalar_left`) is such a scalar.
pub(crate) fn out_of_range_comparison(
    op: Op,
    scalar: &Scalar,
    scalar_left: bool,
    c: DType,
) -> Option<bool> {
    if !op.is_comparison() || !matches!(c.kind(), DTypeKind::SignedInt | DTypeKind::UnsignedInt) {
        return None;
    }
    let v = scalar.as_i128()?;
    if scalar.cast(c).is_ok() {
        return None;
    }
    // The scalar is above every value of `c` or below every value; the answer of
    // `array OP scalar` follows.
    let above = v > 0;
    let (lt, gt) = (above, !above);
    Some(match (op, scalar_left) {
        (Op::Equal, _) => false,
        (Op::NotEqual, _) => true,
        (Op::Less, false)
        | (Op::LessEqual, false)
        | (Op::Greater, true)
        | (Op::GreaterEqual, true) => lt,
        _ => gt,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_enum() {
        assert_eq!(ROWS.len(), Op::ALL.len());
        for &op in Op::ALL {
            assert_eq!(op.row().name, op.name());
            assert!(op.row().arity >= 1 && op.row().arity <= 3, "{op:?}");
        }
        assert_eq!(Op::Add.name(), "add");
        assert_eq!(Op::Where.row().arity, 3);
        assert!(Op::Where.row().condition);
    }

    #[test]
    fn loops_follow_numpy() {
        assert_eq!(Op::Div.types(DType::I32).unwrap(), Loop::same(DType::F64));
        assert_eq!(Op::Sqrt.types(DType::I8).unwrap(), Loop::same(DType::F16));
        assert_eq!(Op::Less.types(DType::F32).unwrap().out, DType::Bool);
        assert_eq!(
            Op::Abs.types(DType::C64).unwrap(),
            Loop {
                compute: DType::C64,
                out: DType::F32
            }
        );
        assert_eq!(Op::Pow.types(DType::Bool).unwrap(), Loop::same(DType::I8));
        let e = Op::Sub.types(DType::Bool).unwrap_err();
        assert!(e.to_string().starts_with("boolean subtract"), "{e}");
        let e = Op::Neg.types(DType::Bool).unwrap_err();
        assert!(e.to_string().starts_with("boolean negative"), "{e}");
        let e = Op::Pos.types(DType::Bool).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("boolean positive, the `+` operator"),
            "{e}"
        );
        assert_eq!(Op::Pos.types(DType::U8).unwrap(), Loop::same(DType::U8));
        assert_eq!(
            Op::Maximum.types(DType::C128).unwrap(),
            Loop::same(DType::C128)
        );
        assert_eq!(
            Op::Minimum.types(DType::C64).unwrap(),
            Loop::same(DType::C64)
        );
        let e = Op::Clip.types(DType::C128).unwrap_err();
        assert_eq!(
            e.to_string(),
            "clip is not supported for complex128 operands"
        );
        let e = Op::Rem.types(DType::C64).unwrap_err();
        assert_eq!(
            e.to_string(),
            "remainder is not defined for complex64 operands"
        );
    }

    #[test]
    fn new_rows_follow_numpy_dtypes() {
        use DType::*;
        let same = Loop::same;
        let to_bool = |c| Loop {
            compute: c,
            out: Bool,
        };
        // (operation, operand dtype, NumPy's loop)
        let cases = [
            (Op::FloorDiv, I64, same(I64)),
            (Op::FloorDiv, Bool, same(I8)),
            (Op::FloorDiv, F16, same(F16)),
            (Op::Fmod, U8, same(U8)),
            (Op::Floor, I32, same(I32)),
            (Op::Ceil, Bool, same(Bool)),
            (Op::Trunc, F64, same(F64)),
            (Op::Rint, I8, same(F16)),
            (Op::Rint, I16, same(F32)),
            (Op::Rint, C64, same(C64)),
            (Op::Round, U16, same(U16)),
            (Op::IsNan, I32, to_bool(I32)),
            (Op::IsInf, C128, to_bool(C128)),
            (Op::IsFinite, F16, to_bool(F16)),
            (Op::Signbit, I16, to_bool(F32)),
            (Op::Signbit, Bool, to_bool(F16)),
            (Op::LogicalAnd, F32, to_bool(F32)),
            (Op::LogicalNot, C64, to_bool(C64)),
            (Op::LogicalXor, Bool, same(Bool)),
            (Op::BitAnd, Bool, same(Bool)),
            (Op::BitXor, U64, same(U64)),
            (Op::Invert, I8, same(I8)),
            (Op::LeftShift, Bool, same(I8)),
            (Op::RightShift, I16, same(I16)),
            (Op::Log2, I32, same(F64)),
            (Op::Arcsin, C64, same(C64)),
            (Op::Arctan2, U8, same(F16)),
            (Op::Hypot, F32, same(F32)),
            (Op::Cbrt, I64, same(F64)),
            (Op::Round, Bool, same(F16)),
            (Op::Sign, C128, same(C128)),
            (Op::Square, Bool, same(I8)),
            (Op::Reciprocal, I32, same(I32)),
            (Op::Conj, Bool, same(I8)),
            (Op::Conj, C64, same(C64)),
            (
                Op::Real,
                C64,
                Loop {
                    compute: C64,
                    out: F32,
                },
            ),
            (Op::Real, Bool, same(Bool)),
            (Op::Imag, I16, same(I16)),
            (
                Op::Angle,
                C128,
                Loop {
                    compute: C128,
                    out: F64,
                },
            ),
            (Op::Angle, I32, same(F64)),
            (Op::Angle, Bool, same(F64)),
            (Op::Angle, I8, same(F16)),
            (Op::AngleDeg, U8, same(F16)),
            (
                Op::AngleDeg,
                C64,
                Loop {
                    compute: C64,
                    out: F32,
                },
            ),
        ];
        for (op, d, want) in cases {
            assert_eq!(op.types(d).unwrap(), want, "{} of {d}", op.name());
        }
        let refused = [
            (
                Op::FloorDiv,
                C64,
                "floor_divide is not defined for complex64 operands",
            ),
            (
                Op::Fmod,
                C128,
                "fmod is not defined for complex128 operands",
            ),
            (
                Op::Floor,
                C64,
                "floor is not defined for complex64 operands (as in NumPy)",
            ),
            (
                Op::Signbit,
                C64,
                "signbit is not defined for complex64 operands (as in NumPy)",
            ),
            (
                Op::BitAnd,
                F32,
                "bitwise_and is only defined for integer and bool operands (as in NumPy), got float32",
            ),
            (
                Op::Invert,
                F16,
                "invert is only defined for integer and bool operands (as in NumPy), got float16",
            ),
            (
                Op::LeftShift,
                F64,
                "left_shift is only defined for integer operands (as in NumPy), got float64",
            ),
            (
                Op::Arctan2,
                C64,
                "arctan2 is not defined for complex64 operands (as in NumPy)",
            ),
            (
                Op::Hypot,
                C128,
                "hypot is not defined for complex128 operands (as in NumPy)",
            ),
            (
                Op::Cbrt,
                C64,
                "cbrt is not defined for complex64 operands (as in NumPy)",
            ),
        ];
        for (op, d, msg) in refused {
            let e = op.types(d).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::DType);
            assert_eq!(e.to_string(), msg);
        }
    }

    #[test]
    fn new_expressions() {
        let f = Loop::same(DType::F32);
        let d = Loop::same(DType::F64);
        assert_eq!(
            Op::FloorDiv.expr(&["x", "y"], Loop::same(DType::I64)),
            "cuprum::floor_divide_signed(x, y)"
        );
        assert_eq!(
            Op::FloorDiv.expr(&["x", "y"], f),
            "cuprum::floor_divide_float<float>(x, y)"
        );
        assert_eq!(
            Op::FloorDiv.expr(&["x", "y"], Loop::same(DType::F16)),
            "(float16)cuprum::floor_divide_float<float>((float)(x), (float)(y))"
        );
        assert_eq!(Op::Fmod.expr(&["x", "y"], d), "fmod(x, y)");
        assert_eq!(Op::Floor.expr(&["x"], f), "floorf(x)");
        assert_eq!(Op::Floor.expr(&["x"], Loop::same(DType::I32)), "x");
        assert_eq!(Op::Round.expr(&["x"], d), "rint(x)");
        assert_eq!(Op::IsNan.expr(&["x"], f), "isnan(x)");
        assert_eq!(
            Op::IsNan.expr(&["x"], Loop::same(DType::I8)),
            "((void)(x), false)"
        );
        assert_eq!(
            Op::LogicalXor.expr(&["x", "y"], Loop::same(DType::Bool)),
            "(x != y)"
        );
        assert_eq!(
            Op::BitAnd.expr(&["x", "y"], Loop::same(DType::U8)),
            "(unsigned char)(x & y)"
        );
        assert_eq!(
            Op::BitOr.expr(&["x", "y"], Loop::same(DType::Bool)),
            "(x || y)"
        );
        assert_eq!(
            Op::Invert.expr(&["x"], Loop::same(DType::I16)),
            "(short)(~x)"
        );
        assert_eq!(Op::Arctan2.expr(&["y", "x"], d), "atan2(y, x)");
        assert_eq!(
            Op::Hypot.expr(&["x", "y"], Loop::same(DType::BF16)),
            "(bfloat16)(hypotf((float)(x), (float)(y)))"
        );
        assert_eq!(
            Op::Arcsin.expr(&["z"], Loop::same(DType::C64)),
            "cuprum::asin(z)"
        );
        assert_eq!(Op::Square.expr(&["x"], f), "(x * x)");
        assert_eq!(Op::Reciprocal.expr(&["x"], f), "(1.0f / x)");
        assert_eq!(Op::Angle.expr(&["x"], d), "atan2(0.0, x)");
        assert_eq!(
            Op::AngleDeg.expr(&["x"], d),
            "(atan2(0.0, x) * 57.29577951308232)"
        );
        assert_eq!(
            Op::AngleDeg.expr(&["x"], Loop::same(DType::F16)),
            "(float16)((float)((float16)(atan2f((float)(0.0f), (float)(x)))) * (float)((float16)(57.29578f)))"
        );
    }

    #[test]
    fn expressions() {
        let f = Loop::same(DType::F32);
        assert_eq!(Op::Add.expr(&["x", "y"], f), "(x + y)");
        assert_eq!(
            Op::Add.expr(&["x", "y"], Loop::same(DType::Bool)),
            "(x || y)"
        );
        assert_eq!(Op::Sqrt.expr(&["x"], f), "sqrtf(x)");
        assert_eq!(
            Op::Exp.expr(&["x"], Loop::same(DType::F16)),
            "(float16)(expf((float)(x)))"
        );
        assert_eq!(
            Op::Neg.expr(&["x"], Loop::same(DType::U8)),
            "(unsigned char)(0 - x)"
        );
        assert_eq!(
            Op::Less.expr(&["x", "y"], Loop::same(DType::C64)),
            "cuprum::lex_less(x, y)"
        );
        assert_eq!(Op::Where.expr(&["c", "x", "y"], f), "(c ? x : y)");
        assert_eq!(cast_expr(DType::F64, "v"), "cuprum::cast<double>(v)");
    }

    #[test]
    fn small_powers() {
        assert_eq!(SmallPower::of(&2i32.into()), Some(SmallPower::Square));
        assert_eq!(SmallPower::of(&3u8.into()), Some(SmallPower::Cube));
        assert_eq!(SmallPower::of(&2.0f64.into()), Some(SmallPower::Square));
        assert_eq!(SmallPower::of(&0.5f32.into()), Some(SmallPower::Sqrt));
        assert_eq!(SmallPower::of(&4i64.into()), None);
        assert_eq!(SmallPower::of(&2.5f64.into()), None);
        assert_eq!(SmallPower::of(&true.into()), None);
        let d = Loop::same(DType::F64);
        assert_eq!(SmallPower::Square.expr("x", d), "(x * x)");
        assert_eq!(SmallPower::Cube.expr("x", d), "((x * x) * x)");
        assert_eq!(SmallPower::Sqrt.expr("x", d), "sqrt(x)");
        assert_eq!(
            SmallPower::Square.types(DType::Bool).unwrap(),
            Loop::same(DType::I8)
        );
    }

    #[test]
    fn out_of_range_comparisons_are_constant() {
        let big: Scalar = 300i32.into();
        assert_eq!(
            out_of_range_comparison(Op::Less, &big, false, DType::U8),
            Some(true)
        );
        assert_eq!(
            out_of_range_comparison(Op::Less, &big, true, DType::U8),
            Some(false)
        );
        assert_eq!(
            out_of_range_comparison(Op::Equal, &big, false, DType::U8),
            Some(false)
        );
        assert_eq!(
            out_of_range_comparison(Op::Less, &3i32.into(), false, DType::U8),
            None
        );
        assert_eq!(
            out_of_range_comparison(Op::Add, &big, false, DType::U8),
            None
        );
    }
}
