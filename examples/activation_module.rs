//! Seed: "RawModule with Multiple Kernels" — relu and sigmoid through one module.
use cuprum::{Array, RawModule};

fn main() -> Result<(), cuprum::Error> {
    if let Some(why) = cuprum::Device::no_gpu_reason() {
        println!("activation_module: no GPU here ({why}); nothing to run");
        return Ok(());
    }
    let module = RawModule::new(include_str!("kernels/activations.cu"));
    let activation = module.get_function("apply_activation")?;
    let add = module.get_function("vector_add")?;
    let data = Array::from_slice(&[-2.0f32, -1.0, 0.0, 1.0, 2.0], &[5])?;
    let output = Array::zeros_like(&data)?;
    activation.launch(1, 256, (&data, &output, 5i32, 0i32))?;
    let relu = output.to_vec::<f32>()?;
    activation.launch(1, 256, (&data, &output, 5i32, 1i32))?;
    let sigmoid = output.to_vec::<f32>()?;
    let sum = Array::empty_like(&data)?;
    add.launch(1, 256, (&data, &data, &sum, 5i32))?;
    let twice = sum.to_vec::<f32>()?;
    let want_sig: Vec<f32> = [-2.0f32, -1.0, 0.0, 1.0, 2.0]
        .iter()
        .map(|x| 1.0 / (1.0 + (-x).exp()))
        .collect();
    let ok = relu == [0.0, 0.0, 0.0, 1.0, 2.0]
        && sigmoid
            .iter()
            .zip(&want_sig)
            .all(|(a, b)| (a - b).abs() < 1e-6)
        && twice == [-4.0, -2.0, 0.0, 2.0, 4.0];
    println!(
        "activation_module: ReLU {relu:?}, Sigmoid {sigmoid:?}, add {twice:?}: {}",
        if ok { "match" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
