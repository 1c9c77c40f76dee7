//! `cuprum cache stats|list|clear`: the persistent kernel cache.

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
        CacheCommand::Clear => {
            let n = cache.clear()?;
            out!("removed {n} entries from {}", dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
