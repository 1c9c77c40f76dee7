//! Representative ElementwiseKernel specialisations for NVRTC compile checks (CI has no
//! GPU, so every layout class is compiled from here instead of from a call).

use super::codegen::elementwise::Slot;
use super::{ElementwiseKernel, Layout, LayoutClass};
use crate::array::DType;
use crate::error::Result;

/// Sources of representative specialisations (every layout class, both index widths, each
/// dtype through a generic kernel, scalars, raw and multi-output kernels), for NVRTC
/// compile checks on machines without a GPU.
pub fn sample_sources() -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let arrays = |n: usize| -> Vec<Slot> { (0..n).map(|idx| Slot::Array { idx }).collect() };
    let layouts = sample_layouts;
    let add = ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        "custom_add",
    )?;
    for l in layouts(3) {
        let (s, _) = add.source_for(&[DType::F32; 3], &arrays(3), l, 256)?;
        out.push((format!("custom_add {l:?}"), s));
    }
    let acc = ElementwiseKernel::new("T x", "T z", "z += x", "accumulate")?;
    for l in layouts(2) {
        let (s, _) = acc.source_for(&[DType::C128; 2], &arrays(2), l, 256)?;
        out.push((format!("accumulate complex128 {l:?}"), s));
    }
    let generic = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "generic_add")?;
    for &d in DType::ALL {
        for l in [
            Layout {
                class: LayoutClass::Contiguous,
                nd: 1,
                wide: false,
                vec: (16 / d.itemsize()).min(8) as u8,
                tiled: 0,
                row_bcast: 0,
            },
            Layout {
                class: LayoutClass::Tiled,
                nd: 2,
                wide: false,
                vec: 1,
                tiled: 3,
                row_bcast: 0,
            },
        ] {
            let (s, _) = generic.source_for(&[d; 3], &arrays(3), l, 256)?;
            out.push((format!("generic_add {d} {l:?}"), s));
        }
    }
    let relu = ElementwiseKernel::new(
        "T x, T cap",
        "T y",
        "y = min(max(x, (T)0), cap)",
        "clipped_relu",
    )?;
    let (s, _) = relu.source_for(
        &[DType::F64; 3],
        &[Slot::Array { idx: 0 }, Slot::Scalar, Slot::Array { idx: 1 }],
        Layout {
            class: LayoutClass::Contiguous,
            nd: 1,
            wide: false,
            vec: 2,
            tiled: 0,
            row_bcast: 0,
        },
        256,
    )?;
    out.push(("clipped_relu".into(), s));
    let trig = ElementwiseKernel::new(
        "T x",
        "T s, T c, T t",
        "s = sin(x); c = cos(x); t = tan(x)",
        "trig",
    )?;
    let (s, _) = trig.source_for(
        &[DType::F32; 4],
        &arrays(4),
        Layout {
            class: LayoutClass::Contiguous,
            nd: 1,
            wide: false,
            vec: 4,
            tiled: 0,
            row_bcast: 0,
        },
        256,
    )?;
    out.push(("trig".into(), s));
    let raw = ElementwiseKernel::new(
        "raw T x, int32 k",
        "raw T y",
        "y[i] = x[_ind.size() - 1 - i] * (T)k",
        "rev",
    )?;
    for nd in [0, 1, 3] {
        let (s, _) = raw.source_for(
            &[DType::F16, DType::I32, DType::F16],
            &[Slot::Raw { nd }, Slot::Scalar, Slot::Raw { nd }],
            Layout {
                class: LayoutClass::Contiguous,
                nd: 1,
                wide: true,
                vec: 1,
                tiled: 0,
                row_bcast: 0,
            },
            128,
        )?;
        out.push((format!("rev raw nd={nd}"), s));
    }
    // Seed 002's in-place kernel: `x` is read-write (the generated code's output, loaded
    // before the operation), `alpha` a scalar or an array.
    let inplace = ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float32 x",
        "x = x * alpha + 1",
        "inplace_transform",
    )?;
    for l in layouts(1) {
        let (s, _) = inplace.source_for(
            &[DType::F32; 2],
            &[Slot::Scalar, Slot::Array { idx: 0 }],
            l,
            256,
        )?;
        out.push((format!("inplace_transform scalar alpha {l:?}"), s));
    }
    for l in layouts(2) {
        let (s, _) = inplace.source_for(&[DType::F32; 2], &arrays(2), l, 256)?;
        out.push((format!("inplace_transform array alpha {l:?}"), s));
    }
    let nc = ElementwiseKernel::new("_non_const T x", "T y", "y = x; x = 0", "swap_out")?
        .preamble("__device__ int helper() { return 1; }")
        .loop_prep("int h = helper();")
        .after_loop("(void)h;");
    let (s, _) = nc.source_for(
        &[DType::I64; 2],
        &arrays(2),
        Layout {
            class: LayoutClass::Flat,
            nd: 2,
            wide: false,
            vec: 1,
            tiled: 0,
            row_bcast: 0,
        },
        256,
    )?;
    out.push(("non_const".into(), s));
    Ok(out)
}

