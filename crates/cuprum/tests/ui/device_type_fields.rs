// A field whose type is not a device field is rustc's error at the field's type.

#[derive(Clone, Copy)]
struct Plain {
    x: f32,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct Holder {
    ok: f32,
    inner: Plain,
}

fn main() {}
