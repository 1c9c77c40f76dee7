//! The bookkeeping of the freed-block cache, as pure code (no backend call): size classes,
//! a least-recently-freed cache with a byte cap, the list of other streams a buffer was
//! used on, and the pool policy; [`DeviceMemory`] holds one device's share of them.
//! `memory.rs` makes the backend calls around it.
//!
//! **Size classes.** A request is rounded up to its class: 512-byte steps up to 1 MiB, then
//! four classes per power of two (at most 25 % slack), like CuPy's arena bins. Above the
//! largest cached block (256 MiB) requests are only rounded to 512 bytes. The block of a
//! class is allocated at the class size, so any request of the class can reuse it; the
//! buffer records that real size.
//!
//! **Cache.** Freed blocks are kept per class, newest first for reuse, and the oldest
//! blocks of the whole cache are evicted when a new one would exceed the cap (1 GiB, at
//! most a sixteenth of the device; blocks above 256 MiB are never kept). Random sizes
//! therefore no longer pin dead blocks: the cache holds at most `cap` bytes and turns over.
//! (The earlier design — exact-size keys, a 4 GiB cap, no eviction — left 15–19 GiB
//! reserved and growing after 200k cycles of random 1 B–64 MiB sizes.)
//!
//! **Pool policy** ([`PoolPolicy`]). The driver pool's release threshold follows the peak
//! of what the library holds (live buffers and cache) with 25 % headroom, starting at
//! 256 MiB, so it changes rarely; after every `max(threshold, 1 GiB)` of new driver
//! allocations the pool is trimmed to that peak, so reserved memory stays bounded even in a
//! program that never synchronises.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::VecDeque;
use std::sync::Mutex;

/// Allocation granularity (and the class step below [`SMALL_LIMIT`]).
pub(crate) const GRANULE: usize = 512;
/// Requests up to this size use 512-byte classes.
pub(crate) const SMALL_LIMIT: usize = 1 << 20;
/// Classes per power of two above [`SMALL_LIMIT`].
const CLASSES_PER_DOUBLING: usize = 4;
/// Largest block the cache keeps (and the largest class).
pub(crate) const CACHE_MAX_BLOCK: usize = 256 << 20;
/// Most bytes the cache of one device holds.
pub(crate) const CACHE_CAP: usize = 1 << 30;

/// The block size a request of `bytes` (> 0) gets: its size class up to
/// [`CACHE_MAX_BLOCK`], else `bytes` rounded up to 512. `None` when rounding overflows.
///
/// Classes: 512-byte steps up to 1 MiB; above, for `bytes` in `(2^k, 2^(k+1)]`, steps of
/// `2^k / 4`: 1.25, 1.5, 1.75 and 2 MiB, then 2.5, 3, 3.5, 4 MiB, and so on.
pub(crate) fn size_class(bytes: usize) -> Option<usize> {
    if bytes <= SMALL_LIMIT || bytes > CACHE_MAX_BLOCK {
        return round_up(bytes, GRANULE);
    }
    // bytes in (2^k, 2^(k+1)]: 2^k is the highest power of two below bytes.
    let low = 1usize << (usize::BITS - 1 - (bytes - 1).leading_zeros());
    round_up(bytes, low / CLASSES_PER_DOUBLING)
}

fn round_up(bytes: usize, step: usize) -> Option<usize> {
    bytes.checked_next_multiple_of(step)
}

/// Freed blocks of one device, by size class, with a byte cap and least-recently-freed
/// eviction. Blocks are device addresses; the cache never touches them.
///
/// Every block gets a stamp (increasing). Each bin holds its blocks oldest first; `order`
/// lists (stamp, class) of every block given, oldest first. Taking a block leaves its
/// `order` entry behind (stale): an entry is live exactly when its stamp is the front of
/// its bin at the time it reaches the front of `order`, because everything older was
/// evicted before it. Stale entries are dropped when `order` grows past twice the blocks
/// held. So the fast path (take, give under the cap) is a hash lookup and a push or pop,
/// with no allocation once the queues have grown.
#[derive(Debug)]
pub(crate) struct BlockCache {
    /// Class → (stamp, address), oldest first.
    bins: FxHashMap<usize, VecDeque<(u64, u64)>>,
    /// (stamp, class) of given blocks, oldest first; some entries are stale.
    order: VecDeque<(u64, usize)>,
    blocks: usize,
    bytes: usize,
    next: u64,
    cap: usize,
}

