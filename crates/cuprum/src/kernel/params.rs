//! Kernel parameter lists (`"float32 x, T y, raw T z"`) and the exact-match type solver
//! that ElementwiseKernel and ReductionKernel share.
//!
//! Grammar (CuPy's): items separated by `,`; each item is `[modifiers] TYPE NAME` where the
//! modifiers are `raw` (the kernel indexes the array itself) and `_non_const` (an input the
//! operation may write). A TYPE of one character is a *placeholder* (`T`, `U`, even `f`),
//! bound by the dtype of the first array passed for it; anything longer is a dtype's full
//! NumPy name (`float32`, `int64`, `bool`, `complex128`, `bfloat16` ...). C type names and
//! NumPy's aliases (`float`, `int`, `uint`, `double`, `f4`, `i8` ...) are refused with the
//! name to write instead: `float x` means float64 to NumPy but 32 bits to a CUDA programmer,
//! so cuprum accepts only the names that cannot be read two ways.
//!
//! A name in both lists of an ElementwiseKernel with the same type is one read-write
//! parameter (the seed's `float32 x, float32 alpha` → `float32 x`): see [`merge_lists`].

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
/// use cuprum::kernel::{parse_params, ParamList, ParamType};
/// let p = parse_params("float32 x, raw T y", ParamList::Inputs)?;
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

/// The accepted spellings of a concrete parameter type, for messages.
fn accepted_names() -> String {
    DType::ALL
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The dtype a parameter list names: exactly one of the dtype table's NumPy names.
///
/// C type names and NumPy's short aliases are errors that say which name to write, since
/// they read differently to NumPy and to CUDA programmers (`float` is float64 to
/// `numpy.dtype` and 32-bit in CUDA C).
fn param_dtype(ty: &str) -> Result<DType> {
    if let Some(&d) = DType::ALL.iter().find(|d| d.name() == ty) {
        return Ok(d);
    }
    if let Some(d) = crate::array::registered_record(ty) {
        return Ok(d);
    }
    let two_ways = |c: &str, numpy: &str| {
        format!("in CUDA C '{ty}' is {c}, to NumPy it means {numpy}; write {c} or {numpy}")
    };
    let hint = match ty {
        "float" => two_ways("float32", "float64"),
        "int" => two_ways("int32", "int64"),
        "uint" | "unsigned" => two_ways("uint32", "uint64"),
        "long" => "'long' is 64 bits on Linux and 32 on Windows; write int64 or int32".to_owned(),
        "double" | "half" | "short" | "char" | "byte" | "ubyte" | "ushort" | "longlong"
        | "ulonglong" | "single" | "intc" | "uintc" | "cdouble" | "csingle" | "complex"
        | "bool_" | "bf16" | "uchar" | "__half" | "__nv_bfloat16" => {
            let d = match ty {
                "char" => Some(DType::I8),
                "uchar" => Some(DType::U8),
                "__half" => Some(DType::F16),
                "__nv_bfloat16" => Some(DType::BF16),
                _ => DType::from_name(ty).ok(),
            };
            match d {
                Some(d) => format!("write {d}"),
                None => "write its sized NumPy name".to_owned(),
            }
        }
        _ => match DType::from_name(ty) {
            Ok(d) => format!("'{ty}' is NumPy's short name of {d}; write {d}"),
            Err(_) => {
                bail!(
                    DType,
                    "data type '{ty}' not understood (a kernel parameter's type is a one-letter \
                     placeholder such as T, a device type registered with \
                     `cuprum::kernel::register_record`, or one of: {})",
                    accepted_names()
                )
            }
        },
    };
    bail!(
        DType,
        "type '{ty}' is not accepted in a kernel parameter list: {hint} (accepted: {}, a \
         registered device type, or a one-letter placeholder such as T)",
        accepted_names()
    )
}

/// The C++ declarations of the record dtypes among `dtypes` (each once, nested types
/// first), for the top of a generated kernel.
pub(crate) fn record_declarations(dtypes: &[DType]) -> String {
    let mut out = String::new();
    for d in dtypes {
        if let DType::Record(r) = d {
            // Each type's declaration ends with its `#endif`; records may share nested types.
            for block in r.declarations().split_inclusive("#endif\n") {
                if !out.contains(block) {
                    out.push_str(block);
                }
            }
        }
    }
    out
}

/// Which of a kernel's two parameter lists a string is: inputs are `const` unless marked
/// `_non_const`; outputs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamList {
    /// The input list.
    Inputs,
    /// The output list.
    Outputs,
}

