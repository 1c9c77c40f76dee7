//! Device types (`#[derive(cuprum::DeviceType)]`): the C++ declaration and its layout
//! agreement (padding, nested structs, fixed arrays, bool, f16 fields), the record dtype
//! (upload, download, numeric operations refused), and Rust kernels taking device types by
//! value and as slice elements, with field access, field assignment and struct literals,
//! against a CPU reference on random inputs. GPU tests run on the host device where there
//! is no GPU (the same generated C++).

mod common;

use common::Rng;
use cuprum::gpu::*;
use cuprum::{Array, DType, DeviceType, ErrorKind};

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Padding after `alive` and after `tag`, a nested type, an f16 and an array.
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Body {
    pub alive: bool,
    pub mass: f64,
    pub tag: u8,
    pub pos: Vec3,
    pub weight: f16,
    pub hist: [i16; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Particle {
    pub pos: Vec3,
    pub vel: Vec3,
    pub mass: f32,
}

#[test]
fn declaration_states_rusts_layout() {
    let d = Body::declaration();
    assert!(
        d.starts_with("struct Body {\n    bool alive;\n    double mass;\n"),
        "{d}"
    );
    assert!(d.contains("    Vec3 pos;\n    float16 weight;\n    short hist[3];\n};"));
    let size = std::mem::size_of::<Body>();
    assert_eq!(size, 40);
    assert!(d.contains(&format!("sizeof(Body) == {size} && alignof(Body) == 8")));
    for (f, off) in [
        ("alive", std::mem::offset_of!(Body, alive)),
        ("mass", std::mem::offset_of!(Body, mass)),
        ("tag", std::mem::offset_of!(Body, tag)),
        ("pos", std::mem::offset_of!(Body, pos)),
        ("weight", std::mem::offset_of!(Body, weight)),
        ("hist", std::mem::offset_of!(Body, hist)),
    ] {
        assert!(
            d.contains(&format!("offsetof(Body, {f}) == {off}")),
            "{f}: {d}"
        );
    }
    // Nested types come first, each once.
    let mut decls = cuprum::Declarations::new();
    <Body as cuprum::DeviceField>::declare(&mut decls);
    <Particle as cuprum::DeviceField>::declare(&mut decls);
    assert_eq!(decls.names(), ["Vec3", "Body", "Particle"]);
    assert!(decls.conflict().is_none());
    let r = Body::record();
    assert_eq!((r.name(), r.itemsize(), r.align()), ("Body", 40, 8));
    assert_eq!(DType::Record(r).kind(), cuprum::DTypeKind::Record);
    assert_eq!(DType::Record(r), DType::Record(Body::record()));
    assert_ne!(DType::Record(r), DType::Record(Vec3::record()));
}

/// The C++ compiler agrees with Rust: the declarations with their static_asserts compile
/// on the device (NVRTC on a GPU, the host compiler on the host device).
#[test]
fn declarations_compile_with_their_static_asserts() {
    require_gpu!();
    let mut d = cuprum::Declarations::new();
    <Body as cuprum::DeviceField>::declare(&mut d);
    <Particle as cuprum::DeviceField>::declare(&mut d);
    let src = format!(
        "#include <cuprum/jit.cuh>\n{}\nextern \"C\" __global__ void touch(Body* b) {{ b->mass += 1.0; }}\n",
        d.text()
    );
    let k = cuprum::RawKernel::new(&src, "touch");
    let v = [random_body(&mut Rng::new(3))];
    let a = Array::from_records(&v, &[1]).unwrap();
    k.launch((1u32,), (1u32,), (&a,)).unwrap();
    let back = a.to_records::<Body>().unwrap();
    assert_eq!(back[0].mass, v[0].mass + 1.0);
    assert_eq!(back[0].pos, v[0].pos);
}

fn random_vec3(rng: &mut Rng) -> Vec3 {
    Vec3 {
        x: rng.f64(-10.0, 10.0) as f32,
        y: rng.f64(-10.0, 10.0) as f32,
        z: rng.f64(-10.0, 10.0) as f32,
    }
}

fn random_body(rng: &mut Rng) -> Body {
    Body {
        alive: rng.next_u64().is_multiple_of(2),
        mass: rng.f64(0.5, 5.0),
        tag: (rng.next_u64() % 256) as u8,
        pos: random_vec3(rng),
        weight: f16::from_f64(rng.f64(-2.0, 2.0)),
        hist: [
            rng.next_u64() as i16,
            rng.next_u64() as i16,
            rng.next_u64() as i16,
        ],
    }
}

fn random_particles(n: usize, seed: u64) -> Vec<Particle> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| Particle {
            pos: random_vec3(&mut rng),
            vel: random_vec3(&mut rng),
            mass: rng.f64(0.1, 3.0) as f32,
        })
        .collect()
}

#[test]
fn records_round_trip_and_numeric_ops_refuse_them() {
    require_gpu!();
    let mut rng = Rng::new(7);
    for n in [0usize, 1, 37] {
        let v: Vec<Body> = (0..n).map(|_| random_body(&mut rng)).collect();
        let a = Array::from_records(&v, &[n]).unwrap();
        assert_eq!(a.dtype(), DType::Record(Body::record()));
        assert_eq!(a.nbytes(), n * 40);
        assert_eq!(a.to_records::<Body>().unwrap(), v);
    }
    let v: Vec<Body> = (0..6).map(|_| random_body(&mut rng)).collect();
    let a = Array::from_records(&v, &[2, 3]).unwrap();
    assert_eq!(a.to_records::<Body>().unwrap(), v);
    let one = Array::from_records(&v[..1], &[]).unwrap();
    assert_eq!(one.ndim(), 0);
    assert_eq!(one.to_records::<Body>().unwrap(), &v[..1]);

    let e = Array::from_records(&v, &[4]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Shape);
    assert!(e.to_string().contains("from 6 records"), "{e}");
    let e = a.to_records::<Particle>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string()
            .contains("expected an array of dtype Particle, given Body"),
        "{e}"
    );
    let e = a.sum().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string()
            .contains("needs numbers, given an array of records (Body, 40 bytes each)"),
        "{e}"
    );
    assert_eq!((&a + &a).unwrap_err().kind(), ErrorKind::DType);
    assert_eq!(a.astype(DType::F32).unwrap_err().kind(), ErrorKind::DType);
    let f = Array::from_slice(&[1.0f32], &[1]).unwrap();
    assert_eq!(
        f.astype(DType::Record(Body::record())).unwrap_err().kind(),
        ErrorKind::DType
    );
}

#[test]
fn invalid_bool_bytes_are_refused_on_download() {
    require_gpu!();
    let v = [random_body(&mut Rng::new(1))];
    let a = Array::from_records(&v, &[1]).unwrap();
    let src = format!(
        "#include <cuprum/jit.cuh>\n{}\nextern \"C\" __global__ void spoil(unsigned char* b) {{ b[0] = 7; }}\n",
        Body::record().declarations()
    );
    let k = cuprum::RawKernel::new(&src, "spoil");
    k.launch((1u32,), (1u32,), (&a,)).unwrap();
    let e = a.to_records::<Body>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(
        e.to_string()
            .contains("element 0 of the Body array is not a valid"),
        "{e}"
    );
}

// ---- Rust kernels ---------------------------------------------------------------------------

#[cuprum::device]
fn kinetic(p: Particle) -> f32 {
    0.5 * p.mass * (p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z)
}

/// One explicit Euler step under a uniform field `g` with drag `k`.
#[cuprum::kernel]
pub fn step(ps: &mut [Particle], g: Vec3, k: f32, dt: f32, energy: &mut [f32]) {
    for i in grid_stride(ps.len()) {
        let p = ps[i];
        let drag = 1.0 - k * dt / p.mass;
        let vel = Vec3 {
            x: p.vel.x * drag + g.x * dt,
            y: p.vel.y * drag + g.y * dt,
            z: p.vel.z * drag + g.z * dt,
        };
        let mut q = Particle { vel, ..p };
        q.pos.x = p.pos.x + vel.x * dt;
        q.pos.y = p.pos.y + vel.y * dt;
        q.pos.z += vel.z * dt;
        ps[i] = q;
        energy[i] = kinetic(q);
    }
}

