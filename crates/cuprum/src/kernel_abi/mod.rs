//! The kernel ABI of the kernels cuprum writes itself: the boundary between making a
//! kernel's source and compiling and launching it (hand-written; "generated" describes the
//! kernels that cross it).
//!
//! Code generation (the kernel layer's `codegen` for ElementwiseKernel and ReductionKernel,
//! the array layer's own kernels in `array/kernels.rs`) ends in a [`GeneratedKernel`]: the
//! source, the entry point's name, the spans of user text, and the entry point's
//! [`ArgSchema`] — pointer, strided view of N dimensions, scalar of a dtype, index or
//! struct of integers of an index width, or one element's bits, per parameter. The C++
//! declaration and its slot are written from the same place (`kernel/codegen/entry.rs`,
//! `array/kernels.rs`), so they cannot disagree. From there every generated kernel takes
//! the same three steps, here and nowhere else:
//!
//! 1. [`compile`]: the source (with its compile options) becomes a [`CompiledKernel`] on
//!    one device. Debug builds check the schema against the parameter sizes the driver
//!    reports for the compiled entry point; without a GPU, [`check_compiled`] makes the
//!    same check against the cubin's own parameter table (`runtime::param_sizes`), which
//!    the NVRTC test `every_generated_kernel_schema_matches_its_cubin` runs over every
//!    sample specialisation.
//! 2. [`CompiledKernel::packer`]: a call packs its values through the one [`Packer`],
//!    which accepts each value only for the slot it matches, in order, and writes it
//!    straight into the launch's `ArgPack`; `finish` refuses a short pack.
//! 3. [`CompiledKernel::launch`]: the packed arguments and a launch configuration
//!    (grid, block, dynamic shared memory) go to the stream. It is `unsafe` (the caller
//!    states why every offset the generated code computes stays inside its views) and is
//!    the only launch of generated code.
//!
//! [`KernelTable`] keeps compiled kernels per specialisation, so a repeat call is one
//! hash lookup, the packing, and one launch.
//!
//! **Dependent launches.** A generated kernel whose first statement is [`DEPENDENT_WAIT`]
//! (`griddepcontrol.wait`: until the grid before it on the stream has completed and its
//! memory is visible; at once when there is none) says so ([`GeneratedKernel::dependent`]),
//! and on a GPU compiled for sm_90 or later it is launched with programmatic stream
//! serialization allowed (`LaunchMode::Dependent`): its blocks may be scheduled while the
//! kernel before it finishes, so a chain of dependent kernels does not pay each launch's
//! latency in full. The wait comes before any access to memory, so what a kernel reads
//! and writes is ordered exactly as on a plain launch, whichever kernel came before it
//! (plain launches, copies and event waits keep their full ordering). Measured on an H100
//! (2026-12-07, `cuprum bench --filter chain`, twice each way on one machine): 20
//! dependent ElementwiseKernel calls on 4096 values in a captured graph took 18.3–18.4 µs
//! against 27.8–27.9 with `CUPRUM_DEPENDENT_LAUNCH=0` (CuPy's graph 27.0–27.1), and
//! eagerly 52–77 µs against 68–70, where the host's 2.5–3.7 µs a call decides; rows of
//! large kernels and single calls did not move (`trig10M_multi_output` 61.1–61.6 µs
//! against 61.1–63.4, `mse10M_f64_ReductionKernel` 58.9–60.6 against 59.7–60.2).
//! `CUPRUM_DEPENDENT_LAUNCH=0` launches every kernel plainly (the wait then returns at
//! once).
//!
//! Every backend reuses the schema and the packer unchanged: the bytes of every argument
//! are the same on a GPU and on the host device (host addresses where a GPU has device
//! addresses); compiling picks the device's compiler (`compile/modules.rs`) and launching
//! goes through the one launch check (`runtime/launch.rs`).

mod schema;

pub(crate) use schema::{ArgSchema, ArgSlot, IndexWidth, Packer};

use crate::compile::env::env_bool;
use crate::compile::{CompileOptions, SourceSpan, compile_for_arch, compile_on};
use crate::error::{Result, bail};
use crate::runtime::{
    CodeTarget, Device, Function, LaunchConfig, LaunchMode, Stream, launch, param_sizes,
};
use rustc_hash::FxHashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// The first statement of a kernel that may be launched dependent (see the module's
/// docs): on sm_90 and later it waits for the grid before it on the stream; elsewhere (older
/// GPUs, the host device) it is nothing.
pub(crate) const DEPENDENT_WAIT: &str = "#ifndef __CUPRUM_HOST__\n#if __CUDA_ARCH__ >= 900\n  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n#endif\n#endif\n";

/// What code generation hands to a backend: one entry point's program.
#[derive(Debug, Clone)]
pub(crate) struct GeneratedKernel {
    /// The entry point (`extern "C"`).
    pub name: String,
    /// The whole program (it includes only cuprum's bundled headers).
    pub source: String,
    /// The entry point's parameters.
    pub schema: ArgSchema,
    /// Lines of `source` that came from user strings (compile errors point at them).
    pub spans: Vec<SourceSpan>,
    /// The entry point's first statement is [`DEPENDENT_WAIT`]: it may be launched
    /// dependent.
    pub dependent: bool,
}

/// A generated kernel compiled and loaded on one device.
#[derive(Debug)]
pub(crate) struct CompiledKernel {
    name: String,
    schema: ArgSchema,
    function: Function,
    mode: LaunchMode,
}

