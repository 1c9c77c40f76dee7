//! [`KernelSpec`]: what defines a generated kernel ([`ElementwiseKernel`],
//! [`ReductionKernel`]) besides its kind-specific strings — its signature, preamble,
//! compile options and `reduce_dims` — held once, with the public builder methods over it
//! written once for both kinds (`kernel_spec_methods!`).
//!
//! Both kinds are defined by the same things apart from their own code (the elementwise
//! operation with its loop prep and after-loop code; the reduction's map, reduce and
//! post-map expressions, identity and accumulator type), and configured by the same
//! setters. One concept in one place: a new shared setting is one field here and one
//! method in the macro, and the two kinds cannot drift apart in behaviour or docs. Each
//! kind keeps its compiled specialisations (keyed by its own key) and its `refresh`,
//! which every setter calls: a changed definition forgets what was compiled from the old
//! one.
//!
//! The builders of the kinds defined by named parts ([`ReductionBuilder`],
//! [`ScanBuilder`]) share theirs the same way: [`BuilderParts`] holds the parts both
//! collect (name, inputs, outputs, map, post-map, identity) with one error for a missing
//! part, and `builder_part_methods!` writes their setters once; each builder keeps only
//! its own parts (the reduce or scan expression, a scan's preamble and scan type).
//!
//! [`ElementwiseKernel`]: crate::ElementwiseKernel
//! [`ReductionKernel`]: crate::ReductionKernel
//! [`ReductionBuilder`]: crate::kernel::ReductionBuilder
//! [`ScanBuilder`]: crate::kernel::ScanBuilder

use super::call::Signature;
use crate::compile::CompileOptions;
use crate::error::{Result, err};

/// The definition a generated kernel shares with the other kind: see the module doc.
#[derive(Debug, Clone)]
pub(crate) struct KernelSpec {
    /// The name and the generated code's parameters, inputs first.
    pub sig: Signature,
    /// Code placed before the kernel (helper functions, constants, `#include`s).
    pub preamble: String,
    /// The flags the kernel is compiled with.
    pub options: CompileOptions,
    /// Whether dimensions are merged before launch (CuPy's `reduce_dims`).
    pub reduce_dims: bool,
}

impl KernelSpec {
    /// A kernel of signature `sig` with the defaults: no preamble, default compile
    /// options, dimensions merged.
    pub fn new(sig: Signature) -> KernelSpec {
        KernelSpec {
            sig,
            preamble: String::new(),
            options: CompileOptions::new(),
            reduce_dims: true,
        }
    }
}

/// Writes the public builder methods both generated kinds share, as inherent methods of
/// `$kernel` (a struct with a `spec: KernelSpec` field and a `fn refresh(&mut self)` that
/// forgets its compiled specialisations): `preamble`, `option`, `options`, `reduce_dims`,
/// `name` and `nout`. The doc examples construct the kernel with `new` (a
/// `?`-terminated constructor expression of a kernel named `name`) and, for `preamble`,
/// with `with_sq` (one whose code calls a preamble's `sq`).
macro_rules! kernel_spec_methods {
    (
        $kernel:ident,
        new: $new:literal,
        name: $name:literal,
        with_sq: $with_sq:literal $(,)?
    ) => {
        impl $kernel {
            /// Code placed before the kernel (helper functions, constants, `#include`s).
            ///
            /// ```
            #[doc = concat!("use cuprum::", stringify!($kernel), ";")]
            #[doc = concat!("let k = ", $with_sq)]
            ///     .preamble("template <typename T> __device__ T sq(T v) { return v * v; }");
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn preamble(mut self, code: impl Into<String>) -> Self {
                self.spec.preamble = code.into();
                self.refresh();
                self
            }

            /// Adds one NVRTC flag (`"-use_fast_math"`, `"-DN=4"` ...).
            ///
            /// ```
            #[doc = concat!("use cuprum::", stringify!($kernel), ";")]
            #[doc = concat!("let k = ", $new, ".option(\"-use_fast_math\");")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn option(mut self, flag: impl Into<String>) -> Self {
                self.spec.options = self.spec.options.option(flag);
                self.refresh();
                self
            }

            /// Replaces the compile options.
            ///
            /// ```
            #[doc = concat!("use cuprum::{CompileOptions, ", stringify!($kernel), "};")]
            #[doc = concat!("let k = ", $new)]
            ///     .options(CompileOptions::new().option("-lineinfo"));
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn options(mut self, options: $crate::CompileOptions) -> Self {
                self.spec.options = options;
                self.refresh();
                self
            }

            /// Whether dimensions are merged before launch (default true; CuPy's
            /// `reduce_dims`). Turning it off only changes the generated code, never the
            /// result.
            ///
            /// ```
            #[doc = concat!("use cuprum::", stringify!($kernel), ";")]
            #[doc = concat!("let k = ", $new, ".reduce_dims(false);")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn reduce_dims(mut self, on: bool) -> Self {
                self.spec.reduce_dims = on;
                self.refresh();
                self
            }

            /// The kernel's name.
            ///
            /// ```
            #[doc = concat!("# use cuprum::", stringify!($kernel), ";")]
            #[doc = concat!("let k = ", $new, ";")]
            #[doc = concat!("assert_eq!(k.name(), \"", $name, "\");")]
            /// # Ok::<(), cuprum::Error>(())
            /// ```
            pub fn name(&self) -> &str {
                &self.spec.sig.name
            }

            /// Number of outputs.
            pub fn nout(&self) -> usize {
                self.spec.sig.nout()
            }
        }
    };
}

