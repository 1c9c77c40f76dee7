//! The kernel bundle reader, on whatever a bundle file may hold: never a panic, an
//! `ErrorKind::Bundle` error for anything malformed. Half of the inputs are read as they
//! are (the checksum then fails almost always); the other half are wrapped in a valid
//! header and checksum first, so the payload parser behind it sees arbitrary bytes too.
//!
//! Input: one mode byte (bit 0: wrap), then the file bytes (or the payload).
#![no_main]

use cuprum::bundle::{BUNDLE_FORMAT_VERSION, Bundle};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 1 {
        let mut b = b"CUPRUMB\0".to_vec();
        b.extend_from_slice(&BUNDLE_FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(blake3::hash(rest).as_bytes());
        b.extend_from_slice(rest);
        b
    } else {
        rest.to_vec()
    };
    match Bundle::from_bytes(&bytes, "fuzz") {
        Ok(b) => assert!(b.images() >= b.kernels()),
        Err(e) => assert_eq!(e.kind(), cuprum::ErrorKind::Bundle, "{e}"),
    }
});