/// Compiles `kernel` with `options` (through the kernel cache) and loads it on `device`.
/// Compile errors point at the user's text. Once per loaded kernel, its schema is checked
/// against the parameter sizes the device reports (a mismatch would make every launch pass
/// its arguments at the wrong offsets), in every build: a few driver queries at load, where
/// the compile or cache read before it costs far more. A driver that cannot report them
/// (older than CUDA 12.4) skips the check.
pub(crate) fn compile(
    device: Device,
    kernel: GeneratedKernel,
    options: &CompileOptions,
) -> Result<CompiledKernel> {
    let dependent = kernel.dependent && launches_dependent(device.code_target())?;
    let module =
        compile_on(device, &kernel.source, options).map_err(|e| e.with_spans(&kernel.spans))?;
    let function = module.function(&kernel.name)?;
    if let Ok(params) = function.param_info() {
        let sizes: Vec<usize> = params.iter().map(|p| p.1).collect();
        kernel.schema.check_sizes(&kernel.name, &sizes)?;
    }
    let mode = if dependent {
        debug_assert!(kernel.source.contains(DEPENDENT_WAIT));
        LaunchMode::Dependent
    } else {
        LaunchMode::Plain
    };
    Ok(CompiledKernel {
        name: kernel.name,
        schema: kernel.schema,
        function,
        mode,
    })
}

/// Whether kernels that wait for the grid before them launch dependent on `target`: on
/// GPUs compiled for sm_90 or later, unless `CUPRUM_DEPENDENT_LAUNCH` is false. The
/// variable is read on every device, so a value that is not a boolean is an error wherever
/// the program runs.
fn launches_dependent(target: CodeTarget) -> Result<bool> {
    let allowed = env_bool("CUPRUM_DEPENDENT_LAUNCH", true)?;
    Ok(allowed && matches!(target, CodeTarget::Cuda(arch) if arch >= 90))
}

/// Compiles `kernel` for `arch` without a GPU and checks its schema against the parameter
/// sizes the cubin declares (the check every load makes against the driver).
pub(crate) fn check_compiled(
    kernel: &GeneratedKernel,
    options: &CompileOptions,
    arch: u32,
) -> Result<()> {
    let img =
        compile_for_arch(&kernel.source, options, arch).map_err(|e| e.with_spans(&kernel.spans))?;
    match param_sizes(&img.image).get(&kernel.name) {
        Some(sizes) => kernel.schema.check_sizes(&kernel.name, sizes),
        None => bail!(
            Launch,
            "generated kernel '{}': no parameter records for it in its sm_{arch} image",
            kernel.name
        ),
    }
}

impl CompiledKernel {
    /// A packer for this kernel's arguments.
    #[inline]
    pub(crate) fn packer(&self) -> Packer<'_> {
        Packer::new(&self.name, &self.schema)
    }

    /// Launches with the packed arguments (every parameter must have its value).
    ///
    /// # Safety
    /// Every address packed (pointers and views) must point to device memory that stays
    /// valid, in `stream` order, for every access the generated code makes with these
    /// arguments and this configuration: the caller's plan must match the one the source
    /// was generated for (sizes, strides and offsets inside each operand's buffer).
    /// Argument count and sizes are the packer's business (checked against the schema).
    pub(crate) unsafe fn launch(
        &self,
        args: &mut Packer<'_>,
        config: &LaunchConfig,
        stream: &Stream,
    ) -> Result<()> {
        let pack = args.finish()?;
        // SAFETY: the pack follows this kernel's schema slot by slot (the packer checks
        // kinds and writes each slot's size), and the schema is the entry point's parameter
        // list (written by the same code as its declaration; checked against the driver in
        // debug builds); the caller guarantees the addresses and the configuration; the
        // mode is dependent only for a source that starts with `DEPENDENT_WAIT` (`compile`).
        unsafe {
            launch(&self.function, config, stream, pack, self.mode, &|| {
                format!("generated kernel '{}'", self.name)
            })
        }
    }
}

/// Compiled generated kernels per specialisation key: a repeat call is one lookup.
pub(crate) struct KernelTable<K>(Mutex<FxHashMap<(usize, K), Arc<CompiledKernel>>>);

impl<K: Hash + Eq + Clone> KernelTable<K> {
    /// An empty table.
    pub(crate) fn new() -> Self {
        KernelTable(Mutex::new(FxHashMap::default()))
    }

    /// Forgets every kernel (after the definition they were generated from changed).
    pub(crate) fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// The kernel for `key`, generated by `make` (the program and its compile options) and
    /// compiled on `device` on first use.
    pub(crate) fn get_or_compile(
        &self,
        key: &K,
        device: Device,
        make: impl FnOnce() -> Result<(GeneratedKernel, CompileOptions)>,
    ) -> Result<Arc<CompiledKernel>> {
        // A module is loaded into one device's context: the table is per device.
        let at = (device.ordinal(), key.clone());
        if let Some(f) = self.0.lock().unwrap_or_else(|p| p.into_inner()).get(&at) {
            return Ok(f.clone());
        }
        let (kernel, options) = make()?;
        let compiled = Arc::new(compile(device, kernel, &options)?);
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(at, compiled.clone());
        Ok(compiled)
    }
}

impl<K: Hash + Eq + Clone> Default for KernelTable<K> {
    fn default() -> Self {
        Self::new()
    }
}