/// The layouts the compile checks and the fuzz target generate: every class, both index
/// widths, wide loads and broadcast rows, tiles for the first or all of `na` arrays.
fn sample_layouts(na: u32) -> Vec<Layout> {
    let all_tiled = if na >= 32 { u32::MAX } else { (1u32 << na) - 1 };
    let mut v = Vec::new();
    for wide in [false, true] {
        for vec in [1u8, 4] {
            v.push(Layout {
                class: LayoutClass::Contiguous,
                nd: 1,
                wide,
                vec,
                tiled: 0,
                row_bcast: 0,
            });
        }
        for nd in [1u8, 2, 3] {
            v.push(Layout {
                class: LayoutClass::Rows,
                nd,
                wide,
                vec: 1,
                tiled: 0,
                row_bcast: 0,
            });
            v.push(Layout {
                class: LayoutClass::Rows,
                nd,
                wide,
                vec: 4,
                tiled: 0,
                row_bcast: 2,
            });
            v.push(Layout {
                class: LayoutClass::Flat,
                nd,
                wide,
                vec: 1,
                tiled: 0,
                row_bcast: 0,
            });
        }
        for nd in [2u8, 3] {
            for tiled in [1, all_tiled] {
                v.push(Layout {
                    class: LayoutClass::Tiled,
                    nd,
                    wide,
                    vec: 1,
                    tiled,
                    row_bcast: 0,
                });
            }
        }
    }
    v
}

/// The shapes of the reduction compile checks: (outer, tx, ty, ndo, ndr).
const REDUCE_SHAPES: [(bool, u16, u16, u8, u8); 8] = [
    (false, 256, 1, 0, 1),
    (false, 256, 1, 1, 1),
    (false, 32, 8, 1, 1),
    (false, 64, 4, 2, 2),
    (true, 32, 8, 1, 1),
    (true, 4, 64, 2, 1),
    (true, 256, 1, 1, 2),
    (false, 256, 1, 1, 0),
];

fn reduce_shapes() -> impl Iterator<Item = super::ReduceShape> {
    REDUCE_SHAPES
        .into_iter()
        .flat_map(|(outer, tx, ty, ndo, ndr)| {
            [false, true].map(|wide| super::ReduceShape {
                outer,
                tx,
                ty,
                ndo,
                ndr,
                wide,
                unit: ndr == 1 && !outer,
                vec: if ndr == 1 && !outer && ndo == 0 { 4 } else { 1 },
            })
        })
}

