//! Representative ElementwiseKernel and ReductionKernel specialisations for NVRTC compile
//! checks (CI has no GPU, so every layout class and reduction strategy is generated from
//! here instead of from a call), and the fuzz targets' view of code generation.

use super::call::sample_slots;
use super::codegen::entry::Slot;
use super::codegen::layout::{Layout, LayoutClass};
use super::codegen::reduction::ReduceStrategy;
use super::{ElementwiseKernel, ReductionKernel};
use crate::array::DType;
use crate::error::Result;
use crate::kernel_abi::GeneratedKernel;

/// A sample's label and kernel.
pub(crate) type Sample = (String, GeneratedKernel);

/// A layout of `class` over `nd` merged dimensions, 32-bit, with `vec`-wide loads.
fn layout(class: LayoutClass, nd: u8, vec: u8) -> Layout {
    Layout {
        class,
        nd,
        wide: false,
        vec,
        tiled: 0,
        row_bcast: 0,
        unaligned: 0,
    }
}

/// `n` broadcast arrays, numbered in order.
fn arrays(n: usize) -> Vec<Slot> {
    (0..n).map(|idx| Slot::Array { idx }).collect()
}

/// Sources of representative specialisations (every layout class, both index widths, each
/// dtype through a generic kernel, scalars, raw and multi-output kernels), for NVRTC
/// compile checks on machines without a GPU.
pub fn sample_sources() -> Result<Vec<(String, String)>> {
    Ok(sources(elementwise_samples()?))
}

/// Sources of representative ReductionKernel specialisations: both strategies, split and
/// merged shapes, several inputs and outputs, no identity, both index widths, struct
/// accumulators.
pub fn reduction_sample_sources() -> Result<Vec<(String, String)>> {
    Ok(sources(reduction_samples()?))
}

fn sources(samples: Vec<Sample>) -> Vec<(String, String)> {
    samples.into_iter().map(|(n, k)| (n, k.source)).collect()
}

/// The ElementwiseKernel samples (see [`sample_sources`]).
pub(crate) fn elementwise_samples() -> Result<Vec<Sample>> {
    let mut out = Vec::new();
    seed_samples(&mut out)?;
    generic_samples(&mut out)?;
    scalar_and_raw_samples(&mut out)?;
    inplace_samples(&mut out)?;
    let nc = ElementwiseKernel::new("_non_const T x", "T y", "y = x; x = 0", "swap_out")?
        .preamble("__device__ int helper() { return 1; }")
        .loop_prep("int h = helper();")
        .after_loop("(void)h;");
    let l = layout(LayoutClass::Flat, 2, 1);
    out.push((
        "non_const".into(),
        nc.source_for(&[DType::I64; 2], &arrays(2), l, 256)?,
    ));
    Ok(out)
}

/// The seed's `custom_add` and an accumulating complex kernel in every sample layout.
fn seed_samples(out: &mut Vec<Sample>) -> Result<()> {
    let add = ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = x + y * 2",
        "custom_add",
    )?;
    for l in sample_layouts(3) {
        let k = add.source_for(&[DType::F32; 3], &arrays(3), l, 256)?;
        out.push((format!("custom_add {l:?}"), k));
    }
    let acc = ElementwiseKernel::new("T x", "T z", "z += x", "accumulate")?;
    for l in sample_layouts(2) {
        let k = acc.source_for(&[DType::C128; 2], &arrays(2), l, 256)?;
        out.push((format!("accumulate complex128 {l:?}"), k));
    }
    Ok(())
}

/// A generic kernel for every dtype, contiguous with its widest loads and tiled.
fn generic_samples(out: &mut Vec<Sample>) -> Result<()> {
    let generic = ElementwiseKernel::new("T x, T y", "T z", "z = x + y", "generic_add")?;
    for &d in DType::ALL {
        let tiled = Layout {
            tiled: 3,
            ..layout(LayoutClass::Tiled, 2, 1)
        };
        let widest = (16 / d.itemsize()).min(8) as u8;
        for l in [layout(LayoutClass::Contiguous, 1, widest), tiled] {
            let k = generic.source_for(&[d; 3], &arrays(3), l, 256)?;
            out.push((format!("generic_add {d} {l:?}"), k));
        }
    }
    Ok(())
}

