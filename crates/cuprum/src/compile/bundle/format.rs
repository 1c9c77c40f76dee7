//! The bundle file: its bytes, written and read back with every check.
//!
//! Layout (little-endian): magic `CUPRUMB\0`, format version (`u32`,
//! [`BUNDLE_FORMAT_VERSION`]), a blake3 checksum (32 bytes) of everything after it, then
//! the payload: who made it (`cuprum x.y.z, NVRTC a.b`), the targets it holds (`sm_90`,
//! `compute_100`…), and the entries. An entry is the kernel's bundle key (32 bytes: the
//! cache key minus the NVRTC identity and the architecture, see `cache::kernel_id`), its
//! target, its name (for messages), a cubin/PTX flag, the lowered names of its name
//! expressions, and the image. Last (version 2), the tuning choices the bundle carries:
//! the bytes of a tuning file (`compile/tuning.rs`), empty when it carries none. Strings,
//! images and the choices are `u32`-length-prefixed. Version 1 (no choices) is still read.
//!
//! Reading checks, in order: the length of the header, the magic (a foreign file), the
//! version (a later format is refused, naming the versions read), the checksum (a truncated or
//! edited file), then every length against what is left; nothing may follow the last
//! entry. Every failure is an [`ErrorKind::Bundle`](crate::ErrorKind::Bundle) error naming
//! the file; nothing is trusted before the checksum holds.

use crate::compile::nvrtc::CompiledImage;
use crate::error::{Error, ErrorKind, Result};

/// The version of the bundle format this cuprum writes (it reads it and version 1, which
/// carries no tuning choices).
pub const BUNDLE_FORMAT_VERSION: u32 = 2;
const MAGIC: &[u8; 8] = b"CUPRUMB\0";
const HEADER: usize = 8 + 4 + 32;

/// One image of one kernel.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub id: [u8; 32],
    pub target: String,
    pub name: String,
    pub image: CompiledImage,
}

/// What a bundle file holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Contents {
    pub made_by: String,
    pub targets: Vec<String>,
    pub entries: Vec<Entry>,
    /// A tuning file's bytes (`compile/tuning.rs`), empty when the bundle carries no
    /// choices.
    pub tuning: Vec<u8>,
}

fn put(buf: &mut Vec<u8>, bytes: &[u8]) -> Result<()> {
    let n = u32::try_from(bytes.len()).map_err(|_| {
        Error::new(
            ErrorKind::Bundle,
            format!("a bundle field of {} bytes is over 4 GiB", bytes.len()),
        )
    })?;
    buf.extend_from_slice(&n.to_le_bytes());
    buf.extend_from_slice(bytes);
    Ok(())
}

fn count(buf: &mut Vec<u8>, n: usize) -> Result<()> {
    let n = u32::try_from(n)
        .map_err(|_| Error::new(ErrorKind::Bundle, format!("{n} items are too many")))?;
    buf.extend_from_slice(&n.to_le_bytes());
    Ok(())
}

/// The bytes of a bundle holding `c`.
pub(crate) fn encode(c: &Contents) -> Result<Vec<u8>> {
    let mut p = Vec::new();
    put(&mut p, c.made_by.as_bytes())?;
    count(&mut p, c.targets.len())?;
    for t in &c.targets {
        put(&mut p, t.as_bytes())?;
    }
    count(&mut p, c.entries.len())?;
    for e in &c.entries {
        p.extend_from_slice(&e.id);
        put(&mut p, e.target.as_bytes())?;
        put(&mut p, e.name.as_bytes())?;
        p.push(u8::from(e.image.is_cubin));
        count(&mut p, e.image.lowered_names.len())?;
        for (x, l) in &e.image.lowered_names {
            put(&mut p, x.as_bytes())?;
            put(&mut p, l.as_bytes())?;
        }
        put(&mut p, &e.image.image)?;
    }
    put(&mut p, &c.tuning)?;
    let mut out = Vec::with_capacity(HEADER + p.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&BUNDLE_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(blake3::hash(&p).as_bytes());
    out.extend_from_slice(&p);
    Ok(out)
}

fn bad(origin: &str, why: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Bundle, format!("kernel bundle {origin}: {why}"))
}

/// Reads a bundle's bytes (`origin` names it in errors: a path, or "embedded").
pub(crate) fn decode(bytes: &[u8], origin: &str) -> Result<Contents> {
    if bytes.len() < HEADER {
        if !bytes.is_empty() && !MAGIC.starts_with(&bytes[..bytes.len().min(8)]) {
            return Err(bad(
                origin,
                "not a cuprum kernel bundle (wrong magic bytes)",
            ));
        }
        return Err(bad(
            origin,
            format!(
                "truncated: {} bytes, shorter than the {HEADER}-byte header",
                bytes.len()
            ),
        ));
    }
    if &bytes[..8] != MAGIC {
        return Err(bad(
            origin,
            "not a cuprum kernel bundle (wrong magic bytes; expected a file written by \
             `cuprum bundle build`)",
        ));
    }
    let mut v = [0u8; 4];
    v.copy_from_slice(&bytes[8..12]);
    let version = u32::from_le_bytes(v);
    if !(1..=BUNDLE_FORMAT_VERSION).contains(&version) {
        return Err(bad(
            origin,
            format!(
                "format version {version}, but this cuprum reads versions 1 to \
                 {BUNDLE_FORMAT_VERSION} only: rebuild it with this cuprum's `cuprum bundle build`"
            ),
        ));
    }
    let payload = &bytes[HEADER..];
    if blake3::hash(payload).as_bytes() != &bytes[12..HEADER] {
        return Err(bad(
            origin,
            "checksum mismatch: the file is truncated, damaged or was edited",
        ));
    }
    parse(payload, version).ok_or_else(|| bad(origin, "malformed contents behind a valid checksum"))
}

