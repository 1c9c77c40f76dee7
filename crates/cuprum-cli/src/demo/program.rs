//! A CUDA program the demo compiles (each case lists its own for the compile-only table),
//! made from a generated kernel, a `.cu` file or a kernel written in Rust.

use cuprum::{DType, ElementwiseKernel, ReductionKernel};

type R<T> = cuprum::Result<T>;

/// A CUDA program the demo compiles: a generated ElementwiseKernel / ReductionKernel
/// source, or a `.cu` file of `examples/kernels`.
pub struct Program {
    /// NVRTC's program name (`custom_add.cu`, `activations.cu`).
    pub name: String,
    pub source: String,
    /// Template instantiations to compile (kernels written in Rust).
    pub name_expressions: Vec<String>,
}

impl Program {
    pub fn elementwise(k: &ElementwiseKernel, dtypes: &[DType], scalars: &[bool]) -> R<Program> {
        Ok(Program {
            name: format!("{}.cu", k.name()),
            source: k.generated_source(dtypes, scalars)?,
            name_expressions: Vec::new(),
        })
    }

    pub fn reduction(k: &ReductionKernel, dtypes: &[DType], scalars: &[bool]) -> R<Program> {
        Ok(Program {
            name: format!("{}.cu", k.name()),
            source: k.generated_source(dtypes, scalars)?,
            name_expressions: Vec::new(),
        })
    }

    pub fn raw(file: &str, source: &str) -> Program {
        Program {
            name: file.to_owned(),
            source: source.to_owned(),
            name_expressions: Vec::new(),
        }
    }

    /// A kernel written in Rust: its whole program, with the instantiation `args` when
    /// it is generic.
    pub fn jit(def: &cuprum::kernel::jit::KernelDef, args: &[&str]) -> Program {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        Program {
            name: format!("{}.cu", def.name()),
            source: def.program().to_owned(),
            name_expressions: if def.is_generic() {
                vec![def.instance_name(&args)]
            } else {
                Vec::new()
            },
        }
    }
}
