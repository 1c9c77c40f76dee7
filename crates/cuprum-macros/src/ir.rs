//! The translator's intermediate form: the accepted subset of Rust, with a type (or type
//! variable) on every expression and one C++ name per binding.

use crate::ty::{Len, Prim, Ty};

/// One translated function (a kernel or a device function).
pub struct Func {
    pub name: String,
    pub kernel: bool,
    /// Const generic parameters, in order.
    pub const_params: Vec<(String, Prim)>,
    /// Type and const parameters in declaration order (for the template header).
    pub generic_order: Vec<String>,
    pub params: Vec<Param>,
    pub ret: Ty,
    pub body: Block,
    pub vars: Vec<Var>,
    pub loops: Vec<LoopInfo>,
    /// `(line, column)` of every checked site (indexing, division, shift).
    pub sites: Vec<(u32, u32)>,
    /// Calls `grid_sync()` (the kernel must be launched cooperatively).
    pub cooperative: bool,
}

pub struct Param {
    pub var: usize,
    pub ty: Ty,
    /// `&mut self` of a device type's method: a C++ reference (`Vec3& self`).
    pub by_ref: bool,
}

/// One binding (parameter or local) and its C++ name.
pub struct Var {
    pub cpp: String,
    pub ty: Ty,
}

/// What a loop needs besides C++'s own `break`/`continue`.
#[derive(Default, Clone)]
pub struct LoopInfo {
    /// A labelled `break` from an inner loop jumps to `cj_brk_N:` after the loop.
    pub break_label: bool,
    /// `continue` jumps to `cj_cont_N:` at the end of the body.
    pub cont_label: bool,
}

pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
    pub ty: Ty,
}

pub enum Stmt {
    Let {
        var: usize,
        init: Option<Expr>,
    },
    /// `let mut s = shared_array::<T, N>();`
    Shared {
        var: usize,
        elem: Ty,
        len: Len,
    },
    /// `let mut s = dynamic_shared::<T>();`
    DynShared {
        var: usize,
        elem: Ty,
    },
    /// `let f = |params| body;`: a C++ lambda (`[=]` for `move` closures, else `[&]`).
    Closure {
        var: usize,
        params: Vec<usize>,
        body: Expr,
        ret: Ty,
        by_value: bool,
    },
    Expr(Expr),
}

pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
    pub span: proc_macro2::Span,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn cpp(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
    /// The prelude helper for this operator (`cj::add` …).
    pub fn helper(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => "rem",
            BinOp::BitAnd => "band",
            BinOp::BitOr => "bor",
            BinOp::BitXor => "bxor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            _ => "",
        }
    }
    pub fn is_cmp(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Not,
}

/// A literal's value as written (decimal digits for floats).
#[derive(Clone, Debug)]
pub enum LitVal {
    Int(u128),
    Float(String),
    Bool(bool),
}

/// The device built-ins (`cuprum::gpu`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Builtin {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
    GlobalIndex,
    GlobalSize,
    LaneId,
    ActiveMask,
    Clock64,
    SyncThreads,
    SyncThreadsCount,
    SyncThreadsAnd,
    SyncThreadsOr,
    SyncWarp,
    GridSync,
    ThreadFence,
    ThreadFenceBlock,
    ThreadFenceSystem,
    ShflSync,
    ShflUpSync,
    ShflDownSync,
    ShflXorSync,
    BallotSync,
    AllSync,
    AnySync,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ForKind {
    /// `a..b`, `a..=b`, with `.rev()` and `.step_by(s)`.
    Range { inclusive: bool, rev: bool },
    /// `grid_stride(n)` / `block_stride(n)`.
    Stride { block: bool },
}