fn step_ref(ps: &mut [Particle], g: Vec3, k: f32, dt: f32, energy: &mut [f32]) {
    for i in 0..ps.len() {
        let p = ps[i];
        let drag = 1.0 - k * dt / p.mass;
        let vel = Vec3 {
            x: p.vel.x * drag + g.x * dt,
            y: p.vel.y * drag + g.y * dt,
            z: p.vel.z * drag + g.z * dt,
        };
        let mut q = Particle { vel, ..p };
        q.pos.x = p.pos.x + vel.x * dt;
        q.pos.y = p.pos.y + vel.y * dt;
        q.pos.z += vel.z * dt;
        ps[i] = q;
        energy[i] = 0.5 * q.mass * (vel.x * vel.x + vel.y * vel.y + vel.z * vel.z);
    }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * (1.0 + b.abs())
}

fn close3(a: Vec3, b: Vec3) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z)
}

/// Uploads `records`, runs `launch` on them and a zeroed f32 output of their length, and
/// reads both back: the records after the kernel and the output.
fn run_on_records<T: DeviceType>(
    records: &[T],
    launch: impl FnOnce(&mut Array, &mut Array) -> cuprum::Result<()>,
) -> (Vec<T>, Vec<f32>) {
    let n = records.len();
    let mut a = Array::from_records(records, &[n]).unwrap();
    let mut out = Array::zeros(&[n], DType::F32).unwrap();
    launch(&mut a, &mut out).unwrap();
    (a.to_records::<T>().unwrap(), out.to_vec::<f32>().unwrap())
}

/// Asserts that every output is close to the reference's value at its index.
fn assert_all_close(got: &[f32], want: impl Fn(usize) -> f32) {
    for (i, &g) in got.iter().enumerate() {
        let w = want(i);
        assert!(close(g, w), "{i}: got {g}, want {w}");
    }
}

#[test]
fn kernel_source_names_the_types() {
    assert!(
        step::SOURCE.contains("Particle* __restrict__ ps"),
        "{}",
        step::SOURCE
    );
    assert!(step::SOURCE.contains("Vec3 g"));
    let program = step::program();
    let vec3 = program.find("struct Vec3 {").expect("Vec3 declared");
    let particle = program
        .find("struct Particle {")
        .expect("Particle declared");
    assert!(vec3 < particle, "{program}");
    assert_eq!(program.matches("struct Vec3 {").count(), 1);
    // The twin is real Rust.
    assert!(close(
        kinetic(Particle {
            pos: Vec3 {
                x: 0.0,
                y: 0.0,
                z: 0.0
            },
            vel: Vec3 {
                x: 1.0,
                y: 2.0,
                z: 2.0
            },
            mass: 2.0,
        }),
        9.0
    ));
}

#[test]
fn kernel_over_records_matches_the_cpu() {
    require_gpu!();
    let g = Vec3 {
        x: 0.25,
        y: -9.81,
        z: 0.5,
    };
    for (n, seed) in [(1usize, 1u64), (3, 2), (1000, 3)] {
        let mut want = random_particles(n, seed);
        let (got, ge) = run_on_records(&want, |ps, e| {
            step::launch(JitConfigOf::len(n), ps, g, 0.1, 0.01, e)
        });
        let mut we = vec![0.0f32; n];
        step_ref(&mut want, g, 0.1, 0.01, &mut we);
        for i in 0..n {
            assert!(
                close3(got[i].pos, want[i].pos),
                "{i}: {:?} {:?}",
                got[i],
                want[i]
            );
            assert!(close3(got[i].vel, want[i].vel), "{i}");
            assert_eq!(got[i].mass, want[i].mass);
        }
        assert_all_close(&ge, |i| we[i]);
    }
}

#[test]
fn kernel_refuses_arrays_of_another_dtype() {
    require_gpu!();
    let mut ps = Array::zeros(&[4], DType::F32).unwrap();
    let mut e = Array::zeros(&[4], DType::F32).unwrap();
    let g = Vec3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    let err = step::launch((1u32, 32u32), &mut ps, g, 0.1, 0.01, &mut e).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType);
    assert!(
        err.to_string().contains(
            "argument `ps` is a float32 array, the parameter `ps: &mut [Particle]` needs Particle"
        ),
        "{err}"
    );
}

struct JitConfigOf;
impl JitConfigOf {
    fn len(n: usize) -> cuprum::kernel::JitConfig<'static> {
        cuprum::kernel::JitConfig::for_len(n, 128)
    }
}

/// NVRTC compiles the kernel's program (its declarations' static_asserts included) for
/// sm_80 and sm_90, checked and not: the layout agreement on the real CUDA compiler.
#[test]
fn nvrtc_compiles_the_program_with_its_static_asserts() {
    require_nvrtc!();
    for def in [
        &step::__CUPRUM_KERNEL,
        &energies::__CUPRUM_KERNEL,
        &activate::__CUPRUM_KERNEL,
        &eval_poly::__CUPRUM_KERNEL,
        &tri_fields::__CUPRUM_KERNEL,
        &integrate::__CUPRUM_KERNEL,
        &grid_cells::__CUPRUM_KERNEL,
    ] {
        for arch in [80, 90] {
            for checked in [false, true] {
                let opts = def.compile_options(None, checked);
                if let Err(e) = cuprum::compile::compile_for_arch(def.program(), &opts, arch) {
                    panic!("{} sm_{arch} checked {checked}: {e}", def.name());
                }
            }
        }
    }
    let mut d = cuprum::Declarations::new();
    <Body as cuprum::DeviceField>::declare(&mut d);
    let src = format!("#include <cuprum/jit.cuh>\n{}", d.text());
    cuprum::compile::compile_for_arch(&src, &cuprum::CompileOptions::new(), 90).unwrap();
}

// ---- methods of device types ------------------------------------------------------------------

#[cuprum::device]
impl Vec3 {
    fn dot(self, o: Vec3) -> f32 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    fn scaled(&self, s: f32) -> Self {
        Vec3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
}

#[cuprum::device]
impl Particle {
    fn energy(&self) -> f32 {
        let v: Vec3 = self.vel;
        0.5 * self.mass * v.dot(v)
    }
}

#[cuprum::kernel]
pub fn energies(ps: &[Particle], s: f32, out: &mut [f32]) {
    for i in grid_stride(ps.len()) {
        let p = ps[i];
        let v: Vec3 = p.vel;
        let q = Particle {
            vel: v.scaled(s),
            ..p
        };
        out[i] = q.energy();
    }
}

#[test]
fn methods_run_on_the_host_and_in_kernels() {
    let v = Vec3 {
        x: 1.0,
        y: 2.0,
        z: 2.0,
    };
    assert_eq!(v.dot(v), 9.0);
    assert_eq!(v.scaled(2.0).x, 2.0);
    assert!(energies::program().contains("cj_m_Vec3_dot"));
    require_gpu!();
    for n in [1usize, 77] {
        let ps = random_particles(n, 40 + n as u64);
        let (back, got) = run_on_records(&ps, |a, out| {
            energies::launch(JitConfigOf::len(n), &*a, 1.5, out)
        });
        assert_eq!(back, ps);
        assert_all_close(&got, |i| {
            Particle {
                vel: ps[i].vel.scaled(1.5),
                ..ps[i]
            }
            .energy()
        });
    }
}

/// A device type as a RawKernel argument by value: its bytes, size checked against the
/// kernel's parameter.
#[test]
fn raw_kernel_takes_a_device_type_by_value() {
    require_gpu!();
    let src = format!(
        "#include <cuprum/jit.cuh>\n{}\nextern \"C\" __global__ void shift(Particle* ps, Vec3 d, unsigned long long n) {{\n\
         unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         if (i < n) {{ ps[i].pos.x += d.x; ps[i].pos.y += d.y; ps[i].pos.z += d.z; }}\n}}\n",
        Particle::record().declarations()
    );
    let k = cuprum::RawKernel::new(&src, "shift");
    let n = 50usize;
    let ps = random_particles(n, 9);
    let a = Array::from_records(&ps, &[n]).unwrap();
    let d = Vec3 {
        x: 1.0,
        y: -2.0,
        z: 0.5,
    };
    k.launch((1u32,), (64u32,), (&a, d, n as u64)).unwrap();
    let got = a.to_records::<Particle>().unwrap();
    for i in 0..n {
        assert_eq!(got[i].pos.x, ps[i].pos.x + 1.0);
        assert_eq!(got[i].pos.y, ps[i].pos.y - 2.0);
        assert_eq!(got[i].pos.z, ps[i].pos.z + 0.5);
        assert_eq!(got[i].vel, ps[i].vel);
    }
    // A device type of another size than the parameter is refused.
    let e = k
        .launch((1u32,), (64u32,), (&a, ps[0], n as u64))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Launch, "{e}");
}

