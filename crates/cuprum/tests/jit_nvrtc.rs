//! NVRTC compile checks of every generated Rust kernel (no GPU needed; CI sets
//! CUPRUM_REQUIRE_NVRTC=1): the examples' kernels and the test corpus, every
//! instantiation they use, both check modes, sm_80 and sm_90 (each pair of these where a GPU
//! is; see [`compile`] for the cover a machine without one compiles). Also: the hot loops of the
//! prime kernel and of the shared-memory reduction are the RawKernels', instruction for
//! instruction, and the wide vector add moves 16 bytes per load and store.

mod common;

mod jit_kernels;
#[allow(dead_code)]
#[path = "../../../examples/kernels/rust_kernels.rs"]
mod kernels;
#[allow(dead_code)]
#[path = "jit_kernels/language.rs"]
mod language;

use cuprum::compile::{CompileOptions, compile_for_arch, resource_usage};
use cuprum::kernel::jit::KernelDef;

/// Compiles `def` for each instantiation in `instances` (type and const arguments in C++),
/// for sm_80 and sm_90, checked and unchecked, on every core, and checks that no kernel
/// spills or takes more than 64 registers. On a machine without a GPU (CI's two cores) a
/// generic kernel's first instantiation takes all four targets and each other one the
/// next target in turn (every instantiation compiles; the GPU suite compiles every pair).
fn compile(def: &KernelDef, instances: &[&[&str]]) {
    let insts: Vec<Option<String>> = if instances.is_empty() {
        assert!(!def.is_generic(), "{} needs instantiations", def.name());
        vec![None]
    } else {
        instances
            .iter()
            .map(|a| {
                let a: Vec<String> = a.iter().map(|s| s.to_string()).collect();
                Some(def.instance_name(&a))
            })
            .collect()
    };
    let targets = [(80, false), (80, true), (90, false), (90, true)];
    let every_pair = common::has_gpu();
    let jobs: Vec<(&Option<String>, u32, bool)> = insts
        .iter()
        .enumerate()
        .flat_map(|(i, inst)| {
            targets
                .iter()
                .enumerate()
                .filter(move |&(t, _)| every_pair || i == 0 || t == i % targets.len())
                .map(move |(_, &(arch, checked))| (inst, arch, checked))
        })
        .collect();
    common::on_every_core(&jobs, |&(inst, arch, checked)| {
        let opts = def
            .compile_options(inst.as_deref(), checked)
            .option("-Xptxas=-v");
        let img = compile_for_arch(def.program(), &opts, arch).unwrap_or_else(|e| {
            panic!(
                "{} ({inst:?}, sm_{arch}, checked {checked}) does not compile: {e}",
                def.name()
            )
        });
        // (A recursive device function keeps a stack frame: its "spills".)
        for r in resource_usage(&img.log)
            .into_iter()
            .filter(|r| !r.name.contains("cj_dev"))
        {
            assert_eq!(
                r.spill_store_bytes + r.spill_load_bytes,
                0,
                "{} spills: {r:?}",
                def.name()
            );
            assert!(
                r.registers <= 64,
                "{} uses {} registers",
                def.name(),
                r.registers
            );
        }
    });
}

const INTS: &[&str] = &[
    "signed char",
    "short",
    "int",
    "long long",
    "unsigned char",
    "unsigned short",
    "unsigned int",
    "unsigned long long",
];
const FLOATS: &[&str] = &["float16", "bfloat16", "float", "double"];

