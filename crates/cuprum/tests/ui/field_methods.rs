// A method called directly on a field (`p.vel.scale(2.0)`, `p.vel.len()`) is refused at
// the call: the translator sees only the kernel, not the field's type.

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Clone, Copy, cuprum::DeviceType)]
#[repr(C)]
pub struct Particle {
    pub pos: Vec3,
    pub vel: Vec3,
}

#[cuprum::device]
impl Vec3 {
    fn scale(self, s: f32) -> Vec3 {
        Vec3 { x: self.x * s, y: self.y * s, z: self.z * s }
    }
    fn len(self) -> f32 {
        (self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }
}

#[cuprum::kernel]
pub fn scaled(ps: &mut [Particle]) {
    for i in grid_stride(ps.len()) {
        let p = ps[i];
        ps[i].vel = p.vel.scale(2.0);
    }
}

#[cuprum::kernel]
pub fn speeds(ps: &[Particle], out: &mut [f32]) {
    for i in grid_stride(ps.len()) {
        out[i] = ps[i].vel.len();
    }
}

fn main() {}
