//! Build script: the blake3 digest of cuprum's bundled headers (`include/cuprum/*.cuh`),
//! written to `$OUT_DIR/bundled_digest.rs` for the kernel cache's key
//! (`compile/headers.rs`). Computed here, a fresh process's first cache lookup hashes
//! none of the ~80 KB of header text (that hash cost ~40 µs of a 150–200 µs first key).
//! The list and the hashing mirror `headers::BUNDLED` and the tests' `digest_of`; a unit
//! test there checks that the two digests agree.

use std::error::Error;
use std::fmt::Write as _;

/// `headers::BUNDLED`'s names, in its order.
const BUNDLED: &[&str] = &[
    "cuprum/half.cuh",
    "cuprum/complex.cuh",
    "cuprum/indexer.cuh",
    "cuprum/cast.cuh",
    "cuprum/reduce.cuh",
    "cuprum/math_constants.cuh",
    "cuprum/ufunc.cuh",
    "cuprum/jit.cuh",
    "cuprum/all.cuh",
    "cupy/complex.cuh",
];

fn main() -> Result<(), Box<dyn Error>> {
    let mut h = blake3::Hasher::new();
    for name in BUNDLED {
        let path = format!("include/{name}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
        for part in [name.as_bytes(), &text[..]] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    let mut out = String::from("[");
    for b in h.finalize().as_bytes() {
        write!(out, "{b:#04x}, ")?;
    }
    out.push(']');
    let dir = std::env::var("OUT_DIR")?;
    std::fs::write(format!("{dir}/bundled_digest.rs"), out)?;
    println!("cargo:rerun-if-changed=build.rs");
    Ok(())
}