/// A scalar parameter, three outputs, and raw arrays of 0, 1 and 3 dimensions.
fn scalar_and_raw_samples(out: &mut Vec<Sample>) -> Result<()> {
    let relu = ElementwiseKernel::new(
        "T x, T cap",
        "T y",
        "y = min(max(x, (T)0), cap)",
        "clipped_relu",
    )?;
    let slots = [Slot::Array { idx: 0 }, Slot::Scalar, Slot::Array { idx: 1 }];
    let l = layout(LayoutClass::Contiguous, 1, 2);
    out.push((
        "clipped_relu".into(),
        relu.source_for(&[DType::F64; 3], &slots, l, 256)?,
    ));
    let trig = ElementwiseKernel::new(
        "T x",
        "T s, T c, T t",
        "s = sin(x); c = cos(x); t = tan(x)",
        "trig",
    )?;
    let l = layout(LayoutClass::Contiguous, 1, 4);
    out.push((
        "trig".into(),
        trig.source_for(&[DType::F32; 4], &arrays(4), l, 256)?,
    ));
    let raw = ElementwiseKernel::new(
        "raw T x, int32 k",
        "raw T y",
        "y[i] = x[_ind.size() - 1 - i] * (T)k",
        "rev",
    )?;
    for nd in [0, 1, 3] {
        let slots = [Slot::Raw { nd }, Slot::Scalar, Slot::Raw { nd }];
        let l = Layout {
            wide: true,
            ..layout(LayoutClass::Contiguous, 1, 1)
        };
        let dtypes = [DType::F16, DType::I32, DType::F16];
        out.push((
            format!("rev raw nd={nd}"),
            raw.source_for(&dtypes, &slots, l, 128)?,
        ));
    }
    Ok(())
}

/// Seed 002's in-place kernel: `x` is read-write (the generated code's output, loaded
/// before the operation), `alpha` a scalar or an array.
fn inplace_samples(out: &mut Vec<Sample>) -> Result<()> {
    let inplace = ElementwiseKernel::new(
        "float32 x, float32 alpha",
        "float32 x",
        "x = x * alpha + 1",
        "inplace_transform",
    )?;
    for l in sample_layouts(1) {
        let slots = [Slot::Scalar, Slot::Array { idx: 0 }];
        let k = inplace.source_for(&[DType::F32; 2], &slots, l, 256)?;
        out.push((format!("inplace_transform scalar alpha {l:?}"), k));
    }
    for l in sample_layouts(2) {
        let k = inplace.source_for(&[DType::F32; 2], &arrays(2), l, 256)?;
        out.push((format!("inplace_transform array alpha {l:?}"), k));
    }
    Ok(())
}

/// The layouts the compile checks and the fuzz target generate: every class, both index
/// widths, wide loads and broadcast rows, tiles for the first or all of `na` arrays.
fn sample_layouts(na: u32) -> Vec<Layout> {
    let all_tiled = if na >= 32 { u32::MAX } else { (1u32 << na) - 1 };
    let mut v = Vec::new();
    for wide in [false, true] {
        let w = |l: Layout| Layout { wide, ..l };
        for vec in [1u8, 4] {
            v.push(w(layout(LayoutClass::Contiguous, 1, vec)));
        }
        // wide loads with the first array shifted off the vector (`a[1:] - a[:-1]`)
        v.push(w(Layout {
            unaligned: 1,
            ..layout(LayoutClass::Contiguous, 1, 4)
        }));
        for nd in [1u8, 2, 3] {
            v.push(w(layout(LayoutClass::Rows, nd, 1)));
            v.push(w(Layout {
                row_bcast: 2,
                ..layout(LayoutClass::Rows, nd, 4)
            }));
            v.push(w(layout(LayoutClass::Flat, nd, 1)));
        }
        for nd in [2u8, 3] {
            for tiled in [1, all_tiled] {
                v.push(w(Layout {
                    tiled,
                    ..layout(LayoutClass::Tiled, nd, 1)
                }));
            }
        }
    }
    v
}

