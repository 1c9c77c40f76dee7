//! NVRTC and ptxas logs as cuprum reads them: the diagnostics of a compile error
//! (`file(line): error: message`) and ptxas' per-kernel resource report. Logs carry user
//! text (`#error` messages, kernel names), so they are input like any other: never a panic,
//! and every diagnostic found is a line of the log.
//!
//! Input: the log; after a NUL byte, the source the error points into.
#![no_main]

use cuprum::compile::{CompileFailure, resource_usage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (log, source) = text.split_once('\0').unwrap_or((&text, ""));
    let _ = resource_usage(log);
    let f = CompileFailure {
        name: "kernel.cu".into(),
        options: vec!["-arch=sm_90".into()],
        log: log.into(),
        source: source.into(),
        spans: Vec::new(),
        compiler: "NVRTC".into(),
    };
    for d in f.diagnostics() {
        assert!(
            log.lines()
                .any(|l| l.starts_with(&d.file) && l.contains(&d.message)),
            "{d:?} is not a line of the log"
        );
    }
    let _ = f.errors();
    let _ = f.dump();
});
