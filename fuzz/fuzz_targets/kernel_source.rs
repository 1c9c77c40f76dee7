//! ElementwiseKernel and ReductionKernel definitions (parameter lists, operation, map /
//! reduce / post-map expressions, identity, preamble, loop prologue and epilogue, reduction
//! type) up to the CUDA source of every specialisation layout: never a panic, and the
//! user's text reaches the source as code generation promises (blocks verbatim; the
//! operation without trailing blanks; macro bodies trimmed and on one line). No NVRTC.
//!
//! Input: one flags byte, then fields separated by NUL bytes:
//! in_params, out_params, operation-or-map, name, preamble, loop_prep-or-reduce,
//! after_loop-or-post_map, identity, reduce_type, dtypes (one byte each, an index into
//! `DType::ALL`), scalars (one byte each, bit 0). Flags: bit 0 reduction, bit 1 identity
//! given, bit 2 reduce_type given, bits 3-7 the specialisation layout (or reduction shape)
//! generated besides `generated_source`'s.
#![no_main]

use cuprum::internal::{elementwise_source_for_fuzzing, reduction_source_for_fuzzing};
use cuprum::{DType, ElementwiseKernel, ReductionKernel};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut fields = rest.split(|&b| b == 0);
    let mut text = || {
        fields
            .next()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .unwrap_or_default()
    };
    let (inp, out, op, name) = (text(), text(), text(), text());
    let (preamble, second, third) = (text(), text(), text());
    let (identity, reduce_type) = (text(), text());
    let dtypes: Vec<DType> = text()
        .bytes()
        .map(|b| DType::ALL[b as usize % DType::ALL.len()])
        .collect();
    let scalars: Vec<bool> = text().bytes().map(|b| b & 1 == 1).collect();
    let layout = usize::from(flags >> 3);

    if flags & 1 == 0 {
        let Ok(k) = ElementwiseKernel::new(&inp, &out, op.clone(), name) else {
            return;
        };
        let k = k
            .preamble(preamble.clone())
            .loop_prep(second.clone())
            .after_loop(third.clone());
        let check = |src: &str| {
            assert!(src.contains(op.trim_end()), "{op:?} missing from\n{src}");
            for block in [&preamble, &second, &third] {
                assert!(
                    block.trim().is_empty() || src.contains(block.as_str()),
                    "{block:?} missing from\n{src}"
                );
            }
        };
        if let Ok(src) = k.generated_source(&dtypes, &scalars) {
            check(&src);
        }
        if let Ok(src) = elementwise_source_for_fuzzing(&k, &dtypes, &scalars, layout) {
            check(&src);
        }
    } else {
        let identity = (flags & 2 != 0).then_some(identity.as_str());
        let Ok(mut k) = ReductionKernel::new(
            &inp,
            &out,
            op.clone(),
            second.clone(),
            third.clone(),
            identity,
            name,
        ) else {
            return;
        };
        k = k.preamble(preamble.clone());
        if flags & 4 != 0 {
            k = k.reduce_type(reduce_type);
        }
        // One-line macro bodies: trimmed, newlines as spaces.
        let line = |t: &str| t.trim().replace(['\n', '\r'], " ");
        let check = |src: &str| {
            for (what, text) in [
                ("map", op.trim().to_string()),
                ("reduce", line(&second)),
                ("post_map", line(second_trim(&third))),
                ("preamble", preamble.clone()),
            ] {
                assert!(
                    text.trim().is_empty() || src.contains(text.as_str()),
                    "{what} {text:?} missing from\n{src}"
                );
            }
        };
        if let Ok(src) = k.generated_source(&dtypes, &scalars) {
            check(&src);
        }
        if let Ok(src) = reduction_source_for_fuzzing(&k, &dtypes, &scalars, layout) {
            check(&src);
        }
    }
});

/// The post-map expression as the generator takes it: trimmed, without trailing `;`.
fn second_trim(t: &str) -> &str {
    t.trim().trim_end_matches(';')
}
