//! Seed: "Kernel with multiple outputs" (002) — `trig_functions`, one float32 input and three
//! outputs (`sinf`, `cosf`, `tanf`) returned together by `call_all`, on 1000 angles from 0 to
//! 2π. Checks the seed's identity `sin² + cos² ≈ 1` (NumPy's allclose tolerances), sin and
//! cos against the host in double precision, and `tan ≈ sin / cos` where |cos| > 1e-3.
//! The kernel, the data and the check are `seeds/elementwise.rs`, shared with `cuprum demo`.

#[path = "seeds/check.rs"]
mod check;
#[path = "seeds/elementwise.rs"]
mod elementwise;

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("trig_functions: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    elementwise::trig_functions()?.report("trig_functions");
    Ok(())
}
