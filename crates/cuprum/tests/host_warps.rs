//! Warp operations on the host device against their definitions: shuffles as PTX's
//! `shfl.sync` defines them (every width, offsets past the segment and past 32, negative
//! ones), votes, `__activemask`, matches, `__reduce_*_sync` (signed and unsigned),
//! `__syncwarp`, partial masks in divergent code, and a last partial warp. Expected values
//! are computed here from the definitions, lane by lane.
mod common;

use common::Rng;
use cuprum::{Array, DType, Device, RawModule};

fn host() -> Device {
    common::host_device()
}

const WARPS: &str = r#"
// The lanes that exist in the calling thread's warp (1-D blocks).
__device__ unsigned warp_lanes() {
    unsigned n = blockDim.x - (threadIdx.x & ~31u);
    return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

// cfg holds ncfg triples (kind, width, offset); kind 0 __shfl_sync, 1 _up, 2 _down, 3 _xor.
extern "C" __global__ void shuffles(const int* x, const double* xd, const int* cfg, int ncfg,
                                    int* out, double* outd) {
    unsigned n = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = warp_lanes();
    int v = x[i];
    double d = xd[i];
    for (int c = 0; c < ncfg; ++c) {
        int kind = cfg[3 * c], width = cfg[3 * c + 1], off = cfg[3 * c + 2];
        int r;
        double rd;
        switch (kind) {
        case 0:
            r = __shfl_sync(mask, v, off, width);
            rd = __shfl_sync(mask, d, off, width);
            break;
        case 1:
            r = __shfl_up_sync(mask, v, (unsigned)off, width);
            rd = __shfl_up_sync(mask, d, (unsigned)off, width);
            break;
        case 2:
            r = __shfl_down_sync(mask, v, (unsigned)off, width);
            rd = __shfl_down_sync(mask, d, (unsigned)off, width);
            break;
        default:
            r = __shfl_xor_sync(mask, v, off, width);
            rd = __shfl_xor_sync(mask, d, off, width);
            break;
        }
        out[(size_t)c * n + i] = r;
        outd[(size_t)c * n + i] = rd;
    }
}

#define NV 21
extern "C" __global__ void votes(const int* x, int* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = warp_lanes();
    int v = x[i];
    int* o = out + (size_t)i * NV;
    int pred = -1;
    o[0] = (int)__ballot_sync(mask, v > 0);
    o[1] = __any_sync(mask, v > 990);
    o[2] = __all_sync(mask, v > -990);
    o[3] = __any_sync(mask, v == 12345);
    o[4] = __all_sync(mask, v != 0);
    o[5] = (int)__activemask();
    o[6] = (int)__match_any_sync(mask, v % 3);
    o[7] = (int)__match_any_sync(mask, ((unsigned long long)(v & 1) << 40) | 7ull);
    o[8] = (int)__match_all_sync(mask, v % 3, &pred);
    o[9] = pred;
    o[10] = (int)__match_all_sync(mask, (int)blockIdx.x, &pred);
    o[11] = pred;
    o[12] = __reduce_add_sync(mask, v);
    o[13] = __reduce_min_sync(mask, v);
    o[14] = __reduce_max_sync(mask, v);
    o[15] = (int)__reduce_add_sync(mask, (unsigned)v * 2654435761u);
    o[16] = (int)__reduce_min_sync(mask, (unsigned)v);
    o[17] = (int)__reduce_max_sync(mask, (unsigned)v);
    o[18] = (int)__reduce_and_sync(mask, (unsigned)v | 0x10000u);
    o[19] = (int)__reduce_or_sync(mask, (unsigned)(v & 0xff));
    o[20] = (int)__reduce_xor_sync(mask, (unsigned)v);
}

// Divergent code: each branch's operations name only its own lanes.
#define SENT 0x7eadbeef
extern "C" __global__ void partial_masks(const int* x, int* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    int v = x[i];
    int* o = out + (size_t)i * 12;
    for (int k = 0; k < 12; ++k) o[k] = SENT;
    if (lane < 16) {
        o[0] = __shfl_xor_sync(0x0000ffffu, v, 5);
        o[1] = __shfl_down_sync(0x0000ffffu, v, 3, 16);
        o[2] = (int)__ballot_sync(0x0000ffffu, v > 0);
        o[3] = __reduce_add_sync(0x0000ffffu, v);
    }
    __syncwarp();
    if (lane % 2 == 0) {
        o[4] = __shfl_sync(0x55555555u, v, (lane + 2) & 31);
        o[5] = __any_sync(0x55555555u, v > 900);
        o[6] = __all_sync(0x55555555u, v > -900);
        o[7] = (int)__match_any_sync(0x55555555u, v % 3);
    } else {
        o[8] = __shfl_up_sync(0xaaaaaaaau, v, 2);
        o[9] = (int)__ballot_sync(0xaaaaaaaau, v % 2 == 0);
    }
    __syncwarp();
    if (lane >= 10) o[10] = (int)__activemask();
    o[11] = (int)__ballot_sync(0xffffffffu, lane < 10);
}

// Lanes exchange values through shared memory, ordered by __syncwarp only; then the
// lower half of each warp once more under __syncwarp(0xffff).
extern "C" __global__ void warp_exchange(const unsigned* x, unsigned* out, int rounds) {
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x, lane = t & 31, base = t & ~31u;
    unsigned v = x[blockIdx.x * blockDim.x + t];
    for (int r = 0; r < rounds; ++r) {
        s[t] = v;
        __syncwarp();
        v = s[base + ((lane + 1) & 31)] * 3u + (unsigned)r - s[base + ((lane + 7) & 31)];
        __syncwarp();
    }
    if (lane < 16) {
        s[t] = v + 1u;
        __syncwarp(0x0000ffffu);
        v = s[base + ((lane + 1) & 15)];
    }
    out[blockIdx.x * blockDim.x + t] = v;
}
"#;

fn warps() -> &'static RawModule {
    static M: std::sync::OnceLock<RawModule> = std::sync::OnceLock::new();
    M.get_or_init(|| RawModule::new(WARPS))
}