// ---- ElementwiseKernel and ReductionKernel over records -------------------------------------

#[test]
fn elementwise_and_reduction_kernels_read_fields() {
    require_gpu!();
    assert_eq!(
        cuprum::kernel::register_record::<Particle>().unwrap(),
        DType::Record(Particle::record())
    );
    cuprum::kernel::register_record::<Particle>().unwrap();
    let drift = cuprum::ElementwiseKernel::new(
        "Particle p, float32 dt",
        "Particle q",
        "q = p; q.pos.x = p.pos.x + p.vel.x * dt; q.pos.y = p.pos.y + p.vel.y * dt; \
         q.pos.z = p.pos.z + p.vel.z * dt;",
        "drift",
    )
    .unwrap();
    let mass = cuprum::ReductionKernel::builder("total_mass")
        .inputs("Particle p")
        .outputs("float64 m")
        .map("(double)p.mass")
        .reduce("a + b")
        .post_map("m = a")
        .identity("0")
        .build()
        .unwrap();
    for n in [1usize, 2, 513] {
        let ps = random_particles(n, 100 + n as u64);
        let a = Array::from_records(&ps, &[n]).unwrap();
        let q = drift.call((&a, 0.5f32)).unwrap();
        assert_eq!(q.dtype(), DType::Record(Particle::record()));
        let got = q.to_records::<Particle>().unwrap();
        for i in 0..n {
            let p = ps[i];
            assert_eq!(got[i].pos.x, p.pos.x + p.vel.x * 0.5);
            assert_eq!(got[i].pos.z, p.pos.z + p.vel.z * 0.5);
            assert_eq!(got[i].vel, p.vel);
            assert_eq!(got[i].mass, p.mass);
        }
        let m = mass.call((&a,)).unwrap().to_vec::<f64>().unwrap()[0];
        let want: f64 = ps.iter().map(|p| p.mass as f64).sum();
        assert!((m - want).abs() <= 1e-9 * want, "{m} {want}");
    }
    let e = cuprum::ElementwiseKernel::new("Unknown p", "float32 r", "r = 0", "k").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.to_string().contains("register_record"), "{e}");
}

// ---- device-type values as ElementwiseKernel / ReductionKernel scalars --------------------

const GRAVITY_OP: &str = "q = p; q.vel.x += g.x * dt; q.vel.y += g.y * dt; q.vel.z += g.z * dt; \
     q.pos.x += q.vel.x * dt; q.pos.y += q.vel.y * dt; q.pos.z += q.vel.z * dt;";

/// `"Particle p, Vec3 g, float32 dt"`: a record array, a record scalar and a number.
fn gravity_kernel() -> cuprum::ElementwiseKernel {
    cuprum::kernel::register_record::<Particle>().unwrap();
    cuprum::kernel::register_record::<Vec3>().unwrap();
    cuprum::ElementwiseKernel::new(
        "Particle p, Vec3 g, float32 dt",
        "Particle q",
        GRAVITY_OP,
        "gravity_step",
    )
    .unwrap()
}

fn gravity_ref(p: Particle, g: Vec3, dt: f32) -> Particle {
    let vel = Vec3 {
        x: p.vel.x + g.x * dt,
        y: p.vel.y + g.y * dt,
        z: p.vel.z + g.z * dt,
    };
    let pos = Vec3 {
        x: p.pos.x + vel.x * dt,
        y: p.pos.y + vel.y * dt,
        z: p.pos.z + vel.z * dt,
    };
    Particle { pos, vel, ..p }
}

/// The sum of squared distances of the particles to a centre given as a record scalar.
fn spread_kernel() -> cuprum::ReductionKernel {
    cuprum::kernel::register_record::<Particle>().unwrap();
    cuprum::kernel::register_record::<Vec3>().unwrap();
    cuprum::ReductionKernel::new(
        "Particle p, Vec3 c",
        "float64 s",
        "(double)((p.pos.x - c.x) * (p.pos.x - c.x) + (p.pos.y - c.y) * (p.pos.y - c.y) \
         + (p.pos.z - c.z) * (p.pos.z - c.z))",
        "a + b",
        "s = a",
        Some("0"),
        "spread",
    )
    .unwrap()
}

fn spread_ref(ps: &[Particle], c: Vec3) -> f64 {
    ps.iter()
        .map(|p| {
            let (dx, dy, dz) = (p.pos.x - c.x, p.pos.y - c.y, p.pos.z - c.z);
            (dx * dx + dy * dy + dz * dz) as f64
        })
        .sum()
}

#[test]
fn record_scalars_in_elementwise_and_reduction_kernels() {
    require_gpu!();
    let (step, spread) = (gravity_kernel(), spread_kernel());
    let mut rng = Rng::new(2024);
    for n in [0usize, 1, 2, 513] {
        let ps = random_particles(n, 300 + n as u64);
        let (g, dt) = (random_vec3(&mut rng), rng.f64(0.01, 0.5) as f32);
        let a = Array::from_records(&ps, &[n]).unwrap();
        let q = step.call((&a, g, dt)).unwrap();
        assert_eq!(q.dtype(), DType::Record(Particle::record()));
        let got = q.to_records::<Particle>().unwrap();
        for i in 0..n {
            let want = gravity_ref(ps[i], g, dt);
            assert!(
                close3(got[i].pos, want.pos) && close3(got[i].vel, want.vel),
                "{i}"
            );
            assert_eq!(got[i].mass, want.mass);
        }
        // By reference too, and into a given output.
        let out = Array::empty(&[n], DType::Record(Particle::record())).unwrap();
        step.call((&a, &g, dt, &out)).unwrap();
        assert_eq!(out.to_records::<Particle>().unwrap(), got);
        let c = random_vec3(&mut rng);
        let s = spread.call((&a, c)).unwrap().to_vec::<f64>().unwrap()[0];
        let want = spread_ref(&ps, c);
        assert!((s - want).abs() <= 1e-5 * want.max(1.0), "{n}: {s} {want}");
    }
    // A 0-d array and a non-contiguous view (every other particle, backwards).
    let ps = random_particles(9, 5);
    let g = random_vec3(&mut rng);
    let one = Array::from_records(&ps[..1], &[]).unwrap();
    let got = step.call((&one, g, 0.5f32)).unwrap();
    assert_eq!(got.ndim(), 0);
    let want = gravity_ref(ps[0], g, 0.5);
    let got = got.to_records::<Particle>().unwrap()[0];
    assert!(close3(got.pos, want.pos) && close3(got.vel, want.vel));
    let a = Array::from_records(&ps, &[9]).unwrap();
    let view = a.slice(&cuprum::s![..;-2]).unwrap();
    assert!(!view.is_c_contiguous());
    let got = step.call((&view, g, 0.5f32)).unwrap();
    let got = got.to_records::<Particle>().unwrap();
    for (k, i) in [8usize, 6, 4, 2, 0].into_iter().enumerate() {
        let want = gravity_ref(ps[i], g, 0.5);
        assert!(
            close3(got[k].pos, want.pos) && close3(got[k].vel, want.vel),
            "{i}"
        );
    }
    let s = spread.call((&view, g)).unwrap().to_vec::<f64>().unwrap()[0];
    let picked: Vec<Particle> = [8usize, 6, 4, 2, 0].iter().map(|&i| ps[i]).collect();
    let want = spread_ref(&picked, g);
    assert!((s - want).abs() <= 1e-5 * want, "{s} {want}");
}

