//! [`CompileOptions`]: everything besides the source that decides what NVRTC produces.
//!
//! No `-ftz` by default: denormals keep IEEE behaviour, unlike CuPy (which always passes
//! `-ftz=true`); users who want it pass it.

use std::path::PathBuf;

/// Options for compiling CUDA C++ with NVRTC.
///
/// Defaults: C++17, no extra flags, and **no `-ftz`**: denormals are kept (IEEE behaviour),
/// unlike CuPy, which always adds `-ftz=true`. Pass `"-ftz=true"` (or `--use_fast_math`)
/// to trade denormal accuracy for speed.
///
/// ```
/// use cuprum::compile::CompileOptions;
/// let opts = CompileOptions::new()
///     .option("-O3")
///     .name_expression("scale<float, 4>")
///     .std("c++20");
/// assert_eq!(opts.nvrtc_flags("sm_90"), vec!["-arch=sm_90", "--std=c++20", "-O3"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// Extra NVRTC flags, passed as given (e.g. `-O3`, `--use_fast_math`, `-DN=4`).
    pub options: Vec<String>,
    /// Folders searched for `#include` (`-I`).
    pub include_paths: Vec<PathBuf>,
    /// Template instantiations to lower, e.g. `my_kernel<float, 4>`.
    pub name_expressions: Vec<String>,
    /// The C++ standard (`c++17` unless set).
    pub std: String,
    /// Headers passed in memory as `(include name, text)`.
    pub headers: Vec<(String, String)>,
    /// Program name NVRTC shows in its messages.
    pub program_name: String,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            options: Vec::new(),
            include_paths: Vec::new(),
            name_expressions: Vec::new(),
            std: "c++17".into(),
            headers: Vec::new(),
            program_name: "kernel.cu".into(),
        }
    }
}

impl CompileOptions {
    /// The defaults (C++17, no extra flags).
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds one NVRTC flag.
    pub fn option(mut self, flag: impl Into<String>) -> Self {
        self.options.push(flag.into());
        self
    }
    /// Adds an include folder.
    pub fn include_path(mut self, dir: impl Into<PathBuf>) -> Self {
        self.include_paths.push(dir.into());
        self
    }
    /// Adds a name expression (a template instantiation to compile and look up by name).
    pub fn name_expression(mut self, expr: impl Into<String>) -> Self {
        self.name_expressions.push(expr.into());
        self
    }
    /// Sets the C++ standard (`c++17`, `c++20`).
    pub fn std(mut self, std: impl Into<String>) -> Self {
        self.std = std.into();
        self
    }
    /// Adds an in-memory header.
    pub fn header(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.headers.push((name.into(), text.into()));
        self
    }
    /// Adds the CUDA include folders cuprum found (see [`cuda_headers`](super::cuda_headers):
    /// `CUPRUM_CUDA_INCLUDE`, cuprum's data folder, a toolkit, the pip wheels) as explicit
    /// include paths. Rarely needed: a source that includes a CUDA header
    /// (`<cooperative_groups.h>`, `<cub/...>`) gets them automatically.
    ///
    /// ```
    /// let o = cuprum::CompileOptions::new().toolkit_includes();
    /// assert!(o.include_paths.iter().all(|p| p.exists()));
    /// ```
    pub fn toolkit_includes(mut self) -> Self {
        for dir in &super::discovery::header_search().include_dirs {
            if dir.is_dir() && !self.include_paths.contains(dir) {
                self.include_paths.push(dir.clone());
            }
        }
        self
    }

    /// Sets the program name shown in NVRTC's messages.
    pub fn program_name(mut self, name: impl Into<String>) -> Self {
        self.program_name = name.into();
        self
    }

    /// The target of an `-arch=` (or `--gpu-architecture=`) among the options, e.g.
    /// `sm_90a` or `compute_90`: it replaces the target cuprum picks for the device.
    ///
    /// ```
    /// let o = cuprum::CompileOptions::new().option("-arch=sm_90a");
    /// assert_eq!(o.explicit_arch(), Some("sm_90a"));
    /// assert_eq!(o.nvrtc_flags("sm_90"), vec!["-arch=sm_90a", "--std=c++17"]);
    /// ```
    pub fn explicit_arch(&self) -> Option<&str> {
        self.options.iter().rev().find_map(|o| {
            [
                "-arch=",
                "--gpu-architecture=",
                "-arch ",
                "--gpu-architecture ",
            ]
            .iter()
            .find_map(|p| o.strip_prefix(p))
            .map(str::trim)
        })
    }

    /// The full NVRTC flag list for target `arch` (`sm_90` or `compute_90`; an `-arch=`
    /// among the options wins).
    pub fn nvrtc_flags(&self, arch: &str) -> Vec<String> {
        let arch = self.explicit_arch().unwrap_or(arch);
        let mut v = vec![format!("-arch={arch}")];
        if !self
            .options
            .iter()
            .any(|o| o.starts_with("-std") || o.starts_with("--std"))
        {
            v.push(format!("--std={}", self.std));
        }
        for p in &self.include_paths {
            v.push(format!("-I{}", p.display()));
        }
        let explicit = self.explicit_arch().is_some();
        v.extend(
            self.options
                .iter()
                .filter(|o| {
                    !explicit || !(o.starts_with("-arch") || o.starts_with("--gpu-architecture"))
                })
                .cloned(),
        );
        v
    }
}
