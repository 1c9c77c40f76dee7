//! [`Memo`]: a function's results kept per argument, and optionally per device — CuPy's
//! `@cupy.memoize(for_each_device=...)`. [`clear_memo`](crate::clear_memo) empties every
//! memo of the process (and cuprum's own compile memos), like `cupy.clear_memo()`.
//!
//! A memo is typically a `static` next to the function it serves (a kernel factory), so a
//! kernel is defined once per dtype — and, with [`Memo::for_each_device`], once per device.
//!
//! Values are kept as `Arc<V>`. Concurrent first calls for one key converge on the first
//! value stored (CuPy's `setdefault`); errors are returned, never kept. Each memo registers
//! a weak handle in a process-wide list on first use, which is how `clear_memo` finds them
//! all.

use crate::error::Result;
use crate::runtime::Device;
use rustc_hash::FxHashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Results kept per key (and per device when made with [`Memo::for_each_device`]), shared
/// as `Arc`s, until [`clear`](Memo::clear) or the global [`clear_memo`](crate::clear_memo).
///
/// Concurrent first calls for one key may each run `make`; the first value stored wins and
/// every caller gets it (CuPy's `setdefault`). Errors are returned, never kept: the next
/// call tries again.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, DType, ElementwiseKernel, Memo, Result};
/// use std::sync::Arc;
///
/// /// One `y = x * a` kernel per dtype, defined on first use (CuPy:
/// /// `@cupy.memoize(for_each_device=False) def scale_kernel(dtype): ...`).
/// fn scale_kernel(d: DType) -> Result<Arc<ElementwiseKernel>> {
///     static KERNELS: Memo<DType, ElementwiseKernel> = Memo::new();
///     KERNELS.get_or_try_insert(d, || {
///         ElementwiseKernel::new(&format!("{d} x, {d} a"), &format!("{d} y"), "y = x * a", "scale")
///     })
/// }
///
/// let x = Array::ones(&[4], DType::F32)?;
/// let k = scale_kernel(DType::F32)?;
/// assert!(Arc::ptr_eq(&k, &scale_kernel(DType::F32)?)); // the same kernel
/// let y = k.call((&x, 3.0f32))?;
/// cuprum::clear_memo(); // forget it (and every compiled module kept in memory)
/// # Ok::<(), cuprum::Error>(())
/// ```
pub struct Memo<K, V> {
    for_each_device: bool,
    table: OnceLock<Arc<Table<K, V>>>,
}

/// A key: the device ordinal for per-device memos (`None` otherwise) and the user's key.
type Key<K> = (Option<usize>, K);

struct Table<K, V> {
    map: Mutex<FxHashMap<Key<K>, Arc<V>>>,
}

/// What the global clear sees of every memo.
trait Clear: Send + Sync {
    fn clear(&self);
}

impl<K: Send, V: Send + Sync> Clear for Table<K, V> {
    fn clear(&self) {
        // Drop the values after releasing the lock (a value's drop may use a memo).
        let old = std::mem::take(&mut *self.map.lock().unwrap_or_else(|p| p.into_inner()));
        drop(old);
    }
}

/// Every memo made in this process (dropped ones fall away).
fn registry() -> &'static Mutex<Vec<Weak<dyn Clear>>> {
    static R: OnceLock<Mutex<Vec<Weak<dyn Clear>>>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// Empties every [`Memo`] of the process (part of [`clear_memo`](crate::clear_memo)).
pub(crate) fn clear_all() {
    let live: Vec<Arc<dyn Clear>> = {
        let mut r = registry().lock().unwrap_or_else(|p| p.into_inner());
        r.retain(|w| w.strong_count() > 0);
        r.iter().filter_map(Weak::upgrade).collect()
    };
    for m in live {
        m.clear();
    }
}

