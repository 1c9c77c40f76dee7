//! What `#[cuprum::kernel]` and `#[cuprum::device]` leave for the runtime: the C++ of each
//! function with its check sites, the device functions a kernel calls, and per kernel the
//! assembled program and its compiled instances (per device, instantiation and check mode).
//!
//! **The program** (`k::program()`) is the prelude include (`cuprum/jit.cuh`), prototypes
//! of every device function the kernel reaches (so any order works, recursion included),
//! each function under its `CJ_FN` index (which names its fault sites), then the kernel. No
//! file names or line numbers go into the text: the cache key changes only with the code
//! (the sites' Rust lines are a table registered with the fault record instead). Device
//! functions live in the C++ namespace `cj_dev`; two different ones of one name reached by
//! one kernel are an error at its launch.
//!
//! **Device types** (`#[derive(cuprum::DeviceType)]`) the kernel or its device functions
//! name come first in the program: each declaration once, after those of its fields'
//! types, and a `typedef` where the code names a type by another name (`use … as P`).
//!
//! **Instances.** One compile per (device, check mode, instantiation), through the kernel
//! cache: a generic kernel is a C++ template compiled with its name expression
//! (`k<float, 256>`), and the checked mode adds `-DCUPRUM_JIT_CHECKED`. The instances are a
//! read-locked vector, so a repeat launch is a lock, a short scan, the argument checks and
//! one launch.
//!
//! **A first launch, step by step** (what `k::launch` does before its kernel runs): the
//! program text is assembled once per process (a `OnceLock`: no source generation per
//! instance); the instance's compile goes through `compile_on` — the module memo, then the
//! recorder, the bundles and the kernel cache (its key: one blake3 over the text and
//! options, microseconds) — and NVRTC runs once per (device, check mode, instantiation):
//! there is no second compile. Then the module load, the fault record's installation (the
//! first Rust kernel of a process on a device allocates the record: mapped pinned host
//! memory and a device word; every module then costs a `cuModuleGetGlobal` and a 32-byte
//! synchronous copy, which waits for nothing cuprum queued: its streams are non-blocking),
//! the function lookup, the launch. The `compile_cold_jit` bench row times none of this
//! path but the cache's compile of the program, the load and the lookup; where its time goes
//! on the GPU machine, and what the launcher's path adds, `cuprum bench-child
//! compile-cold-parts DIR` prints (`jit_nvrtc`, `jit_load`, `jit_launch1`, …).
//!
//! **Compile time of the checks** (`jit.cuh`; `apply_activation`, NVRTC 13, `sm_90`, thread
//! CPU time on the 2-core build machine, medians of 9, the prelude pasted into the source
//! so that variants compare in one run): 58–60 ms as it was; without the three bounds
//! checks 47.6; with checks whose miss only ends the thread (no record written) 50–51. So
//! the record's writes cost ~8 ms, and no single part of them does (without the system
//! fences, without the claim's `atomicCAS`, without the block and thread stores, or with
//! them as three 16-byte stores, or not `volatile`: each within 1.5 ms of the whole).
//! Taken: `cj::fault` out of line (`__noinline__`: one copy per program, each site a
//! compare and a call that does not return): −1.7 ms here (≈ −0.5 ms on the H100); a
//! branch hint on the compare adds nothing. Out of line, the record still costs ~5 ms (a
//! later run: 54.9 against 50.1 for exit-only checks): the price of reporting a fault's
//! site, block and thread.

use crate::array::Declarations;
use crate::compile::{CompileOptions, compile_on};
use crate::error::{Result, bail};
use crate::runtime::fault::record as fault;
use crate::runtime::{Device, Function};
use smallvec::SmallVec;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{OnceLock, RwLock};

/// A device type a kernel or device function names: the name written in its code, the
/// type's C++ name, and how to declare it (generated code builds these).
#[derive(Debug, Clone, Copy)]
pub struct TypeUse {
    written: &'static str,
    name: &'static str,
    declare: fn(&mut Declarations),
}

impl TypeUse {
    #[doc(hidden)]
    pub const fn new(
        written: &'static str,
        name: &'static str,
        declare: fn(&mut Declarations),
    ) -> TypeUse {
        TypeUse {
            written,
            name,
            declare,
        }
    }
}

