//! The translator's types and its small unification table.
//!
//! rustc is the type checker; this table only finds the types the C++ needs (declarations
//! and literals), following rustc's rules for the subset: both operands of an arithmetic,
//! bit or comparison operator have one type (shifts excepted), unconstrained integer
//! literals are `i32`, float literals `f64`. The result of a `#[cuprum::device]` call is
//! *opaque*: rustc knows it, the macro does not, so the C++ names it with `decltype`.

/// A primitive scalar type.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Prim {
    Bool,
    I8,
    I16,
    I32,
    I64,
    Isize,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F16,
    Bf16,
    F32,
    F64,
}

impl Prim {
    /// The primitive a Rust type name denotes (`f16`/`bf16` are half's types).
    pub fn from_name(name: &str) -> Option<Prim> {
        Some(match name {
            "bool" => Prim::Bool,
            "i8" => Prim::I8,
            "i16" => Prim::I16,
            "i32" => Prim::I32,
            "i64" => Prim::I64,
            "isize" => Prim::Isize,
            "u8" => Prim::U8,
            "u16" => Prim::U16,
            "u32" => Prim::U32,
            "u64" => Prim::U64,
            "usize" => Prim::Usize,
            "f16" => Prim::F16,
            "bf16" => Prim::Bf16,
            "f32" => Prim::F32,
            "f64" => Prim::F64,
            _ => return None,
        })
    }

    pub fn rust(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "i8",
            Prim::I16 => "i16",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
            Prim::Isize => "isize",
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::Usize => "usize",
            Prim::F16 => "f16",
            Prim::Bf16 => "bf16",
            Prim::F32 => "f32",
            Prim::F64 => "f64",
        }
    }

    /// The C++ type (`float16`/`bfloat16` come from cuprum/half.cuh).
    pub fn cpp(self) -> &'static str {
        match self {
            Prim::Bool => "bool",
            Prim::I8 => "signed char",
            Prim::I16 => "short",
            Prim::I32 => "int",
            Prim::I64 | Prim::Isize => "long long",
            Prim::U8 => "unsigned char",
            Prim::U16 => "unsigned short",
            Prim::U32 => "unsigned int",
            Prim::U64 | Prim::Usize => "unsigned long long",
            Prim::F16 => "float16",
            Prim::Bf16 => "bfloat16",
            Prim::F32 => "float",
            Prim::F64 => "double",
        }
    }

    pub fn is_int(self) -> bool {
        !matches!(
            self,
            Prim::Bool | Prim::F16 | Prim::Bf16 | Prim::F32 | Prim::F64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Prim::F16 | Prim::Bf16 | Prim::F32 | Prim::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Prim::I8 | Prim::I16 | Prim::I32 | Prim::I64 | Prim::Isize
        )
    }

    /// Width in bits (bool: 8).
    pub fn bits(self) -> u32 {
        match self {
            Prim::Bool | Prim::I8 | Prim::U8 => 8,
            Prim::I16 | Prim::U16 | Prim::F16 | Prim::Bf16 => 16,
            Prim::I32 | Prim::U32 | Prim::F32 => 32,
            Prim::I64 | Prim::Isize | Prim::U64 | Prim::Usize | Prim::F64 => 64,
        }
    }

    /// Integer types whose C++ `+ - * / % & | ^ ~` already behave as Rust's release build
    /// (unsigned of 32 or 64 bits: C++ wraps them).
    pub fn plain_wrapping(self) -> bool {
        matches!(self, Prim::U32 | Prim::U64 | Prim::Usize)
    }

    /// IEEE floats with native C++ arithmetic (`float`, `double`).
    pub fn native_float(self) -> bool {
        matches!(self, Prim::F32 | Prim::F64)
    }
}

/// A length: a literal or a const generic parameter.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Len {
    Lit(u64),
    Param(String),
}

impl Len {
    pub fn cpp(&self) -> String {
        match self {
            Len::Lit(n) => format!("{n}ull"),
            Len::Param(p) => format!("((unsigned long long){p})"),
        }
    }
    /// As written inside a C++ array type or template argument.
    pub fn plain(&self) -> String {
        match self {
            Len::Lit(n) => n.to_string(),
            Len::Param(p) => p.clone(),
        }
    }
}

/// A type of the subset (or a variable of the unification table).
#[derive(Clone, PartialEq, Debug)]
pub enum Ty {
    Var(usize),
    Prim(Prim),
    Unit,
    /// A type parameter of the function (`T`).
    Generic(String),
    /// A device function's result: the C++ type expression that names it.
    Opaque(String),
    /// A local fixed-size array `[T; N]`.
    Array(Box<Ty>, Len),
    /// A slice parameter `&[T]` / `&mut [T]` (pointer + length in C++).
    Slice {
        elem: Box<Ty>,
        mutable: bool,
    },
    /// `shared_array::<T, N>()`.
    Shared(Box<Ty>, Len),
    /// `dynamic_shared::<T>()`.
    DynShared(Box<Ty>),
    /// `thread_idx()` and friends.
    UInt3,
    /// A device type (`#[derive(cuprum::DeviceType)]`), by its written name.
    User(String),
    /// A tuple of two to eight values (`cj::TupN<…>` in C++, fields `f0` …).
    Tuple(Vec<Ty>),
    /// A closure: its parameter types and result (a C++ lambda, declared `auto`).
    Closure(Vec<Ty>, Box<Ty>),
}

