use cuprum::gpu::*;

#[cuprum::kernel]
fn mixes_widths(out: &mut [i64], a: i32, b: i64) {
    out[0] = a + b;
}

#[cuprum::kernel]
fn float_into_int(out: &mut [i32], x: f32) {
    out[0] = x * 2.0;
}

#[cuprum::kernel]
fn needs_a_cast(out: &mut [f64], n: i32) {
    let half: f64 = n / 2;
    out[0] = half;
}

#[cuprum::kernel]
fn writes_an_input(x: &[f32]) {
    x[0] = 1.0;
}

#[cuprum::kernel]
fn atomic_on_u8(counts: &mut [u8]) {
    counts.atomic_add(0, 1);
}

#[cuprum::device]
fn takes_f32(x: f32) -> f32 {
    x
}

#[cuprum::kernel]
fn inferred_differently(out: &mut [f32]) {
    // The translator types `s` f64 (a float literal); rustc infers f32 from the call.
    let s = 2.5;
    out[0] = takes_f32(s);
}

fn main() {}