fn each(types: &[&'static str]) -> Vec<[&'static str; 1]> {
    types.iter().map(|t| [*t]).collect()
}

#[test]
fn example_kernels_compile() {
    require_nvrtc!();
    compile(&kernels::prime_factor_sum::__CUPRUM_KERNEL, &[]);
    compile(
        &kernels::vector_add::__CUPRUM_KERNEL,
        &[&["float"], &["double"]],
    );
    let every: Vec<[&str; 1]> = each(INTS).into_iter().chain(each(FLOATS)).collect();
    let every: Vec<&[&str]> = every.iter().map(|a| &a[..]).collect();
    compile(&kernels::vector_add_wide::__CUPRUM_KERNEL, &every);
    compile(&kernels::matrix_multiply::__CUPRUM_KERNEL, &[]);
    compile(&kernels::optimized_reduction::__CUPRUM_KERNEL, &[]);
    compile(&kernels::apply_activation::__CUPRUM_KERNEL, &[]);
    compile(&kernels::apply_activation_match::__CUPRUM_KERNEL, &[]);
}

#[test]
fn language_kernels_compile() {
    require_nvrtc!();
    use language as l;
    compile(&l::classify_i32_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::match_statements_u8::__CUPRUM_KERNEL, &[]);
    compile(&l::nested_u64_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::activation_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::tuple_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::min_max_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::consts_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::closures_kernel::__CUPRUM_KERNEL, &[]);
    compile(&l::elem_loops::__CUPRUM_KERNEL, &[]);
    compile(&l::elem_loops_mut::__CUPRUM_KERNEL, &[]);
    compile(&l::together::__CUPRUM_KERNEL, &[]);
}

#[test]
fn test_kernels_compile() {
    require_nvrtc!();
    use jit_kernels as k;
    let ints = each(INTS);
    let ints: Vec<&[&str]> = ints.iter().map(|a| &a[..]).collect();
    let floats = each(FLOATS);
    let floats: Vec<&[&str]> = floats.iter().map(|a| &a[..]).collect();
    let all: Vec<&[&str]> = ints.iter().chain(floats.iter()).copied().collect();
    compile(&k::prime_tidy::__CUPRUM_KERNEL, &[]);
    compile(&k::int_mix_kernel::__CUPRUM_KERNEL, &ints);
    compile(&k::wrapping_ops_i32::__CUPRUM_KERNEL, &[]);
    compile(&k::wrapping_ops_u8::__CUPRUM_KERNEL, &[]);
    compile(&k::wrapping_ops_i64::__CUPRUM_KERNEL, &[]);
    compile(&k::div_rem::__CUPRUM_KERNEL, &ints);
    compile(&k::float_mix_kernel::__CUPRUM_KERNEL, &floats);
    compile(&k::f32_methods_kernel::__CUPRUM_KERNEL, &[]);
    compile(&k::casts::__CUPRUM_KERNEL, &[]);
    compile(&k::casts_f32::__CUPRUM_KERNEL, &[]);
    compile(&k::int_casts::__CUPRUM_KERNEL, &[]);
    compile(&k::affine::__CUPRUM_KERNEL, &all);
    compile(&k::half_scale::__CUPRUM_KERNEL, &[]);
    compile(&k::control_flow::__CUPRUM_KERNEL, &[]);
    compile(&k::strides::__CUPRUM_KERNEL, &[]);
    compile(&k::block_sum::__CUPRUM_KERNEL, &[&["256"], &["1024"]]);
    compile(&k::histogram::__CUPRUM_KERNEL, &[]);
    compile(&k::atomics_all::__CUPRUM_KERNEL, &[]);
    compile(&k::warp_votes::__CUPRUM_KERNEL, &[]);
    compile(&k::two_phase::__CUPRUM_KERNEL, &[]);
    compile(&k::block_reverse::__CUPRUM_KERNEL, &[]);
    compile(&k::shifted_write::__CUPRUM_KERNEL, &[]);
    compile(&k::read_before::__CUPRUM_KERNEL, &[]);
    compile(&k::divide_by::__CUPRUM_KERNEL, &[]);
    compile(&k::sum_rows_unchecked::__CUPRUM_KERNEL, &[]);
    compile(&k::odds_and_ends::__CUPRUM_KERNEL, &[]);
    compile(&k::early_return_grid_sync::__CUPRUM_KERNEL, &[]);
    compile(&k::fibs::__CUPRUM_KERNEL, &[]);
}

/// The PTX of `source` (for the newest architecture NVRTC knows), from `.entry` on.
fn ptx(source: &str, opts: &CompileOptions) -> String {
    let img = compile_for_arch(source, opts, 990).expect("compiles");
    let text = String::from_utf8_lossy(&img.image).replace('\0', "");
    text[text.find(".entry").unwrap_or(0)..].to_string()
}

/// The instructions of the PTX loop that starts at the label after the 64-bit `rem`'s fast
/// path test, up to its back edge: the hot loop of the prime kernels.
fn instructions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("//") && !l.starts_with('.') && !l.ends_with(':')
        })
        .filter(|l| !l.starts_with('{') && !l.starts_with('}') && !l.starts_with(')'))
        // register numbering differs; compare opcodes (a guarded one as `@opcode`)
        .map(|l| {
            let mut w = l.split_whitespace();
            match w.next().unwrap_or("") {
                g if g.starts_with('@') => format!("@{}", w.next().unwrap_or("")),
                op => op.to_string(),
            }
        })
        .collect()
}