/// The error of `call`, which must be a DType error naming all of `parts`.
fn assert_dtype_error(r: cuprum::Result<Array>, parts: &[&str]) {
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType, "{e}");
    for p in parts {
        assert!(e.to_string().contains(p), "{p}: {e}");
    }
}

#[test]
fn record_scalars_of_the_wrong_type_are_refused() {
    require_gpu!();
    let (step, spread) = (gravity_kernel(), spread_kernel());
    let ps = random_particles(4, 11);
    let a = Array::from_records(&ps, &[4]).unwrap();
    let g = random_vec3(&mut Rng::new(12));
    // Another device type where Vec3 is declared.
    assert_dtype_error(
        step.call((&a, ps[0], 0.1f32)),
        &[
            "argument 'g' of 'gravity_step'",
            "declared Vec3",
            "given a Particle value",
        ],
    );
    // A number where a device type is declared.
    assert_dtype_error(
        step.call((&a, 1.0f32, 0.1f32)),
        &[
            "argument 'g'",
            "declared Vec3",
            "a Vec3 value",
            "given a f32 scalar",
        ],
    );
    // A device type where a number is declared.
    assert_dtype_error(
        step.call((&a, g, g)),
        &["argument 'dt'", "declared float32", "given a Vec3 value"],
    );
    assert_dtype_error(
        spread.call((&a, ps[1])),
        &[
            "argument 'c' of 'spread'",
            "declared Vec3",
            "given a Particle value",
        ],
    );
    // An output is an array, a read-write parameter too.
    let e = step.call((&a, g, 0.1f32, g)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("output 'q' of 'gravity_step' was given a Vec3 value"),
        "{e}"
    );
    let inplace = cuprum::ElementwiseKernel::new(
        "Particle p, Vec3 g",
        "Particle p",
        "p.pos.x += g.x",
        "nudge",
    )
    .unwrap();
    let e = inplace.call((g, g)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("read-write"), "{e}");
    // Built-in operations and scans refuse records.
    let m = Array::from_slice(&[true, false, true, true], &[4]).unwrap();
    let e = cuprum::ops::where_(&m, g, 1.0f32).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DType);
    assert!(e.to_string().contains("given a Vec3 value"), "{e}");
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let idx = Array::from_slice(&[0i64, 2], &[2]).unwrap();
    for (what, r) in [
        ("put", cuprum::ops::put(&x, &idx, g)),
        ("scatter_add", cuprum::ops::scatter_add(&x, &idx, g)),
        ("a masked assignment", x.masked(&m).set(g)),
        (
            "fused `scaled`",
            cuprum::fuse("scaled", |[x, s]| x * s)
                .call((&x, g))
                .map(drop),
        ),
    ] {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DType, "{e}");
        assert!(
            e.to_string().contains(&format!(
                "{what}: expected an array or a number, given a Vec3 value"
            )),
            "{e}"
        );
    }
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    let scan =
        cuprum::ScanKernel::new("T x, Vec3 g", "T y", "x * g.x", "a + b", "0", "gscan").unwrap();
    let e = scan.call((&x, g)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("'g' is a Vec3 value"), "{e}");
}

/// NVRTC compiles the generated kernels that take a record scalar (sm_80, sm_90): the
/// parameter declared with the device type, the declarations on top.
#[test]
fn nvrtc_compiles_record_scalar_kernels() {
    require_nvrtc!();
    let (p, v) = (
        DType::Record(Particle::record()),
        DType::Record(Vec3::record()),
    );
    let ew = gravity_kernel()
        .generated_source(&[p, v, DType::F32, p], &[false, true, true, false])
        .unwrap();
    assert!(ew.contains("const Vec3 g"), "{ew}");
    assert!(ew.contains("struct Vec3 {"), "{ew}");
    let red = spread_kernel()
        .generated_source(&[p, v, DType::F64], &[false, true, false])
        .unwrap();
    assert!(red.contains("const Vec3 c"), "{red}");
    for (name, src) in [("gravity_step", &ew), ("spread", &red)] {
        for arch in [80, 90] {
            if let Err(e) =
                cuprum::compile::compile_for_arch(src, &cuprum::CompileOptions::new(), arch)
            {
                panic!("{name} sm_{arch}: {e}\n{src}");
            }
        }
    }
}

#[test]
fn registering_another_type_of_the_same_name_is_an_error() {
    mod other {
        #[derive(Clone, Copy, cuprum::DeviceType)]
        #[repr(C)]
        pub struct Vec3 {
            pub v: [f32; 3],
        }
    }
    cuprum::kernel::register_record::<Vec3>().unwrap();
    let e = cuprum::kernel::register_record::<other::Vec3>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string()
            .contains("another device type (device_types::Vec3) is already registered as `Vec3`"),
        "{e}"
    );
}

// ---- enums --------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(u8)]
pub enum Act {
    Relu,
    Leaky(f32),
    Clamp { lo: f32, hi: f32 },
    Scale = 9,
}

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Layer {
    pub act: Act,
    pub bias: f32,
}

#[cuprum::device]
fn apply(a: Act, x: f32) -> f32 {
    match a {
        Act::Relu => x.max(0.0),
        Act::Leaky(s) => {
            if x > 0.0 {
                x
            } else {
                s * x
            }
        }
        Act::Clamp { lo, hi } => x.max(lo).min(hi),
        Act::Scale => 2.0 * x,
    }
}

#[cuprum::kernel]
pub fn activate(layers: &[Layer], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let l = layers[i % layers.len()];
        let a: Act = l.act;
        let mut v = apply(a, x[i]) + l.bias;
        if let Act::Clamp { lo, .. } = a {
            v = v.max(lo - 1.0);
        }
        // while let: halve while the activation says Leaky and the value is large.
        let mut state = if let Act::Leaky(s) = a {
            Act::Leaky(s)
        } else {
            Act::Relu
        };
        while let Act::Leaky(s) = state {
            if v.abs() <= 4.0 {
                state = Act::Relu;
            } else {
                v *= 0.5 + 0.0 * s;
            }
        }
        y[i] = v;
    }
}

fn activate_ref(layers: &[Layer], x: &[f32]) -> Vec<f32> {
    (0..x.len())
        .map(|i| {
            let l = layers[i % layers.len()];
            let mut v = apply(l.act, x[i]) + l.bias;
            if let Act::Clamp { lo, .. } = l.act {
                v = v.max(lo - 1.0);
            }
            if let Act::Leaky(_) = l.act {
                while v.abs() > 4.0 {
                    v *= 0.5;
                }
            }
            v
        })
        .collect()
}