pub enum ExprKind {
    Lit(LitVal),
    Var(usize),
    ConstParam(String),
    /// A constant spelled in C++ (`f32::MAX`, `WARP_SIZE`).
    CppConst(String),
    Binary(BinOp, Box<Expr>, Box<Expr>, usize),
    Unary(UnOp, Box<Expr>),
    Assign(Box<Expr>, Box<Expr>),
    OpAssign(BinOp, Box<Expr>, Box<Expr>, usize),
    Cast(Box<Expr>, Prim),
    If(Box<Expr>, Block, Option<Box<Expr>>),
    Block(Block),
    While {
        id: usize,
        cond: Box<Expr>,
        body: Block,
    },
    Loop {
        id: usize,
        body: Block,
    },
    For {
        id: usize,
        var: usize,
        kind: ForKind,
        /// Range: start, end, optional step. Stride: n.
        parts: Vec<Expr>,
        body: Block,
    },
    /// `for x in s.iter()` / `.iter_mut()` / `for (i, x) in s.iter().enumerate()`: the
    /// element `var` (a copy, or a reference when `mutable`), the optional index, the
    /// hidden counter.
    ForElems {
        id: usize,
        base: usize,
        var: usize,
        index: Option<usize>,
        counter: usize,
        mutable: bool,
        body: Block,
    },
    Break {
        id: usize,
        goto: bool,
    },
    Continue {
        id: usize,
        goto: bool,
    },
    Return(Option<Box<Expr>>),
    /// `base[index]`; `site` is `None` for `*x.get_unchecked(i)`.
    Index {
        base: usize,
        index: Box<Expr>,
        site: Option<usize>,
    },
    /// `x.len()`.
    Len(usize),
    Field(Box<Expr>, char),
    /// A device type's field: `p.mass`.
    Member(Box<Expr>, String),
    /// An element of a fixed array that is a place of its own: a device type's array field
    /// (`p.pos[i]`) or an element that is itself an array (`m[1][0]`, `p.m[1][0]`): the
    /// array, the index, its bounds-check site (the length is the C++ array's extent).
    MemberIndex {
        field: Box<Expr>,
        index: Box<Expr>,
        site: usize,
    },
    /// A device enum's value: `Shape::Circle { r }`, `Shape::Pair(a, b)`, `Act::Relu`
    /// (the C++ type, the variant, its fields by C++ name).
    VariantLit {
        cpp: String,
        variant: String,
        fields: Vec<(String, Expr)>,
    },
    /// A struct literal `Particle { mass: m, ..base }`: the C++ type, the fields in written
    /// order, the base.
    StructLit {
        cpp: String,
        fields: Vec<(String, Expr)>,
        base: Option<Box<Expr>>,
    },
    Builtin(Builtin, Vec<Expr>),
    /// A `#[cuprum::device]` function call.
    Call {
        callee: String,
        targs: Vec<String>,
        args: Vec<Expr>,
    },
    /// A number method, emitted as `cj::name(receiver, args…)`.
    Method(&'static str, Vec<Expr>),
    /// A conversion (`f16::from_f32(x)`, `x.to_f32()`, `T::from_f64(x)`), emitted as
    /// `cj::cvt<To>(x)`.
    Convert(Box<Expr>),
    /// `T::zero()` / `T::one()`.
    GenericConst(i32),
    /// `x.atomic_add(i, v)` etc.: the helper, the array, the index, its site, the values.
    Atomic {
        op: &'static str,
        base: usize,
        index: Box<Expr>,
        site: usize,
        args: Vec<Expr>,
    },
    /// `x.load4(k)` / `x.store4(k, v)`: chunk `k` of four elements of a slice parameter
    /// in one wide access (`cj::load4` / `cj::store4`): the helper, the slice, the chunk
    /// index, its site, the stored value.
    Chunk4 {
        op: &'static str,
        base: usize,
        index: Box<Expr>,
        site: usize,
        args: Vec<Expr>,
    },
    /// `assert!(cond)` (`debug: false`) or `debug_assert!(cond)` (checked builds only): a
    /// false condition is a fault at `site`.
    Assert {
        cond: Box<Expr>,
        site: usize,
        debug: bool,
    },
    ArrayLit(Vec<Expr>),
    ArrayRepeat(Box<Expr>),
    /// `(a, b, …)`: `cj::TupN<…>{a, b, …}`.
    Tuple(Vec<Expr>),
    /// `t.0`: field `f0`.
    TupleField(Box<Expr>, usize),
    /// `f(args…)` of a closure variable.
    ClosureCall {
        var: usize,
        args: Vec<Expr>,
    },
    /// `match scrut { arms }`: the scrutinee is evaluated once into `tmp` (a variable of
    /// its type); the arms are tried in order (the last one is C++'s `else`: rustc has
    /// checked that the match is exhaustive).
    Match {
        scrut: Box<Expr>,
        tmp: usize,
        arms: Vec<Arm>,
    },
}

/// One arm of a `match`: `pat if guard => body`.
pub struct Arm {
    pub pat: Pat,
    pub guard: Option<Expr>,
    pub body: Expr,
}

/// A pattern, tested against the scrutinee's value: integer and bool patterns, and the
/// variants of device enums (a tag test, then patterns on the variant's fields).
pub enum Pat {
    /// `_`
    Wild,
    /// `x` or `x @ sub`: the variable holds the scrutinee's value.
    Bind { var: usize, sub: Option<Box<Pat>> },
    /// A literal or a named constant (`3`, `-1`, `true`, `i32::MAX`): equality.
    Value(Expr),
    /// `lo..=hi`, `lo..hi`, `lo..`, `..=hi`.
    Range {
        lo: Option<Expr>,
        hi: Option<Expr>,
        inclusive: bool,
    },
    /// `a | b | c`
    Or(Vec<Pat>),
    /// A variant of a device enum (`Shape::Circle { r }`, `Act::Relu`): its tag, then
    /// each field's pattern against `s.Variant.field`.
    Variant {
        ty: String,
        variant: String,
        fields: Vec<(String, Pat)>,
    },
}

impl Pat {
    /// The variables the pattern binds.
    pub fn bindings(&self, out: &mut Vec<usize>) {
        match self {
            Pat::Bind { var, sub } => {
                out.push(*var);
                if let Some(s) = sub {
                    s.bindings(out);
                }
            }
            Pat::Or(ps) => ps.iter().for_each(|p| p.bindings(out)),
            Pat::Variant { fields, .. } => fields.iter().for_each(|(_, p)| p.bindings(out)),
            Pat::Wild | Pat::Value(_) | Pat::Range { .. } => {}
        }
    }

