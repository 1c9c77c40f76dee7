//! cuprum's own CUDA headers, passed to NVRTC in memory (no toolkit headers needed at run
//! time), and which sources need the CUDA toolkit's headers besides (a scan of their
//! `#include` lines). Kept small: header parsing dominates compile time. Their text is part
//! of every cache key.
//!
//! **Bundled headers** (`include/cuprum/`, listed in [`BUNDLED`]: `half.cuh` float16 and
//! bfloat16, `complex.cuh`, `indexer.cuh`, `cast.cuh`, `reduce.cuh`, `ufunc.cuh`,
//! `math_constants.cuh`, `jit.cuh` the prelude of Rust kernels, and `all.cuh`; and
//! `include/cupy/complex.cuh`, CuPy's `<cupy/complex.cuh>` for raw kernels written for
//! CuPy, over cuprum's complex types) go with every
//! compile; NVRTC parses only what a source includes, so the others cost nothing. Generated
//! kernels include `all.cuh` and `math_constants.cuh` (the toolkit's `CUDART_*` names and
//! values, as CuPy's generated kernels have them); the latter uses the toolkit header's
//! include guard, so a preamble that also includes `<math_constants.h>` defines each macro
//! once.
//!
//! **CUDA headers only when included.** A source (or one of its in-memory headers) that
//! includes anything other than a bundled or in-memory header gets the discovered include
//! folders as `-I`, and their identity (the folders and each component's marker file, by
//! size and modification time) joins its cache key, so a reinstalled or upgraded toolkit
//! never serves a stale cubin and no header is hashed. Generated kernels include only
//! cuprum's headers and pay for neither. NVRTC 13 needs no extra flags for what users
//! include: `cooperative_groups` grid sync compiles without `-rdc`, CUB's block and warp
//! primitives with `-std=c++17` (device-wide CUB and thrust need the host C++ library,
//! which NVRTC lacks). A header NVRTC cannot open gets a note in the compile error naming
//! its pip package (or the toolkit) and `cuprum setup`.

/// `(include name, text)` of every bundled header.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "cuprum/half.cuh",
        include_str!("../../include/cuprum/half.cuh"),
    ),
    (
        "cuprum/complex.cuh",
        include_str!("../../include/cuprum/complex.cuh"),
    ),
    (
        "cuprum/indexer.cuh",
        include_str!("../../include/cuprum/indexer.cuh"),
    ),
    (
        "cuprum/cast.cuh",
        include_str!("../../include/cuprum/cast.cuh"),
    ),
    (
        "cuprum/reduce.cuh",
        include_str!("../../include/cuprum/reduce.cuh"),
    ),
    (
        "cuprum/math_constants.cuh",
        include_str!("../../include/cuprum/math_constants.cuh"),
    ),
    (
        "cuprum/ufunc.cuh",
        include_str!("../../include/cuprum/ufunc.cuh"),
    ),
    (
        "cuprum/jit.cuh",
        include_str!("../../include/cuprum/jit.cuh"),
    ),
    (
        "cuprum/all.cuh",
        include_str!("../../include/cuprum/all.cuh"),
    ),
    (
        "cupy/complex.cuh",
        include_str!("../../include/cupy/complex.cuh"),
    ),
];

/// blake3 of every bundled header's name and text, computed at build time (`build.rs`;
/// the tests' `digest_of` hashes the same way): the kernel cache's key takes this digest
/// instead of hashing the headers' text, and a fresh process's first lookup touches none
/// of it (hashing it there cost ~40 µs of a 150–200 µs first key).
pub(crate) fn bundled_digest() -> &'static [u8; 32] {
    const DIGEST: [u8; 32] = include!(concat!(env!("OUT_DIR"), "/bundled_digest.rs"));
    &DIGEST
}

