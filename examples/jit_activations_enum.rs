//! Seed 002's activations with the activation an enum (`Activation::Relu`, `::Sigmoid`,
//! `::Identity`, `::Leaky(slope)`, `#[derive(cuprum::DeviceType)]`) and a `match` on it,
//! checked against the host. `--source` prints the whole program (the enum is a C++ tagged
//! union; the `match` an `if` chain on its tag). The data and the check are
//! `seeds/device_types.rs`.

#[allow(dead_code)]
#[path = "kernels/device_types.rs"]
mod device_kernels;
#[path = "seeds/mod.rs"]
mod seeds;
#[path = "seeds/device_types.rs"]
mod seeds_types;

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", device_kernels::apply_activation_enum::program());
        return Ok(());
    }
    seeds::check::example("jit_activations_enum", seeds_types::activations_enum)
}