    /// Each binding with the C++ access it takes from the scrutinee `s` (`s` itself, or
    /// `s.Variant.field` inside a variant pattern), once per distinct access: the
    /// alternatives of an or-pattern may bind one name from different places
    /// (`A(k) | B { hi: k, .. }`: `s.A.f0` and `s.B.hi`), and then the value is the place of
    /// the alternative that matched (`binds_by_alternative`), not the first one listed.
    pub fn binding_sources(&self, s: &str, out: &mut Vec<(usize, String)>) {
        match self {
            Pat::Bind { var, sub } => {
                if !out.iter().any(|(v, f)| v == var && f == s) {
                    out.push((*var, s.to_string()));
                }
                if let Some(p) = sub {
                    p.binding_sources(s, out);
                }
            }
            Pat::Or(ps) => ps.iter().for_each(|p| p.binding_sources(s, out)),
            Pat::Variant {
                variant, fields, ..
            } => {
                for (f, p) in fields {
                    p.binding_sources(&format!("{s}.{variant}.{f}"), out);
                }
            }
            Pat::Wild | Pat::Value(_) | Pat::Range { .. } => {}
        }
    }

    /// Whether some binding takes its value from different places in different
    /// alternatives of an or-pattern: the C++ must then assign it from the alternative that
    /// matched (and test a guard after each alternative, as rustc does).
    pub fn binds_by_alternative(&self) -> bool {
        let mut sources = Vec::new();
        self.binding_sources("s", &mut sources);
        sources
            .iter()
            .enumerate()
            .any(|(k, (v, _))| sources[..k].iter().any(|(w, _)| w == v))
    }
}
