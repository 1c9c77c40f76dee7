//! An entry point's parameters: how each is passed ([`Slot`]), its C++ declaration and its
//! [`ArgSlot`] written together ([`EntryParams`], [`int_struct`]), so the source and the
//! argument schema cannot disagree.

use crate::array::DType;
use crate::kernel::params::{Param, ParamType};
use crate::kernel_abi::{ArgSchema, ArgSlot, IndexWidth};

/// How one parameter is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    /// A broadcast array; `idx` counts non-raw arrays (its row in the stride table).
    Array { idx: usize },
    /// A raw array of `nd` dimensions (its own shape and strides).
    Raw { nd: usize },
    /// A by-value scalar.
    Scalar,
}

/// The C type a parameter is declared with: its placeholder letter, or its dtype's C name.
pub(crate) fn ctype(p: &Param, d: DType) -> String {
    match p.ty {
        ParamType::Placeholder(c) => c.to_string(),
        ParamType::Concrete(_) => d.c_type().to_owned(),
    }
}

/// An entry point's parameter list under construction: each parameter's C++ declaration
/// and its [`ArgSlot`] are written together, so the source and the argument schema cannot
/// disagree.
#[derive(Debug, Default)]
pub(crate) struct EntryParams {
    decls: Vec<String>,
    schema: ArgSchema,
}

impl EntryParams {
    /// The user's parameters: `T* _raw_x` for a broadcast array (`const` for inputs) is a
    /// pointer, `CArray<T, ND> x` for a raw one a view, `const T x` for a scalar a value of
    /// its dtype.
    pub fn user(params: &[Param], dtypes: &[DType], slots: &[Slot]) -> EntryParams {
        let mut e = EntryParams::default();
        for (k, p) in params.iter().enumerate() {
            let ty = ctype(p, dtypes[k]);
            match slots[k] {
                Slot::Array { .. } => {
                    let c = if p.is_const { "const " } else { "" };
                    e.push(format!("{c}{ty}* _raw_{}", p.name), ArgSlot::Pointer);
                }
                Slot::Raw { nd } => e.push(
                    format!("CArray<{ty}, {nd}> {}", p.name),
                    ArgSlot::View { nd: nd as u8 },
                ),
                Slot::Scalar => {
                    e.push(format!("const {ty} {}", p.name), ArgSlot::Scalar(dtypes[k]))
                }
            }
        }
        e
    }

    /// Appends one parameter.
    pub fn push(&mut self, decl: impl Into<String>, slot: ArgSlot) {
        self.decls.push(decl.into());
        self.schema.push(slot);
    }

    /// The declarations, comma-separated.
    pub fn list(&self) -> String {
        self.decls.join(", ")
    }

    /// The argument schema.
    pub fn into_schema(self) -> ArgSchema {
        self.schema
    }
}

/// A struct of index-width integers passed by value (shape and stride tables): its C++
/// definition (`struct NAME { TYPE NAMES[DIMS]; ... };`) and its slot. Each field is (C++
/// type, one or more comma-separated names, array dimensions).
pub(crate) fn int_struct(
    name: &str,
    fields: &[(&str, &str, &[usize])],
    wide: bool,
) -> (String, ArgSlot) {
    let mut def = format!("struct {name} {{ ");
    let mut count = 0usize;
    for (ty, names, dims) in fields {
        def.push_str(ty);
        def.push(' ');
        def.push_str(names);
        for d in dims.iter() {
            def.push_str(&format!("[{d}]"));
        }
        def.push_str("; ");
        count += names.split(',').count() * dims.iter().product::<usize>();
    }
    def.push_str("};");
    let slot = ArgSlot::Words {
        count: count as u32,
        width: IndexWidth::of(wide),
    };
    (def, slot)
}
