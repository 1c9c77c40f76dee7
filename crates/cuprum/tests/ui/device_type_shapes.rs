// Shapes `#[derive(cuprum::DeviceType)]` refuses, each at its span.

#[derive(Clone, Copy, cuprum::DeviceType)]
struct NoRepr {
    x: f32,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C, packed)]
struct Packed {
    x: f32,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct HoldsARef {
    x: &'static f32,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct HoldsAPointer {
    x: [*const f32; 2],
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct HoldsATuple {
    x: (f32, f32),
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct Generic<T> {
    x: T,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct Tuple(f32, f32);

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
struct Keyword {
    new: f32,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
enum NoIntRepr {
    A,
    B,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C, u8)]
enum TwoReprs {
    A(f32),
}

const B: u8 = 3;

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(u8)]
enum NamedDiscriminant {
    A = B,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(u8)]
enum TagField {
    A { tag: u8 },
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
union Bits {
    f: f32,
    u: u32,
}

fn main() {}
