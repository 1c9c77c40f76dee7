//! Seed 002 ("RawModule with Multiple Kernels") written in Rust: ReLU and the sigmoid are
//! `#[cuprum::device]` functions (also called here on the host, as ordinary Rust), applied
//! by the kernel `apply_activation`; the module's vector add is the generic `vector_add`.
//! `--source` prints the whole program.
use cuprum::{Array, DType};

#[allow(dead_code)]
#[path = "kernels/rust_kernels.rs"]
mod kernels;
use kernels::{activation_relu, activation_sigmoid, apply_activation, vector_add};

fn main() -> Result<(), cuprum::Error> {
    if std::env::args().any(|a| a == "--source") {
        print!("{}", apply_activation::program());
        return Ok(());
    }
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!(
            "jit_activations: no GPU here ({why}); nothing to run (--source prints the kernels)"
        );
        return Ok(());
    }
    let x = [-2.0f32, -1.0, 0.0, 1.0, 2.0];
    let data = Array::from_slice(&x, &[5])?;
    let mut output = Array::zeros(&[5], DType::F32)?;
    apply_activation::launch((1, 256), &data, &mut output, 5, 0)?;
    let relu = output.to_vec::<f32>()?;
    apply_activation::launch((1, 256), &data, &mut output, 5, 1)?;
    let sigmoid = output.to_vec::<f32>()?;
    let mut sum = Array::empty(&[5], DType::F32)?;
    vector_add::launch::<f32>((1, 256), &data, &data, &mut sum, 5)?;
    let twice = sum.to_vec::<f32>()?;
    // The device functions are ordinary Rust functions on the host.
    let want_relu: Vec<f32> = x.iter().map(|&v| activation_relu(v)).collect();
    let want_sig: Vec<f32> = x.iter().map(|&v| activation_sigmoid(v)).collect();
    let ok = relu == want_relu
        && relu == [0.0, 0.0, 0.0, 1.0, 2.0]
        && sigmoid
            .iter()
            .zip(&want_sig)
            .all(|(a, b)| (a - b).abs() < 1e-6)
        && twice == [-4.0, -2.0, 0.0, 2.0, 4.0];
    println!(
        "jit_activations: ReLU {relu:?}, Sigmoid {sigmoid:?}, add {twice:?}: {}",
        if ok { "match" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
