//! What a module image says about its kernels, read without the driver: the number of
//! parameters of each kernel, from a cubin's `.nv.info.<kernel>` sections or a PTX text's
//! `.entry` declarations.
//!
//! The driver reports each parameter's offset and size (`cuFuncGetParamInfo`) but, before
//! CUDA 13.2 (`cuFuncGetParamCount`), not how many there are: asking for one index past the
//! last is an API error that compute-sanitizer reports. With the count from the image the
//! driver is asked exactly that many times.
//!
//! Cubin layout used (ELF64, little-endian): a section named `.nv.info.<mangled name>` per
//! kernel holds attribute records, each `u8 format, u8 attribute, u16 value-or-size`,
//! followed by `size` bytes when the format is 4 (`EIFMT_SVAL`). Attribute 0x17
//! (`EIATTR_KPARAM_INFO`) is one parameter: `u32 index, u16 ordinal, u16 offset, u32
//! flags`. A kernel's parameter count is the number of such records (ordinals 0..n). An
//! image that does not fit this layout gives no count, and the caller falls back to asking
//! the driver index by index.

use rustc_hash::FxHashMap;

/// Parameter counts per kernel (mangled) name; empty when the image is neither a cubin nor
/// PTX text that this reader understands.
pub(crate) fn param_counts(image: &[u8]) -> FxHashMap<String, usize> {
    if image.starts_with(b"\x7fELF") {
        elf_param_counts(image).unwrap_or_default()
    } else {
        ptx_param_counts(image)
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}
fn u64_at(b: &[u8], at: usize) -> Option<usize> {
    let v = u64::from_le_bytes(b.get(at..at.checked_add(8)?)?.try_into().ok()?);
    usize::try_from(v).ok()
}

const INFO_PREFIX: &str = ".nv.info.";
const EIFMT_SVAL: u8 = 4;
const EIATTR_KPARAM_INFO: u8 = 0x17;

fn elf_param_counts(b: &[u8]) -> Option<FxHashMap<String, usize>> {
    let kernels = elf_kparams(b)?;
    Some(kernels.into_iter().map(|(k, p)| (k, p.len())).collect())
}

/// The byte size of every parameter of every kernel of a cubin (from the same records:
/// the size is the top 14 bits of the record's flags); empty for anything but a cubin this
/// reader understands. For checking generated kernels' argument schemas without a GPU.
pub(crate) fn param_sizes(image: &[u8]) -> FxHashMap<String, Vec<usize>> {
    elf_kparams(image).unwrap_or_default()
}

/// Per kernel of a cubin: its parameters' sizes in ordinal order.
fn elf_kparams(b: &[u8]) -> Option<FxHashMap<String, Vec<usize>>> {
    // ELF64 (class 2), little-endian (data 1).
    if !b.starts_with(b"\x7fELF") || b.get(4) != Some(&2) || b.get(5) != Some(&1) {
        return None;
    }
    let shoff = u64_at(b, 0x28)?;
    let shentsize = u16_at(b, 0x3A)? as usize;
    let shnum = u16_at(b, 0x3C)? as usize;
    let shstrndx = u16_at(b, 0x3E)? as usize;
    if shentsize < 0x28 {
        return None;
    }
    // (name offset, file offset, size) of section `i`.
    let section = |i: usize| -> Option<(usize, usize, usize)> {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        Some((
            u32_at(b, h)? as usize,
            u64_at(b, h + 0x18)?,
            u64_at(b, h + 0x20)?,
        ))
    };
    let (_, stroff, strsize) = section(shstrndx)?;
    let strtab = b.get(stroff..stroff.checked_add(strsize)?)?;
    let mut out = FxHashMap::default();
    for i in 0..shnum {
        let (name_off, off, size) = section(i)?;
        let name = strtab.get(name_off..)?;
        let name = &name[..name.iter().position(|&c| c == 0)?];
        let Some(kernel) = std::str::from_utf8(name)
            .ok()
            .and_then(|n| n.strip_prefix(INFO_PREFIX))
        else {
            continue;
        };
        let body = b.get(off..off.checked_add(size)?)?;
        if let Some(sizes) = kparams(body) {
            out.insert(kernel.to_string(), sizes);
        }
    }
    Some(out)
}

/// The parameter sizes of one `.nv.info.<kernel>` section's `EIATTR_KPARAM_INFO` records,
/// when their ordinals are exactly `0..n`.
fn kparams(body: &[u8]) -> Option<Vec<usize>> {
    let mut params: Vec<(usize, usize)> = Vec::new();
    let mut p = 0;
    while p < body.len() {
        let format = *body.get(p)?;
        let attr = *body.get(p + 1)?;
        let value = u16_at(body, p + 2)? as usize;
        p += 4;
        match format {
            1..=3 => {}
            EIFMT_SVAL => {
                let data = body.get(p..p.checked_add(value)?)?;
                p += value;
                if attr == EIATTR_KPARAM_INFO {
                    let flags = u32_at(data, 8).unwrap_or(0);
                    params.push((u16_at(data, 4)? as usize, (flags >> 18) as usize));
                }
            }
            _ => return None,
        }
    }
    params.sort_unstable();
    params
        .iter()
        .enumerate()
        .all(|(i, &(o, _))| i == o)
        .then(|| params.into_iter().map(|(_, size)| size).collect())
}

/// `.entry name(.param … , .param …)` declarations of PTX text (comments skipped).
fn ptx_param_counts(image: &[u8]) -> FxHashMap<String, usize> {
    let mut out = FxHashMap::default();
    let Ok(text) = std::str::from_utf8(image.strip_suffix(&[0]).unwrap_or(image)) else {
        return out;
    };
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(at) = find_word(rest, ".entry") {
        rest = rest[at + ".entry".len()..].trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.".contains(c)))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        rest = rest[end..].trim_start();
        let count = if let Some(params) = rest.strip_prefix('(') {
            let close = params.find(')').unwrap_or(params.len());
            let list = &params[..close];
            rest = &params[close..];
            list.matches(".param").count()
        } else {
            0
        };
        if !name.is_empty() {
            out.insert(name.to_string(), count);
        }
    }
    out
}

/// Position of `word` in `s` as a whole token (not part of a longer identifier).
fn find_word(s: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find(word) {
        let at = from + i;
        let after = s[at + word.len()..].chars().next();
        if after.is_none_or(|c| c.is_whitespace()) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 with the given `(section name, contents)` sections.
    fn elf(sections: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut strtab = vec![0u8];
        let mut names = Vec::new();
        for (n, _) in sections.iter().chain([(".shstrtab", Vec::new())].iter()) {
            names.push(strtab.len() as u32);
            strtab.extend_from_slice(n.as_bytes());
            strtab.push(0);
        }
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        let mut offs = Vec::new();
        for (_, body) in sections {
            offs.push((b.len(), body.len()));
            b.extend_from_slice(body);
        }
        offs.push((b.len(), strtab.len()));
        b.extend_from_slice(&strtab);
        let shoff = b.len();
        // Section 0 is the null section.
        b.extend_from_slice(&[0u8; 64]);
        for (i, (off, size)) in offs.iter().enumerate() {
            let mut h = [0u8; 64];
            h[..4].copy_from_slice(&names[i].to_le_bytes());
            h[0x18..0x20].copy_from_slice(&(*off as u64).to_le_bytes());
            h[0x20..0x28].copy_from_slice(&(*size as u64).to_le_bytes());
            b.extend_from_slice(&h);
        }
        let n = offs.len() + 1;
        b[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        b[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
        b[0x3C..0x3E].copy_from_slice(&(n as u16).to_le_bytes());
        b[0x3E..0x40].copy_from_slice(&((n - 1) as u16).to_le_bytes());
        b
    }

    fn kparam(ordinal: u16, offset: u16, size: u32) -> Vec<u8> {
        let mut r = vec![EIFMT_SVAL, EIATTR_KPARAM_INFO, 12, 0];
        r.extend_from_slice(&0u32.to_le_bytes());
        r.extend_from_slice(&ordinal.to_le_bytes());
        r.extend_from_slice(&offset.to_le_bytes());
        r.extend_from_slice(&((size << 18) | 0x1f000).to_le_bytes());
        r
    }

    fn info(params: &[(u16, u16, u32)]) -> Vec<u8> {
        // Other records around the parameters, as NVRTC writes them.
        let mut v = vec![EIFMT_SVAL, 0x37, 4, 0, 0x82, 0, 0, 0];
        for &(o, off, size) in params {
            v.extend(kparam(o, off, size));
        }
        v.extend_from_slice(&[3, 0x1b, 0xff, 0]);
        v.extend_from_slice(&[EIFMT_SVAL, 0x0a, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        v
    }

    #[test]
    fn cubin_sections_give_each_kernels_count() {
        let img = elf(&[
            (".text.k3", vec![0; 16]),
            (".nv.info", vec![3, 0x2f, 1, 0]),
            (".nv.info.k3", info(&[(2, 16, 8), (1, 8, 4), (0, 0, 8)])),
            (".nv.info.k0", info(&[])),
            (
                ".nv.info._Z5scaleIfLi4EEvPT_i",
                info(&[(1, 8, 4), (0, 0, 8)]),
            ),
            // Ordinals with a gap: no count (the driver is asked instead).
            (".nv.info.gap", info(&[(0, 0, 8), (2, 16, 8)])),
        ]);
        let c = param_counts(&img);
        assert_eq!(c.get("k3"), Some(&3));
        assert_eq!(c.get("k0"), Some(&0));
        assert_eq!(c.get("_Z5scaleIfLi4EEvPT_i"), Some(&2));
        assert_eq!(c.get("gap"), None);
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn damaged_images_give_no_counts_and_never_panic() {
        let img = elf(&[(".nv.info.k", info(&[(0, 0, 8)]))]);
        assert_eq!(param_counts(&img).get("k"), Some(&1));
        for cut in 0..img.len() {
            let _ = param_counts(&img[..cut]);
        }
        let mut x: u64 = 7;
        for _ in 0..2000 {
            let mut bad = img.clone();
            for _ in 0..4 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                let i = (x >> 33) as usize % bad.len();
                bad[i] = (x >> 20) as u8;
            }
            let _ = param_counts(&bad);
        }
        // A truncated record inside the section.
        let mut body = info(&[(0, 0, 8)]);
        body.truncate(body.len() - 3);
        assert_eq!(param_counts(&elf(&[(".nv.info.k", body)])).get("k"), None);
        // 32-bit or big-endian ELF: not read.
        let mut be = img.clone();
        be[5] = 2;
        assert!(param_counts(&be).is_empty());
    }

    #[test]
    fn ptx_entries() {
        let ptx = b"//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n.target sm_90\n\
            // .entry commented(.param .u64 a)\n\
            .visible .entry k3(\n\t.param .u64 k3_param_0,\n\t.param .u32 k3_param_1,\n\t.param .f64 k3_param_2\n)\n{\n\tret;\n}\n\
            .visible .entry k0()\n{\n\tret;\n}\n\
            .weak .entry _Z5scaleIfLi4EEvPT_i(\n\t.param .u64 _Z5scaleIfLi4EEvPT_i_param_0,\n\t.param .u32 _Z5scaleIfLi4EEvPT_i_param_1\n)\n{ ret; }\n\
            .entry noparens\n{ ret; }\n\0";
        let c = param_counts(ptx);
        assert_eq!(c.get("k3"), Some(&3));
        assert_eq!(c.get("k0"), Some(&0));
        assert_eq!(c.get("_Z5scaleIfLi4EEvPT_i"), Some(&2));
        assert_eq!(c.get("noparens"), Some(&0));
        assert_eq!(c.get("commented"), None);
        assert!(param_counts(b"\xff\xfe not text").is_empty());
    }

    /// The real thing: NVRTC's cubin and PTX for the kernels above (skips without NVRTC).
    #[test]
    fn nvrtc_output_is_read() {
        if !crate::compile::nvrtc_for_test("runtime::image::nvrtc_output_is_read") {
            return;
        }
        let src = r#"
extern "C" __global__ void k3(float* x, int n, double d) { x[threadIdx.x] = n + d; }
extern "C" __global__ void k0() { }
struct S { double a[5]; };
extern "C" __global__ void ks(S s, char c, float* out) { out[0] = s.a[1] + c; }
template<typename T, int N> __global__ void scale(T* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= N; }
"#;
        let cache = crate::compile::KernelCache::new(None);
        let opts = crate::compile::CompileOptions::new().name_expression("scale<float, 4>");
        // sm_90: a cubin; an architecture NVRTC does not know gives PTX for its newest.
        for arch in [90, 9999] {
            let img = match cache.compile(src, &opts, arch) {
                Ok(img) => img,
                Err(e) if arch == 9999 => {
                    eprintln!("no PTX fallback for sm_{arch}: {e}");
                    continue;
                }
                Err(e) => panic!("{e}"),
            };
            let c = param_counts(&img.image);
            let lowered = &img.lowered_names[0].1;
            assert_eq!(c.get("k3"), Some(&3), "arch {arch}: {c:?}");
            assert_eq!(c.get("k0"), Some(&0), "arch {arch}: {c:?}");
            assert_eq!(c.get("ks"), Some(&3), "arch {arch}: {c:?}");
            assert_eq!(c.get(lowered.as_str()), Some(&2), "arch {arch}: {c:?}");
        }
    }
}