#[cfg(test)]
/// blake3 of `(name, text)` pairs, each part length-prefixed (no two lists collide by
/// moving bytes between a name and a text).
fn digest_of(headers: &[(&str, &str)]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    for (n, t) in headers {
        for part in [n.as_bytes(), t.as_bytes()] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    *h.finalize().as_bytes()
}

/// The bundled headers a compile of `source` parses: those it includes, and those they
/// include in turn (each once, in first-include order), as `(name, text)`. Headers given in
/// memory shadow nothing here (they are listed by the profile separately).
pub(crate) fn bundled_included(source: &str) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    let mut todo: Vec<&str> = includes(source).collect();
    todo.reverse();
    while let Some(name) = todo.pop() {
        let Some(&(n, t)) = BUNDLED.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        if out.iter().any(|(seen, _)| *seen == n) {
            continue;
        }
        out.push((n, t));
        let mut inner: Vec<&str> = includes(t).collect();
        inner.reverse();
        todo.extend(inner);
    }
    out
}

/// True when NVRTC's `--minimal` may compile `source` (with its in-memory `headers`):
/// nothing beyond cuprum's bundled headers is included, and no identifier names what
/// `--minimal` leaves out — texture and surface functions and types (`tex*`, `surf*`),
/// the CUDA runtime's functions, types and macros (`cuda*`), device-side launches
/// (`<<<`). A conservative scan: a false "no" only costs the saving; a compile that fails
/// with `--minimal` anyway is retried without it (program.rs).
pub(crate) fn minimal_ok(source: &str, headers: &[(String, String)]) -> bool {
    if needs_cuda_headers(source, headers) {
        return false;
    }
    let clean = |text: &str| {
        !text.contains("<<<")
            && !text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w.starts_with("cuda") || w.starts_with("tex") || w.starts_with("surf"))
    };
    std::iter::once(source)
        .chain(headers.iter().map(|(_, t)| t.as_str()))
        .all(clean)
}

/// The macros that leave parts of `all.cuh` and `math_constants.cuh` out of a compile of
/// `source` (with its in-memory `headers`), from a scan of their words: the `CUDART_*`
/// constants without a `CUDART_` name; float16/bfloat16 without a word containing `half`,
/// `f16` or `float16`; complex numbers without a word containing `complex`; the operation
/// helpers (`cast.cuh`, `reduce.cuh`, `ufunc.cuh`, all in namespace `cuprum`) when neither
/// of those types is there (no argument-dependent lookup can reach them), no `namespace
/// cuprum` and no `cuprum::` name besides `indexer.cuh`'s. Only for sources that include
/// those headers. Every part left out is reachable only by a name the scan looks for, so a
/// lean compile either compiles the same program or fails, and a failing one is compiled
/// again in full (program.rs). Measured on the H100 machine's CPU: the fused
/// `(x * 2 + 1).maximum(0)` kernel 18.5–20 ms → 12.3–12.6 ms with NVRTC's own cache serving
/// the stages after the front end (so a front-end saving of 6–7 ms; a new kernel's whole
/// compile there is 45–65 ms).
pub(crate) fn lean_flags(source: &str, headers: &[(String, String)]) -> Vec<&'static str> {
    let texts = || std::iter::once(source).chain(headers.iter().map(|(_, t)| t.as_str()));
    let included = |name: &str| texts().any(|t| includes(t).any(|n| n == name));
    let words = || {
        texts()
            .flat_map(|t| t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
            .filter(|w| !w.is_empty())
    };
    let mut out = Vec::new();
    if included("cuprum/math_constants.cuh") && !words().any(|w| w.starts_with("CUDART_")) {
        out.push("-DCUPRUM_OMIT_CONSTANTS");
    }
    if !included("cuprum/all.cuh") {
        return out;
    }
    let half = words().any(|w| {
        let l = w.to_ascii_lowercase();
        l.contains("half") || l.contains("f16") || l.contains("float16")
    });
    let complex = words().any(|w| w.to_ascii_lowercase().contains("complex"));
    if !half {
        out.push("-DCUPRUM_OMIT_HALF");
    }
    if !complex {
        out.push("-DCUPRUM_OMIT_COMPLEX");
    }
    if !half && !complex && !texts().any(names_cuprum_ops) {
        out.push("-DCUPRUM_OMIT_OPS");
    }
    out
}

