use cuprum::gpu::*;

#[cuprum::kernel]
fn uses_float_pattern(out: &mut [i32], x: f32) {
    match x {
        1.5 => out[0] = 1,
        _ => out[0] = 2,
    }
}

#[cuprum::kernel]
fn uses_escaping_closure(out: &mut [i32]) {
    let twice = |x: i32| x * 2;
    let again = twice;
    out[0] = again(3);
}

#[cuprum::kernel]
fn uses_macro(out: &mut [i32]) {
    println!("{}", out[0]);
}

#[cuprum::kernel]
fn uses_tuple_rest(out: &mut [i32]) {
    let (a, ..) = (1, 2);
    out[0] = a;
}

#[cuprum::kernel]
fn uses_reference(out: &mut [i32]) {
    let r = &out;
    out[0] = 1;
}

#[cuprum::kernel]
fn uses_iterator(out: &mut [f32], x: &[f32]) {
    for v in x.iter().skip(1) {
        out[0] += *v;
    }
}

#[cuprum::kernel]
fn uses_if_let(out: &mut [i32], n: i32) {
    if let 0 = n {
        out[0] = 1;
    }
}

#[cuprum::kernel]
fn uses_sub_slice(out: &mut [i32]) {
    out[1..3][0] = 1;
}

#[cuprum::kernel]
fn uses_string(out: &mut [i32]) {
    let s = "hello";
}

#[cuprum::kernel]
fn uses_item(out: &mut [i32]) {
    struct Point;
    out[0] = 1;
}

#[cuprum::kernel]
fn uses_assert_format(out: &mut [i32], n: i32) {
    assert!(n > 0, "n = {}", n);
    out[0] = n;
}

#[cuprum::kernel]
fn uses_wide_load_on_shared(out: &mut [f32]) {
    let s = shared_array::<f32, 8>();
    let v = s.load4(0);
    out[0] = v[0];
}

fn main() {}