/// The most fields a tuple may have (the prelude's `cj::Tup1` … `cj::Tup8`).
pub const MAX_TUPLE: usize = 8;

impl Ty {
    pub fn prim(&self) -> Option<Prim> {
        match self {
            Ty::Prim(p) => Some(*p),
            _ => None,
        }
    }
}

/// What a type variable may become.
#[derive(Clone, PartialEq, Debug)]
pub enum VarKind {
    Any,
    /// An integer literal's type.
    Int,
    /// A float literal's type.
    Float,
    /// A device function call's result, named in C++ by this opaque id.
    Opaque(usize),
    /// Field `.1` of a value whose type the macro may not know (a device function's
    /// tuple result): the element type once the base is known, else `decltype`.
    Field(Box<Ty>, usize),
}

#[derive(Clone, Debug)]
enum Slot {
    Unbound(VarKind),
    Bound(Ty),
    Link(usize),
}

/// The C++ callee and argument types of an opaque call result, or (with `field`) the
/// field of a value of type `args[0]`.
#[derive(Clone, Debug)]
pub struct OpaqueCall {
    pub callee: String,
    pub args: Vec<Ty>,
    pub field: Option<String>,
}

/// The unification table.
#[derive(Default)]
pub struct Infer {
    slots: Vec<Slot>,
    pub opaque: Vec<OpaqueCall>,
}

impl Infer {
    pub fn fresh(&mut self, kind: VarKind) -> Ty {
        self.slots.push(Slot::Unbound(kind));
        Ty::Var(self.slots.len() - 1)
    }

    pub fn opaque_call(&mut self, callee: String, args: Vec<Ty>) -> Ty {
        self.opaque.push(OpaqueCall {
            callee,
            args,
            field: None,
        });
        let id = self.opaque.len() - 1;
        self.fresh(VarKind::Opaque(id))
    }

    /// The type of field `field` of a value of type `base` (a device type's field: rustc
    /// knows it, C++ names it with `decltype`).
    pub fn opaque_field(&mut self, base: Ty, field: String) -> Ty {
        self.opaque.push(OpaqueCall {
            callee: String::new(),
            args: vec![base],
            field: Some(field),
        });
        let id = self.opaque.len() - 1;
        self.fresh(VarKind::Opaque(id))
    }

    fn root(&self, mut v: usize) -> usize {
        while let Slot::Link(n) = self.slots[v] {
            v = n;
        }
        v
    }

    /// Follows variables as far as they are bound (one level of structure).
    pub fn shallow(&self, t: &Ty) -> Ty {
        let mut t = t.clone();
        while let Ty::Var(v) = t {
            let r = self.root(v);
            match &self.slots[r] {
                Slot::Bound(b) => t = b.clone(),
                _ => return Ty::Var(r),
            }
        }
        t
    }

    /// The type of field `i` of a value of type `base`: the element of a known tuple, else
    /// a variable resolved when the base is (a device function's result stays opaque).
    pub fn field(&mut self, base: &Ty, i: usize) -> Ty {
        match self.shallow(base) {
            Ty::Tuple(ts) => ts.get(i).cloned().unwrap_or(Ty::Unit),
            b => self.fresh(VarKind::Field(Box::new(b), i)),
        }
    }

