//! Kernel parameter lists (`"float32 x, T y, raw T z"`) and the exact-match type solver
//! that ElementwiseKernel and ReductionKernel share.
//!
//! Grammar (CuPy's): items separated by `,`; each item is `[modifiers] TYPE NAME` where the
//! modifiers are `raw` (the kernel indexes the array itself) and `_non_const` (an input the
//! operation may write). A TYPE of one character is a *placeholder* (`T`, `U`, even `f`),
//! bound by the dtype of the first array passed for it; anything longer is a dtype name
//! ([`DType::from_name`]).

use crate::array::DType;
use crate::error::{Result, bail, err};
use smallvec::SmallVec;

/// The type of one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A concrete dtype (`float32 x`).
    Concrete(DType),
    /// A one-letter placeholder (`T x`), resolved per call from the arrays.
    Placeholder(char),
}

/// One parsed parameter.
///
/// ```
/// use cuprum::kernel::{parse_params, ParamType};
/// let p = parse_params("float32 x, raw T y", true)?;
/// assert_eq!(p[0].name, "x");
/// assert!(p[1].raw && p[1].is_const);
/// assert_eq!(p[1].ty, ParamType::Placeholder('T'));
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    /// The name the operation uses.
    pub name: String,
    /// Its type.
    pub ty: ParamType,
    /// `raw`: indexed by the operation (`y[i]`), not broadcast with the others.
    pub raw: bool,
    /// Whether the operation sees it as `const` (inputs without `_non_const`).
    pub is_const: bool,
}

/// Whether `s` is a C identifier (`^[A-Za-z_][A-Za-z0-9_]*$`, strictly: no trailing newline).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Checks a kernel name (`Invalid kernel name: "..."` otherwise).
pub(crate) fn check_kernel_name(name: &str) -> Result<()> {
    if !is_identifier(name) {
        bail!(InvalidArgument, "Invalid kernel name: \"{name}\"");
    }
    Ok(())
}

/// Parses a parameter list. `inputs` makes parameters `const` unless marked `_non_const`.
/// An empty (or blank) string is no parameters.
///
/// ```
/// use cuprum::{ErrorKind, kernel::parse_params};
/// assert!(parse_params("", true)?.is_empty());
/// let e = parse_params("float32 x,", true).unwrap_err();
/// assert_eq!(e.to_string(), "Syntax error: ");
/// let e = parse_params("fancy T x", true).unwrap_err();
/// assert_eq!(e.to_string(), "Unknown keyword \"fancy\"");
/// let e = parse_params("float33 x", true).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::DType);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn parse_params(list: &str, inputs: bool) -> Result<Vec<Param>> {
    if list.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for item in list.split(',') {
        let toks: Vec<&str> = item.split_whitespace().collect();
        if toks.len() < 2 {
            bail!(InvalidArgument, "Syntax error: {}", item.trim());
        }
        let (ty, name) = (toks[toks.len() - 2], toks[toks.len() - 1]);
        let mut raw = false;
        let mut non_const = false;
        for kw in &toks[..toks.len() - 2] {
            match *kw {
                "raw" => raw = true,
                "_non_const" => non_const = true,
                other => bail!(InvalidArgument, "Unknown keyword \"{other}\""),
            }
        }
        let ty = if ty.chars().count() == 1 {
            let c = ty.chars().next().unwrap_or('T');
            if !c.is_ascii_alphabetic() {
                bail!(
                    InvalidArgument,
                    "type placeholder must be a letter, got '{c}' in \"{}\"",
                    item.trim()
                );
            }
            ParamType::Placeholder(c)
        } else {
            ParamType::Concrete(DType::from_name(ty)?)
        };
        if !is_identifier(name) {
            bail!(
                InvalidArgument,
                "Invalid parameter name: \"{name}\" (expected a C identifier) in \"{}\"",
                item.trim()
            );
        }
        out.push(Param {
            name: name.to_owned(),
            ty,
            raw,
            is_const: inputs && !non_const,
        });
    }
    Ok(out)
}

/// Rejects the names generated code reserves: the kernel kind's own (`forbidden`, e.g. `i`
/// the loop index; `why` completes the message), names starting with `_` (cuprum's own
/// variables), and names used twice.
pub(crate) fn check_reserved(params: &[Param], forbidden: &[&str], why: &str) -> Result<()> {
    for (k, p) in params.iter().enumerate() {
        if forbidden.contains(&p.name.as_str()) {
            bail!(
                InvalidArgument,
                "Can not use '{}' as a parameter name{why}",
                p.name
            );
        }
        if p.name.starts_with('_') {
            bail!(
                InvalidArgument,
                "Can not use '{}' as a parameter name: names starting with '_' are reserved",
                p.name
            );
        }
        if params[..k].iter().any(|q| q.name == p.name) {
            bail!(
                InvalidArgument,
                "parameter name '{}' is used more than once",
                p.name
            );
        }
    }
    Ok(())
}

