// A variant written without its enum (`Scale(k)` after `use Mode::*`) on a value whose type
// the translator does not see (an element's field, a method's result) is refused with the
// ways out: name the enum in the pattern, or bind the value to a typed local first.

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

#[cuprum::device]
impl Stage {
    fn mode(&self) -> Mode {
        self.mode
    }
}

use Mode::*;

#[cuprum::kernel]
pub fn gains(stages: &[Stage], out: &mut [f32]) {
    for i in grid_stride(out.len()) {
        out[i] = match stages[i].mode {
            Scale(k) => k,
            _ => 1.0,
        };
    }
}

#[cuprum::kernel]
pub fn biases(stages: &[Stage], out: &mut [f32]) {
    for i in grid_stride(out.len()) {
        let s = stages[i];
        if let Scale(k) = s.mode() {
            out[i] = k + s.bias;
        }
    }
}

fn main() {
    let _ = Add;
}