/// A `#[cuprum::device]` function's C++ and what it depends on (generated code builds it,
/// as `function_name::__CUPRUM_DEVICE_FN`).
///
/// ```
/// use cuprum::gpu::*;
///
/// #[cuprum::device]
/// fn square(x: f32) -> f32 {
///     x * x
/// }
///
/// fn main() {
///     let d = &square::__CUPRUM_DEVICE_FN;
///     assert_eq!(d.name(), "square");
///     assert!(d.source().contains("__device__ inline float square(float x)"));
///     assert_eq!(square(3.0), 9.0); // still an ordinary function
/// }
/// ```
#[derive(Debug)]
pub struct DeviceFnDef {
    name: &'static str,
    source: &'static str,
    prototype: &'static str,
    file: &'static str,
    sites: &'static [(u32, u32)],
    deps: &'static [&'static DeviceFnDef],
    types: &'static [TypeUse],
    cooperative: bool,
}

impl DeviceFnDef {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        name: &'static str,
        source: &'static str,
        prototype: &'static str,
        file: &'static str,
        sites: &'static [(u32, u32)],
        deps: &'static [&'static DeviceFnDef],
        types: &'static [TypeUse],
        cooperative: bool,
    ) -> DeviceFnDef {
        DeviceFnDef {
            name,
            source,
            prototype,
            file,
            sites,
            deps,
            types,
            cooperative,
        }
    }

    /// The function's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its C++ (a `__device__` function in namespace `cj_dev`).
    pub fn source(&self) -> &'static str {
        self.source
    }
}

/// One function of an assembled program, for fault messages.
struct FnSites {
    name: &'static str,
    file: &'static str,
    sites: &'static [(u32, u32)],
}

/// A kernel's whole program and how to describe its faults.
struct Program {
    text: String,
    fns: Vec<FnSites>,
    cooperative: bool,
    /// Two different device functions of one name: the program cannot be built.
    conflict: Option<String>,
    tag: OnceLock<u32>,
}

/// One compiled instance of a kernel. Instances live as long as the process (their
/// kernel is a `static`; a program has a few instantiations at most), so a launch holds a
/// plain `&'static` reference: no reference count to touch.
pub(crate) struct Instance {
    device: usize,
    checked: bool,
    key: SmallVec<[u64; 4]>,
    pub(crate) function: Function,
}

impl Instance {
    fn is(&self, device: usize, checked: bool, key: &[u64]) -> bool {
        self.device == device && self.checked == checked && self.key[..] == *key
    }
}

/// A `#[cuprum::kernel]`: its C++, its device functions, and its compiled instances.
/// Generated code builds one per kernel (`kernel_name::__CUPRUM_KERNEL`); use the kernel's
/// module (`launch`, `SOURCE`, `program()`).
///
/// ```
/// use cuprum::gpu::*;
///
/// #[cuprum::kernel]
/// fn scale<T: Float>(x: &mut [T], s: T) {
///     for i in grid_stride(x.len()) {
///         x[i] *= s;
///     }
/// }
///
/// fn main() {
///     let k = &scale::__CUPRUM_KERNEL;
///     assert!(k.is_generic() && !k.is_cooperative());
///     assert_eq!(k.instance_name(&["float".into()]), "scale<float>");
///     assert!(scale::SOURCE.starts_with("template <typename T>"));
///     assert!(k.program().contains("#include <cuprum/jit.cuh>"));
/// }
/// ```
pub struct KernelDef {
    name: &'static str,
    source: &'static str,
    file: &'static str,
    sites: &'static [(u32, u32)],
    deps: &'static [&'static DeviceFnDef],
    types: &'static [TypeUse],
    generic: bool,
    cooperative: bool,
    program: OnceLock<Program>,
    instances: RwLock<Vec<&'static Instance>>,
    /// The instance launched last: a repeat launch is one atomic load and a compare.
    last: AtomicPtr<Instance>,
}

impl std::fmt::Debug for KernelDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KernelDef({})", self.name)
    }
}