/// Blocks an operation evicted, as (address, class): the caller gives them back to the
/// driver.
pub(crate) type Evicted = SmallVec<[(u64, usize); 4]>;

impl BlockCache {
    /// An empty cache that holds at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> BlockCache {
        BlockCache {
            bins: FxHashMap::default(),
            order: VecDeque::new(),
            blocks: 0,
            bytes: 0,
            next: 0,
            cap,
        }
    }

    /// The most recently freed block of `class`, if any.
    pub(crate) fn take(&mut self, class: usize) -> Option<u64> {
        let (_, ptr) = self.bins.get_mut(&class)?.pop_back()?;
        self.blocks -= 1;
        self.bytes -= class;
        Some(ptr)
    }

    /// Keeps the block `ptr` of `class`, evicting the least recently freed blocks (into
    /// `evicted`) until it fits under the cap. False when a block of this class is never
    /// kept (larger than [`CACHE_MAX_BLOCK`] or the cap): the caller frees it.
    pub(crate) fn give(&mut self, class: usize, ptr: u64, evicted: &mut Evicted) -> bool {
        if class > CACHE_MAX_BLOCK || class > self.cap {
            return false;
        }
        while self.bytes + class > self.cap {
            match self.evict_oldest() {
                Some(e) => evicted.push(e),
                None => break,
            }
        }
        let stamp = self.next;
        self.next += 1;
        self.bins.entry(class).or_default().push_back((stamp, ptr));
        self.order.push_back((stamp, class));
        self.blocks += 1;
        self.bytes += class;
        if self.order.len() > 2 * self.blocks + 64 {
            self.compact();
        }
        true
    }

    fn evict_oldest(&mut self) -> Option<(u64, usize)> {
        while let Some((stamp, class)) = self.order.pop_front() {
            let Some(bin) = self.bins.get_mut(&class) else {
                continue;
            };
            if bin.front().is_some_and(|f| f.0 == stamp) {
                let (_, ptr) = bin.pop_front()?;
                self.blocks -= 1;
                self.bytes -= class;
                return Some((ptr, class));
            }
        }
        None
    }

    /// Drops the stale entries of `order`.
    fn compact(&mut self) {
        let bins = &self.bins;
        self.order.retain(|(stamp, class)| {
            bins.get(class)
                .is_some_and(|b| b.binary_search_by_key(stamp, |e| e.0).is_ok())
        });
    }

    /// Removes every block, as (address, class).
    pub(crate) fn drain(&mut self) -> Vec<(u64, usize)> {
        let mut out = Vec::with_capacity(self.blocks);
        for (class, bin) in self.bins.drain() {
            out.extend(bin.into_iter().map(|(_, ptr)| (ptr, class)));
        }
        self.order.clear();
        self.blocks = 0;
        self.bytes = 0;
        out
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Blocks held.
    pub(crate) fn len(&self) -> usize {
        self.blocks
    }
}

/// The streams, other than its own, that work on a buffer was queued on: the buffer's free
/// waits for each of them. A lock-protected short list; empty (no allocation) for the
/// usual buffer that only its own stream uses.
#[derive(Debug)]
pub(crate) struct Users<S>(Mutex<Vec<S>>);

impl<S> Users<S> {
    pub(crate) const fn new() -> Self {
        Users(Mutex::new(Vec::new()))
    }

    /// Records the stream `is` recognises, made by `make` when it is not recorded yet;
    /// true when it was not (its first use).
    pub(crate) fn record(&self, is: impl Fn(&S) -> bool, make: impl FnOnce() -> S) -> bool {
        let mut v = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if v.iter().any(is) {
            return false;
        }
        v.push(make());
        true
    }

    /// When more than `limit` streams are recorded, removes and returns those that `done`
    /// says can get no new work (the caller orders the buffer's own stream after them).
    pub(crate) fn prune_over(&self, limit: usize, done: impl Fn(&S) -> bool) -> Vec<S> {
        let mut v = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if v.len() <= limit {
            return Vec::new();
        }
        let (gone, kept): (Vec<S>, Vec<S>) = std::mem::take(&mut *v).into_iter().partition(done);
        *v = kept;
        gone
    }