#[test]
fn enum_layout_and_declaration() {
    assert_eq!(std::mem::size_of::<Act>(), 12);
    let d = Act::declaration();
    assert!(
        d.contains("struct Act_Leaky { unsigned char tag; float f0; };"),
        "{d}"
    );
    assert!(
        d.contains("struct Act_Clamp { unsigned char tag; float lo; float hi; };"),
        "{d}"
    );
    assert!(
        d.contains(
            "enum : unsigned char { tag_Relu = 0, tag_Leaky = 1, tag_Clamp = 2, tag_Scale = 9 };"
        ),
        "{d}"
    );
    assert!(
        d.contains("static_assert(sizeof(Act) == 12 && alignof(Act) == 4"),
        "{d}"
    );
    assert_eq!(Layer::record().itemsize(), 16);
}

#[test]
fn enum_match_if_let_while_let_match_the_cpu() {
    require_gpu!();
    let layers = [
        Layer {
            act: Act::Relu,
            bias: 0.5,
        },
        Layer {
            act: Act::Leaky(0.1),
            bias: -0.25,
        },
        Layer {
            act: Act::Clamp { lo: -1.0, hi: 2.0 },
            bias: 0.0,
        },
        Layer {
            act: Act::Scale,
            bias: 1.0,
        },
        Layer {
            act: Act::Leaky(3.0),
            bias: 0.0,
        },
    ];
    let l = Array::from_records(&layers, &[5]).unwrap();
    assert_eq!(l.to_records::<Layer>().unwrap(), layers);
    let mut rng = Rng::new(5);
    for n in [1usize, 5, 1000] {
        let x: Vec<f32> = (0..n).map(|_| rng.f64(-20.0, 20.0) as f32).collect();
        let xa = Array::from_slice(&x, &[n]).unwrap();
        let mut y = Array::zeros(&[n], DType::F32).unwrap();
        activate::launch(JitConfigOf::len(n), &l, &xa, &mut y).unwrap();
        let got = y.to_vec::<f32>().unwrap();
        let want = activate_ref(&layers, &x);
        for i in 0..n {
            assert!(
                close(got[i], want[i]),
                "{i}: x {} got {} want {}",
                x[i],
                got[i],
                want[i]
            );
        }
    }
    // A tag no variant has is refused on download.
    let src = format!(
        "#include <cuprum/jit.cuh>\n{}\nextern \"C\" __global__ void spoil(unsigned char* b) {{ b[0] = 5; }}\n",
        Layer::record().declarations()
    );
    let k = cuprum::RawKernel::new(&src, "spoil");
    k.launch((1u32,), (1u32,), (&l,)).unwrap();
    assert_eq!(
        l.to_records::<Layer>().unwrap_err().kind(),
        ErrorKind::DType
    );
}

/// The generated C++ (insta snapshots): a kernel over records with a struct literal and a
/// method call, a match over an enum with `if let` / `while let`, and two declarations.
#[test]
fn generated_cpp_snapshots() {
    insta::assert_snapshot!("device_types_step", step::SOURCE);
    insta::assert_snapshot!("device_types_energies", energies::SOURCE);
    insta::assert_snapshot!("device_types_activate", activate::SOURCE);
    insta::assert_snapshot!("device_types_apply", apply::SOURCE);
    insta::assert_snapshot!("device_types_body_declaration", Body::declaration());
    insta::assert_snapshot!("device_types_act_declaration", Act::declaration());
}

// ---- fixed-array fields in Rust kernels -----------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Poly {
    pub c: [f32; 4],
    pub hits: u32,
}

/// Horner's rule over each record's coefficients; writes the value back into `c[0]` and
/// counts the call in `hits` (array fields read, indexed by a loop variable, assigned).
#[cuprum::kernel]
pub fn eval_poly(ps: &mut [Poly], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let p = ps[i];
        let mut acc = 0.0f32;
        for k in 0..4usize {
            acc = acc * x[i] + p.c[3 - k];
        }
        y[i] = acc;
        ps[i].c[0] = acc;
        ps[i].hits += 1;
    }
}

#[test]
fn array_fields_in_rust_kernels() {
    assert!(
        eval_poly::SOURCE.contains("cj::extent_of("),
        "{}",
        eval_poly::SOURCE
    );
    require_gpu!();
    let mut rng = Rng::new(77);
    for n in [1usize, 300] {
        let ps: Vec<Poly> = (0..n)
            .map(|_| Poly {
                c: [0; 4].map(|_| rng.f64(-2.0, 2.0) as f32),
                hits: (rng.next_u64() % 10) as u32,
            })
            .collect();
        let x: Vec<f32> = (0..n).map(|_| rng.f64(-1.5, 1.5) as f32).collect();
        let xa = Array::from_slice(&x, &[n]).unwrap();
        let (back, got) = run_on_records(&ps, |a, y| {
            eval_poly::launch(JitConfigOf::len(n), a, &xa, y)
        });
        assert_all_close(&got, |i| {
            let c = ps[i].c;
            ((c[3] * x[i] + c[2]) * x[i] + c[1]) * x[i] + c[0]
        });
        for i in 0..n {
            let c = ps[i].c;
            assert_eq!(back[i].c[0], got[i]);
            assert_eq!(back[i].c[1..], c[1..]);
            assert_eq!(back[i].hits, ps[i].hits + 1);
        }
    }
}

// ---- whole array fields copied into locals ------------------------------------------------

#[cuprum::device]
fn sum3(c: [f32; 3]) -> f32 {
    c[0] + c[1] + c[2]
}

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Tri {
    pub c: [f32; 3],
    pub m: [[i32; 2]; 2],
}

/// A whole array field copied into a local (`let c = p.c;`, then mutated), passed to a
/// device function taking `[f32; 3]`, a nested array field copied (rows copied out, one
/// written back), and whole fields assigned back (`ps[i].c = d;`) and given to a struct literal.
#[cuprum::kernel]
pub fn tri_fields(ps: &mut [Tri], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let p = ps[i];
        let c = p.c;
        let mut d = p.c;
        d[0] = 2.0 * d[0] + c[2];
        let mut m = p.m;
        let r1 = m[1];
        let mut r0 = m[0];
        let k = r1[0] + r0[1];
        y[i] = sum3(c) + sum3(p.c) * d[0] + k as f32 + d.len() as f32;
        ps[i].c = d;
        let q = Tri { c: p.c, ..p };
        r0[0] = r1[1] + (q.c[1] as i32);
        m[0] = r0;
        ps[i].m = m;
    }
}

fn tri_fields_ref(ps: &mut [Tri], y: &mut [f32]) {
    for i in 0..y.len() {
        let p = ps[i];
        let c = p.c;
        let mut d = p.c;
        d[0] = 2.0 * d[0] + c[2];
        let s = c[0] + c[1] + c[2];
        let k = p.m[1][0] + p.m[0][1];
        y[i] = s + s * d[0] + k as f32 + 3.0;
        ps[i].c = d;
        ps[i].m[0][0] = p.m[1][1] + (p.c[1] as i32);
    }
}

#[test]
fn whole_array_fields_copy_into_locals() {
    assert!(
        tri_fields::SOURCE.contains("cj::cp("),
        "{}",
        tri_fields::SOURCE
    );
    require_gpu!();
    let mut rng = Rng::new(91);
    for n in [1usize, 257] {
        let ps: Vec<Tri> = (0..n)
            .map(|_| Tri {
                c: [0; 3].map(|_| rng.f64(-2.0, 2.0) as f32),
                m: [[0; 2]; 2].map(|r| r.map(|_| (rng.next_u64() % 200) as i32 - 100)),
            })
            .collect();
        let (back, got) = run_on_records(&ps, |a, y| tri_fields::launch(JitConfigOf::len(n), a, y));
        let (mut want_ps, mut want_y) = (ps.clone(), vec![0.0f32; n]);
        tri_fields_ref(&mut want_ps, &mut want_y);
        assert_all_close(&got, |i| want_y[i]);
        assert_eq!(back, want_ps);
    }
}

// ---- double indexing of nested fixed arrays ------------------------------------------------