/// The bundled headers that `lean` (from [`lean_flags`]) keeps out of a compile: their
/// include lines stand behind those macros in `all.cuh`.
pub(crate) fn omitted_by(lean: &[&str]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for f in lean {
        match *f {
            "-DCUPRUM_OMIT_HALF" => out.push("cuprum/half.cuh"),
            "-DCUPRUM_OMIT_COMPLEX" => out.push("cuprum/complex.cuh"),
            "-DCUPRUM_OMIT_OPS" => {
                out.extend(["cuprum/cast.cuh", "cuprum/reduce.cuh", "cuprum/ufunc.cuh"])
            }
            _ => {}
        }
    }
    out
}

/// Whether `text` may name one of the operation helpers: `namespace cuprum` (a using
/// directive or the user's own additions), or a `cuprum::` name that is not one of
/// `indexer.cuh`'s (which every generated kernel uses).
fn names_cuprum_ops(text: &str) -> bool {
    const INDEXER: &[&str] = &["Indexer", "CArray", "LoopSize", "Vec"];
    text.contains("namespace cuprum")
        || text.split("cuprum::").skip(1).any(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            !INDEXER.contains(&name.as_str())
        })
}

/// The names a source `#include`s (`<...>` or `"..."`), in order, from its preprocessor
/// lines (a directive in a comment or an `#if 0` counts too: the answer may only err
/// towards passing the CUDA include folders).
pub(crate) fn includes(source: &str) -> impl Iterator<Item = &str> {
    source.lines().filter_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("include")?.trim_start();
        let close = match rest.chars().next()? {
            '<' => '>',
            '"' => '"',
            _ => return None,
        };
        let rest = &rest[1..];
        Some(rest[..rest.find(close)?].trim())
    })
}

/// True when `source` (or one of the in-memory `headers`) includes something that is not a
/// bundled cuprum header nor an in-memory header: then the CUDA include folders are passed
/// to NVRTC (and enter the cache key). cuprum's generated kernels include only their own
/// headers, so they never pay for the search nor for the toolkit's headers.
pub(crate) fn needs_cuda_headers(source: &str, headers: &[(String, String)]) -> bool {
    let provided = |name: &str| {
        BUNDLED.iter().any(|(n, _)| *n == name) || headers.iter().any(|(n, _)| n == name)
    };
    std::iter::once(source)
        .chain(headers.iter().map(|(_, t)| t.as_str()))
        .any(|text| includes(text).any(|name| !provided(name)))
}

/// The component a CUDA header belongs to, from its name: `cub/`, `thrust/`, `cuda/`,
/// `nv/` are CCCL; `crt/` is crt; the runtime's own names (`cuda_fp16.h`,
/// `cooperative_groups.h`, `math_constants.h` ...) are the runtime headers; `None` for
/// names that are not CUDA's.
pub(crate) fn component_of(name: &str) -> Option<super::discovery::Component> {
    use super::discovery::Component;
    let first = name.split('/').next().unwrap_or(name);
    match first {
        "cub" | "thrust" | "cuda" | "nv" => return Some(Component::Cccl),
        "crt" => return Some(Component::Crt),
        "cooperative_groups" => return Some(Component::RuntimeHeaders),
        _ => {}
    }
    let runtime = [
        "cuda_",
        "cooperative_groups",
        "math_",
        "device_",
        "sm_",
        "vector_",
        "surface_",
        "texture_",
        "channel_descriptor",
        "builtin_types",
        "host_",
        "driver_",
        "mma.h",
        "cuComplex",
        "library_types",
        "common_functions",
        "cudart_platform",
    ];
    runtime
        .iter()
        .any(|p| name.starts_with(p))
        .then_some(Component::RuntimeHeaders)
}

/// What to do about a header NVRTC could not open, for compile error messages: which pip
/// package or toolkit provides it, or where cuprum looked when it had the folders.
pub(crate) fn missing_header_hint(name: &str) -> String {
    use super::discovery;
    let search = discovery::header_search();
    let Some(component) = component_of(name) else {
        return format!(
            "note: `{name}` is not a CUDA header cuprum knows; add the folder that has it \
             with CompileOptions::include_path (or an in-memory header with \
             CompileOptions::header)"
        );
    };
    if let Some(f) = search.found.iter().find(|f| f.component == component) {
        return format!(
            "note: `{name}` is not in the {} at {} ({}); check its name, or point \
             CUPRUM_CUDA_INCLUDE at a folder that has it",
            component.describe(),
            f.path.display(),
            f.origin
        );
    }
    format!(
        "note: `{name}` belongs to the {}, which cuprum did not find (looked in: {}). \
         Install them with `cuprum setup` (in a program: `cuprum::setup()`), or `{} -m pip \
         install \"{}=={}.0.*\"`, or the CUDA {} toolkit (and set CUDA_HOME); or point \
         CUPRUM_CUDA_INCLUDE at their folder",
        component.describe(),
        search.tried.join("; "),
        discovery::python_name(),
        component.pip_package(),
        discovery::CUDA_MAJOR,
        discovery::CUDA_MAJOR
    )
}

