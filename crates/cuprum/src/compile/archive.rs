//! The kernel cache, relocatable: `cuprum cache export <file>` packs every GPU entry of
//! the disk cache, and the tuning file (`tuning.rs`: the kernels' shapes measured per GPU
//! model), into one checksummed file; `cuprum cache import <file>` unpacks it into another
//! machine's cache (CI images, containers), merging the tuning file into the one there.
//!
//! Entries are keyed by everything that decides the output, the NVRTC library included
//! (`cache.rs`): an imported entry is used where the same NVRTC build sits at the same
//! path — a container or CI image built the same way — and for the same architecture;
//! elsewhere it is simply never looked up. The host device's shared objects are not
//! exported (they depend on the machine's C++ compiler and C library).
//!
//! The archive: magic `CUPRUMC\0`, format version (`u32`: 2; version 1, without a tuning
//! file, is read too), blake3 of the payload, then a count and `(entry name, entry bytes)`
//! pairs, `u32`-length-prefixed. Import checks the magic, version and checksum, that each
//! name is a cache entry's name (`xx/<64 hex>.cubin`) or the tuning file's (nothing else: no
//! path can escape the folder), that each entry decodes under the key its name states (its
//! own checksum) and that the tuning file parses — before writing anything. Each entry is then written
//! as the cache writes its own (a temp file in the same owner-only folder, renamed into
//! place), so processes using the cache meanwhile see the old entry or the new one, never
//! a part. A folder that cannot be written is an `Io` error naming it.

use super::cache::{KernelCache, Read, decode, read_trusted, write_atomic};
use super::tuning::{self, STORE_FILE};
use crate::error::{Error, ErrorKind, Result, bail};
use std::path::Path;

const MAGIC: &[u8; 8] = b"CUPRUMC\0";
const VERSION: u32 = 2;
const HEADER: usize = 8 + 4 + 32;

fn put(buf: &mut Vec<u8>, bytes: &[u8]) -> Result<()> {
    let n = u32::try_from(bytes.len())
        .map_err(|_| Error::new(ErrorKind::Io, "a cache entry over 4 GiB"))?;
    buf.extend_from_slice(&n.to_le_bytes());
    buf.extend_from_slice(bytes);
    Ok(())
}

/// The key named by an entry's relative name `xx/<64 hex>.cubin`, or `None`.
fn key_of(name: &str) -> Option<[u8; 32]> {
    let (shard, file) = name.split_once('/')?;
    let hex = file.strip_suffix(".cubin")?;
    if hex.len() != 64 || !hex.starts_with(shard) || shard.len() != 2 {
        return None;
    }
    let mut key = [0u8; 32];
    for (i, k) in key.iter_mut().enumerate() {
        let pair = hex.get(2 * i..2 * i + 2)?;
        if !pair
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        *k = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(key)
}

fn archive_err(file: &Path, why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::InvalidArgument,
        format!("cache archive {}: {why}", file.display()),
    )
}

/// Packs every GPU entry of the process-wide kernel cache into `file`; returns how many.
/// See [`KernelCache::export`].
///
/// ```no_run
/// let n = cuprum::compile::export_cache(std::path::Path::new("kernels.cuprum-cache"))?;
/// println!("{n} kernels exported");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn export_cache(file: &Path) -> Result<usize> {
    KernelCache::global()?.export(file)
}

/// Merges an archive written by [`export_cache`] into the process-wide kernel cache;
/// returns `(written, already there)`. See [`KernelCache::import`].
///
/// ```no_run
/// let (new, same) = cuprum::compile::import_cache(std::path::Path::new("kernels.cuprum-cache"))?;
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn import_cache(file: &Path) -> Result<(usize, usize)> {
    KernelCache::global()?.import(file)
}

impl KernelCache {
    /// Packs every GPU entry of this cache's folder (valid ones only: each is checked
    /// against its key) and its tuning file into `file`, written through a temp file and a
    /// rename. Returns how many kernel entries it holds.
    ///
    /// ```
    /// use cuprum::compile::KernelCache;
    /// let t = tempfile::tempdir()?;
    /// let cache = KernelCache::new(Some(t.path().join("cache")));
    /// let file = t.path().join("empty.cuprum-cache");
    /// assert_eq!(cache.export(&file)?, 0);
    /// let other = KernelCache::new(Some(t.path().join("other")));
    /// assert_eq!(other.import(&file)?, (0, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn export(&self, file: &Path) -> Result<usize> {
        let Some(dir) = self.dir() else {
            bail!(
                InvalidArgument,
                "the kernel cache is memory-only (CUPRUM_CACHE_IN_MEMORY or set_cache_dir(None)): \
                 there is no disk cache to export"
            );
        };
        let mut payload = Vec::new();
        let mut n = 0usize;
        let mut body = Vec::new();
        for e in self.entries()? {
            let Ok(rel) = e.path.strip_prefix(&dir) else {
                continue;
            };
            let name = rel.to_string_lossy().replace('\\', "/");
            let Some(key) = key_of(&name) else { continue };
            let Read::Bytes(bytes) = read_trusted(&e.path) else {
                continue;
            };
            if decode(&bytes, &key).is_none() {
                continue;
            }
            put(&mut body, name.as_bytes())?;
            put(&mut body, &bytes)?;
            n += 1;
        }
        let tune = tuning::file_bytes_in(&dir).filter(|b| tuning::parse(b).is_ok());
        if let Some(t) = &tune {
            put(&mut body, STORE_FILE.as_bytes())?;
            put(&mut body, t)?;
        }
        let count = n + usize::from(tune.is_some());
        payload.extend_from_slice(&(count as u32).to_le_bytes());
        payload.extend_from_slice(&body);
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(blake3::hash(&payload).as_bytes());
        out.extend_from_slice(&payload);
        write_file(file, &out)?;
        Ok(n)
    }

    /// Merges an archive written by [`export`](Self::export) into this cache's folder:
    /// everything is checked first (magic, version, checksum, names, each entry under its
    /// key), then each entry not already there is written atomically, and the choices of
    /// the archive's tuning file that this folder's lacks are added to it. Returns
    /// `(written, already there)`, counting kernel entries. A damaged archive writes nothing; a folder that cannot be written
    /// is an `Io` error naming it.
    pub fn import(&self, file: &Path) -> Result<(usize, usize)> {
        let Some(dir) = self.dir() else {
            bail!(
                InvalidArgument,
                "the kernel cache is memory-only (CUPRUM_CACHE_IN_MEMORY or set_cache_dir(None)): \
                 there is no disk cache to import into"
            );
        };
        let bytes = std::fs::read(file).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot read cache archive {}: {e}", file.display()),
            )
            .with_source(e)
        })?;
        let entries = parse(&bytes).map_err(|why| archive_err(file, why))?;
        let (mut written, mut same) = (0, 0);
        for (name, key, entry) in entries {
            let Some(key) = key else {
                tuning::merge_into(&dir, entry)?;
                continue;
            };
            let path = dir.join(&name);
            if matches!(read_trusted(&path), Read::Bytes(b) if b == entry) {
                same += 1;
                continue;
            }
            debug_assert_eq!(key_of(&name), Some(key));
            write_atomic(&path, entry).map_err(|e| {
                Error::new(
                    ErrorKind::Io,
                    format!(
                        "cannot import into the kernel cache folder {}: {e} (expected a \
                         writable folder; set CUPRUM_CACHE_DIR to one)",
                        dir.display()
                    ),
                )
                .with_source(e)
            })?;
            written += 1;
        }
        Ok((written, same))
    }
}