/// `m[1][0]` read and written: on a local copy of a field (`let mut m = p.m;`, op-assign
/// too), on a local array of arrays, on a field (`p.m[k][j]`, indices from the loop) and on
/// a slice element's field (`ps[i].m[0][1] = …`).
#[cuprum::kernel]
pub fn grid_cells(ps: &mut [Tri], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let p = ps[i];
        let mut m = p.m;
        m[1][0] += m[0][1];
        let mut l = [[0i32; 2]; 2];
        l[0][1] = p.m[1][1] * 2;
        l[1][0] = m[1][0];
        let (k, j) = (i % 2, (i / 2) % 2);
        ps[i].m[0][1] = l[0][1] + p.m[k][j];
        ps[i].m[1][k] -= 1;
        y[i] = (l[0][1] + l[1][0] + m[1][0] + l[1][1]) as f32 + p.c[k];
    }
}

fn grid_cells_ref(ps: &mut [Tri], y: &mut [f32]) {
    for i in 0..y.len() {
        let p = ps[i];
        let m10 = p.m[1][0] + p.m[0][1];
        let l01 = p.m[1][1] * 2;
        let (k, j) = (i % 2, (i / 2) % 2);
        ps[i].m[0][1] = l01 + p.m[k][j];
        ps[i].m[1][k] -= 1;
        y[i] = (l01 + m10 + m10) as f32 + p.c[k];
    }
}

#[test]
fn nested_arrays_are_indexed_twice() {
    // The inner index is checked against the inner array's extent.
    assert!(
        grid_cells::SOURCE.contains("cj::extent_of(m[cj::ix(")
            && grid_cells::SOURCE.contains("cj::extent_of(p.m[cj::ix("),
        "{}",
        grid_cells::SOURCE
    );
    require_gpu!();
    let mut rng = Rng::new(123);
    for n in [1usize, 4, 301] {
        let ps: Vec<Tri> = (0..n)
            .map(|_| Tri {
                c: [0; 3].map(|_| rng.f64(-2.0, 2.0) as f32),
                m: [[0; 2]; 2].map(|r| r.map(|_| (rng.next_u64() % 200) as i32 - 100)),
            })
            .collect();
        let (back, got) = run_on_records(&ps, |a, y| grid_cells::launch(JitConfigOf::len(n), a, y));
        let (mut want_ps, mut want_y) = (ps.clone(), vec![0.0f32; n]);
        grid_cells_ref(&mut want_ps, &mut want_y);
        assert_all_close(&got, |i| want_y[i]);
        assert_eq!(back, want_ps);
    }
}

// ---- `&mut self` methods ----------------------------------------------------------------------

#[cuprum::device]
impl Particle {
    /// Moves by `vel * dt`; returns the new `pos.x` (a `&mut self` method with a result).
    fn advance(&mut self, dt: f32) -> f32 {
        let v: Vec3 = self.vel;
        self.pos = Vec3 {
            x: self.pos.x + v.x * dt,
            y: self.pos.y + v.y * dt,
            ..self.pos
        };
        self.pos.z += v.z * dt;
        self.pos.x
    }
    fn damp(&mut self, k: f32) {
        self.vel.x *= k;
        self.vel.y *= k;
        self.vel.z *= k;
    }
    /// `&mut self` methods calling each other on `self`.
    fn damp_advance(&mut self, dt: f32, k: f32) -> f32 {
        self.damp(k);
        self.advance(dt)
    }
}

/// `&mut self` methods on a local (`p.damp(k)`), with a result, on a temporary (a struct
/// literal) and on a slice element in place (`ps[i].advance(dt)`).
#[cuprum::kernel]
pub fn integrate(ps: &mut [Particle], dt: f32, k: f32, xs: &mut [f32]) {
    for i in grid_stride(ps.len()) {
        let mut p = ps[i];
        let x = p.damp_advance(dt, k);
        p.damp(k);
        let y = Particle { mass: 1.0, ..p }.advance(dt);
        xs[i] = x + y;
        ps[i] = p;
        ps[i].advance(dt);
    }
}

#[test]
fn mut_self_methods_write_through() {
    assert!(
        integrate::program().contains("cj_m_Particle_damp(Particle& self, float k)")
            && integrate::SOURCE.contains("cj_m_Particle_advance(cj::lv("),
        "{}",
        integrate::program()
    );
    require_gpu!();
    for n in [1usize, 190] {
        let ps = random_particles(n, 7 + n as u64);
        let (back, got_x) = run_on_records(&ps, |a, xs| {
            integrate::launch(JitConfigOf::len(n), a, 0.25, 0.9, xs)
        });
        for i in 0..n {
            let mut p = ps[i];
            let x = p.damp_advance(0.25, 0.9);
            p.damp(0.9);
            let x = x + Particle { mass: 1.0, ..p }.advance(0.25);
            p.advance(0.25);
            assert!(close(got_x[i], x), "{i}: {} {x}", got_x[i]);
            assert!(
                close3(back[i].pos, p.pos) && close3(back[i].vel, p.vel),
                "{i}"
            );
            assert_eq!(back[i].mass, p.mass);
        }
    }
}

// ---- `match` on any enum-valued expression ---------------------------------------------------

/// A mode held in fields, elements and method results (matched there without first binding
/// it to a typed local).
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(u8)]
pub enum Mode {
    Add,
    Scale(f32),
    Clamp { lo: f32, hi: f32 },
}

#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Stage {
    pub mode: Mode,
    pub bias: f32,
}

/// Two stages: their modes are fields of fields (`p.first.mode`).
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(C)]
pub struct Pipe {
    pub gain: f32,
    pub first: Stage,
    pub second: Stage,
}

#[cuprum::device]
impl Stage {
    /// Its own mode above the bias, else `Add`.
    fn mode_for(&self, x: f32) -> Mode {
        if x > self.bias { self.mode } else { Mode::Add }
    }
    /// Halves a `Scale` factor above 1 (any other mode becomes `Add`) and returns the new
    /// mode (a `match` on `self.mode` inside a method).
    fn halve(&mut self) -> Mode {
        self.mode = match self.mode {
            Mode::Scale(k) if k > 1.0 => Mode::Scale(k * 0.5),
            _ => Mode::Add,
        };
        self.mode
    }
}

#[cuprum::device]
fn swap_mode(m: Mode) -> Mode {
    match m {
        Mode::Clamp { lo, hi } => Mode::Scale(hi - lo),
        Mode::Scale(k) => Mode::Clamp {
            lo: -k.abs(),
            hi: k.abs(),
        },
        Mode::Add => Mode::Add,
    }
}

/// `match` and `if let` on a field (`s.mode`).
#[cuprum::kernel]
pub fn match_field(stages: &[Stage], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let s = stages[i % stages.len()];
        let v = x[i];
        let mut r = match s.mode {
            Mode::Add => v + s.bias,
            Mode::Scale(k) => k * v,
            Mode::Clamp { lo, hi } => v.max(lo).min(hi),
        };
        if let Mode::Scale(k) = s.mode {
            if k < 0.0 {
                r = -r;
            }
        }
        y[i] = r;
    }
}

/// `match` on fields of fields (`p.first.mode`, `p.second.mode`), with a guard, `..` and
/// `_`, as a statement and as a value.
#[cuprum::kernel]
pub fn match_field_of_field(pipes: &[Pipe], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let p = pipes[i % pipes.len()];
        let mut v = x[i];
        match p.first.mode {
            Mode::Scale(k) if k > 1.0 => v = v * k + p.first.bias,
            Mode::Clamp { lo, .. } => v = v.max(lo),
            _ => v += p.gain,
        }
        let w = match p.second.mode {
            Mode::Add => v + p.second.bias,
            Mode::Scale(k) => k * v,
            Mode::Clamp { lo, hi } => v.max(lo).min(hi),
        };
        y[i] = w * p.gain;
    }
}