/// The strategies of the reduction compile checks: (outer, tx, ty, ndo, ndr).
const REDUCE_STRATEGIES: [(bool, u16, u16, u8, u8); 8] = [
    (false, 256, 1, 0, 1),
    (false, 256, 1, 1, 1),
    (false, 32, 8, 1, 1),
    (false, 64, 4, 2, 2),
    (true, 32, 8, 1, 1),
    (true, 4, 64, 2, 1),
    (true, 256, 1, 1, 2),
    (false, 256, 1, 1, 0),
];

fn reduce_strategies() -> impl Iterator<Item = ReduceStrategy> {
    REDUCE_STRATEGIES
        .into_iter()
        .flat_map(|(outer, tx, ty, ndo, ndr)| {
            [false, true].map(|wide| ReduceStrategy {
                outer,
                tx,
                ty,
                ndo,
                ndr,
                wide,
                unit: ndr == 1 && !outer,
                vec: if ndr == 1 && !outer && ndo == 0 { 4 } else { 1 },
                // Each shape once split (32-bit) and once not (64-bit); inner splits
                // interleave, as on a GPU.
                split: !wide,
                interleave: !wide && !outer,
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
    let slots = sample_slots(k.name(), k.params(), dtypes, scalars)?;
    let na = slots
        .iter()
        .filter(|s| matches!(s, Slot::Array { .. }))
        .count();
    let layouts = sample_layouts(u32::try_from(na).unwrap_or(u32::MAX));
    let l = layouts[which % layouts.len()];
    Ok(k.source_for(dtypes, &slots, l, 256)?.source)
}

/// The same for a user's ReductionKernel, in reduction strategy number `which`.
pub fn reduction_source_for_fuzzing(
    k: &ReductionKernel,
    dtypes: &[DType],
    scalars: &[bool],
    which: usize,
) -> Result<String> {
    let slots = sample_slots(k.name(), &k.params_for_samples(), dtypes, scalars)?;
    let strategies: Vec<ReduceStrategy> = reduce_strategies().collect();
    Ok(
        k.source_for(dtypes, &slots, strategies[which % strategies.len()])
            .source,
    )
}

/// The reduction kernels of the samples: a generic sum of squares, the seed's MSE, a
/// maximum without identity, a raw and a scalar input with two outputs, a struct
/// accumulator (argmax).
fn reduction_kernels() -> Result<[ReductionKernel; 5]> {
    let ssq = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = a", Some("0"), "ssq")?;
    let mse = ReductionKernel::new(
        "float64 x, float64 y",
        "float64 z",
        "(x - y) * (x - y)",
        "a + b",
        "z = a / _in_ind.size() * _out_ind.size()",
        Some("0"),
        "mse_kernel",
    )?;
    let maxk = ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", None, "my_max")?;
    let two = ReductionKernel::new(
        "T x, raw T w, T s",
        "T y, int64 n",
        "x * w[_J % w.size()] * s",
        "a + b",
        "y = a; n = _J_count",
        Some("0"),
        "weighted",
    )?
    .preamble("#define _J_count (_in_ind.size() / _out_ind.size())");
    let argmax = ReductionKernel::new(
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
    Ok([ssq, mse, maxk, two, argmax])
}

/// The ReductionKernel samples (see [`reduction_sample_sources`]).
pub(crate) fn reduction_samples() -> Result<Vec<Sample>> {
    let [ssq, mse, maxk, two, argmax] = reduction_kernels()?;
    let (f32s, f64s) = (DType::F32, DType::F64);
    let cases: [(&str, &ReductionKernel, Vec<DType>, Vec<bool>); 8] = [
        ("ssq f32", &ssq, vec![f32s; 2], vec![false; 2]),
        ("ssq c128", &ssq, vec![DType::C128; 2], vec![false; 2]),
        ("ssq f16", &ssq, vec![DType::F16; 2], vec![false; 2]),
        ("mse", &mse, vec![f64s; 3], vec![false; 3]),
        ("max i8", &maxk, vec![DType::I8; 2], vec![false; 2]),
        ("max f64", &maxk, vec![f64s; 2], vec![false; 2]),
        (
            "weighted",
            &two,
            vec![f32s, f32s, f32s, f32s, DType::I64],
            vec![false, false, true, false, false],
        ),
        ("argmax", &argmax, vec![f32s, DType::I64], vec![false; 2]),
    ];
    let mut out = Vec::new();
    for strategy in reduce_strategies() {
        for (name, k, dtypes, scalars) in &cases {
            let slots = sample_slots(k.name(), &k.params_for_samples(), dtypes, scalars)?;
            let kernel = k.source_for(dtypes, &slots, strategy);
            out.push((format!("{name} {strategy:?}"), kernel));
        }
    }
    Ok(out)
}

/// Compiles every sample (the elementwise and reduction samples and the array layer's
/// kernels) for `arch` without a GPU and checks each argument schema against the parameter
/// sizes of the compiled image, on as many threads as the machine has cores. Returns how
/// many kernels were checked; the first failure (in the samples' order) is the error.
pub fn check_sample_schemas(arch: u32) -> Result<usize> {
    check_sample_schemas_where(arch, |_| true)
}

/// [`check_sample_schemas`] of the samples whose label `keep` accepts (a machine without a
/// GPU may check a cover, where the GPU suite checks every one).
pub fn check_sample_schemas_where(arch: u32, keep: impl Fn(&str) -> bool) -> Result<usize> {
    let mut all = elementwise_samples()?;
    all.extend(reduction_samples()?);
    all.extend(crate::array::kernels::all_kernels());
    all.retain(|(label, _)| keep(label));
    // The options the NVRTC compile checks use, so a test run compiles each source once.
    let opts = crate::compile::CompileOptions::default();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut failed: Vec<(usize, crate::Error)> = std::thread::scope(|sc| {
        let jobs: Vec<_> = (0..workers)
            .map(|_| {
                sc.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((label, k)) = all.get(i) else {
                            return failed;
                        };
                        if let Err(e) = crate::kernel_abi::check_compiled(k, &opts, arch) {
                            failed.push((i, crate::error::err!(Launch, "{label}: {e}")));
                        }
                    }
                })
            })
            .collect();
        jobs.into_iter()
            .flat_map(|j| match j.join() {
                Ok(f) => f,
                Err(p) => std::panic::resume_unwind(p),
            })
            .collect()
    });
    failed.sort_by_key(|f| f.0);
    match failed.into_iter().next() {
        Some((_, e)) => Err(e),
        None => Ok(all.len()),
    }
}

#[cfg(test)]
mod tests {
    use crate::kernel_abi::DEPENDENT_WAIT;

    /// Every ElementwiseKernel and ReductionKernel specialisation may launch dependent, so
    /// each must wait for the grid before it ahead of any access to memory: the wait comes
    /// right after the entry point's opening, before any subscript or user text.
    #[test]
    fn generated_entry_points_wait_before_touching_memory() {
        let mut all = super::elementwise_samples().unwrap();
        all.extend(super::reduction_samples().unwrap());
        assert!(all.len() > 20, "{} samples", all.len());
        for (label, k) in &all {
            assert!(k.dependent, "{label}");
            assert_eq!(k.source.matches(DEPENDENT_WAIT).count(), 1, "{label}");
            let entry = k.source.find("__global__").expect("an entry point");
            let open = entry + k.source[entry..].find(") {\n").expect("its body") + 4;
            let wait = k.source.find(DEPENDENT_WAIT).unwrap_or(0);
            assert!(wait >= open, "{label}: the wait is outside the entry point");
            let before = &k.source[open..wait];
            assert!(
                !before.contains('[') && !before.contains('='),
                "{label}: memory or values before the wait:\n{before}"
            );
            let line = |at: usize| k.source[..at].matches('\n').count() + 1;
            let (entry_line, wait_line) = (line(entry), line(wait));
            assert!(
                k.spans
                    .iter()
                    .all(|s| s.last_line < entry_line || s.first_line > wait_line),
                "{label}: user text in the entry point before the wait"
            );
        }
    }
}