/// The source of a user's ElementwiseKernel for `dtypes` and `scalars` (as
/// [`ElementwiseKernel::generated_source`]) in layout number `which` (modulo the number of
/// sample layouts: every class, both index widths): the fuzz target's view of code
/// generation.
pub fn elementwise_source_for_fuzzing(
    k: &ElementwiseKernel,
    dtypes: &[DType],
    scalars: &[bool],
    which: usize,
) -> Result<String> {
    let slots = super::call::sample_slots(k.name(), k.params(), dtypes, scalars)?;
    let na = slots
        .iter()
        .filter(|s| matches!(s, Slot::Array { .. }))
        .count();
    let layouts = sample_layouts(u32::try_from(na).unwrap_or(u32::MAX));
    let l = layouts[which % layouts.len()];
    Ok(k.source_for(dtypes, &slots, l, 256)?.0)
}

/// The same for a user's ReductionKernel, in reduction shape number `which`.
pub fn reduction_source_for_fuzzing(
    k: &super::ReductionKernel,
    dtypes: &[DType],
    scalars: &[bool],
    which: usize,
) -> Result<String> {
    let slots = super::call::sample_slots(k.name(), &k.params_for_samples(), dtypes, scalars)?;
    let shapes: Vec<super::ReduceShape> = reduce_shapes().collect();
    Ok(k.source_for(dtypes, &slots, shapes[which % shapes.len()]).0)
}

/// Sources of representative ReductionKernel specialisations: both strategies, split and
/// merged shapes, several inputs and outputs, no identity, both index widths, struct
/// accumulators.
pub fn reduction_sample_sources() -> Result<Vec<(String, String)>> {
    use super::call::sample_slots;
    let mut out = Vec::new();
    let ssq =
        super::ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "ssq")?;
    let mse = super::ReductionKernel::new(
        "float64 x, float64 y",
        "float64 z",
        "(x - y) * (x - y)",
        "a + b",
        "z = a / _in_ind.size() * _out_ind.size()",
        Some("0"),
        "mse_kernel",
    )?;
    let maxk =
        super::ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", None, "my_max")?;
    let two = super::ReductionKernel::new(
        "T x, raw T w, T s",
        "T y, int64 n",
        "x * w[_J % w.size()] * s",
        "a + b",
        "y = a; n = _J_count",
        Some("0"),
        "weighted",
    )?
    .preamble("#define _J_count (_in_ind.size() / _out_ind.size())");
    let argmax = super::ReductionKernel::new(
        "T x",
        "int64 y",
        "cuprum_pair(x, _J)",
        "(a.v > b.v || (a.v == b.v && a.j < b.j)) ? a : b",
        "y = a.j",
        Some("cuprum_pair(-1e300, 0)"),
        "my_argmax",
    )?
    .preamble("struct cuprum_pair { double v; long long j; __device__ cuprum_pair() : v(0), j(0) {} __device__ cuprum_pair(double v_, long long j_) : v(v_), j(j_) {} };")
    .reduce_type("cuprum_pair");
    for shape in reduce_shapes() {
        for (name, k, dtypes, scalars) in [
            ("ssq f32", &ssq, vec![DType::F32; 2], vec![false; 2]),
            ("ssq c128", &ssq, vec![DType::C128; 2], vec![false; 2]),
            ("ssq f16", &ssq, vec![DType::F16; 2], vec![false; 2]),
            ("mse", &mse, vec![DType::F64; 3], vec![false; 3]),
            ("max i8", &maxk, vec![DType::I8; 2], vec![false; 2]),
            ("max f64", &maxk, vec![DType::F64; 2], vec![false; 2]),
            (
                "weighted",
                &two,
                vec![DType::F32, DType::F32, DType::F32, DType::F32, DType::I64],
                vec![false, false, true, false, false],
            ),
            (
                "argmax",
                &argmax,
                vec![DType::F32, DType::I64],
                vec![false, false],
            ),
        ] {
            let slots = sample_slots(k.name(), &k.params_for_samples(), &dtypes, &scalars)?;
            let (s, _) = k.source_for(&dtypes, &slots, shape);
            out.push((format!("{name} {shape:?}"), s));
        }
    }
    Ok(out)
}