/// `match` on elements: of a slice of enums (`modes[j]`), an element's field
/// (`stages[j].mode`) and a local array's element.
#[cuprum::kernel]
pub fn match_elements(modes: &[Mode], stages: &[Stage], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let v = x[i];
        let a = match modes[i % modes.len()] {
            Mode::Add => v + 1.0,
            Mode::Scale(k) => k * v,
            Mode::Clamp { lo, hi } => v.max(lo).min(hi),
        };
        let b = match stages[(i * 7) % stages.len()].mode {
            Mode::Add => 0.5,
            Mode::Scale(k) => k,
            Mode::Clamp { hi, .. } => hi,
        };
        let pair = [modes[(i + 1) % modes.len()], stages[i % stages.len()].mode];
        let c = match pair[(i / 3) % 2] {
            Mode::Scale(k) => k,
            Mode::Add | Mode::Clamp { .. } => -1.0,
        };
        y[i] = a + 10.0 * b + 100.0 * c;
    }
}

/// `match` and `while let` on results: a device method's (`s.mode_for(v)`, `s.halve()`)
/// and a device function's (`swap_mode(s.mode)`).
#[cuprum::kernel]
pub fn match_results(stages: &[Stage], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let mut s = stages[i % stages.len()];
        let v = x[i];
        let mut r = match s.mode_for(v) {
            Mode::Add => v + s.bias,
            Mode::Scale(k) => k * v,
            Mode::Clamp { lo, hi } => v.max(lo).min(hi),
        };
        let swapped = match swap_mode(s.mode) {
            Mode::Scale(k) => k,
            Mode::Clamp { hi, .. } => hi,
            Mode::Add => 0.0,
        };
        r += swapped;
        let mut steps = 0;
        while let Mode::Scale(k) = s.halve() {
            r += k;
            steps += 1;
        }
        y[i] = r + steps as f32;
    }
}

/// The host's `match` of a mode on `x` (the references below).
fn mode_ref(m: Mode, x: f32, add: f32) -> f32 {
    match m {
        Mode::Add => x + add,
        Mode::Scale(k) => k * x,
        Mode::Clamp { lo, hi } => x.max(lo).min(hi),
    }
}

fn random_mode(rng: &mut Rng) -> Mode {
    match rng.usize(0, 3) {
        0 => Mode::Add,
        1 => Mode::Scale(rng.f64(-4.0, 4.0) as f32),
        _ => {
            let (a, b) = (rng.f64(-5.0, 5.0) as f32, rng.f64(-5.0, 5.0) as f32);
            Mode::Clamp {
                lo: a.min(b),
                hi: a.max(b),
            }
        }
    }
}

fn random_stage(rng: &mut Rng) -> Stage {
    Stage {
        mode: random_mode(rng),
        bias: rng.f64(-3.0, 3.0) as f32,
    }
}

/// The input sizes, and `n` random inputs in [-10, 10).
const MATCH_SIZES: [usize; 3] = [1, 7, 1000];

/// How many stages (or modes) a case takes: a few for small inputs, enough for every mode
/// to appear for the large one.
fn count(rng: &mut Rng, n: usize) -> usize {
    if n < 1000 { rng.usize(1, 8) } else { 37 }
}

fn random_x(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.f64(-10.0, 10.0) as f32).collect()
}

/// Runs `launch` on `x` (uploaded) and a zeroed output of its length; the output.
fn run_on_x(x: &[f32], launch: impl FnOnce(&Array, &mut Array) -> cuprum::Result<()>) -> Vec<f32> {
    let xa = Array::from_slice(x, &[x.len()]).unwrap();
    let mut y = Array::zeros(&[x.len()], DType::F32).unwrap();
    launch(&xa, &mut y).unwrap();
    y.to_vec::<f32>().unwrap()
}

/// Every mode appears among `modes` (the random inputs reach each arm).
fn assert_every_mode(modes: impl Iterator<Item = Mode>) {
    let mut seen = [false; 3];
    for m in modes {
        seen[match m {
            Mode::Add => 0,
            Mode::Scale(_) => 1,
            Mode::Clamp { .. } => 2,
        }] = true;
    }
    assert_eq!(seen, [true; 3], "the random inputs miss a mode");
}

#[test]
fn match_on_a_field_matches_the_cpu() {
    assert!(
        match_field::SOURCE.contains("= cj::cp(s.mode);")
            && match_field::SOURCE.contains(".tag == Mode::tag_Scale"),
        "{}",
        match_field::SOURCE
    );
    require_gpu!();
    let mut rng = Rng::new(41);
    for n in MATCH_SIZES {
        let stages: Vec<Stage> = (0..count(&mut rng, n))
            .map(|_| random_stage(&mut rng))
            .collect();
        let x = random_x(&mut rng, n);
        let sa = Array::from_records(&stages, &[stages.len()]).unwrap();
        let got = run_on_x(&x, |xa, y| {
            match_field::launch(JitConfigOf::len(n), &sa, xa, y)
        });
        if n == 1000 {
            assert_every_mode(stages.iter().map(|s| s.mode));
        }
        assert_all_close(&got, |i| {
            let s = stages[i % stages.len()];
            let r = mode_ref(s.mode, x[i], s.bias);
            match s.mode {
                Mode::Scale(k) if k < 0.0 => -r,
                _ => r,
            }
        });
    }
}

#[test]
fn match_on_a_field_of_a_field_matches_the_cpu() {
    require_gpu!();
    let mut rng = Rng::new(42);
    for n in MATCH_SIZES {
        let pipes: Vec<Pipe> = (0..count(&mut rng, n))
            .map(|_| Pipe {
                gain: rng.f64(-2.0, 2.0) as f32,
                first: random_stage(&mut rng),
                second: random_stage(&mut rng),
            })
            .collect();
        let x = random_x(&mut rng, n);
        let pa = Array::from_records(&pipes, &[pipes.len()]).unwrap();
        let got = run_on_x(&x, |xa, y| {
            match_field_of_field::launch(JitConfigOf::len(n), &pa, xa, y)
        });
        if n == 1000 {
            assert_every_mode(pipes.iter().flat_map(|p| [p.first.mode, p.second.mode]));
        }
        assert_all_close(&got, |i| {
            let p = pipes[i % pipes.len()];
            let v = match p.first.mode {
                Mode::Scale(k) if k > 1.0 => x[i] * k + p.first.bias,
                Mode::Clamp { lo, .. } => x[i].max(lo),
                _ => x[i] + p.gain,
            };
            mode_ref(p.second.mode, v, p.second.bias) * p.gain
        });
    }
}

#[test]
fn match_on_elements_matches_the_cpu() {
    require_gpu!();
    let mut rng = Rng::new(43);
    for n in MATCH_SIZES {
        let modes: Vec<Mode> = (0..count(&mut rng, n))
            .map(|_| random_mode(&mut rng))
            .collect();
        let stages: Vec<Stage> = (0..count(&mut rng, n))
            .map(|_| random_stage(&mut rng))
            .collect();
        let x = random_x(&mut rng, n);
        let ma = Array::from_records(&modes, &[modes.len()]).unwrap();
        let sa = Array::from_records(&stages, &[stages.len()]).unwrap();
        let got = run_on_x(&x, |xa, y| {
            match_elements::launch(JitConfigOf::len(n), &ma, &sa, xa, y)
        });
        if n == 1000 {
            assert_every_mode(modes.iter().copied());
        }
        assert_all_close(&got, |i| {
            let a = mode_ref(modes[i % modes.len()], x[i], 1.0);
            let b = match stages[(i * 7) % stages.len()].mode {
                Mode::Add => 0.5,
                Mode::Scale(k) => k,
                Mode::Clamp { hi, .. } => hi,
            };
            let pair = [modes[(i + 1) % modes.len()], stages[i % stages.len()].mode];
            let c = match pair[(i / 3) % 2] {
                Mode::Scale(k) => k,
                Mode::Add | Mode::Clamp { .. } => -1.0,
            };
            a + 10.0 * b + 100.0 * c
        });
    }
}

