//! The seeds over your own types (`kernels/device_types.rs`): an n-body step over an array
//! of `Particle` structs in three versions — the Rust kernel, its raw CUDA twin
//! (`kernels/nbody.cu` with the Rust types' declarations) and an ElementwiseKernel over
//! registered records — each against a CPU reference; and the seed's activations selected
//! by an enum `match`. Included with `#[path]` by the `nbody_step` and
//! `jit_activations_enum` examples and `cuprum demo`, beside `seeds` and the kernels as
//! `device_kernels`.
#![allow(dead_code)] // each includer uses part of it

use super::device_kernels::{self as dk, Activation, Body, Particle, Vec3};
use super::seeds::check::Checked;
use cuprum::DType::F32;
use cuprum::kernel::{JitConfig, register_record};
use cuprum::{Array, DeviceType, ElementwiseKernel, RawKernel, random};

type R<T> = cuprum::Result<T>;

/// Particles in the n-body seed (the bench row takes 1M).
pub const PARTICLES: usize = 100_000;
/// Heavy bodies pulling them.
pub const BODIES: usize = 64;
/// Time step and softening.
pub const DT: f32 = 1e-3;
pub const EPS2: f32 = 1e-2;

/// `n` particles and `m` bodies from a fixed-seed generator (positions in ±10, velocities
/// in ±1, masses in [0.5, 2)).
pub fn nbody_data(n: usize, m: usize) -> (Vec<Particle>, Vec<Body>) {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |lo: f32, hi: f32| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
    };
    let v3 = |r: f32, next: &mut dyn FnMut(f32, f32) -> f32| Vec3 {
        x: next(-r, r),
        y: next(-r, r),
        z: next(-r, r),
    };
    let ps = (0..n)
        .map(|_| Particle {
            pos: v3(10.0, &mut next),
            vel: v3(1.0, &mut next),
            mass: next(0.5, 2.0),
        })
        .collect();
    let bs = (0..m)
        .map(|_| Body {
            pos: v3(10.0, &mut next),
            mass: next(0.5, 2.0) * 10.0,
        })
        .collect();
    (ps, bs)
}

/// The CPU reference of one step, in f64.
pub fn nbody_reference(ps: &[Particle], bodies: &[Body], dt: f32, eps2: f32) -> Vec<[f64; 6]> {
    ps.iter()
        .map(|p| {
            let (mut ax, mut ay, mut az) = (0.0f64, 0.0f64, 0.0f64);
            for b in bodies {
                let dx = b.pos.x as f64 - p.pos.x as f64;
                let dy = b.pos.y as f64 - p.pos.y as f64;
                let dz = b.pos.z as f64 - p.pos.z as f64;
                let r2 = dx * dx + dy * dy + dz * dz + eps2 as f64;
                let inv = 1.0 / r2.sqrt();
                let s = b.mass as f64 * inv * inv * inv;
                ax += dx * s;
                ay += dy * s;
                az += dz * s;
            }
            let dt = dt as f64;
            let v = [
                p.vel.x as f64 + ax * dt,
                p.vel.y as f64 + ay * dt,
                p.vel.z as f64 + az * dt,
            ];
            [
                p.pos.x as f64 + v[0] * dt,
                p.pos.y as f64 + v[1] * dt,
                p.pos.z as f64 + v[2] * dt,
                v[0],
                v[1],
                v[2],
            ]
        })
        .collect()
}

/// The largest difference of `got` from the reference, relative to 1 + |reference|, and
/// whether every mass came through unchanged.
pub fn nbody_error(got: &[Particle], ps: &[Particle], want: &[[f64; 6]]) -> (f64, bool) {
    let mut worst = 0.0f64;
    let mut masses = got.len() == want.len();
    for ((g, p), w) in got.iter().zip(ps).zip(want) {
        let vals = [g.pos.x, g.pos.y, g.pos.z, g.vel.x, g.vel.y, g.vel.z];
        for (v, r) in vals.iter().zip(w) {
            worst = worst.max((*v as f64 - r).abs() / (1.0 + r.abs()));
        }
        masses &= g.mass == p.mass;
    }
    (worst, masses)
}

/// The raw CUDA twin: `kernels/nbody.cu` after the Rust types' declarations.
pub fn nbody_raw_kernel() -> RawKernel {
    RawKernel::new(nbody_raw_source(), "nbody_step_raw")
}

/// The raw twin's source: cuprum's headers, the declarations, `kernels/nbody.cu`.
pub fn nbody_raw_source() -> String {
    let mut decls = cuprum::Declarations::new();
    <Particle as cuprum::DeviceField>::declare(&mut decls);
    <Body as cuprum::DeviceField>::declare(&mut decls);
    format!(
        "#include <cuprum/all.cuh>\n{}{}",
        decls.text(),
        include_str!("../kernels/nbody.cu")
    )
}