/// Random non-zero values in `[-lim, lim]`.
fn nonzero_i32(rng: &mut Rng, n: usize, lim: i32) -> Vec<i32> {
    (0..n)
        .map(|_| {
            let v = rng.usize(1, lim as usize + 1) as i32;
            if common::coin(rng) { v } else { -v }
        })
        .collect()
}

/// The lanes of each warp of a block of `bs` threads: (first thread, lane count).
fn warps_of(bs: usize) -> Vec<(usize, usize)> {
    (0..bs.div_ceil(32))
        .map(|w| (w * 32, (bs - w * 32).min(32)))
        .collect()
}

fn lane_mask(n: usize) -> u32 {
    if n >= 32 { u32::MAX } else { (1 << n) - 1 }
}

/// The source lane of a shuffle, as PTX's `shfl.sync` defines it with the `c` operand
/// CUDA's intrinsics pass (`((32 - width) << 8) | 0x1f`, or without the `0x1f` for `_up`):
/// only the low five bits of the offset count; an out-of-range source reads its own lane.
fn shuffle_source(kind: i32, lane: u32, width: u32, off: i32) -> u32 {
    let b = i64::from((off as u32) & 31);
    let seg = i64::from(32 - width); // c[12:8]
    let clamp: i64 = if kind == 1 { 0 } else { 31 }; // c[4:0]
    let lane = i64::from(lane);
    let max_lane = (lane & seg) | (clamp & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match kind {
        0 => {
            let j = min_lane | (b & !seg);
            (j, j <= max_lane)
        }
        1 => (lane - b, lane - b >= max_lane),
        2 => (lane + b, lane + b <= max_lane),
        _ => (lane ^ b, (lane ^ b) <= max_lane),
    };
    (if ok { j } else { lane }) as u32
}

#[test]
fn shuffles_follow_ptx_for_every_width_and_offset() {
    host().with(|| {
        let k = warps().get_function("shuffles").unwrap();
        let mut rng = Rng::new(101);
        let offsets = [0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 40, 63, -1, -5];
        // full warps with every width; a block of 40 (its last warp has 8 lanes) with the
        // widths whose segments lie inside the lanes that exist
        for (bs, widths) in [(64usize, &[32, 16, 8, 4, 2, 1][..]), (40, &[8, 4, 2, 1][..])] {
            let mut cfg = Vec::new();
            for kind in 0..4 {
                for &w in widths {
                    for &o in &offsets {
                        cfg.extend([kind, w, o]);
                    }
                }
            }
            let ncfg = cfg.len() / 3;
            let blocks = 3;
            let n = blocks * bs;
            let xv: Vec<i32> = (0..n)
                .map(|_| (rng.next_u64() as i32) | 1 << (rng.usize(0, 31)))
                .collect();
            let dv = common::rand_f64(&mut rng, n);
            let out = Array::zeros(&[ncfg * n], DType::I32).unwrap();
            let outd = Array::zeros(&[ncfg * n], DType::F64).unwrap();
            k.launch(
                blocks as u32,
                bs as u32,
                (
                    &common::dev(&xv, &[n]),
                    &common::dev(&dv, &[n]),
                    &common::dev(&cfg, &[cfg.len()]),
                    ncfg as i32,
                    &out,
                    &outd,
                ),
            )
            .unwrap();
            let (got, gotd) = (out.to_vec::<i32>().unwrap(), outd.to_vec::<f64>().unwrap());
            for c in 0..ncfg {
                let (kind, w, o) = (cfg[3 * c], cfg[3 * c + 1], cfg[3 * c + 2]);
                for b in 0..blocks {
                    for (first, lanes) in warps_of(bs) {
                        for lane in 0..lanes {
                            let src = shuffle_source(kind, lane as u32, w as u32, o) as usize;
                            assert!(src < lanes, "the test reads a lane that does not exist");
                            let (i, s) = (b * bs + first + lane, b * bs + first + src);
                            let what = ["__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"]
                                [kind as usize];
                            assert_eq!(
                                got[c * n + i],
                                xv[s],
                                "{what}(offset {o}, width {w}): lane {lane} of {lanes} should read lane {src}"
                            );
                            assert_eq!(
                                gotd[c * n + i].to_bits(),
                                dv[s].to_bits(),
                                "{what}(offset {o}, width {w}) of a double: lane {lane} of {lanes}"
                            );
                        }
                    }
                }
            }
        }
    });
}

#[test]
fn votes_matches_and_reductions_per_warp() {
    host().with(|| {
        let k = warps().get_function("votes").unwrap();
        let mut rng = Rng::new(103);
        for bs in [64usize, 40, 1, 100] {
            let blocks = 3;
            let n = blocks * bs;
            let mut xv = nonzero_i32(&mut rng, n, 1000);
            // warp 1 of block 0 (or the only one): one residue mod 3, so match_all holds
            let (first, lanes) = warps_of(bs)[warps_of(bs).len().min(2) - 1];
            for v in &mut xv[first..first + lanes] {
                *v = 3 * rng.usize(1, 300) as i32 + 1;
            }
            let out = Array::zeros(&[n * 21], DType::I32).unwrap();
            k.launch(blocks as u32, bs as u32, (&common::dev(&xv, &[n]), &out))
                .unwrap();
            let got = out.to_vec::<i32>().unwrap();
            for b in 0..blocks {
                for (first, lanes) in warps_of(bs) {
                    let at = b * bs + first;
                    let v = &xv[at..at + lanes];
                    let m = lane_mask(lanes);
                    let ballot = |p: &dyn Fn(i32) -> bool| {
                        (0..lanes)
                            .filter(|&l| p(v[l]))
                            .fold(0u32, |a, l| a | 1 << l)
                    };
                    let all_eq3 = v.iter().all(|x| x % 3 == v[0] % 3);
                    let u = || v.iter().map(|&x| x as u32);
                    for lane in 0..lanes {
                        let want: [i32; 21] = [
                            ballot(&|x| x > 0) as i32,
                            i32::from(v.iter().any(|&x| x > 990)),
                            i32::from(v.iter().all(|&x| x > -990)),
                            0,
                            1,
                            m as i32,
                            ballot(&|x| x % 3 == v[lane] % 3) as i32,
                            ballot(&|x| x & 1 == v[lane] & 1) as i32,
                            if all_eq3 { m as i32 } else { 0 },
                            i32::from(all_eq3),
                            m as i32,
                            1,
                            v.iter().fold(0i32, |a, &x| a.wrapping_add(x)),
                            *v.iter().min().unwrap(),
                            *v.iter().max().unwrap(),
                            u().fold(0u32, |a, x| a.wrapping_add(x.wrapping_mul(2654435761)))
                                as i32,
                            u().min().unwrap() as i32,
                            u().max().unwrap() as i32,
                            u().fold(u32::MAX, |a, x| a & (x | 0x10000)) as i32,
                            u().fold(0, |a, x| a | (x & 0xff)) as i32,
                            u().fold(0, |a, x| a ^ x) as i32,
                        ];
                        let i = at + lane;
                        assert_eq!(
                            &got[i * 21..i * 21 + 21],
                            &want,
                            "blocks of {bs}: block {b}, warp at {first}, lane {lane} of {lanes}: \
                             ballot, any, all, any(never), all(always), activemask, \
                             match_any(int), match_any(64-bit), match_all, pred, match_all, \
                             pred, reduce add/min/max (int), add/min/max/and/or/xor (unsigned)"
                        );
                    }
                }
            }
        }
    });
}

#[test]
fn partial_masks_in_divergent_branches() {
    host().with(|| {
        let k = warps().get_function("partial_masks").unwrap();
        let mut rng = Rng::new(107);
        let (bs, blocks) = (64usize, 2usize);
        let n = bs * blocks;
        let xv = nonzero_i32(&mut rng, n, 1000);
        let out = Array::zeros(&[n * 12], DType::I32).unwrap();
        k.launch(blocks as u32, bs as u32, (&common::dev(&xv, &[n]), &out))
            .unwrap();
        let got = out.to_vec::<i32>().unwrap();
        const SENT: i32 = 0x7ead_beef;
        for w in 0..n / 32 {
            let v = &xv[w * 32..w * 32 + 32];
            let ballot = |lanes: &mut dyn Iterator<Item = usize>, p: &dyn Fn(i32) -> bool| {
                lanes.filter(|&l| p(v[l])).fold(0u32, |a, l| a | 1 << l) as i32
            };
            for lane in 0..32 {
                let mut want = [SENT; 12];
                if lane < 16 {
                    want[0] = v[lane ^ 5];
                    want[1] = v[if lane + 3 < 16 { lane + 3 } else { lane }];
                    want[2] = ballot(&mut (0..16), &|x| x > 0);
                    want[3] = v[..16].iter().fold(0i32, |a, &x| a.wrapping_add(x));
                }
                if lane % 2 == 0 {
                    let even = || (0..32).step_by(2);
                    want[4] = v[(lane + 2) & 31];
                    want[5] = i32::from(even().any(|l| v[l] > 900));
                    want[6] = i32::from(even().all(|l| v[l] > -900));
                    want[7] = ballot(&mut even(), &|x| x % 3 == v[lane] % 3);
                } else {
                    want[8] = v[if lane >= 3 { lane - 2 } else { lane }];
                    want[9] = ballot(&mut (1..32).step_by(2), &|x| x % 2 == 0);
                }
                if lane >= 10 {
                    want[10] = 0xffff_fc00u32 as i32;
                }
                want[11] = 0x3ff;
                let i = w * 32 + lane;
                assert_eq!(
                    &got[i * 12..i * 12 + 12],
                    &want,
                    "warp {w} lane {lane}: lanes 0-15 xor/down/ballot/add, even lanes \
                     shfl/any/all/match_any, odd lanes up/ballot, activemask (lanes >= 10), ballot"
                );
            }
        }
    });
}

#[test]
fn syncwarp_orders_shared_memory_between_lanes() {
    host().with(|| {
        let k = warps().get_function("warp_exchange").unwrap();
        let mut rng = Rng::new(109);
        for (bs, rounds) in [(32usize, 1i32), (64, 5), (256, 3)] {
            let blocks = 3;
            let n = bs * blocks;
            let xv: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32 | 1).collect();
            let out = Array::zeros(&[n], DType::U32).unwrap();
            k.launch(
                blocks as u32,
                bs as u32,
                (&common::dev(&xv, &[n]), &out, rounds),
            )
            .unwrap();
            let got = out.to_vec::<u32>().unwrap();
            for w in 0..n / 32 {
                let mut v = xv[w * 32..w * 32 + 32].to_vec();
                for r in 0..rounds {
                    v = (0..32)
                        .map(|l| {
                            v[(l + 1) & 31]
                                .wrapping_mul(3)
                                .wrapping_add(r as u32)
                                .wrapping_sub(v[(l + 7) & 31])
                        })
                        .collect();
                }
                let half: Vec<u32> = (0..32)
                    .map(|l| {
                        if l < 16 {
                            v[(l + 1) & 15].wrapping_add(1)
                        } else {
                            v[l]
                        }
                    })
                    .collect();
                assert_eq!(
                    &got[w * 32..w * 32 + 32],
                    &half[..],
                    "blocks of {bs}, {rounds} rounds: warp {w}"
                );
            }
        }
    });
}