impl<K, V> Memo<K, V> {
    /// A memo keyed by the argument only (CuPy's `for_each_device=False`).
    ///
    /// ```
    /// use cuprum::Memo;
    /// static SQUARES: Memo<u64, u64> = Memo::new();
    /// assert_eq!(*SQUARES.get_or_insert(12, || 144)?, 144);
    /// assert_eq!(*SQUARES.get_or_insert(12, || unreachable!())?, 144);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub const fn new() -> Self {
        Memo {
            for_each_device: false,
            table: OnceLock::new(),
        }
    }

    /// A memo keyed by the argument and the current device (CuPy's
    /// `for_each_device=True`): each GPU gets its own value, made while that device is
    /// current.
    ///
    /// ```
    /// # if !cuprum_doctest::gpu()? || cuprum::Device::count()? < 2 { return Ok(()); }
    /// use cuprum::{Device, ElementwiseKernel, Memo};
    /// static COPY: Memo<&str, ElementwiseKernel> = Memo::for_each_device();
    /// let k0 = COPY.get_or_try_insert("f32", || ElementwiseKernel::new("T x", "T y", "y = x", "copy_k"))?;
    /// let k1 = Device::get(1)?.with(|| {
    ///     COPY.get_or_try_insert("f32", || ElementwiseKernel::new("T x", "T y", "y = x", "copy_k"))
    /// })?;
    /// assert!(!std::sync::Arc::ptr_eq(&k0, &k1));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub const fn for_each_device() -> Self {
        Memo {
            for_each_device: true,
            table: OnceLock::new(),
        }
    }

    /// Whether each device has its own values.
    ///
    /// ```
    /// assert!(cuprum::Memo::<u8, u8>::for_each_device().is_per_device());
    /// ```
    pub fn is_per_device(&self) -> bool {
        self.for_each_device
    }
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo::new()
    }
}

impl<K, V> std::fmt::Debug for Memo<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self
            .table
            .get()
            .map_or(0, |t| t.map.lock().map_or(0, |m| m.len()));
        f.debug_struct("Memo")
            .field("for_each_device", &self.for_each_device)
            .field("entries", &n)
            .finish()
    }
}