    /// A copy of every recorded stream, leaving the list as it is.
    pub(crate) fn snapshot(&self) -> Vec<S>
    where
        S: Clone,
    {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Every recorded stream, leaving the list empty.
    pub(crate) fn take(&mut self) -> Vec<S> {
        std::mem::take(self.0.get_mut().unwrap_or_else(|p| p.into_inner()))
    }
}

/// When the driver's pool should be asked to give memory back, from the bytes the library
/// holds (live buffers plus the cache). Pure arithmetic; `memory.rs` keeps the counters.
///
/// The pool's release threshold follows the peak of held bytes with 25 % headroom (so it
/// changes rarely: at most ~30 times from 256 MiB to 141 GiB): at each synchronisation the
/// driver returns what the pool keeps beyond it. Between synchronisations, after every
/// `max(threshold, 1 GiB)` of new driver allocations, the pool is trimmed to the peak of
/// held bytes, so even a program that never synchronises cannot let it grow without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PoolPolicy {
    /// Bytes held now (live buffers and cached blocks).
    pub held: usize,
    /// Highest `held` so far.
    pub peak: usize,
    /// The release threshold last given to the driver.
    pub threshold: usize,
    /// Driver allocations (bytes) since the last trim.
    pub since_trim: usize,
}

/// The first release threshold.
pub(crate) const INITIAL_THRESHOLD: usize = 256 << 20;
/// Least driver traffic between two trims.
const MIN_TRIM_PERIOD: usize = 1 << 30;

/// What to tell the driver after an allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PoolActions {
    /// Set the release threshold to this.
    pub set_threshold: Option<usize>,
    /// Trim the pool down to this many reserved bytes.
    pub trim_to: Option<usize>,
}

impl PoolPolicy {
    pub(crate) const fn new() -> Self {
        PoolPolicy {
            held: 0,
            peak: 0,
            threshold: INITIAL_THRESHOLD,
            since_trim: 0,
        }
    }

    /// Accounts a block of `bytes` taken from the driver.
    pub(crate) fn allocated(&mut self, bytes: usize) -> PoolActions {
        let mut act = PoolActions::default();
        self.held += bytes;
        self.peak = self.peak.max(self.held);
        if self.peak > self.threshold {
            self.threshold = self.peak.saturating_add(self.peak / 4);
            act.set_threshold = Some(self.threshold);
        }
        self.since_trim += bytes;
        if self.since_trim >= self.threshold.max(MIN_TRIM_PERIOD) {
            self.since_trim = 0;
            act.trim_to = Some(self.peak);
        }
        act
    }

    /// Forgets the peak (after everything kept was given back): the threshold starts again
    /// from what is held now. Returns the new threshold.
    pub(crate) fn reset(&mut self) -> usize {
        self.peak = self.held;
        self.threshold = INITIAL_THRESHOLD.max(self.held.saturating_add(self.held / 4));
        self.since_trim = 0;
        self.threshold
    }

    /// Accounts a block of `bytes` given back to the driver.
    pub(crate) fn freed(&mut self, bytes: usize) {
        self.held = self.held.saturating_sub(bytes);
    }
}

/// Which of a device's freed-block caches (`memory.rs`): blocks freed on cuprum's default
/// stream of the device, or on the CUDA legacy default stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CacheOf {
    Default,
    Legacy,
}

/// What one device's memory layer keeps: the caches of freed blocks (one per long-lived
/// stream) and the counters of the pool policy (`memory.rs` uses them around the backend's
/// allocator).
pub(crate) struct DeviceMemory {
    cache: Mutex<BlockCache>,
    legacy: Mutex<BlockCache>,
    policy: Mutex<PoolPolicy>,
    /// The most bytes the device's allocations may hold, live and cached (CuPy's
    /// `MemoryPool.set_limit`); `None` without a limit; the error of a bad
    /// `CUPRUM_GPU_MEMORY_LIMIT`, which every allocation reports until a limit is set.
    /// Allocations from the backend hold the lock while they check it, so concurrent ones
    /// cannot overshoot together.
    limit: Mutex<crate::error::Result<Option<usize>>>,
}

impl DeviceMemory {
    /// The memory state of a device with `total` bytes: the cache holds at most 1 GiB,
    /// and at most a sixteenth of the device's memory.
    pub(crate) fn new(total: usize) -> DeviceMemory {
        DeviceMemory {
            cache: Mutex::new(BlockCache::new(CACHE_CAP.min(total / 16))),
            legacy: Mutex::new(BlockCache::new(CACHE_CAP.min(total / 16))),
            policy: Mutex::new(PoolPolicy::new()),
            limit: Mutex::new(limit_from_env(total)),
        }
    }

