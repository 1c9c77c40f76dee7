//! Compiles the Rust kernels of `src/kernels.rs` into `OUT_DIR/kernels.cuprum-bundle` (a
//! cubin per architecture plus PTX), which `src/main.rs` embeds with
//! `cuprum::include_bundle!()`. The build script includes the same file as the program, so
//! both see the same kernels. Without NVRTC here the bundle is empty (a cargo warning says
//! so) and the program compiles its kernels at run time.

#[allow(dead_code)]
#[path = "src/kernels.rs"]
mod kernels;

fn main() -> cuprum::Result<()> {
    cuprum::build::KernelBuild::new()
        .kernel(cuprum::kernel_instance!(kernels::saxpy))
        .kernel(cuprum::kernel_instance!(kernels::scale<f32>))
        .kernel(cuprum::kernel_instance!(kernels::scale<f64>))
        .run()?;
    Ok(())
}