impl<K, V> Memo<K, V>
where
    K: Hash + Eq + Send + 'static,
    V: Send + Sync + 'static,
{
    fn table(&self) -> &Arc<Table<K, V>> {
        self.table.get_or_init(|| {
            let t = Arc::new(Table {
                map: Mutex::new(FxHashMap::default()),
            });
            let weak: Weak<Table<K, V>> = Arc::downgrade(&t);
            let weak: Weak<dyn Clear> = weak;
            let mut r = registry().lock().unwrap_or_else(|p| p.into_inner());
            r.retain(|w| w.strong_count() > 0);
            r.push(weak);
            t
        })
    }

    fn key(&self, key: K) -> Result<Key<K>> {
        let device = if self.for_each_device {
            Some(Device::current()?.ordinal())
        } else {
            None
        };
        Ok((device, key))
    }

    /// The value kept for `key` (on the current device, for a per-device memo), or the one
    /// `make` returns, kept from now on. An error from `make` is returned and not kept.
    /// A per-device memo fails when there is no device.
    ///
    /// ```
    /// use cuprum::{ErrorKind, Memo};
    /// static PARSED: Memo<String, i64> = Memo::new();
    /// let n = PARSED.get_or_try_insert("42".to_owned(), || Ok("42".parse::<i64>().unwrap()))?;
    /// assert_eq!(*n, 42);
    /// let bad = PARSED.get_or_try_insert("x".to_owned(), || {
    ///     Err(cuprum::kernel::parse_params("x", cuprum::kernel::ParamList::Inputs).unwrap_err())
    /// });
    /// assert_eq!(bad.unwrap_err().kind(), ErrorKind::InvalidArgument);
    /// assert_eq!(PARSED.len(), 1);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get_or_try_insert(&self, key: K, make: impl FnOnce() -> Result<V>) -> Result<Arc<V>> {
        let key = self.key(key)?;
        let table = self.table();
        if let Some(v) = table
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(v.clone());
        }
        // Made outside the lock: `make` may take long, or use this memo for other keys.
        let v = Arc::new(make()?);
        let mut map = table.map.lock().unwrap_or_else(|p| p.into_inner());
        Ok(map.entry(key).or_insert(v).clone())
    }

    /// [`get_or_try_insert`](Memo::get_or_try_insert) for an infallible `make`.
    ///
    /// ```
    /// use cuprum::Memo;
    /// static NAMES: Memo<u8, String> = Memo::new();
    /// assert_eq!(NAMES.get_or_insert(1, || "one".to_owned())?.as_str(), "one");
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get_or_insert(&self, key: K, make: impl FnOnce() -> V) -> Result<Arc<V>> {
        self.get_or_try_insert(key, || Ok(make()))
    }

    /// The value kept for `key` (on the current device, for a per-device memo), if any.
    ///
    /// ```
    /// use cuprum::Memo;
    /// static M: Memo<u8, u8> = Memo::new();
    /// assert!(M.get(3)?.is_none());
    /// M.get_or_insert(3, || 9)?;
    /// assert_eq!(M.get(3)?.as_deref(), Some(&9));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn get(&self, key: K) -> Result<Option<Arc<V>>> {
        let key = self.key(key)?;
        Ok(self
            .table()
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned())
    }

    /// Number of values kept (over all devices).
    ///
    /// ```
    /// use cuprum::Memo;
    /// static M: Memo<u8, u8> = Memo::new();
    /// M.get_or_insert(1, || 1)?;
    /// M.get_or_insert(2, || 4)?;
    /// assert_eq!(M.len(), 2);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.table
            .get()
            .map_or(0, |t| t.map.lock().unwrap_or_else(|p| p.into_inner()).len())
    }

    /// Whether no value is kept.
    ///
    /// ```
    /// assert!(cuprum::Memo::<u8, u8>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every value of this memo (values still held elsewhere stay alive).
    ///
    /// ```
    /// use cuprum::Memo;
    /// static M: Memo<u8, u8> = Memo::new();
    /// M.get_or_insert(1, || 1)?;
    /// M.clear();
    /// assert!(M.is_empty());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn clear(&self) {
        if let Some(t) = self.table.get() {
            t.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Tests that count calls of `make` hold this, so the test of the global clear cannot
    /// empty their memos between two calls.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn serial() -> std::sync::MutexGuard<'static, ()> {
        SERIAL.lock().unwrap_or_else(|p| p.into_inner())
    }

    #[test]
    fn values_are_made_once_per_key() {
        let _g = serial();
        let memo: Memo<(u32, &str), String> = Memo::new();
        let calls = AtomicUsize::new(0);
        let make = |k: u32| {
            calls.fetch_add(1, Ordering::SeqCst);
            format!("value {k}")
        };
        let a = memo.get_or_insert((1, "x"), || make(1)).unwrap();
        let b = memo.get_or_insert((1, "x"), || make(1)).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*a, "value 1");
        let c = memo.get_or_insert((2, "x"), || make(2)).unwrap();
        assert_eq!(*c, "value 2");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(memo.len(), 2);
        assert_eq!(
            memo.get((2, "x")).unwrap().as_deref().map(String::as_str),
            Some("value 2")
        );
        assert!(memo.get((3, "x")).unwrap().is_none());
        memo.clear();
        assert!(memo.is_empty());
        // a value handed out stays alive after the clear
        assert_eq!(*a, "value 1");
        let d = memo.get_or_insert((1, "x"), || make(1)).unwrap();
        assert!(!Arc::ptr_eq(&a, &d));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        assert!(!memo.is_per_device());
        assert!(format!("{memo:?}").contains("entries: 1"));
    }

    #[test]
    fn errors_are_returned_and_not_kept() {
        let _g = serial();
        let memo: Memo<u8, u8> = Memo::new();
        let e = memo
            .get_or_try_insert(1, || Err(crate::error::err!(InvalidArgument, "no")))
            .unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string().as_str()),
            (ErrorKind::InvalidArgument, "no")
        );
        assert!(memo.is_empty());
        assert_eq!(*memo.get_or_try_insert(1, || Ok(5)).unwrap(), 5);
    }

    #[test]
    fn concurrent_first_calls_agree_on_one_value() {
        let _g = serial();
        let memo: Memo<u8, usize> = Memo::new();
        let calls = AtomicUsize::new(0);
        let got: Vec<Arc<usize>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|t| {
                    let (memo, calls) = (&memo, &calls);
                    s.spawn(move || {
                        memo.get_or_insert(7, || {
                            calls.fetch_add(1, Ordering::SeqCst);
                            t
                        })
                        .unwrap()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(got.iter().all(|v| Arc::ptr_eq(v, &got[0])));
        assert!(calls.load(Ordering::SeqCst) >= 1);
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn clear_memo_empties_every_memo_and_forgets_dropped_ones() {
        let _g = serial();
        static STATIC: Memo<u8, u8> = Memo::new();
        STATIC.get_or_insert(1, || 1).unwrap();
        let local: Memo<u8, Vec<u8>> = Memo::new();
        local.get_or_insert(2, || vec![2]).unwrap();
        {
            let gone: Memo<u8, u8> = Memo::new();
            gone.get_or_insert(3, || 3).unwrap();
        }
        crate::clear_memo();
        assert!(STATIC.is_empty());
        assert!(local.is_empty());
        let live = registry()
            .lock()
            .unwrap()
            .iter()
            .filter(|w| w.strong_count() > 0)
            .count();
        assert!(live >= 2, "{live}");
        // a memo made for each device needs a device: without one it says so (the host
        // device, which CUPRUM_DEVICE=host makes the default, is one)
        let per: Memo<u8, u8> = Memo::for_each_device();
        assert!(per.is_per_device());
        assert_eq!(
            per.get_or_insert(1, || 1).is_err(),
            Device::current().is_err()
        );
    }
}
