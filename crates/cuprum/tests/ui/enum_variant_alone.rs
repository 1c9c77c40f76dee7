// A variant written alone in a pattern (`Add` after `use Mode::*`) is the variant to rustc,
// but the translator sees only the kernel, not the `use`, and would read a new binding that
// matches every value: it is refused with the enum's name to write, on a value of a known
// enum type (a local, an element) and on one whose type the translator does not see (a
// field).

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(u8)]
pub enum Mode {
    Add,
    Scale(f32),
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
pub struct Stage {
    pub mode: Mode,
    pub bias: f32,
}

use Mode::*;

#[cuprum::kernel]
pub fn gains(modes: &[Mode], out: &mut [f32]) {
    for i in grid_stride(out.len()) {
        let m = modes[i];
        out[i] = match m {
            Add => 1.0,
            Mode::Scale(k) => k,
        };
    }
}

#[cuprum::kernel]
pub fn flags(modes: &[Mode], out: &mut [f32]) {
    for i in grid_stride(out.len()) {
        if let Add = modes[i] {
            out[i] = 1.0;
        }
    }
}

#[cuprum::kernel]
pub fn biases(stages: &[Stage], out: &mut [f32]) {
    for i in grid_stride(out.len()) {
        out[i] = match stages[i].mode {
            Add => stages[i].bias,
            _ => 0.0,
        };
    }
}

fn main() {
    let _ = Scale(1.0);
}