    /// The allocation limit, locked (see the field).
    pub(crate) fn limit(&self) -> std::sync::MutexGuard<'_, crate::error::Result<Option<usize>>> {
        self.limit.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn cache(&self, which: CacheOf) -> std::sync::MutexGuard<'_, BlockCache> {
        match which {
            CacheOf::Default => &self.cache,
            CacheOf::Legacy => &self.legacy,
        }
        .lock()
        .unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn policy(&self) -> std::sync::MutexGuard<'_, PoolPolicy> {
        self.policy.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes of freed blocks the caches keep.
    pub(crate) fn cached_bytes(&self) -> usize {
        self.cache(CacheOf::Default).bytes() + self.cache(CacheOf::Legacy).bytes()
    }

    /// Freed blocks kept for reuse, both caches.
    pub(crate) fn cached_blocks(&self) -> usize {
        self.cache(CacheOf::Default).len() + self.cache(CacheOf::Legacy).len()
    }
}

/// The allocation limit a process starts with: `CUPRUM_GPU_MEMORY_LIMIT`, else CuPy's
/// `CUPY_GPU_MEMORY_LIMIT` (so a CuPy program's setting carries over), for a device of
/// `total` bytes.
fn limit_from_env(total: usize) -> crate::error::Result<Option<usize>> {
    for name in ["CUPRUM_GPU_MEMORY_LIMIT", "CUPY_GPU_MEMORY_LIMIT"] {
        if let Ok(v) = std::env::var(name) {
            return parse_limit(name, &v, total);
        }
    }
    Ok(None)
}

