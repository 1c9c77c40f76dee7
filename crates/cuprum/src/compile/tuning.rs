//! The tuning file (`crate::tune` chooses, this keeps), `tune-v1.json` in the kernel
//! cache's folder: for each device key (GPU
//! model, driver CUDA version, cuprum version) and family, the winning candidate, its
//! margin and every candidate's time. A file that cannot be read or parsed counts as empty
//! (choices are advice: the next measurement writes a good one); writes go through a temp
//! file and a rename, so readers see the old file or the new one.

use super::cache::{KernelCache, write_atomic};
use crate::error::{Error, ErrorKind, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's name in the cache folder.
pub(crate) const STORE_FILE: &str = "tune-v1.json";

/// One candidate's values (`crate::tune::Params`).
pub(crate) type Params = [u32; 3];

/// One stored choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stored {
    pub params: Params,
    pub margin: Option<f64>,
    pub times_us: Vec<(Params, f64)>,
}

/// The whole file: device key → family → choice.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Store {
    devices: BTreeMap<String, BTreeMap<String, Stored>>,
}

impl Store {
    pub(crate) fn get(&self, key: &str, family: &str) -> Option<Stored> {
        self.devices.get(key)?.get(family).cloned()
    }

    /// How many choices it holds (families × devices).
    pub(crate) fn choices(&self) -> usize {
        self.devices.values().map(BTreeMap::len).sum()
    }
}

fn path() -> Option<PathBuf> {
    Some(KernelCache::global().ok()?.dir()?.join(STORE_FILE))
}

/// A tuning file's choices, or why `bytes` are not one.
pub(crate) fn parse(bytes: &[u8]) -> std::result::Result<Store, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("not a tuning file: {e}"))
}

/// The choices of the process-wide cache's tuning file (empty when there is no file, no
/// folder, or it does not parse).
pub(crate) fn load() -> Store {
    path().map(|p| load_from(&p)).unwrap_or_default()
}

fn load_from(p: &Path) -> Store {
    std::fs::read(p)
        .ok()
        .and_then(|b| parse(&b).ok())
        .unwrap_or_default()
}

fn write(p: &Path, store: &Store) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(store)
        .map_err(|e| Error::new(ErrorKind::Io, format!("tuning file: {e}")))?;
    write_atomic(p, &bytes).map_err(|e| {
        Error::new(
            ErrorKind::Io,
            format!("cannot write the tuning file {}: {e}", p.display()),
        )
        .with_source(e)
    })
}

/// Stores `family`'s winner for the device `key` (over an older one) in the process-wide
/// cache's folder (nothing when it is memory-only).
pub(crate) fn save(
    key: &str,
    family: &str,
    params: Params,
    margin: Option<f64>,
    times_us: &[(Params, f64)],
) -> Result<()> {
    let Some(p) = path() else {
        return Ok(());
    };
    let mut s = load_from(&p);
    s.devices.entry(key.to_owned()).or_default().insert(
        family.to_owned(),
        Stored {
            params,
            margin,
            times_us: times_us.to_vec(),
        },
    );
    write(&p, &s)
}

/// Merges a tuning file's `bytes` (from `cuprum cache import`) into the one in `dir`:
/// choices measured here are kept, the others added. Returns how many were added; bytes
/// that are not a tuning file are an `InvalidArgument` error.
pub(crate) fn merge_into(dir: &Path, bytes: &[u8]) -> Result<usize> {
    let theirs = parse(bytes)
        .map_err(|e| Error::new(ErrorKind::InvalidArgument, format!("{STORE_FILE}: {e}")))?;
    let p = dir.join(STORE_FILE);
    let mut ours = load_from(&p);
    let mut added = 0;
    for (key, families) in theirs.devices {
        let mine = ours.devices.entry(key).or_default();
        for (f, c) in families {
            if let std::collections::btree_map::Entry::Vacant(v) = mine.entry(f) {
                v.insert(c);
                added += 1;
            }
        }
    }
    if added > 0 {
        write(&p, &ours)?;
    }
    Ok(added)
}

/// The tuning file's bytes in the cache folder `dir` (`None`: no file).
pub(crate) fn file_bytes_in(dir: &Path) -> Option<Vec<u8>> {
    std::fs::read(dir.join(STORE_FILE)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_round_trips_through_json() {
        let mut s = Store::default();
        s.devices
            .entry("NVIDIA H200 | CUDA 13.0 | cuprum 0.1.0".into())
            .or_default()
            .insert(
                "scan.tile.4".into(),
                Stored {
                    params: [32, 4, 64],
                    margin: Some(0.031),
                    times_us: vec![([32, 4, 64], 60.5), ([24, 4, 64], 62.4)],
                },
            );
        let back: Store = serde_json::from_slice(&serde_json::to_vec(&s).unwrap()).unwrap();
        assert_eq!(
            back.get("NVIDIA H200 | CUDA 13.0 | cuprum 0.1.0", "scan.tile.4"),
            s.get("NVIDIA H200 | CUDA 13.0 | cuprum 0.1.0", "scan.tile.4")
        );
        assert_eq!(
            back.get("NVIDIA H200 | CUDA 13.0 | cuprum 0.1.0", "x"),
            None
        );
    }

    #[test]
    fn bytes_that_are_not_a_tuning_file_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let e = merge_into(t.path(), b"not json").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("tune-v1.json"), "{e}");
        assert!(!t.path().join(STORE_FILE).exists());
    }

    #[test]
    fn a_merge_keeps_choices_measured_here() {
        let t = tempfile::tempdir().unwrap();
        let stored = |p: Params| Stored {
            params: p,
            margin: None,
            times_us: Vec::new(),
        };
        let mut ours = Store::default();
        ours.devices
            .entry("GPU".into())
            .or_default()
            .insert("a".into(), stored([1, 0, 0]));
        write(&t.path().join(STORE_FILE), &ours).unwrap();
        let mut theirs = Store::default();
        let m = theirs.devices.entry("GPU".into()).or_default();
        m.insert("a".into(), stored([2, 0, 0]));
        m.insert("b".into(), stored([3, 0, 0]));
        let bytes = serde_json::to_vec(&theirs).unwrap();
        assert_eq!(merge_into(t.path(), &bytes).unwrap(), 1);
        let now = load_from(&t.path().join(STORE_FILE));
        assert_eq!(now.get("GPU", "a").unwrap().params, [1, 0, 0]);
        assert_eq!(now.get("GPU", "b").unwrap().params, [3, 0, 0]);
        assert_eq!(merge_into(t.path(), &bytes).unwrap(), 0);
    }
}