/// Parses a parameter list. [`ParamList::Inputs`] makes parameters `const` unless marked
/// `_non_const`. An empty (or blank) string is no parameters.
///
/// ```
/// use cuprum::{ErrorKind, kernel::{parse_params, ParamList::Inputs}};
/// assert!(parse_params("", Inputs)?.is_empty());
/// let e = parse_params("float32 x,", Inputs).unwrap_err();
/// assert_eq!(e.to_string(), "Syntax error: ");
/// let e = parse_params("fancy T x", Inputs).unwrap_err();
/// assert_eq!(e.to_string(), "Unknown keyword \"fancy\"");
/// let e = parse_params("float33 x", Inputs).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::DType);
/// // C and NumPy shorthands read two ways: say which one you mean
/// let e = parse_params("float x", Inputs).unwrap_err();
/// assert!(e.to_string().contains("write float32 or float64"), "{e}");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn parse_params(list: &str, which: ParamList) -> Result<Vec<Param>> {
    let inputs = which == ParamList::Inputs;
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
            ParamType::Concrete(param_dtype(ty)?)
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

/// A parameter type as a list writes it (`float32`, `T`).
fn type_name(ty: ParamType) -> String {
    match ty {
        ParamType::Concrete(d) => d.name().to_owned(),
        ParamType::Placeholder(c) => c.to_string(),
    }
}

/// An ElementwiseKernel's parameters after its two lists are merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    /// The lists as declared, inputs then outputs; a read-write parameter is in both
    /// (not `const`).
    pub declared: Vec<Param>,
    /// The generated code's parameters: the inputs that are not read-write, then every
    /// output (a read-write parameter is an output the operation reads).
    pub params: Vec<Param>,
    /// How many of `params` are inputs.
    pub nin: usize,
    /// Per declared input: its index in `params` (`>= nin` for a read-write parameter).
    pub input_at: SmallVec<[usize; 8]>,
}

/// Rejects a name used twice in one list.
fn check_unique(list: &[Param], which: &str) -> Result<()> {
    for (k, p) in list.iter().enumerate() {
        if list[..k].iter().any(|q| q.name == p.name) {
            bail!(
                InvalidArgument,
                "parameter name '{}' is used more than once in the {which}",
                p.name
            );
        }
    }
    Ok(())
}

/// Merges an ElementwiseKernel's input and output lists. A name in both lists with the same
/// type (and the same `raw` marker) is one read-write parameter: the seed's in-place kernel
/// `float32 x, float32 alpha` → `float32 x`, `x = x * alpha + 1`. The call passes its array
/// once, among the inputs (and may repeat it as the output); the kernel writes it in place.
/// The same name with different types is an error naming both.
///
/// ```text
/// "float32 x, float32 alpha" / "float32 x"  →  params [alpha, x], nin 1, input_at [1, 0]
/// ```
pub(crate) fn merge_lists(ins: Vec<Param>, outs: Vec<Param>) -> Result<Merged> {
    check_unique(&ins, "inputs")?;
    check_unique(&outs, "outputs")?;
    let mut declared = ins;
    let dnin = declared.len();
    let mut outs = outs;
    let mut rw: SmallVec<[(usize, usize); 2]> = SmallVec::new();
    for (a, p) in declared.iter().enumerate() {
        if let Some(j) = outs.iter().position(|q| q.name == p.name) {
            check_read_write(p, &outs[j])?;
            rw.push((a, j));
        }
    }
    for &(a, j) in &rw {
        declared[a].is_const = false;
        outs[j].is_const = false;
    }
    let mut params: Vec<Param> = declared
        .iter()
        .enumerate()
        .filter(|(a, _)| !rw.iter().any(|r| r.0 == *a))
        .map(|(_, p)| p.clone())
        .collect();
    let nin = params.len();
    let mut next = 0;
    let input_at = (0..dnin)
        .map(|a| match rw.iter().find(|r| r.0 == a) {
            Some(&(_, j)) => nin + j,
            None => {
                next += 1;
                next - 1
            }
        })
        .collect();
    params.extend(outs.iter().cloned());
    declared.extend(outs);
    Ok(Merged {
        declared,
        params,
        nin,
        input_at,
    })
}