/// Placeholder letters bound to dtypes during one call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct TypeMap(pub SmallVec<[(char, DType); 4]>);

impl TypeMap {
    pub(crate) fn get(&self, c: char) -> Option<DType> {
        self.0.iter().find(|(k, _)| *k == c).map(|(_, d)| *d)
    }

    /// Binds `param` to `dtype` (an array's dtype) or checks it against an earlier binding
    /// or the concrete type.
    pub(crate) fn bind(&mut self, param: &Param, dtype: DType) -> Result<()> {
        match param.ty {
            ParamType::Concrete(d) if d == dtype => Ok(()),
            ParamType::Concrete(d) => bail!(
                DType,
                "Type is mismatched. {} {} {} (parameter '{}' is declared {}, the array given is {})",
                param.name,
                dtype,
                d,
                param.name,
                d,
                dtype
            ),
            ParamType::Placeholder(c) => match self.get(c) {
                None => {
                    self.0.push((c, dtype));
                    Ok(())
                }
                Some(b) if b == dtype => Ok(()),
                Some(b) => bail!(
                    DType,
                    "Type is mismatched. {} {} {} {} (placeholder {c} was bound to {b} by an earlier array; '{}' is {dtype})",
                    param.name,
                    dtype,
                    b,
                    c,
                    param.name
                ),
            },
        }
    }

    /// The dtype of a parameter after binding.
    pub(crate) fn resolve(&self, param: &Param) -> Result<DType> {
        match param.ty {
            ParamType::Concrete(d) => Ok(d),
            ParamType::Placeholder(c) => self.get(c).ok_or_else(|| {
                err!(
                    DType,
                    "type placeholder {c} of parameter '{}' is not determined: no array argument \
                     has type {c} (scalars do not decide placeholders; pass an output array or \
                     declare a concrete dtype)",
                    param.name
                )
            }),
        }
    }

    /// `typedef <C type> <letter>;` lines, sorted by letter.
    pub(crate) fn typedefs(&self) -> String {
        let mut v: Vec<(char, DType)> = self.0.to_vec();
        v.sort();
        v.iter()
            .map(|(c, d)| format!("typedef {} {c};\n", d.c_type()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn grammar() {
        let p = parse_params(" float64 x ,  _non_const T y, raw raw U z", true).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].ty, ParamType::Concrete(DType::F64));
        assert!(!p[1].is_const && !p[1].raw);
        assert!(p[2].raw && p[2].is_const);
        let outs = parse_params("T z", false).unwrap();
        assert!(!outs[0].is_const);
        // one-letter types are placeholders even when they name a dtype char
        assert_eq!(
            parse_params("f x", true).unwrap()[0].ty,
            ParamType::Placeholder('f')
        );
        assert_eq!(
            parse_params("double x", true).unwrap()[0].ty,
            ParamType::Concrete(DType::F64)
        );
        let e = parse_params("x", true).unwrap_err();
        assert_eq!(e.to_string(), "Syntax error: x");
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        let e = parse_params("T 1x", true).unwrap_err();
        assert!(e.to_string().contains("Invalid parameter name"), "{e}");
    }

    #[test]
    fn reserved_names() {
        let p = parse_params("T i", true).unwrap();
        assert_eq!(
            check_reserved(&p, &["i"], "").unwrap_err().to_string(),
            "Can not use 'i' as a parameter name"
        );
        let p = parse_params("T _x", true).unwrap();
        assert!(check_reserved(&p, &[], "").is_err());
        let p = parse_params("T x, T x", true).unwrap();
        assert!(
            check_reserved(&p, &[], "")
                .unwrap_err()
                .to_string()
                .contains("more than once")
        );
        assert!(check_kernel_name("ok_1").is_ok());
        assert_eq!(
            check_kernel_name("bad name").unwrap_err().to_string(),
            "Invalid kernel name: \"bad name\""
        );
        assert!(check_kernel_name("k\n").is_err());
        assert!(check_kernel_name("").is_err());
    }

    #[test]
    fn binding() {
        let p = parse_params("T x, T y, float32 z", true).unwrap();
        let mut m = TypeMap::default();
        m.bind(&p[0], DType::F64).unwrap();
        let e = m.bind(&p[1], DType::F32).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Type is mismatched. y float32 float64 T"),
            "{e}"
        );
        let e = m.bind(&p[2], DType::F64).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Type is mismatched. z float64 float32"),
            "{e}"
        );
        assert_eq!(m.typedefs(), "typedef double T;\n");
        let q = parse_params("U w", true).unwrap();
        assert!(
            m.resolve(&q[0])
                .unwrap_err()
                .to_string()
                .contains("placeholder U")
        );
    }
}