/// The header named by an NVRTC "cannot open source file" error line, if it is one.
pub(crate) fn unopened_header(message: &str) -> Option<&str> {
    let i = message.find("open source file \"")?;
    let rest = &message[i + "open source file \"".len()..];
    Some(&rest[..rest.find('"')?])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::discovery::Component;

    #[test]
    fn includes_are_read_from_directives_only() {
        let src = "#include <cuprum/all.cuh>\n  #  include \"my.h\"\n// include <no.h>\n\
                   #include<cub/block/block_reduce.cuh>\nint include = 1;\n#define X <y.h>\n";
        let v: Vec<&str> = includes(src).collect();
        assert_eq!(v, ["cuprum/all.cuh", "my.h", "cub/block/block_reduce.cuh"]);
    }

    #[test]
    fn only_sources_beyond_cuprums_headers_need_the_cuda_folders() {
        let generated = "#include <cuprum/all.cuh>\n#include <cuprum/half.cuh>\nextern \"C\" __global__ void k() {}";
        assert!(!needs_cuda_headers(generated, &[]));
        assert!(!needs_cuda_headers("__global__ void k() {}", &[]));
        assert!(needs_cuda_headers("#include <cuda_fp16.h>\n", &[]));
        let mine = vec![("my.h".to_string(), "#define A 1".to_string())];
        assert!(!needs_cuda_headers("#include \"my.h\"\n", &mine));
        let nested = vec![(
            "my.h".to_string(),
            "#include <math_constants.h>".to_string(),
        )];
        assert!(needs_cuda_headers("#include \"my.h\"\n", &nested));
    }

    #[test]
    fn minimal_is_kept_for_sources_that_need_what_it_omits() {
        let generated =
            "#include <cuprum/all.cuh>\nextern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }";
        assert!(minimal_ok(generated, &[]));
        assert!(minimal_ok("// the context\n__global__ void k() {}", &[]));
        for src in [
            "__global__ void k(cudaTextureObject_t t, float* o) { o[0] = tex1Dfetch<float>(t, 0); }",
            "__global__ void k(float* o) { surf2Dwrite(o[0], 0, 0, 0); }",
            "__global__ void c() {}\n__global__ void k() { c<<<1, 1>>>(); }",
            "__global__ void k() { cudaDeviceSynchronize(); }",
            "#include <cuda_fp16.h>\n__global__ void k() {}",
        ] {
            assert!(!minimal_ok(src, &[]), "{src}");
        }
        let h = vec![("t.h".to_string(), "texture<float> t;".to_string())];
        assert!(!minimal_ok("#include \"t.h\"\n__global__ void k() {}", &h));
    }

    #[test]
    fn included_bundled_headers_are_followed_transitively_once() {
        let names = |src: &str| -> Vec<&str> {
            bundled_included(src).into_iter().map(|(n, _)| n).collect()
        };
        assert_eq!(
            names("#include <cuprum/all.cuh>\n#include <cuprum/half.cuh>\n"),
            [
                "cuprum/all.cuh",
                "cuprum/half.cuh",
                "cuprum/complex.cuh",
                "cuprum/indexer.cuh",
                "cuprum/cast.cuh",
                "cuprum/reduce.cuh",
                "cuprum/ufunc.cuh"
            ]
        );
        assert_eq!(
            names("#include <cuprum/jit.cuh>\n"),
            ["cuprum/jit.cuh", "cuprum/half.cuh"]
        );
        assert!(names("#include <cooperative_groups.h>\n").is_empty());
    }

    #[test]
    fn the_bundled_digest_changes_with_any_header() {
        // build.rs hashed the same headers the same way.
        assert_eq!(*bundled_digest(), digest_of(BUNDLED));
        for i in 0..BUNDLED.len() {
            let edited_text = format!("{} ", BUNDLED[i].1);
            let edited_name = format!("{}x", BUNDLED[i].0);
            let mut a = BUNDLED.to_vec();
            a[i].1 = &edited_text;
            assert_ne!(digest_of(&a), *bundled_digest(), "{}", BUNDLED[i].0);
            let mut b = BUNDLED.to_vec();
            b[i].0 = &edited_name;
            assert_ne!(digest_of(&b), *bundled_digest(), "{}", BUNDLED[i].0);
        }
        assert_ne!(digest_of(&[("ab", "c")]), digest_of(&[("a", "bc")]));
    }

    #[test]
    fn headers_map_to_their_pip_package() {
        let p = |n: &str| component_of(n).map(Component::pip_package);
        assert_eq!(p("cub/block/block_reduce.cuh"), Some("nvidia-cuda-cccl"));
        assert_eq!(p("cuda/std/limits"), Some("nvidia-cuda-cccl"));
        assert_eq!(p("thrust/complex.h"), Some("nvidia-cuda-cccl"));
        assert_eq!(p("crt/host_defines.h"), Some("nvidia-cuda-crt"));
        assert_eq!(p("cuda_fp16.h"), Some("nvidia-cuda-runtime"));
        assert_eq!(p("cooperative_groups.h"), Some("nvidia-cuda-runtime"));
        assert_eq!(
            p("cooperative_groups/reduce.h"),
            Some("nvidia-cuda-runtime")
        );
        assert_eq!(p("math_constants.h"), Some("nvidia-cuda-runtime"));
        assert_eq!(p("my_header.h"), None);
    }

    #[test]
    fn nvrtc_open_errors_name_the_header() {
        assert_eq!(
            unopened_header("catastrophic error: cannot open source file \"cub/cub.cuh\""),
            Some("cub/cub.cuh")
        );
        assert_eq!(
            unopened_header(
                "could not open source file \"cooperative_groups.h\" (no directories in search list)"
            ),
            Some("cooperative_groups.h")
        );
        assert_eq!(unopened_header("identifier \"x\" is undefined"), None);
    }
    #[test]
    fn lean_flags_follow_the_words_a_source_uses() {
        let all = "#include <cuprum/all.cuh>\n";
        let mc = "#include <cuprum/math_constants.cuh>\n";
        let f = |s: &str| lean_flags(s, &[]);
        let (c, h, x, o) = (
            "-DCUPRUM_OMIT_CONSTANTS",
            "-DCUPRUM_OMIT_HALF",
            "-DCUPRUM_OMIT_COMPLEX",
            "-DCUPRUM_OMIT_OPS",
        );
        assert_eq!(
            f(&format!(
                "{all}{mc}cuprum::LoopSize s; cuprum::CArray<float, 1> a;"
            )),
            [c, h, x, o]
        );
        assert_eq!(
            f(&format!("{all}{mc}y = cuprum::maximum(x, CUDART_PI_F);")),
            [h, x]
        );
        assert_eq!(f(&format!("{all}typedef float16 T; y = x;")), [x]);
        assert_eq!(f(&format!("{all}typedef bfloat16 T;")), [x]);
        assert_eq!(f(&format!("{all}typedef complex<float> T;")), [h]);
        assert_eq!(f(&format!("{all}using namespace cuprum; y = x;")), [h, x]);
        assert_eq!(
            f(&format!("{all}y = cuprum :: clip(x);")),
            [h, x, o],
            "an unusual spelling: the retry covers it"
        );
        // Only what the source includes: nothing for a RawKernel without cuprum's headers.
        assert!(f("extern \"C\" __global__ void k() {}").is_empty());
        assert_eq!(f(&format!("{mc}y = x;")), [c]);
        // In-memory headers count as the source's text.
        let h2 = [("my.h".to_string(), "typedef complex<double> Z;".to_string())];
        assert_eq!(lean_flags(&format!("{all}#include \"my.h\"\n"), &h2), [h]);
    }
}