/// A memory limit's text: bytes (`1073741824`), or a percentage of the device's `total`
/// bytes (`50%`); empty or 0 is no limit.
pub(crate) fn parse_limit(
    name: &str,
    v: &str,
    total: usize,
) -> crate::error::Result<Option<usize>> {
    let t = v.trim();
    let bytes = match t.strip_suffix('%') {
        _ if t.is_empty() => 0,
        Some(p) => match p.trim().parse::<f64>() {
            Ok(f) if (0.0..=100.0).contains(&f) => (total as f64 * f / 100.0) as usize,
            _ => crate::error::bail!(
                InvalidArgument,
                "{name}={v:?} is not valid: expected bytes (1073741824) or a percentage of the \
                 device's memory from 0% to 100% (50%)"
            ),
        },
        None => match t.parse::<usize>() {
            Ok(b) => b,
            Err(_) => crate::error::bail!(
                InvalidArgument,
                "{name}={v:?} is not valid: expected bytes (1073741824) or a percentage of the \
                 device's memory from 0% to 100% (50%)"
            ),
        },
    };
    Ok((bytes > 0).then_some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_limits_parse_bytes_and_percentages() {
        let gib = 1usize << 30;
        assert_eq!(parse_limit("L", "1073741824", 8 * gib).unwrap(), Some(gib));
        assert_eq!(parse_limit("L", " 50% ", 8 * gib).unwrap(), Some(4 * gib));
        assert_eq!(parse_limit("L", "0", gib).unwrap(), None);
        assert_eq!(parse_limit("L", "", gib).unwrap(), None);
        for bad in ["1GB", "-5", "150%", "x%"] {
            let e = parse_limit("L", bad, gib).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
            assert!(
                e.to_string().contains("L=") && e.to_string().contains("50%"),
                "{e}"
            );
        }
    }

    const MIB: usize = 1 << 20;

    #[test]
    fn small_sizes_round_to_512() {
        assert_eq!(size_class(1), Some(512));
        assert_eq!(size_class(512), Some(512));
        assert_eq!(size_class(513), Some(1024));
        assert_eq!(size_class(MIB - 1), Some(MIB));
        assert_eq!(size_class(MIB), Some(MIB));
    }

    #[test]
    fn four_classes_per_power_of_two_above_1_mib() {
        assert_eq!(size_class(MIB + 1), Some(MIB + MIB / 4));
        assert_eq!(size_class(MIB + MIB / 4), Some(MIB + MIB / 4));
        assert_eq!(size_class(MIB + MIB / 4 + 1), Some(MIB + MIB / 2));
        assert_eq!(size_class(2 * MIB), Some(2 * MIB));
        assert_eq!(size_class(2 * MIB + 1), Some(2 * MIB + MIB / 2));
        assert_eq!(size_class(3 * MIB), Some(3 * MIB));
        assert_eq!(size_class(64 * MIB), Some(64 * MIB));
        assert_eq!(size_class(64 * MIB + 1), Some(80 * MIB));
        assert_eq!(size_class(CACHE_MAX_BLOCK), Some(CACHE_MAX_BLOCK));
        // Beyond the cached sizes: 512-byte rounding only.
        assert_eq!(size_class(CACHE_MAX_BLOCK + 1), Some(CACHE_MAX_BLOCK + 512));
        assert_eq!(size_class(usize::MAX), None);
        assert_eq!(size_class(usize::MAX - 511), Some(usize::MAX - 511));
    }

    #[test]
    fn classes_bound_the_slack_and_are_few() {
        let mut classes = std::collections::BTreeSet::new();
        let mut x: u64 = 0x1234_5678;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = (x % (64 * MIB as u64)) as usize + 1;
            let c = size_class(b).unwrap();
            assert!(c >= b, "{b} -> {c}");
            assert!(c.is_multiple_of(GRANULE));
            // At most 25 % slack above 1 MiB, at most 511 bytes below.
            if b > MIB {
                assert!(c - b <= b / 4, "{b} -> {c}");
            } else {
                assert!(c - b < GRANULE);
            }
            assert_eq!(size_class(c), Some(c), "a class is its own class");
            if b > MIB {
                classes.insert(c);
            }
        }
        // 1 MiB .. 64 MiB: six doublings, four classes each.
        assert_eq!(classes.len(), 24);
    }

    #[test]
    fn cache_reuses_newest_block_of_a_class() {
        let mut c = BlockCache::new(10 * MIB);
        let mut ev = Evicted::new();
        assert!(c.give(MIB, 1, &mut ev));
        assert!(c.give(MIB, 2, &mut ev));
        assert!(c.give(2 * MIB, 3, &mut ev));
        assert!(ev.is_empty());
        assert_eq!(c.bytes(), 4 * MIB);
        assert_eq!(c.take(MIB), Some(2));
        assert_eq!(c.take(MIB), Some(1));
        assert_eq!(c.take(MIB), None);
        assert_eq!(c.take(3 * MIB), None);
        assert_eq!(c.bytes(), 2 * MIB);
        assert_eq!(c.take(2 * MIB), Some(3));
        assert_eq!(c.bytes(), 0);
        assert_eq!(c.len(), 0);
    }

    #[test]
    fn cache_evicts_least_recently_freed_to_stay_under_cap() {
        let mut c = BlockCache::new(4 * MIB);
        let mut ev = Evicted::new();
        for p in 1..=4 {
            assert!(c.give(MIB, p, &mut ev));
        }
        assert!(ev.is_empty());
        // 2 MiB more: the two oldest 1 MiB blocks go.
        assert!(c.give(2 * MIB, 10, &mut ev));
        assert_eq!(ev.as_slice(), &[(1, MIB), (2, MIB)]);
        assert_eq!(c.bytes(), 4 * MIB);
        // Taking a block and giving it back makes it the newest.
        ev.clear();
        assert_eq!(c.take(MIB), Some(4));
        assert!(c.give(MIB, 4, &mut ev));
        assert!(ev.is_empty());
        assert!(c.give(MIB, 5, &mut ev));
        assert_eq!(ev.as_slice(), &[(3, MIB)]);
        // Too large for the cap or the cache: refused, nothing evicted.
        ev.clear();
        assert!(!c.give(8 * MIB, 6, &mut ev));
        assert!(!BlockCache::new(usize::MAX).give(CACHE_MAX_BLOCK + 512, 7, &mut ev));
        assert!(ev.is_empty());
        let mut all = c.drain();
        all.sort();
        assert_eq!(all, vec![(4, MIB), (5, MIB), (10, 2 * MIB)]);
        assert_eq!(c.bytes(), 0);
        assert_eq!(c.take(MIB), None);
    }

    #[test]
    fn cache_bytes_never_exceed_cap_under_random_churn() {
        let cap = 64 * MIB;
        let mut c = BlockCache::new(cap);
        let mut ev = Evicted::new();
        let mut x: u64 = 99;
        let mut outside = 0usize; // blocks handed out or evicted, by count
        let mut next_ptr = 1u64;
        for _ in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let class = size_class(((x >> 33) as usize % (16 * MIB)) + 1).unwrap();
            if x & 1 == 0 {
                if c.take(class).is_some() {
                    outside += 1;
                }
            } else {
                ev.clear();
                assert!(c.give(class, next_ptr, &mut ev));
                next_ptr += 1;
                outside += ev.len();
                let evicted: usize = ev.iter().map(|e| e.1).sum();
                assert!(evicted < cap);
            }
            assert!(c.bytes() <= cap);
            let sum: usize = c.bins.iter().map(|(k, v)| k * v.len()).sum();
            assert_eq!(sum, c.bytes());
            assert_eq!(c.len(), c.bins.values().map(VecDeque::len).sum::<usize>());
            assert!(
                c.order.len() <= 2 * c.len() + 65,
                "stale entries are dropped"
            );
        }
        assert_eq!(outside + c.len(), next_ptr as usize - 1);
    }

    #[test]
    fn take_give_cycles_keep_the_order_queue_short() {
        let mut c = BlockCache::new(4 * MIB);
        let mut ev = Evicted::new();
        assert!(c.give(2 * MIB, 1, &mut ev));
        for _ in 0..100_000 {
            let p = c.take(MIB).unwrap_or(2);
            assert!(c.give(MIB, p, &mut ev));
        }
        assert!(ev.is_empty());
        assert!(c.order.len() <= 2 * c.len() + 65);
        // The oldest block is still the 2 MiB one given first.
        assert!(c.give(2 * MIB, 3, &mut ev));
        assert_eq!(ev.as_slice(), &[(1, 2 * MIB)]);
    }

    #[test]
    fn users_records_each_stream_once() {
        let mut u: Users<u32> = Users::new();
        let rec = |u: &Users<u32>, s: u32| u.record(|x| *x == s, || s);
        assert!(rec(&u, 7));
        assert!(!rec(&u, 7));
        assert!(rec(&u, 8));
        assert_eq!(u.take(), vec![7, 8]);
        assert!(u.take().is_empty());
        assert!(rec(&u, 7), "after take, a stream is new again");
    }

    #[test]
    fn users_prune_only_finished_streams_and_only_past_the_limit() {
        let mut u: Users<u32> = Users::new();
        for s in 0..4 {
            u.record(|x| *x == s, || s);
        }
        // Even numbers stand for streams no handle can reach any more.
        let done = |s: &u32| s.is_multiple_of(2);
        assert!(u.prune_over(4, done).is_empty(), "not over the limit");
        assert_eq!(u.prune_over(3, done), vec![0, 2]);
        assert!(u.prune_over(1, done).is_empty(), "the live ones stay");
        assert!(
            u.record(|x| *x == 0, || 0),
            "a pruned stream is recorded again"
        );
        assert_eq!(u.take(), vec![1, 3, 0]);
    }

    #[test]
    fn policy_threshold_follows_peak_with_headroom() {
        let mut p = PoolPolicy::new();
        let a = p.allocated(100 * MIB);
        assert_eq!(a, PoolActions::default());
        let a = p.allocated(200 * MIB);
        assert_eq!(a.set_threshold, Some(300 * MIB + 75 * MIB));
        assert_eq!(p.threshold, 375 * MIB);
        p.freed(300 * MIB);
        assert_eq!(p.held, 0);
        // Back to the same peak: no new threshold.
        let a = p.allocated(300 * MIB);
        assert_eq!(a.set_threshold, None);
        p.freed(usize::MAX);
        assert_eq!(p.held, 0);
        assert_eq!(p.peak, 300 * MIB);
        // After a release the peak restarts from what is held.
        p.allocated(1000 * MIB);
        p.freed(900 * MIB);
        assert_eq!(p.reset(), INITIAL_THRESHOLD);
        assert_eq!((p.peak, p.held), (100 * MIB, 100 * MIB));
        p.allocated(1000 * MIB);
        assert_eq!(p.reset(), 1100 * MIB + 275 * MIB);
    }

    #[test]
    fn policy_trims_after_enough_traffic() {
        let mut p = PoolPolicy::new();
        let mut trims = Vec::new();
        // 64 MiB blocks, at most 8 held: 4 GiB of traffic.
        for i in 0..64 {
            let a = p.allocated(64 * MIB);
            if let Some(t) = a.trim_to {
                trims.push((i, t));
            }
            if i >= 7 {
                p.freed(64 * MIB);
            }
        }
        assert_eq!(p.peak, 512 * MIB);
        // The threshold settled 25 % above a peak on the way (448 MiB -> 560 MiB), which
        // covers the final peak; a trim to the peak after every 1 GiB of new blocks (16 of
        // them; the threshold is below the minimum period), so four in 4 GiB.
        assert_eq!(p.threshold, 560 * MIB);
        let at: Vec<usize> = trims.iter().map(|t| t.0).collect();
        assert_eq!(at, vec![15, 31, 47, 63]);
        assert!(trims.iter().all(|t| t.1 == 512 * MIB));
    }
}
