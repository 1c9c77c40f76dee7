//! `cuprum cache stats|list|clear|export|import`: the persistent kernel cache.

use clap::Subcommand;
use cuprum::compile::{CACHE_FORMAT_VERSION, KernelCache};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum CacheCommand {
    /// Folder, number of entries and bytes, and this process's hit/miss counts.
    Stats,
    /// Every entry with its size.
    List,
    /// Delete every entry.
    Clear,
    /// Pack every GPU entry into one checksummed file, for another machine of the same
    /// architecture and NVRTC (a CI or container image).
    Export {
        /// The archive to write.
        file: std::path::PathBuf,
    },
    /// Merge an archive written by `cuprum cache export` into the cache (atomic per entry:
    /// safe with processes using the cache).
    Import {
        /// The archive to read.
        file: std::path::PathBuf,
    },
}

pub fn run(cmd: &CacheCommand) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let cache = KernelCache::global()?;
    let Some(dir) = cache.dir() else {
        out!("kernel cache: memory only (CUPRUM_CACHE_IN_MEMORY=1): nothing on disk");
        return Ok(ExitCode::SUCCESS);
    };
    match cmd {
        CacheCommand::Stats => {
            let entries = cache.entries()?;
            let bytes: u64 = entries.iter().map(|e| e.bytes).sum();
            let s = cache.stats();
            out!(
                "folder:   {} (format {CACHE_FORMAT_VERSION})",
                dir.display()
            );
            out!("entries:  {}", entries.len());
            out!("bytes:    {bytes}");
            out!(
                "this process: {} memory hits, {} disk hits, {} misses, {} writes, {} corrupt",
                s.memo_hits,
                s.disk_hits,
                s.misses,
                s.disk_writes,
                s.corrupt_entries
            );
        }
        CacheCommand::List => {
            for e in cache.entries()? {
                out!("{:>10}  {}", e.bytes, e.path.display());
            }
        }
        CacheCommand::Export { file } => {
            let n = cache.export(file)?;
            out!(
                "exported {n} entries from {} to {}",
                dir.display(),
                file.display()
            );
        }
        CacheCommand::Import { file } => {
            let (new, same) = cache.import(file)?;
            out!(
                "imported {new} entries into {} ({same} already there)",
                dir.display()
            );
        }
        CacheCommand::Clear => {
            let n = cache.clear()?;
            out!("removed {n} entries from {}", dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