    /// The kind of an unbound variable (`None` when bound or not a variable).
    pub fn var_kind(&self, t: &Ty) -> Option<VarKind> {
        match self.shallow(t) {
            Ty::Var(r) => match &self.slots[r] {
                Slot::Unbound(k) => Some(k.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// Makes `a` and `b` one type. A mismatch is ignored: rustc reports it.
    pub fn unify(&mut self, a: &Ty, b: &Ty) {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (a, b) {
            (Ty::Var(x), Ty::Var(y)) => {
                if x == y {
                    return;
                }
                let (kx, ky) = match (&self.slots[x], &self.slots[y]) {
                    (Slot::Unbound(kx), Slot::Unbound(ky)) => (kx.clone(), ky.clone()),
                    _ => return,
                };
                let merged = match (kx, ky) {
                    (VarKind::Any, k) | (k, VarKind::Any) => k,
                    (VarKind::Opaque(o), _) | (_, VarKind::Opaque(o)) => VarKind::Opaque(o),
                    (k @ VarKind::Field(..), _) | (_, k @ VarKind::Field(..)) => k,
                    (k, _) => k,
                };
                self.slots[x] = Slot::Link(y);
                self.slots[y] = Slot::Unbound(merged);
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let ok = match &self.slots[x] {
                    Slot::Unbound(VarKind::Int) => match &t {
                        Ty::Prim(p) => p.is_int(),
                        Ty::Generic(_) | Ty::Opaque(_) => true,
                        _ => false,
                    },
                    Slot::Unbound(VarKind::Float) => match &t {
                        Ty::Prim(p) => p.is_float(),
                        Ty::Generic(_) | Ty::Opaque(_) => true,
                        _ => false,
                    },
                    Slot::Unbound(_) => true,
                    _ => false,
                };
                if ok {
                    self.slots[x] = Slot::Bound(t);
                }
            }
            (Ty::Array(ea, la), Ty::Array(eb, lb)) if la == lb => self.unify(&ea, &eb),
            (Ty::Slice { elem: ea, .. }, Ty::Slice { elem: eb, .. }) => self.unify(&ea, &eb),
            (Ty::Tuple(xs), Ty::Tuple(ys)) if xs.len() == ys.len() => {
                for (x, y) in xs.iter().zip(&ys) {
                    self.unify(x, y);
                }
            }
            _ => {}
        }
    }

    /// The final type: unconstrained integer literals are `i32`, float literals `f64`,
    /// opaque results keep their C++ name, anything else unconstrained is `()`.
    pub fn resolve(&self, t: &Ty) -> Ty {
        match self.shallow(t) {
            Ty::Var(r) => match &self.slots[r] {
                Slot::Unbound(VarKind::Int) => Ty::Prim(Prim::I32),
                Slot::Unbound(VarKind::Float) => Ty::Prim(Prim::F64),
                Slot::Unbound(VarKind::Opaque(id)) => Ty::Opaque(self.opaque_cpp(*id)),
                Slot::Unbound(VarKind::Field(base, i)) => match self.resolve(base) {
                    Ty::Tuple(ts) => ts.get(*i).cloned().unwrap_or(Ty::Unit),
                    t => Ty::Opaque(format!(
                        "cj::plain_t<decltype(cj::val<{}>().f{i})>",
                        cpp_type(&t)
                    )),
                },
                _ => Ty::Unit,
            },
            Ty::Tuple(ts) => Ty::Tuple(ts.iter().map(|t| self.resolve(t)).collect()),
            Ty::Array(e, l) => Ty::Array(Box::new(self.resolve(&e)), l),
            Ty::Slice { elem, mutable } => Ty::Slice {
                elem: Box::new(self.resolve(&elem)),
                mutable,
            },
            Ty::Shared(e, l) => Ty::Shared(Box::new(self.resolve(&e)), l),
            Ty::DynShared(e) => Ty::DynShared(Box::new(self.resolve(&e))),
            t => t,
        }
    }

    /// `decltype(callee(cj::val<A>(), …))` for an opaque call.
    fn opaque_cpp(&self, id: usize) -> String {
        let call = &self.opaque[id];
        if let (Some(f), Some(base)) = (&call.field, call.args.first()) {
            let b = cpp_type(&self.resolve(base));
            return format!("cj::plain_t<decltype(cj::val<{b}>().{f})>");
        }
        let args: Vec<String> = call
            .args
            .iter()
            .flat_map(|a| match self.resolve(a) {
                Ty::Slice { elem, mutable } => {
                    let c = if mutable { "" } else { "const " };
                    vec![
                        format!("cj::val<{c}{}*>()", cpp_type(&elem)),
                        "cj::val<unsigned long long>()".to_string(),
                    ]
                }
                // An lvalue: a `&mut self` method's receiver binds to it, a by-value
                // parameter copies it.
                t => vec![format!("cj::val<{}&>()", cpp_type(&t))],
            })
            .collect();
        format!(
            "cj::plain_t<decltype({}({}))>",
            call.callee,
            args.join(", ")
        )
    }
}

/// The C++ spelling of a resolved type.
pub fn cpp_type(t: &Ty) -> String {
    match t {
        Ty::Prim(p) => p.cpp().to_string(),
        Ty::Unit => "void".to_string(),
        Ty::Generic(n) => n.clone(),
        Ty::Opaque(s) => s.clone(),
        Ty::Array(e, l) => format!("cj::Arr<{}, {}>", cpp_type(e), l.plain()),
        Ty::Slice { elem, mutable } => {
            format!(
                "{}{}*",
                if *mutable { "" } else { "const " },
                cpp_type(elem)
            )
        }
        Ty::Shared(e, _) | Ty::DynShared(e) => format!("{}*", cpp_type(e)),
        Ty::UInt3 => "uint3".to_string(),
        Ty::User(n) => n.clone(),
        Ty::Closure(..) => "auto".to_string(),
        Ty::Tuple(ts) => {
            let parts: Vec<String> = ts.iter().map(cpp_type).collect();
            format!("cj::Tup{}<{}>", ts.len(), parts.join(", "))
        }
        Ty::Var(_) => "int".to_string(),
    }
}
