//! The argument schema of a generated kernel and the one packer that fills it.
//!
//! Code generation writes each parameter of a kernel's entry point from an [`ArgSlot`]
//! (the C++ declaration and the slot come from the same place), so the schema is the
//! contract between the source and the launch: a call packs its values through a
//! [`Packer`], which takes each value only for the slot it matches, in order, and writes
//! exactly the slot's bytes.

use crate::dtype::{DType, RecordType, Scalar};
use crate::error::{Result, bail, err};
use crate::runtime::ArgPack;
use smallvec::SmallVec;
use std::fmt;

/// The integer width a kernel indexes with (`cuprum_idx_t` / `cuprum_off_t` of generated
/// kernels, or a fixed width in hand-written ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum IndexWidth {
    /// 32-bit (`unsigned int` / `int`).
    I32,
    /// 64-bit (`unsigned long long` / `long long`).
    I64,
}

impl IndexWidth {
    /// 64-bit when `wide`.
    pub(crate) fn of(wide: bool) -> IndexWidth {
        if wide {
            IndexWidth::I64
        } else {
            IndexWidth::I32
        }
    }

    /// Bytes per integer.
    pub(crate) fn bytes(self) -> usize {
        match self {
            IndexWidth::I32 => 4,
            IndexWidth::I64 => 8,
        }
    }
}

/// How one parameter of a generated kernel is passed, and so how many bytes it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ArgSlot {
    /// `T* name`: one device address (8 bytes).
    Pointer,
    /// `CArray<T, ND> name` (`include/cuprum/indexer.cuh`): the address, then `max(ND, 1)`
    /// extents and `max(ND, 1)` element strides as `long long`.
    View {
        /// Dimensions of the view.
        nd: u8,
    },
    /// `const T name`: one value of this dtype (its item size).
    Scalar(DType),
    /// A loop size or count in an index width.
    Index(IndexWidth),
    /// A struct of `count` integers of one width, passed by value (shape and stride
    /// tables: `cuprum_meta`, `cuprum_rmeta`, the array kernels' `Meta`).
    Words {
        /// Integers in the struct.
        count: u32,
        /// Width of each.
        width: IndexWidth,
    },
    /// One element's bits (`bytes` long), whatever its dtype (the array kernels' fill value).
    Bits {
        /// Bytes of the element.
        bytes: u8,
    },
}

impl ArgSlot {
    /// Bytes the parameter takes.
    pub(crate) fn size(self) -> usize {
        match self {
            ArgSlot::Pointer => 8,
            ArgSlot::View { nd } => 8 + 16 * usize::from(nd.max(1)),
            ArgSlot::Scalar(d) => d.itemsize(),
            ArgSlot::Index(w) => w.bytes(),
            ArgSlot::Words { count, width } => count as usize * width.bytes(),
            ArgSlot::Bits { bytes } => usize::from(bytes),
        }
    }
}

impl fmt::Display for ArgSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgSlot::Pointer => write!(f, "a pointer"),
            ArgSlot::View { nd } => write!(f, "a {nd}-d view"),
            ArgSlot::Scalar(d) => write!(f, "a {d} scalar"),
            ArgSlot::Index(w) => write!(f, "a {}-byte index", w.bytes()),
            ArgSlot::Words { count, width } => {
                write!(f, "{count} integers of {} bytes", width.bytes())
            }
            ArgSlot::Bits { bytes } => write!(f, "a {bytes}-byte element"),
        }
    }
}

/// The parameters of a generated kernel's entry point, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ArgSchema(SmallVec<[ArgSlot; 12]>);

impl ArgSchema {
    /// Appends a parameter.
    pub(crate) fn push(&mut self, slot: ArgSlot) {
        self.0.push(slot);
    }

    /// The parameters.
    pub(crate) fn slots(&self) -> &[ArgSlot] {
        &self.0
    }

    /// Checks the schema against the parameter sizes a compiled kernel reports (the
    /// driver's parameter info): a mismatch is a bug in code generation.
    pub(crate) fn check_sizes(&self, kernel: &str, sizes: &[usize]) -> Result<()> {
        let ours: SmallVec<[usize; 12]> = self.0.iter().map(|s| s.size()).collect();
        if ours.as_slice() != sizes {
            bail!(
                Launch,
                "internal error: generated kernel '{kernel}' declares parameters of {sizes:?} \
                 bytes, its argument schema packs {:?} bytes ({})",
                ours.as_slice(),
                self.to_string()
            );
        }
        Ok(())
    }
}

impl fmt::Display for ArgSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

/// Packs a call's values for one schema: each method takes the next parameter, checks that
/// it is of that kind, and writes its bytes straight into the argument pack (nothing is
/// allocated for up to 16 cells of arguments).
pub(crate) struct Packer<'s> {
    kernel: &'s str,
    slots: &'s [ArgSlot],
    next: usize,
    pack: ArgPack,
}