#[test]
fn prime_kernel_loop_matches_the_raw_kernel() {
    require_nvrtc!();
    let def = &kernels::prime_factor_sum::__CUPRUM_KERNEL;
    let jit = ptx(def.program(), &def.compile_options(None, false));
    let raw = ptx(
        include_str!("../../../examples/kernels/prime_factor_sum.cu"),
        &CompileOptions::new(),
    );
    let (j, r) = (instructions(&jit), instructions(&raw));
    // Everything up to the final store is the RawKernel's; after it comes the one bounds
    // compare (and its cold fault path).
    let cut = |v: &[String]| {
        v.iter()
            .position(|o| o.starts_with("setp.gt.s64"))
            .unwrap_or(v.len())
    };
    let (j, r) = (&j[..cut(&j)], &r[..cut(&r)]);
    // Opcodes in one and not the other (an LCS diff): our kernel has a third parameter (the
    // slice length), computes `idx + 2` in 64 bits and widens `count * 2` with one
    // `mul.wide` instead of `shl` + `cvt`; the loops are identical.
    let mut lcs = vec![vec![0usize; r.len() + 1]; j.len() + 1];
    for a in (0..j.len()).rev() {
        for b in (0..r.len()).rev() {
            lcs[a][b] = if j[a] == r[b] {
                lcs[a + 1][b + 1] + 1
            } else {
                lcs[a + 1][b].max(lcs[a][b + 1])
            };
        }
    }
    let differing = j.len() + r.len() - 2 * lcs[0][0];
    assert!(
        differing <= 8,
        "{differing} opcodes differ before the store\n--- jit\n{jit}\n--- raw\n{raw}"
    );
}

/// The opcodes from the first `bar.sync` to the last (the reduction tree).
fn tree(ptx: &str) -> Vec<String> {
    let ops = instructions(ptx);
    let first = ops.iter().position(|o| o == "bar.sync").unwrap_or(0);
    let last = ops
        .iter()
        .rposition(|o| o == "bar.sync")
        .unwrap_or(ops.len());
    ops[first..=last.min(ops.len() - 1)].to_vec()
}

#[test]
fn reduction_tree_matches_the_raw_kernel() {
    require_nvrtc!();
    let def = &kernels::optimized_reduction::__CUPRUM_KERNEL;
    let jit = ptx(def.program(), &def.compile_options(None, false));
    let raw = ptx(
        include_str!("../../../examples/kernels/optimized_reduction.cu"),
        &CompileOptions::new(),
    );
    let (j, r) = (tree(&jit), tree(&raw));
    // The tree is the RawKernel's but for one `add` (`tid + s` before the address, where
    // the C++ adds `s * 4` to the address of `sdata[tid]`): no bounds check, no fault path.
    let mut rest = r.clone();
    let mut extra = Vec::new();
    for o in &j {
        match rest.iter().position(|x| x == o) {
            Some(k) => {
                rest.remove(k);
            }
            None => extra.push(o.clone()),
        }
    }
    assert!(
        rest.is_empty() && extra.len() <= 1,
        "missing {rest:?}, extra {extra:?}\n--- jit\n{jit}\n--- raw\n{raw}"
    );
}

#[test]
fn wide_vector_add_moves_16_bytes_per_access() {
    require_nvrtc!();
    let def = &kernels::vector_add_wide::__CUPRUM_KERNEL;
    // (`ld.global.v4.f32` or its read-only-cache form `ld.global.nc.v4.f32`.)
    for (t, wide) in [("float", ".v4.f32"), ("double", ".v2.f64")] {
        let name = def.instance_name(&[t.to_string()]);
        let p = ptx(def.program(), &def.compile_options(Some(&name), false));
        let ops = instructions(&p);
        let load = ops
            .iter()
            .any(|o| o.starts_with("ld.global.") && o.ends_with(wide));
        let store = ops
            .iter()
            .any(|o| o.starts_with("st.global.") && o.ends_with(wide));
        assert!(load && store, "{t}: no {wide} load and store\n{p}");
    }
}