/// A name in both lists (`p` among the inputs, `q` among the outputs) must have one type
/// and the same `raw` marker to be one read-write parameter.
fn check_read_write(p: &Param, q: &Param) -> Result<()> {
    if p.ty != q.ty {
        bail!(
            DType,
            "parameter '{}' is declared {} among the inputs and {} among the outputs: a name \
             in both lists is one read-write parameter, so both need the same type",
            p.name,
            type_name(p.ty),
            type_name(q.ty)
        );
    }
    if p.raw != q.raw {
        let (r, n) = if p.raw {
            ("inputs", "outputs")
        } else {
            ("outputs", "inputs")
        };
        bail!(
            InvalidArgument,
            "parameter '{}' is raw among the {r} but not among the {n}: a name in both \
             lists is one read-write parameter, so both need the same modifiers",
            p.name
        );
    }
    Ok(())
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
    use super::ParamList::{Inputs, Outputs};
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn grammar() {
        let p = parse_params(" float64 x ,  _non_const T y, raw raw U z", Inputs).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].ty, ParamType::Concrete(DType::F64));
        assert!(!p[1].is_const && !p[1].raw);
        assert!(p[2].raw && p[2].is_const);
        let outs = parse_params("T z", Outputs).unwrap();
        assert!(!outs[0].is_const);
        // one-letter types are placeholders even when they name a dtype char
        assert_eq!(
            parse_params("f x", Inputs).unwrap()[0].ty,
            ParamType::Placeholder('f')
        );
        assert_eq!(
            parse_params("float64 x", Inputs).unwrap()[0].ty,
            ParamType::Concrete(DType::F64)
        );
        let e = parse_params("x", Inputs).unwrap_err();
        assert_eq!(e.to_string(), "Syntax error: x");
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        let e = parse_params("T 1x", Inputs).unwrap_err();
        assert!(e.to_string().contains("Invalid parameter name"), "{e}");
    }

    #[test]
    fn every_dtype_name_is_accepted() {
        for &d in DType::ALL {
            let p = parse_params(&format!("{} x", d.name()), Inputs).unwrap();
            assert_eq!(p[0].ty, ParamType::Concrete(d));
        }
    }

    #[test]
    fn c_names_and_numpy_aliases_are_refused_with_the_name_to_write() {
        let msg = |ty: &str| {
            let e = parse_params(&format!("{ty} x"), Inputs).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::DType, "{ty}: {e}");
            e.to_string()
        };
        let accepted = "(accepted: bool, int8, int16, int32, int64, uint8, uint16, uint32, \
                        uint64, float16, bfloat16, float32, float64, complex64, complex128, a \
                        registered device type, or a one-letter placeholder such as T)";
        assert_eq!(
            msg("float"),
            format!(
                "type 'float' is not accepted in a kernel parameter list: in CUDA C 'float' is \
                 float32, to NumPy it means float64; write float32 or float64 {accepted}"
            )
        );
        assert!(
            msg("int").contains(
                "in CUDA C 'int' is int32, to NumPy it means int64; write int32 or int64"
            )
        );
        assert!(msg("uint").contains("write uint32 or uint64"));
        assert!(msg("unsigned").contains("write uint32 or uint64"));
        assert!(msg("long").contains("write int64 or int32"));
        assert_eq!(
            msg("f4"),
            format!(
                "type 'f4' is not accepted in a kernel parameter list: 'f4' is NumPy's short \
                 name of float32; write float32 {accepted}"
            )
        );
        for (ty, want) in [
            ("double", "write float64"),
            ("half", "write float16"),
            ("short", "write int16"),
            ("char", "write int8"),
            ("uchar", "write uint8"),
            ("single", "write float32"),
            ("complex", "write complex128"),
            ("bool_", "write bool"),
            ("bf16", "write bfloat16"),
            ("__half", "write float16"),
            ("f8", "short name of float64; write float64"),
            ("i4", "short name of int32; write int32"),
            ("i8", "short name of int64; write int64"),
            ("u1", "short name of uint8; write uint8"),
            ("c8", "short name of complex64; write complex64"),
        ] {
            let m = msg(ty);
            assert!(m.contains(want), "{ty}: {m}");
            assert!(m.ends_with(accepted), "{ty}: {m}");
        }
        assert_eq!(
            msg("floaty"),
            "data type 'floaty' not understood (a kernel parameter's type is a one-letter \
             placeholder such as T, a device type registered with \
             `cuprum::kernel::register_record`, or one of: bool, int8, int16, int32, int64, uint8, uint16, \
             uint32, uint64, float16, bfloat16, float32, float64, complex64, complex128)"
        );
        // modifiers do not change the rule
        let e = parse_params("raw float x", Inputs).unwrap_err();
        assert!(e.to_string().contains("write float32 or float64"), "{e}");
    }

    #[test]
    fn reserved_names() {
        let p = parse_params("T i", Inputs).unwrap();
        assert_eq!(
            check_reserved(&p, &["i"], "").unwrap_err().to_string(),
            "Can not use 'i' as a parameter name"
        );
        let p = parse_params("T _x", Inputs).unwrap();
        assert!(check_reserved(&p, &[], "").is_err());
        let p = parse_params("T x, T x", Inputs).unwrap();
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
    fn a_name_in_both_lists_is_one_read_write_parameter() {
        let m = merge_lists(
            parse_params("float32 x, float32 alpha", Inputs).unwrap(),
            parse_params("float32 x", Outputs).unwrap(),
        )
        .unwrap();
        let names = |ps: &[Param]| ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&m.declared), ["x", "alpha", "x"]);
        assert_eq!(names(&m.params), ["alpha", "x"]);
        assert_eq!((m.nin, m.input_at.as_slice()), (1, &[1usize, 0][..]));
        assert!(!m.declared[0].is_const && !m.declared[2].is_const && m.declared[1].is_const);
        assert!(!m.params[1].is_const);
        // several, in any order, with placeholders and raw markers that agree
        let m = merge_lists(
            parse_params("T a, raw U r, T b, float64 s", Inputs).unwrap(),
            parse_params("T c, T b, raw U r", Outputs).unwrap(),
        )
        .unwrap();
        assert_eq!(names(&m.params), ["a", "s", "c", "b", "r"]);
        assert_eq!(m.nin, 2);
        assert_eq!(m.input_at.as_slice(), &[0, 4, 3, 1]);
        // no shared name: nothing changes
        let m = merge_lists(
            parse_params("T x", Inputs).unwrap(),
            parse_params("T y", Outputs).unwrap(),
        )
        .unwrap();
        assert_eq!(
            (names(&m.params), m.nin),
            (vec!["x".to_owned(), "y".to_owned()], 1)
        );
    }

    #[test]
    fn read_write_parameters_need_one_type() {
        let merge = |i: &str, o: &str| {
            merge_lists(
                parse_params(i, Inputs).unwrap(),
                parse_params(o, Outputs).unwrap(),
            )
            .unwrap_err()
        };
        let e = merge("float32 x, float32 alpha", "float64 x");
        assert_eq!(e.kind(), ErrorKind::DType);
        assert_eq!(
            e.to_string(),
            "parameter 'x' is declared float32 among the inputs and float64 among the outputs: \
             a name in both lists is one read-write parameter, so both need the same type"
        );
        let e = merge("T x", "U x");
        assert!(
            e.to_string()
                .contains("declared T among the inputs and U among"),
            "{e}"
        );
        let e = merge("raw T x", "T x");
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(
            e.to_string()
                .contains("raw among the inputs but not among the outputs"),
            "{e}"
        );
        let e = merge("T x, T x", "T x");
        assert_eq!(
            e.to_string(),
            "parameter name 'x' is used more than once in the inputs"
        );
        let e = merge("T x", "T y, T y");
        assert!(
            e.to_string().contains("more than once in the outputs"),
            "{e}"
        );
    }

    #[test]
    fn binding() {
        let p = parse_params("T x, T y, float32 z", Inputs).unwrap();
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
        let q = parse_params("U w", Inputs).unwrap();
        assert!(
            m.resolve(&q[0])
                .unwrap_err()
                .to_string()
                .contains("placeholder U")
        );
    }
}