impl<'s> Packer<'s> {
    /// A packer for the kernel `kernel` (named in errors) with this schema.
    #[inline]
    pub(crate) fn new(kernel: &'s str, schema: &'s ArgSchema) -> Packer<'s> {
        Packer {
            kernel,
            slots: schema.slots(),
            next: 0,
            pack: ArgPack::new(),
        }
    }

    /// The next slot, which must be `what` (checked by `fits`).
    #[inline]
    fn take(&mut self, what: &str, fits: impl FnOnce(ArgSlot) -> bool) -> Result<ArgSlot> {
        let i = self.next;
        match self.slots.get(i) {
            Some(&s) if fits(s) => {
                self.next += 1;
                Ok(s)
            }
            s => Err(self.misfit(what, s.copied())),
        }
    }

    /// The error of an argument that does not fit its slot (`None`: past the last).
    #[cold]
    #[inline(never)]
    fn misfit(&self, what: &str, slot: Option<ArgSlot>) -> crate::error::Error {
        let i = self.next;
        match slot {
            Some(s) => err!(
                Launch,
                "internal error: argument {i} of '{}' is {what}, its parameter is {s}",
                self.kernel
            ),
            None => err!(
                Launch,
                "internal error: argument {i} of '{}' is {what}, the kernel has {i} parameters",
                self.kernel
            ),
        }
    }

    /// A device address for a [`ArgSlot::Pointer`].
    #[inline]
    pub(crate) fn pointer(&mut self, ptr: u64) -> Result<()> {
        self.take("a pointer", |s| s == ArgSlot::Pointer)?;
        self.pack.push(ptr);
        Ok(())
    }

    /// A strided view (address, extents, element strides) for a [`ArgSlot::View`] of as
    /// many dimensions; a 0-d view is packed as one extent 1 and stride 0.
    pub(crate) fn view(&mut self, ptr: u64, shape: &[usize], strides: &[isize]) -> Result<()> {
        let nd = shape.len();
        self.take("a view", |s| {
            s == ArgSlot::View { nd: nd as u8 } && strides.len() == nd && nd <= 255
        })?;
        let n1 = nd.max(1);
        self.pack.push_with(8 + 16 * n1, |b| {
            b[..8].copy_from_slice(&ptr.to_ne_bytes());
            let (ext, st) = b[8..].split_at_mut(8 * n1);
            for d in 0..n1 {
                let e = shape.get(d).copied().unwrap_or(1) as i64;
                let s = strides.get(d).copied().unwrap_or(0) as i64;
                ext[8 * d..8 * d + 8].copy_from_slice(&e.to_ne_bytes());
                st[8 * d..8 * d + 8].copy_from_slice(&s.to_ne_bytes());
            }
        });
        Ok(())
    }

    /// A value for a [`ArgSlot::Scalar`] of its dtype (convert it first).
    pub(crate) fn scalar(&mut self, v: Scalar) -> Result<()> {
        self.take("a scalar", |s| s == ArgSlot::Scalar(v.dtype()))?;
        let (bytes, len) = v.to_bytes();
        self.pack.push_bytes(&bytes[..len]);
        Ok(())
    }

    /// A device type's value for an [`ArgSlot::Scalar`] of its record dtype `record`
    /// (`param`, the parameter's dtype, must be it), written in place by `write`.
    pub(crate) fn record(
        &mut self,
        param: DType,
        record: RecordType,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<()> {
        let d = DType::Record(record);
        self.take("a record value", |s| param == d && s == ArgSlot::Scalar(d))?;
        self.pack.push_with(record.itemsize(), write);
        Ok(())
    }

    /// A loop size or count for an [`ArgSlot::Index`], in its width.
    #[inline]
    pub(crate) fn index(&mut self, n: usize) -> Result<()> {
        match self.take("an index", |s| matches!(s, ArgSlot::Index(_)))? {
            ArgSlot::Index(IndexWidth::I64) => self.pack.push(n as u64),
            _ => self.pack.push(n as u32),
        }
        Ok(())
    }

    /// The integers of an [`ArgSlot::Words`] struct, in its width (narrowed as the plan
    /// that chose 32 bits allows); exactly as many as the struct holds.
    pub(crate) fn words(&mut self, words: impl IntoIterator<Item = i64>) -> Result<()> {
        let ArgSlot::Words { count, width } = self.take("a struct of integers", |s| {
            matches!(s, ArgSlot::Words { .. })
        })?
        else {
            return Ok(());
        };
        let (count, w) = (count as usize, width.bytes());
        let mut given = 0usize;
        self.pack.push_with(count * w, |b| {
            for v in words {
                if given < count {
                    let at = &mut b[given * w..(given + 1) * w];
                    match width {
                        IndexWidth::I64 => at.copy_from_slice(&v.to_ne_bytes()),
                        IndexWidth::I32 => at.copy_from_slice(&(v as i32).to_ne_bytes()),
                    }
                }
                given += 1;
            }
        });
        if given != count {
            bail!(
                Launch,
                "internal error: argument {} of '{}' has {given} integers, its struct {count}",
                self.next - 1,
                self.kernel
            );
        }
        Ok(())
    }

    /// One element's bits for an [`ArgSlot::Bits`] of that size.
    pub(crate) fn bits(&mut self, bytes: &[u8]) -> Result<()> {
        let len = bytes.len();
        self.take("an element's bits", |s| {
            len <= 255 && s == ArgSlot::Bits { bytes: len as u8 }
        })?;
        self.pack.push_bytes(bytes);
        Ok(())
    }

    /// The packed arguments, once every parameter has its value (in place: a pack is a few
    /// hundred bytes, not moved).
    pub(crate) fn finish(&mut self) -> Result<&mut ArgPack> {
        if self.next != self.slots.len() {
            bail!(
                Launch,
                "internal error: '{}' got {} arguments for {} parameters",
                self.kernel,
                self.next,
                self.slots.len()
            );
        }
        Ok(&mut self.pack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(slots: &[ArgSlot]) -> ArgSchema {
        let mut s = ArgSchema::default();
        for &x in slots {
            s.push(x);
        }
        s
    }

    #[test]
    fn slot_sizes_follow_the_cuda_declarations() {
        assert_eq!(ArgSlot::Pointer.size(), 8);
        // CArray<T, 0> keeps one extent and one stride, CArray<T, 3> three of each
        assert_eq!(ArgSlot::View { nd: 0 }.size(), 24);
        assert_eq!(ArgSlot::View { nd: 3 }.size(), 56);
        assert_eq!(ArgSlot::Scalar(DType::C128).size(), 16);
        assert_eq!(ArgSlot::Scalar(DType::Bool).size(), 1);
        assert_eq!(ArgSlot::Index(IndexWidth::I32).size(), 4);
        let w = ArgSlot::Words {
            count: 6,
            width: IndexWidth::I32,
        };
        assert_eq!(w.size(), 24);
        assert_eq!(ArgSlot::Bits { bytes: 16 }.size(), 16);
    }

    #[test]
    fn the_packer_writes_each_slot_and_refuses_the_wrong_kind() {
        let s = schema(&[
            ArgSlot::Pointer,
            ArgSlot::View { nd: 2 },
            ArgSlot::Scalar(DType::F32),
            ArgSlot::Index(IndexWidth::I32),
            ArgSlot::Words {
                count: 3,
                width: IndexWidth::I32,
            },
        ]);
        let mut p = Packer::new("k", &s);
        p.pointer(0x1000).unwrap();
        p.view(0x2000, &[3, 4], &[4, 1]).unwrap();
        let e = p.scalar(Scalar::F64(1.0)).unwrap_err();
        assert!(
            e.to_string()
                .contains("argument 2 of 'k' is a scalar, its parameter is a float32 scalar"),
            "{e}"
        );
        p.scalar(Scalar::F32(1.5)).unwrap();
        p.index(10).unwrap();
        let e = Packer::new("k", &s).finish().unwrap_err();
        assert!(
            e.to_string().contains("got 0 arguments for 5 parameters"),
            "{e}"
        );
        p.words([1, -2, 3]).unwrap();
        p.finish().unwrap();
        let mut p = Packer::new("k", &s);
        let e = p.view(0, &[3], &[1]).unwrap_err();
        assert!(
            e.to_string()
                .contains("is a view, its parameter is a pointer"),
            "{e}"
        );
        let s = schema(&[ArgSlot::Words {
            count: 2,
            width: IndexWidth::I64,
        }]);
        let e = Packer::new("k", &s).words([1, 2, 3]).unwrap_err();
        assert!(
            e.to_string().contains("has 3 integers, its struct 2"),
            "{e}"
        );
    }

    #[test]
    fn schemas_are_checked_against_parameter_sizes() {
        let s = schema(&[ArgSlot::Pointer, ArgSlot::Index(IndexWidth::I64)]);
        s.check_sizes("k", &[8, 8]).unwrap();
        let e = s.check_sizes("k", &[8, 4]).unwrap_err();
        assert!(
            e.to_string()
                .contains("declares parameters of [8, 4] bytes"),
            "{e}"
        );
        assert!(e.to_string().contains("a pointer, a 8-byte index"), "{e}");
    }
}
