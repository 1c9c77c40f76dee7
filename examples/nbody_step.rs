//! An n-body step over an array of `Particle` structs (`#[derive(cuprum::DeviceType)]`):
//! the Rust kernel (`kernels/device_types.rs`), its raw CUDA twin (`kernels/nbody.cu`)
//! and an ElementwiseKernel over registered records, each against an f64 CPU reference.
//! `--source` prints the Rust kernel's whole program (the structs' declarations first).
//! The data and the check are `seeds/device_types.rs`.

#[allow(dead_code)]
#[path = "kernels/device_types.rs"]
mod device_kernels;
#[path = "seeds/mod.rs"]
mod seeds;
#[path = "seeds/device_types.rs"]
mod seeds_types;

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", device_kernels::nbody_step::program());
        return Ok(());
    }
    seeds::check::example("nbody_step", seeds_types::nbody)
}