/// The ElementwiseKernel version: one particle per element, the bodies a `raw` array.
pub fn nbody_elementwise_kernel() -> R<ElementwiseKernel> {
    register_record::<Particle>()?;
    register_record::<Body>()?;
    ElementwiseKernel::new(
        "Particle p, raw Body bodies, int32 m, float32 dt, float32 eps2",
        "Particle q",
        "float ax = 0.0f, ay = 0.0f, az = 0.0f;
         for (int j = 0; j < m; ++j) {
             const Body b = bodies[j];
             float dx = b.pos.x - p.pos.x, dy = b.pos.y - p.pos.y, dz = b.pos.z - p.pos.z;
             float r2 = dx * dx + dy * dy + dz * dz + eps2;
             float inv = 1.0f / sqrtf(r2);
             float s = b.mass * inv * inv * inv;
             ax += dx * s; ay += dy * s; az += dz * s;
         }
         Particle r = p;
         r.vel.x = p.vel.x + ax * dt; r.vel.y = p.vel.y + ay * dt; r.vel.z = p.vel.z + az * dt;
         r.pos.x = p.pos.x + r.vel.x * dt; r.pos.y = p.pos.y + r.vel.y * dt;
         r.pos.z = p.pos.z + r.vel.z * dt;
         q = r;",
        "nbody_step_elementwise",
    )
}

/// The n-body seed: 1e5 particles, 64 bodies, one step in each of the three versions,
/// each against the f64 CPU reference (relative error ≤ 1e-4). Timed: the Rust kernel.
pub fn nbody() -> R<Checked> {
    let (n, m) = (PARTICLES, BODIES);
    let (ps, bs) = nbody_data(n, m);
    let want = nbody_reference(&ps, &bs, DT, EPS2);
    let a = Array::from_records(&ps, &[n])?;
    let b = Array::from_records(&bs, &[m])?;
    let mut out = Array::empty(&[n], cuprum::DType::Record(Particle::record()))?;
    let cfg = JitConfig::for_len(n, 256);
    dk::nbody_step::launch(cfg, &a, &b, &mut out, DT, EPS2)?;
    let (e_rust, m_rust) = nbody_error(&out.to_records::<Particle>()?, &ps, &want);

    let raw = nbody_raw_kernel();
    let out_raw = Array::empty(&[n], cuprum::DType::Record(Particle::record()))?;
    let blocks = (n as u32).div_ceil(256);
    raw.launch(
        (blocks,),
        (256u32,),
        (&a, n as u64, &b, m as u64, &out_raw, DT, EPS2),
    )?;
    let (e_raw, m_raw) = nbody_error(&out_raw.to_records::<Particle>()?, &ps, &want);

    let ew = nbody_elementwise_kernel()?;
    let out_ew = ew.call((&a, &b, m as i32, DT, EPS2))?;
    let (e_ew, m_ew) = nbody_error(&out_ew.to_records::<Particle>()?, &ps, &want);

    let worst = e_rust.max(e_raw).max(e_ew);
    Ok(Checked {
        result: format!(
            "1e5 particles × 64 bodies, Rust kernel / raw CUDA / ElementwiseKernel vs the f64 host: worst {worst:.1e}"
        ),
        ok: worst <= 1e-4 && m_rust && m_raw && m_ew,
        timed: Box::new(move || dk::nbody_step::launch(cfg, &a, &b, &mut out, DT, EPS2)),
    })
}

/// The seed's activations selected by an enum `match` (`apply_activation_enum`): ReLU,
/// the sigmoid, the input and a leaky ReLU on 1e6 float32, each against the host.
/// Timed: the sigmoid.
pub fn activations_enum() -> R<Checked> {
    let n = 1_000_000usize;
    let cfg = JitConfig::for_len(n, 256);
    let x = random::normal(0.0, 2.0, &[n], F32)?;
    let hx = x.to_vec::<f32>()?;
    let mut y = Array::empty(&[n], F32)?;
    let mut ok = true;
    let acts = [
        Activation::Relu,
        Activation::Sigmoid,
        Activation::Identity,
        Activation::Leaky(0.1),
    ];
    for act in acts {
        dk::apply_activation_enum::launch(cfg, &x, &mut y, n as i32, act)?;
        let hy = y.to_vec::<f32>()?;
        let host = |v: f32| match act {
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
        ok &= hy
            .iter()
            .zip(&hx)
            .all(|(&g, &v)| (g - host(v)).abs() <= 1e-6 * (1.0 + host(v).abs()));
    }
    Ok(Checked {
        result: "relu/sigmoid/identity/leaky(0.1) on 1e6 float32 checked against the host".into(),
        ok,
        timed: Box::new(move || {
            dk::apply_activation_enum::launch(cfg, &x, &mut y, n as i32, Activation::Sigmoid)
        }),
    })
}
