//! What a traced value is: [`Var`] (a handle to a node of the current trace), [`VarArg`]
//! (a `Var` or a Rust scalar as an operand) and [`IntoVar`] (what operations accept). The
//! tracer (`trace.rs`) records nodes for them; `var.rs` gives them their operators and
//! methods.

use crate::array::Scalar;
use half::{bf16, f16};
use num_complex::Complex;
use std::ops::RangeFull;
use std::panic::Location;

/// A value inside a fused closure: an argument of the call, or what operations on
/// arguments and Rust scalars computed. It holds no data — it records what is done to it
/// (see [`fuse`](crate::fuse::fuse())); the fused kernels compute it later, per call.
///
/// `Var` is `Copy`: use it as often as needed (`d * d` computes `d` once). Operators take
/// `Var`s and Rust scalars on either side; Rust scalars are *weak*, as in `ops`
/// (`x_f32 * 2.0` stays float32). Comparisons are methods (`x.less(0.0)`), since Rust's
/// comparison operators must return `bool`; `where_` picks between values.
///
/// ```
/// use cuprum::{DType, fuse::{ArgSpec, fuse, where_}};
/// let f = fuse("leaky", |[x]| where_(x.greater(0.0), x, x * 0.01));
/// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[1000])])?;
/// assert_eq!(e.outputs()[0].0, DType::F32);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    pub(crate) trace: u32,
    pub(crate) node: u32,
}

impl Var {
    /// A Var made outside any trace (its operations record nothing).
    pub(crate) const DETACHED: Var = Var {
        trace: 0,
        node: POISON,
    };
}

/// The node of a poisoned [`Var`] (the trace failed before it was made).
pub(crate) const POISON: u32 = u32::MAX;

/// A user's source line.
pub(crate) type Loc = &'static Location<'static>;

/// An operand of a traced operation: a [`Var`] or a Rust scalar.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum VarArg {
    /// A traced value.
    Var(Var),
    /// A Rust scalar (a weak scalar, passed to the kernels as a parameter).
    Literal(Scalar),
}

/// What traced operations take: a [`Var`], or a Rust scalar of an element type (`2.0`,
/// `1i32`, `true`, `half::f16`, `Complex<f64>` ...), which takes part as a weak scalar and is
/// passed to the kernels as a parameter (its value never enters the generated source).
///
/// ```
/// use cuprum::fuse::{IntoVar, VarArg};
/// assert!(matches!(2.0f32.into_arg(), VarArg::Literal(_)));
/// ```
pub trait IntoVar: Copy {
    /// The operand.
    #[doc(hidden)]
    fn into_arg(self) -> VarArg;
}

impl IntoVar for Var {
    fn into_arg(self) -> VarArg {
        VarArg::Var(self)
    }
}

macro_rules! scalar_operands {
    ($($t:ty),*) => {$(
        impl IntoVar for $t {
            fn into_arg(self) -> VarArg {
                VarArg::Literal(Scalar::from(self))
            }
        }
    )*};
}
scalar_operands!(
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f16,
    bf16,
    f32,
    f64,
    Complex<f32>,
    Complex<f64>
);

/// A bound of [`Var::clip`]: a [`Var`] or a Rust scalar, `..` for no bound (NumPy's
/// `None`), or an `Option` of either (`None` is no bound) — the forms of
/// [`ops::ClipBound`](crate::ops::ClipBound).
///
/// ```
/// use cuprum::{DType, fuse::{ArgSpec, fuse}};
/// let f = fuse("relu", |[x]| x.clip(0.0, ..));
/// let e = f.explain_for(&[ArgSpec::array(DType::F32, &[3])])?;
/// assert!(e.kernels()[0].source.contains("maximum"), "{e}");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub trait VarBound: Copy {
    /// The bound as an operand; `None` when there is none.
    #[doc(hidden)]
    fn bound(self) -> Option<VarArg>;
}

impl<T: IntoVar> VarBound for T {
    fn bound(self) -> Option<VarArg> {
        Some(self.into_arg())
    }
}

/// `..`: no bound on this side.
impl VarBound for RangeFull {
    fn bound(self) -> Option<VarArg> {
        None
    }
}

/// `Some(v)`: the bound `v`; `None`: no bound.
impl<T: IntoVar> VarBound for Option<T> {
    fn bound(self) -> Option<VarArg> {
        self.map(IntoVar::into_arg)
    }
}
