//! Seed: "Kernel with multiple outputs" (002) — `trig_functions`, one float32 input and three
//! outputs (`sinf`, `cosf`, `tanf`) returned together by `call_all`, on 1000 angles from 0 to
//! 2π. Checks the seed's identity `sin² + cos² ≈ 1` (NumPy's allclose tolerances), sin and
//! cos against the host in double precision, and `tan ≈ sin / cos` where |cos| > 1e-3.
//! The kernel, the data and the check are in `seeds/` (`elementwise.rs`), shared with `cuprum demo`.

#[path = "seeds/mod.rs"]
mod seeds;

fn main() -> Result<(), cuprum::Error> {
    seeds::check::example("trig_functions", seeds::elementwise::trig_functions)
}
