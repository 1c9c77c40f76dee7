//! The kernel cache's entry decoder, on whatever a cache file may hold: never a panic, and
//! `Some` only for a well-formed entry. Half of the inputs are decoded as they are (the
//! checksum then fails almost always); the other half are wrapped in a valid header and
//! checksum first, so the payload parser behind it sees arbitrary bytes too. What decodes is
//! re-encoded and must give the same bytes.
//!
//! Input: one mode byte (bit 0: wrap), then the file bytes (or the payload).
#![no_main]

use cuprum::compile::CACHE_FORMAT_VERSION;
use cuprum::internal::{decode_cache_entry, encode_cache_entry};
use libfuzzer_sys::fuzz_target;

const KEY: [u8; 32] = [0x5a; 32];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 1 {
        let mut b = b"CUPRUMK\0".to_vec();
        b.extend_from_slice(&CACHE_FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(blake3::keyed_hash(&KEY, rest).as_bytes());
        b.extend_from_slice(rest);
        b
    } else {
        rest.to_vec()
    };
    if let Some(img) = decode_cache_entry(&bytes, &KEY) {
        // Trailing bytes after the image are not part of an entry.
        assert_eq!(encode_cache_entry(&img, &KEY), bytes);
    }
});
