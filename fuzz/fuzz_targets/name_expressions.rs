//! Name expressions (`"scale<float, 4>"`) and compile options on the host side. cuprum does
//! not parse a name expression itself: NVRTC does. What the host does with them is turn
//! them into C strings for NVRTC, hash them into the cache key, store each (expression,
//! lowered name) pair in the cache entry and look kernels up by them. Never a panic; keys
//! are deterministic and tell apart different expression lists; the pairs survive the
//! entry's round trip byte for byte. No NVRTC, no GPU.
//!
//! Input: fields separated by NUL bytes: source, then alternately a name expression and
//! its lowered name, ...; a field starting with `-` is a compile option instead.
#![no_main]

use cuprum::CompileOptions;
use cuprum::compile::{CompiledImage, KernelCache};
use cuprum::internal::{decode_cache_entry, encode_cache_entry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut fields = data
        .split(|&b| b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let source = fields.next().unwrap_or_default();
    let mut opts = CompileOptions::new();
    let mut exprs: Vec<String> = Vec::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut pending: Option<String> = None;
    for f in fields {
        if f.starts_with('-') {
            opts = opts.option(f);
        } else if let Some(e) = pending.take() {
            pairs.push((e, f));
        } else {
            opts = opts.name_expression(f.clone());
            exprs.push(f.clone());
            pending = Some(f);
        }
    }
    let _ = opts.nvrtc_flags("sm_90");
    let key = KernelCache::key(&source, &opts, 90);
    // One expression more is another key (and so keys are not constant).
    let more = opts
        .clone()
        .name_expression(exprs.first().cloned().unwrap_or_default());
    assert_ne!(key, KernelCache::key(&source, &more, 90));

    let img = CompiledImage {
        image: source.clone().into_bytes(),
        is_cubin: false,
        lowered_names: pairs,
        log: String::new(),
    };
    let bytes = encode_cache_entry(&img, &key);
    let back = decode_cache_entry(&bytes, &key).expect("an entry decodes under its key");
    assert_eq!(back.lowered_names, img.lowered_names);
    assert_eq!(back.image, img.image);
    assert!(!back.is_cubin);
});