/// The payload of a bundle of format `version`, every length checked; `None` for anything
/// malformed.
fn parse(payload: &[u8], version: u32) -> Option<Contents> {
    let mut cur = Cursor { rest: payload };
    let made_by = cur.string()?;
    let nt = cur.u32()?;
    let mut targets = Vec::with_capacity(nt.min(64));
    for _ in 0..nt {
        targets.push(cur.string()?);
    }
    let ne = cur.u32()?;
    let mut entries = Vec::with_capacity(ne.min(4096));
    for _ in 0..ne {
        let id: [u8; 32] = cur.take(32)?.try_into().ok()?;
        let target = cur.string()?;
        let name = cur.string()?;
        let is_cubin = match cur.take(1)? {
            [0] => false,
            [1] => true,
            _ => return None,
        };
        let nn = cur.u32()?;
        let mut lowered_names = Vec::with_capacity(nn.min(1024));
        for _ in 0..nn {
            lowered_names.push((cur.string()?, cur.string()?));
        }
        let image = cur.chunk()?.to_vec();
        entries.push(Entry {
            id,
            target,
            name,
            image: CompiledImage {
                image,
                is_cubin,
                lowered_names,
                log: String::new(),
            },
        });
    }
    let tuning = if version >= 2 {
        cur.chunk()?.to_vec()
    } else {
        Vec::new()
    };
    if !cur.rest.is_empty() {
        return None;
    }
    Some(Contents {
        made_by,
        targets,
        entries,
        tuning,
    })
}

struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (a, b) = self.rest.split_at_checked(n)?;
        self.rest = b;
        Some(a)
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn chunk(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.chunk()?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Contents {
        Contents {
            made_by: "cuprum test".into(),
            targets: vec!["sm_90".into(), "compute_90".into()],
            entries: vec![Entry {
                id: [3; 32],
                target: "sm_90".into(),
                name: "k<float>".into(),
                image: CompiledImage {
                    image: b"\x7fELF cubin".to_vec(),
                    is_cubin: true,
                    lowered_names: vec![("k<float>".into(), "_Z1kIfEvv".into())],
                    log: String::new(),
                },
            }],
            tuning: br#"{"devices": {}}"#.to_vec(),
        }
    }

    #[test]
    fn round_trip() {
        let b = encode(&sample()).unwrap();
        let c = decode(&b, "t").unwrap();
        assert_eq!(c.made_by, "cuprum test");
        assert_eq!(c.targets, ["sm_90", "compute_90"]);
        assert_eq!(c.entries.len(), 1);
        let e = &c.entries[0];
        assert_eq!(
            (e.id, e.target.as_str(), e.name.as_str()),
            ([3; 32], "sm_90", "k<float>")
        );
        assert_eq!(e.image.image, b"\x7fELF cubin");
        assert_eq!(c.tuning, br#"{"devices": {}}"#);
        assert_eq!(
            e.image.lowered_names,
            sample().entries[0].image.lowered_names
        );
    }

    /// A version-1 bundle (no tuning section) still reads, with no choices.
    #[test]
    fn a_version_1_bundle_still_reads() {
        let c = Contents {
            tuning: Vec::new(),
            ..sample()
        };
        let v2 = encode(&c).unwrap();
        // Version 1's payload is version 2's without the (empty) tuning chunk.
        let payload = &v2[HEADER..v2.len() - 4];
        let mut v1 = MAGIC.to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(blake3::hash(payload).as_bytes());
        v1.extend_from_slice(payload);
        let back = decode(&v1, "v1").unwrap();
        assert_eq!((back.entries.len(), back.tuning.len()), (1, 0));
        assert_eq!(back.targets, ["sm_90", "compute_90"]);
        let later = [&MAGIC[..], &3u32.to_le_bytes(), &v1[12..]].concat();
        let e = decode(&later, "v3").unwrap_err();
        assert!(
            e.to_string()
                .contains("format version 3, but this cuprum reads versions 1 to 2 only"),
            "{e}"
        );
    }

    #[test]
    fn every_truncation_and_flipped_byte_is_a_typed_error() {
        let b = encode(&sample()).unwrap();
        for n in 0..b.len() {
            let e = decode(&b[..n], "t").unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Bundle, "{n}: {e}");
        }
        for i in 0..b.len() {
            let mut x = b.clone();
            x[i] ^= 0x21;
            let e = decode(&x, "t").unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Bundle, "{i}: {e}");
        }
    }

    #[test]
    fn malformed_payload_behind_a_valid_checksum_is_rejected() {
        let good = encode(&sample()).unwrap();
        let mut payload = good[HEADER..].to_vec();
        payload.push(0);
        let mut b = good[..12].to_vec();
        b.extend_from_slice(blake3::hash(&payload).as_bytes());
        b.extend_from_slice(&payload);
        let e = decode(&b, "x.bundle").unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel bundle x.bundle: malformed contents behind a valid checksum"
        );
    }
}