#[test]
fn match_on_method_and_function_results_matches_the_cpu() {
    assert!(
        match_results::SOURCE.contains("= cj_dev::cj_m_Stage_mode_for(")
            && match_results::SOURCE.contains("= cj_dev::swap_mode(")
            && match_results::SOURCE.contains("= cj_dev::cj_m_Stage_halve("),
        "{}",
        match_results::SOURCE
    );
    require_gpu!();
    let mut rng = Rng::new(44);
    for n in MATCH_SIZES {
        let stages: Vec<Stage> = (0..count(&mut rng, n))
            .map(|_| random_stage(&mut rng))
            .collect();
        let x = random_x(&mut rng, n);
        let sa = Array::from_records(&stages, &[stages.len()]).unwrap();
        let got = run_on_x(&x, |xa, y| {
            match_results::launch(JitConfigOf::len(n), &sa, xa, y)
        });
        if n == 1000 {
            assert_every_mode(stages.iter().map(|s| s.mode));
        }
        assert_all_close(&got, |i| {
            let s = stages[i % stages.len()];
            let v = x[i];
            let mode = if v > s.bias { s.mode } else { Mode::Add };
            let mut r = mode_ref(mode, v, s.bias);
            r += match s.mode {
                Mode::Clamp { lo, hi } => hi - lo,
                Mode::Scale(k) => k.abs(),
                Mode::Add => 0.0,
            };
            let (mut k, mut steps) = (
                match s.mode {
                    Mode::Scale(k) => k,
                    _ => 0.0,
                },
                0,
            );
            while k > 1.0 {
                k *= 0.5;
                r += k;
                steps += 1;
            }
            r + steps as f32
        });
    }
}

// ---- or-patterns that bind one name from different variants --------------------------------

/// One mode or two, or a span: or-patterns reach fields of fields through it.
#[derive(Clone, Copy, Debug, PartialEq, cuprum::DeviceType)]
#[repr(u8)]
pub enum Route {
    One(Mode),
    Two(Mode, Mode),
    Span { from: f32, to: f32 },
}

/// Or-patterns whose alternatives bind one name from different places: a tuple variant's
/// field or a struct variant's (`Scale(k) | Clamp { hi: k, .. }`), in the last arm (C++'s
/// `else`), fields of fields with an or-pattern inside a variant, `x @ p` at two places, a
/// guard that fails for the first alternative and holds for the second, and `if let`.
#[cuprum::kernel]
pub fn match_or_bindings(modes: &[Mode], routes: &[Route], x: &[f32], y: &mut [f32]) {
    for i in grid_stride(y.len()) {
        let v = x[i];
        let m = modes[i % modes.len()];
        let route = routes[(i * 3) % routes.len()];
        let a = match m {
            Mode::Scale(k) | Mode::Clamp { hi: k, .. } => k,
            Mode::Add => 0.5,
        };
        let b = match modes[(i + 1) % modes.len()] {
            Mode::Add => v,
            Mode::Clamp { lo: k, .. } | Mode::Scale(k) => k * v,
        };
        let c = match route {
            Route::One(Mode::Scale(k) | Mode::Clamp { lo: k, .. }) | Route::Span { to: k, .. } => k,
            Route::Two(Mode::Scale(k), _) | Route::Two(_, Mode::Scale(k)) if k > 1.0 => k * 10.0,
            Route::One(w @ Mode::Add) | Route::Two(_, w @ Mode::Clamp { .. }) => match w {
                Mode::Clamp { lo, hi } => v.max(lo).min(hi),
                _ => v + 2.0,
            },
            _ => -1.0,
        };
        let mut d = 0.0;
        if let Route::Two(Mode::Clamp { hi: k, .. }, _) | Route::One(Mode::Scale(k)) = route {
            d = k;
        }
        y[i] = a + 3.0 * b + 7.0 * c + 13.0 * d;
    }
}

/// `match_or_bindings` on the host, each alternative an arm of its own.
fn or_bindings_ref(m: Mode, next: Mode, route: Route, v: f32) -> f32 {
    let a = match m {
        Mode::Scale(k) => k,
        Mode::Clamp { hi, .. } => hi,
        Mode::Add => 0.5,
    };
    let b = match next {
        Mode::Add => v,
        Mode::Clamp { lo, .. } => lo * v,
        Mode::Scale(k) => k * v,
    };
    let c = match route {
        Route::One(Mode::Scale(k)) => k,
        Route::One(Mode::Clamp { lo, .. }) => lo,
        Route::Span { to, .. } => to,
        Route::Two(Mode::Scale(k), _) if k > 1.0 => k * 10.0,
        Route::Two(_, Mode::Scale(k)) if k > 1.0 => k * 10.0,
        Route::One(Mode::Add) => v + 2.0,
        Route::Two(_, Mode::Clamp { lo, hi }) => v.max(lo).min(hi),
        Route::Two(..) => -1.0,
    };
    let d = match route {
        Route::Two(Mode::Clamp { hi, .. }, _) => hi,
        Route::One(Mode::Scale(k)) => k,
        _ => 0.0,
    };
    a + 3.0 * b + 7.0 * c + 13.0 * d
}

/// A random route; one kind in four is two scales, the first at most 1 and the second
/// above (the guard holds by the second alternative only).
fn random_route(rng: &mut Rng) -> Route {
    match rng.usize(0, 4) {
        0 => Route::One(random_mode(rng)),
        1 => Route::Two(random_mode(rng), random_mode(rng)),
        2 => Route::Two(
            Mode::Scale(rng.f64(-1.0, 1.0) as f32),
            Mode::Scale(rng.f64(1.5, 4.0) as f32),
        ),
        _ => Route::Span {
            from: rng.f64(-5.0, 5.0) as f32,
            to: rng.f64(-5.0, 5.0) as f32,
        },
    }
}

#[test]
fn or_pattern_bindings_match_the_cpu() {
    let src = match_or_bindings::SOURCE;
    assert!(
        src.contains(".Clamp.hi, true)") && src.contains(".Two.f1.Scale.f0, "),
        "{src}"
    );
    require_gpu!();
    let mut rng = Rng::new(45);
    for n in MATCH_SIZES {
        let modes: Vec<Mode> = (0..count(&mut rng, n))
            .map(|_| random_mode(&mut rng))
            .collect();
        let routes: Vec<Route> = (0..count(&mut rng, n))
            .map(|_| random_route(&mut rng))
            .collect();
        let x = random_x(&mut rng, n);
        let ma = Array::from_records(&modes, &[modes.len()]).unwrap();
        let ra = Array::from_records(&routes, &[routes.len()]).unwrap();
        let got = run_on_x(&x, |xa, y| {
            match_or_bindings::launch(JitConfigOf::len(n), &ma, &ra, xa, y)
        });
        if n == 1000 {
            assert_every_mode(modes.iter().copied());
            let inner = routes.iter().flat_map(|r| match *r {
                Route::One(m) => vec![m],
                Route::Two(a, b) => vec![a, b],
                Route::Span { .. } => vec![],
            });
            assert_every_mode(inner);
            // The guard holds by its second alternative for some route (each is read: 3 and
            // the 37 routes are coprime).
            assert!(routes.iter().any(|r| matches!(
                r,
                Route::Two(Mode::Scale(a), Mode::Scale(b)) if *a <= 1.0 && *b > 1.0
            )));
        }
        assert_all_close(&got, |i| {
            or_bindings_ref(
                modes[i % modes.len()],
                modes[(i + 1) % modes.len()],
                routes[(i * 3) % routes.len()],
                x[i],
            )
        });
    }
}