pub(crate) use kernel_spec_methods;

/// The parts a builder of either kind collects by name: see the module doc.
#[derive(Debug, Clone, Default)]
pub(crate) struct BuilderParts {
    pub name: String,
    pub inputs: Option<String>,
    pub outputs: Option<String>,
    pub map: Option<String>,
    pub post_map: Option<String>,
    pub identity: Option<String>,
}

impl BuilderParts {
    /// No parts yet, for a kernel named `name`.
    pub fn new(name: String) -> BuilderParts {
        BuilderParts {
            name,
            ..BuilderParts::default()
        }
    }

    /// `part`, or the error naming it: "`kind` '`name`' needs its `what`: .`example`".
    pub fn need(
        &self,
        kind: &str,
        part: Option<String>,
        what: &str,
        example: &str,
    ) -> Result<String> {
        part.ok_or_else(|| {
            err!(
                InvalidArgument,
                "{kind} '{}' needs its {what}: .{example}",
                self.name
            )
        })
    }

    /// The parts every kind needs, in the order they are checked: the input parameters,
    /// the output parameters (`outputs`: how the kind names them) and the map.
    pub fn required(&mut self, kind: &str, outputs: &str) -> Result<(String, String, String)> {
        let (i, o, m) = (self.inputs.take(), self.outputs.take(), self.map.take());
        let inputs = self.need(kind, i, "input parameters", "inputs(\"T x\")")?;
        let outs = self.need(kind, o, outputs, "outputs(\"T y\")")?;
        let map = self.need(kind, m, "map expression", "map(\"x\")")?;
        Ok((inputs, outs, map))
    }
}

/// Writes the setters of the parts in [`BuilderParts`] as inherent methods of `$builder`
/// (a struct with a `parts: BuilderParts` field), with the kind's own docs for the parts
/// whose meaning differs.
macro_rules! builder_part_methods {
    (
        $builder:ident,
        outputs: $outputs:literal,
        map: $map:literal,
        post_map: $post_map:literal,
        identity: $identity:literal $(,)?
    ) => {
        impl $builder {
            /// The input parameters (`"T x, float32 w"`, CuPy's `in_params`).
            pub fn inputs(mut self, params: impl Into<String>) -> Self {
                self.parts.inputs = Some(params.into());
                self
            }

            #[doc = $outputs]
            pub fn outputs(mut self, params: impl Into<String>) -> Self {
                self.parts.outputs = Some(params.into());
                self
            }

            #[doc = $map]
            pub fn map(mut self, expr: impl Into<String>) -> Self {
                self.parts.map = Some(expr.into());
                self
            }

            #[doc = $post_map]
            pub fn post_map(mut self, expr: impl Into<String>) -> Self {
                self.parts.post_map = Some(expr.into());
                self
            }

            #[doc = $identity]
            pub fn identity(mut self, value: impl Into<String>) -> Self {
                self.parts.identity = Some(value.into());
                self
            }
        }
    };
}

pub(crate) use builder_part_methods;
