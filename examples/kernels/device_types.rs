//! Kernels over your own types (`#[derive(cuprum::DeviceType)]`): an n-body step over an
//! array of `Particle` structs, and the seed's activations selected by an enum `match`.
//! Shared by the `nbody_step` and `jit_activations_enum` examples, `cuprum demo` and
//! `cuprum bench` (included with `#[path]`).
use cuprum::gpu::*;

/// A 3-vector of f32 (C++ `struct Vec3 { float x; float y; float z; }`).
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// One particle: position, velocity, mass (28 bytes, no padding).
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Particle {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
}

/// A heavy body that pulls the particles (the n-body step's sources).
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Body {
    pub pos: Vec3,
    pub mass: f32,
}

#[cuprum::device]
impl Vec3 {
    /// `self + other * s`.
    pub fn add_scaled(self, other: Vec3, s: f32) -> Vec3 {
        Vec3 {
            x: self.x + other.x * s,
            y: self.y + other.y * s,
            z: self.z + other.z * s,
        }
    }
}

/// The softened gravitational acceleration of every body on `p` (G = 1).
#[cuprum::device]
pub fn acceleration(p: Vec3, bodies: &[Body], eps2: f32) -> Vec3 {
    let mut a = Vec3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    for j in 0..bodies.len() {
        let b = bodies[j];
        let dx = b.pos.x - p.x;
        let dy = b.pos.y - p.y;
        let dz = b.pos.z - p.z;
        let r2 = dx * dx + dy * dy + dz * dz + eps2;
        let inv = 1.0 / r2.sqrt();
        let s = b.mass * inv * inv * inv;
        a.x += dx * s;
        a.y += dy * s;
        a.z += dz * s;
    }
    a
}

/// One semi-implicit Euler step of every particle under the bodies' gravity:
/// `vel += a·dt`, then `pos += vel·dt` (`out` may not alias `ps`).
#[cuprum::kernel]
pub fn nbody_step(ps: &[Particle], bodies: &[Body], out: &mut [Particle], dt: f32, eps2: f32) {
    for i in grid_stride(ps.len()) {
        let p = ps[i];
        let (pos, v0): (Vec3, Vec3) = (p.pos, p.vel);
        let a = acceleration(pos, bodies, eps2);
        let vel = v0.add_scaled(a, dt);
        out[i] = Particle {
            pos: pos.add_scaled(vel, dt),
            vel,
            mass: p.mass,
        };
    }
}

/// The activation a kernel applies: the seed's three, and a leaky ReLU with its slope.
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(u8)]
pub enum Activation {
    Relu,
    Sigmoid,
    Identity,
    Leaky(f32),
}

/// Seed 002's activation kernel with the activation an enum (`match` on its variants)
/// instead of an integer.
#[cuprum::kernel]
pub fn apply_activation_enum(x: &[f32], y: &mut [f32], n: i32, act: Activation) {
    let idx = (block_dim().x * block_idx().x + thread_idx().x) as i32;
    if idx < n {
        let v = x[idx];
        y[idx] = match act {
            Activation::Relu => v.max(0.0),
            Activation::Sigmoid => 1.0 / (1.0 + (-v).exp()),
            Activation::Identity => v,
            Activation::Leaky(s) => {
                if v > 0.0 {
                    v
                } else {
                    s * v
                }
            }
        };
    }
}
