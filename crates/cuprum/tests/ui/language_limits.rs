use cuprum::gpu::*;

#[cuprum::kernel]
fn takes_a_tuple(out: &mut [i32], p: (i32, i32)) {
    out[0] = p.0;
}

#[cuprum::kernel]
fn matches_a_tuple(out: &mut [i32], a: i32, b: i32) {
    out[0] = match (a, b) {
        (0, _) => 1,
        _ => 2,
    };
}

#[cuprum::kernel]
fn calls_a_closure_in_place(out: &mut [i32]) {
    out[0] = (|x: i32| x + 1)(1);
}

#[cuprum::kernel]
fn iter_mut_on_a_read_only_slice(out: &mut [f32], x: &[f32]) {
    for v in x.iter_mut() {
        *v = 1.0;
    }
    out[0] = 0.0;
}

#[cuprum::kernel]
fn tuple_of_a_slice(out: &mut [f32], x: &[f32]) {
    let p = (x, 1);
    out[0] = 0.0;
}

#[cuprum::kernel]
fn binds_by_ref(out: &mut [i32], n: i32) {
    out[0] = match n {
        ref r => *r,
    };
}

fn main() {}