/// An archive's entries: `(name, key, entry bytes)`; the tuning file has no key.
type Entries<'a> = Vec<(String, Option<[u8; 32]>, &'a [u8])>;

/// The archive's entries, every check done; the reason when any fails.
fn parse(bytes: &[u8]) -> std::result::Result<Entries<'_>, String> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err(if bytes.starts_with(MAGIC) {
            "truncated".into()
        } else {
            "not a cuprum cache archive (wrong magic bytes; expected a file written by \
             `cuprum cache export`)"
                .into()
        });
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION && version != 1 {
        return Err(format!(
            "format version {version}, but this cuprum reads versions 1 to {VERSION}"
        ));
    }
    let payload = &bytes[HEADER..];
    if blake3::hash(payload).as_bytes() != &bytes[12..HEADER] {
        return Err("checksum mismatch: the file is truncated, damaged or was edited".into());
    }
    let mut r = payload;
    let mut take = |n: usize| -> std::result::Result<&[u8], String> {
        let (a, b) = r
            .split_at_checked(n)
            .ok_or_else(|| "malformed contents behind a valid checksum".to_string())?;
        r = b;
        Ok(a)
    };
    let len = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    let count = len(take(4)?);
    let mut out = Vec::with_capacity(count.min(65536));
    for _ in 0..count {
        let n = len(take(4)?);
        let name = std::str::from_utf8(take(n)?)
            .map_err(|_| "an entry name is not UTF-8".to_string())?
            .to_string();
        let key = key_of(&name);
        if key.is_none() && name != STORE_FILE {
            return Err(format!("{name:?} is not a cache entry's name"));
        }
        let n = len(take(4)?);
        let entry = take(n)?;
        match key {
            Some(k) if decode(entry, &k).is_none() => {
                return Err(format!("entry {name} does not match its key"));
            }
            None => {
                tuning::parse(entry).map_err(|e| format!("{STORE_FILE}: {e}"))?;
            }
            _ => {}
        }
        out.push((name, key, entry));
    }
    if !r.is_empty() {
        return Err("malformed contents behind a valid checksum".into());
    }
    Ok(out)
}

/// Writes `bytes` to `file` through a temp file beside it and a rename.
fn write_file(file: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let io = |e: std::io::Error| {
        Error::new(
            ErrorKind::Io,
            format!("cannot write {}: {e}", file.display()),
        )
        .with_source(e)
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(&mut tmp, bytes).map_err(io)?;
    tmp.persist(file).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_checked() {
        let hex = "ab".repeat(32);
        assert_eq!(key_of(&format!("ab/{hex}.cubin")), Some([0xab; 32]));
        assert_eq!(key_of(&format!("cd/{hex}.cubin")), None);
        assert_eq!(key_of(&format!("ab/{hex}.so")), None);
        assert_eq!(key_of(&format!("../{hex}.cubin")), None);
        assert_eq!(key_of(&format!("ab/{}.cubin", "AB".repeat(32))), None);
        assert_eq!(key_of("ab"), None);
    }

    #[test]
    fn damaged_archives_are_refused() {
        assert!(
            parse(b"")
                .unwrap_err()
                .contains("not a cuprum cache archive")
        );
        let mut good = MAGIC.to_vec();
        good.extend_from_slice(&VERSION.to_le_bytes());
        let payload = 0u32.to_le_bytes();
        good.extend_from_slice(blake3::hash(&payload).as_bytes());
        good.extend_from_slice(&payload);
        assert!(parse(&good).unwrap().is_empty());
        for n in 0..good.len() {
            assert!(parse(&good[..n]).is_err(), "{n}");
        }
        let mut edited = good.clone();
        *edited.last_mut().unwrap() ^= 1;
        assert!(parse(&edited).unwrap_err().contains("checksum"));
        let mut later = good.clone();
        later[8] = 9;
        assert!(parse(&later).unwrap_err().contains("version 9"));
    }
}
