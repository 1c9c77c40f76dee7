use cuprum::gpu::*;

const SCALE: f32 = 2.0;

#[cuprum::kernel]
fn uses_module_const(out: &mut [f32]) {
    out[0] = SCALE;
}

#[cuprum::kernel]
fn uses_unknown_method(out: &mut [f32], x: f32) {
    out[0] = x.frobnicate();
}

#[cuprum::kernel]
fn uses_reserved_name(out: &mut [f32]) {
    let cj_tmp = 1.0;
    out[0] = cj_tmp;
}

fn plain_host_function(x: f32) -> f32 {
    x * 2.0
}

#[cuprum::kernel]
fn calls_a_host_function(out: &mut [f32]) {
    out[0] = plain_host_function(1.0);
}

#[cuprum::device]
static NOT_A_CONST: f32 = 1.0;

#[cuprum::device]
const LOWER: f32 = sqrt_of_two();

fn sqrt_of_two() -> f32 {
    1.41
}

#[cuprum::device]
fn grid_sync_in_a_device_function() {
    grid_sync();
}

fn main() {}