impl KernelDef {
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        name: &'static str,
        source: &'static str,
        file: &'static str,
        sites: &'static [(u32, u32)],
        deps: &'static [&'static DeviceFnDef],
        types: &'static [TypeUse],
        generic: bool,
        cooperative: bool,
    ) -> KernelDef {
        KernelDef {
            name,
            source,
            file,
            sites,
            deps,
            types,
            generic,
            cooperative,
            program: OnceLock::new(),
            instances: RwLock::new(Vec::new()),
            last: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// The kernel's name (its C++ function's too).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The kernel's `__global__` function in C++.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// Whether the kernel has type or const parameters (a C++ template).
    pub fn is_generic(&self) -> bool {
        self.generic
    }

    /// The C++ name of one instantiation: `name<float, 256>` (or `name`).
    pub fn instance_name(&self, args: &[String]) -> String {
        if self.generic {
            format!("{}<{}>", self.name, args.join(", "))
        } else {
            self.name.to_string()
        }
    }

    fn assembled(&self) -> &Program {
        self.program.get_or_init(|| assemble(self))
    }

    /// Why the program cannot be built (two different device functions of one name).
    pub(crate) fn conflict(&self) -> Option<&str> {
        self.assembled().conflict.as_deref()
    }

    /// Everything NVRTC compiles for this kernel: the prelude include, each device function
    /// it calls (directly or not), and the kernel.
    pub fn program(&self) -> &str {
        &self.assembled().text
    }

    /// Whether the kernel (or a device function it calls) uses `grid_sync()`.
    pub fn is_cooperative(&self) -> bool {
        self.assembled().cooperative
    }

    /// The compile options of an instance: program name, checks, name expression.
    pub fn compile_options(&self, instance: Option<&str>, checked: bool) -> CompileOptions {
        let mut o = CompileOptions::new().program_name(format!("{}.cu", self.name));
        if checked {
            o = o.option("-DCUPRUM_JIT_CHECKED=1");
        }
        if let Some(n) = instance {
            o = o.name_expression(n);
        }
        o
    }

    /// The instance for `key` on `device`, compiled (through the kernel cache) and loaded
    /// on first use.
    #[inline]
    pub(crate) fn instance(
        &'static self,
        device: Device,
        key: &[u64],
        checked: bool,
        names: &dyn Fn() -> Vec<String>,
    ) -> Result<&'static Instance> {
        let ord = device.ordinal();
        let last = self.last.load(Ordering::Acquire);
        // SAFETY: `last` is null or a leaked (never freed) `Instance` published with
        // Release after it was fully built.
        if let Some(i) = unsafe { last.as_ref() }
            && i.is(ord, checked, key)
        {
            return Ok(i);
        }
        self.instance_slow(device, key, checked, names)
    }

    #[cold]
    fn instance_slow(
        &'static self,
        device: Device,
        key: &[u64],
        checked: bool,
        names: &dyn Fn() -> Vec<String>,
    ) -> Result<&'static Instance> {
        let ord = device.ordinal();
        let found = {
            let list = self.instances.read().unwrap_or_else(|p| p.into_inner());
            list.iter().find(|i| i.is(ord, checked, key)).copied()
        };
        let inst = match found {
            Some(i) => i,
            None => self.build(device, key, checked, names)?,
        };
        self.last
            .store(inst as *const Instance as *mut Instance, Ordering::Release);
        Ok(inst)
    }

    /// Compiles and loads a new instance (two threads may race to build the same one; the
    /// list keeps the first, the other is simply not published).
    fn build(
        &'static self,
        device: Device,
        key: &[u64],
        checked: bool,
        names: &dyn Fn() -> Vec<String>,
    ) -> Result<&'static Instance> {
        let program = self.assembled();
        if let Some(c) = &program.conflict {
            bail!(Compile, "kernel `{}`: {c}", self.name);
        }
        let instance = self.generic.then(|| self.instance_name(&names()));
        let opts = self.compile_options(instance.as_deref(), checked);
        let module = compile_on(device, &program.text, &opts)?;
        let function = module.function(instance.as_deref().unwrap_or(self.name))?;
        let tag = *program.tag.get_or_init(|| register_sites(self));
        module.install_fault_record(tag)?;
        let ord = device.ordinal();
        let mut list = self.instances.write().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = list.iter().find(|i| i.is(ord, checked, key)) {
            return Ok(i);
        }
        let inst: &'static Instance = Box::leak(Box::new(Instance {
            device: ord,
            checked,
            key: SmallVec::from_slice(key),
            function,
        }));
        list.push(inst);
        Ok(inst)
    }
}

