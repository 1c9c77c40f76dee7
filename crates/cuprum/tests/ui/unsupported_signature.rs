use cuprum::gpu::*;

#[cuprum::kernel]
fn returns_a_value(x: &[f32]) -> f32 {
    x[0]
}

#[cuprum::kernel]
fn takes_a_vec(v: Vec<f32>) {}

#[cuprum::kernel]
fn takes_a_lifetime<'a>(v: &'a [f32]) {}

#[cuprum::kernel]
async fn is_async(out: &mut [f32]) {}

#[cuprum::kernel]
fn takes_an_array(a: [f32; 4], out: &mut [f32]) {}

#[cuprum::kernel(block = 256)]
fn has_arguments(out: &mut [f32]) {}

#[cuprum::kernel]
struct NotAFunction;

fn main() {}
