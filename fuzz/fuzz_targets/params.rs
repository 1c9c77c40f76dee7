//! The parameter-list parser (`"float32 x, raw T y, _non_const U z"`): never a panic; what
//! parses is C identifiers with known types, and printing it back parses to the same list.
#![no_main]

use cuprum::kernel::{ParamList, ParamType, parse_params};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // First byte: inputs (bit 0) or outputs; the rest: the list.
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(list) = std::str::from_utf8(rest) else {
        return;
    };
    let inputs = flags & 1 == 1;
    let which = if inputs {
        ParamList::Inputs
    } else {
        ParamList::Outputs
    };
    let Ok(params) = parse_params(list, which) else {
        return;
    };
    let printed: Vec<String> = params
        .iter()
        .map(|p| {
            let mut s = String::new();
            if p.raw {
                s.push_str("raw ");
            }
            if inputs && !p.is_const {
                s.push_str("_non_const ");
            }
            match p.ty {
                ParamType::Concrete(d) => s.push_str(d.name()),
                ParamType::Placeholder(c) => {
                    assert!(c.is_ascii_alphabetic(), "placeholder {c:?}");
                    s.push(c);
                }
            }
            assert!(
                p.name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && !p.name.starts_with(|c: char| c.is_ascii_digit())
                    && !p.name.is_empty(),
                "name {:?}",
                p.name
            );
            assert!(!inputs || p.is_const || list.contains("_non_const"));
            s.push(' ');
            s.push_str(&p.name);
            s
        })
        .collect();
    let again = parse_params(&printed.join(", "), which)
        .unwrap_or_else(|e| panic!("{printed:?} printed from {list:?} does not parse: {e}"));
    assert_eq!(again, params, "{list:?}");
});