/// The program of `k`: the prelude, prototypes of every device function (any order then
/// works, recursion included), each function under its `CJ_FN` index (the high half of its
/// check sites), the kernel last.
fn assemble(k: &KernelDef) -> Program {
    let mut order: Vec<&'static DeviceFnDef> = Vec::new();
    fn visit(d: &'static DeviceFnDef, order: &mut Vec<&'static DeviceFnDef>) {
        if order.iter().any(|o| std::ptr::eq(*o, d)) {
            return;
        }
        order.push(d);
        for dep in d.deps {
            visit(dep, order);
        }
    }
    for d in k.deps {
        visit(d, &mut order);
    }
    let (unique, mut conflict) = dedupe(order);
    // No file names or line numbers: the text (the cache key) changes only with the code.
    let mut text = format!(
        "// The Rust kernel `{}` (#[cuprum::kernel]), translated by cuprum.\n#include <cuprum/jit.cuh>\n",
        k.name
    );
    let uses: Vec<&TypeUse> = k
        .types
        .iter()
        .chain(unique.iter().flat_map(|d| d.types.iter()))
        .collect();
    let (decls, type_conflict) = type_declarations(&uses);
    text.push_str(&decls);
    conflict = conflict.or(type_conflict);
    let mut fns = vec![FnSites {
        name: k.name,
        file: k.file,
        sites: k.sites,
    }];
    for d in &unique {
        text.push_str(d.prototype);
        text.push('\n');
    }
    for (i, d) in unique.iter().enumerate() {
        text.push_str(&format!("#undef CJ_FN\n#define CJ_FN {}\n", i + 1));
        text.push_str(d.source);
        fns.push(FnSites {
            name: d.name,
            file: d.file,
            sites: d.sites,
        });
    }
    text.push_str("#undef CJ_FN\n#define CJ_FN 0\n");
    text.push_str(k.source);
    Program {
        text,
        fns,
        cooperative: k.cooperative || unique.iter().any(|d| d.cooperative),
        conflict,
        tag: OnceLock::new(),
    }
}

/// The declarations of the device types `uses` name (each once, in dependency order), a
/// `typedef` per other name they are written by, and the error when two different types
/// share a C++ name or one written name means two types.
fn type_declarations(uses: &[&TypeUse]) -> (String, Option<String>) {
    let mut d = Declarations::new();
    for u in uses {
        (u.declare)(&mut d);
    }
    let mut text = d.text().to_string();
    let mut conflict = d.conflict().map(str::to_string);
    let mut aliases: Vec<(&str, &str)> = Vec::new();
    for u in uses {
        if u.written == u.name {
            continue;
        }
        match aliases.iter().find(|a| a.0 == u.written) {
            Some(a) if a.1 != u.name => {
                conflict = conflict.or(Some(format!(
                    "the name `{}` means two device types (`{}` and `{}`) in one program: rename one",
                    u.written, a.1, u.name
                )));
            }
            Some(_) => {}
            None => {
                if d.names().contains(&u.written) {
                    conflict = conflict.or(Some(format!(
                        "`{}` names the device type `{}` here but is another device type's name: rename one",
                        u.written, u.name
                    )));
                }
                aliases.push((u.written, u.name));
                text.push_str(&format!("typedef {} {};\n", u.name, u.written));
            }
        }
    }
    (text, conflict)
}

/// The device functions once each (the same function reached twice is one), and the
/// error to report when two different functions share a name.
fn dedupe(order: Vec<&'static DeviceFnDef>) -> (Vec<&'static DeviceFnDef>, Option<String>) {
    let mut conflict = None;
    let mut unique: Vec<&'static DeviceFnDef> = Vec::new();
    for d in order {
        match unique.iter().find(|u| u.name == d.name) {
            Some(u) if u.source == d.source => {}
            Some(u) => {
                conflict = Some(format!(
                    "it calls two different #[cuprum::device] functions named `{}` ({} and {}); \
                     device functions share one C++ namespace: rename one",
                    d.name, u.file, d.file
                ));
            }
            None => unique.push(d),
        }
    }
    (unique, conflict)
}

/// Registers how faults of `k`'s program are worded: "kernel `k` panicked at file:line:col
/// (in device function `f`): index out of bounds …".
fn register_sites(k: &'static KernelDef) -> u32 {
    fault::register(Box::new(move |info: &fault::FaultInfo| {
        let what = fault::kind_text(info);
        let program = k.assembled();
        let (f, s) = ((info.site >> 16) as usize, (info.site & 0xffff) as usize);
        match program.fns.get(f) {
            Some(func) => {
                let at = match func.sites.get(s) {
                    Some((l, c)) if *l > 0 => format!("{}:{l}:{c}", func.file),
                    _ => func.file.to_string(),
                };
                let inner = if f == 0 {
                    String::new()
                } else {
                    format!(" (in device function `{}`)", func.name)
                };
                format!("kernel `{}` panicked at {at}{inner}: {what}", k.name)
            }
            None => format!("kernel `{}` panicked: {what}", k.name),
        }
    }))
}
