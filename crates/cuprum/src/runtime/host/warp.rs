//! Warp operations on the host device: when a lane's operation may complete, and what it
//! returns. Pure functions over the lanes' slots, so the semantics are unit-tested here
//! against CUDA's definitions.
//!
//! A warp is 32 consecutive linear thread ids of a block (x fastest); the last warp of a
//! block whose size is not a multiple of 32 has fewer lanes. A lane's operation completes
//! once every *live* lane named in its mask (not exited, existing) is waiting at a warp
//! operation of the same kind with the same mask (PTX's rule; the call sites may differ):
//! exited lanes do not hold a warp back (as exited threads do not hold back a barrier on
//! Volta and later). Shuffle offsets and lanes count by their low five bits, as in PTX. Reading a lane that does not take part (exited, absent,
//! outside the mask) returns the reader's own value, as CUDA does for lanes outside the
//! `width` segment. `__activemask()` is approximate: the lanes waiting at the same call.

use super::abi::{self, Slot};

/// The state of one warp's lanes as bit masks (bit `i` = lane `i`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Lanes {
    /// Lanes that exist and have not exited.
    pub live: u32,
    /// Live lanes waiting at a warp operation.
    pub at_warp: u32,
    /// Live lanes waiting at anything (a barrier, a warp operation, a grid sync).
    pub blocked: u32,
}

/// Whether lane `lane`'s warp operation may complete now: every live lane of its mask waits
/// at a warp operation of the same kind with the same mask (PTX's rule for `shfl.sync`,
/// `vote.sync`, `match.sync`, `redux.sync` and `bar.warp.sync`: "the same qualifiers and
/// the same membermask"), wherever in the code that call is. A lane of the mask that waits
/// at another warp operation holds this one back until it gets here.
pub(crate) fn ready(slots: &[Slot], lane: usize, lanes: &Lanes) -> bool {
    let slot = &slots[lane];
    if slot.kind == abi::WARP_ACTIVEMASK {
        return lanes.blocked == lanes.live;
    }
    let need = slot.mask & lanes.live;
    need & lanes.at_warp == need
        && fold_lanes(need, true, |ok, i| {
            ok && slots[i].kind == slot.kind && slots[i].mask == slot.mask
        })
}

/// The lanes that take part in `slot`'s operation: its mask, among the lanes waiting at a
/// warp operation (for `__activemask`: the lanes waiting at the same call).
fn members(slots: &[Slot], slot: &Slot, lanes: &Lanes) -> u32 {
    if slot.kind == abi::WARP_ACTIVEMASK {
        let mut m = 0u32;
        for (i, s) in slots.iter().enumerate() {
            if lanes.at_warp & (1 << i) != 0
                && s.kind == abi::WARP_ACTIVEMASK
                && s.line == slot.line
                && std::ptr::eq(s.file, slot.file)
            {
                m |= 1 << i;
            }
        }
        return m;
    }
    slot.mask & lanes.at_warp
}

/// A shuffle's source lane, or `None` when the lane reads its own value. As PTX's
/// `shfl.sync` defines it, only the low five bits of the lane or offset count (an offset of
/// 33 moves by 1; an xor mask of -1 is 31); a width that is not a power of two up to 32
/// faults in the shim before it gets here (32 is assumed).
fn shuffle_source(kind: u32, lane: u32, width: u32, arg: i32) -> Option<u32> {
    let w = if width.is_power_of_two() && width <= 32 {
        width
    } else {
        32
    };
    let base = lane & !(w - 1);
    let offset = lane & (w - 1);
    let b = (arg as u32) & 31;
    match kind {
        abi::WARP_SHFL => Some(base + (b & (w - 1))),
        abi::WARP_SHFL_UP => (offset >= b).then(|| lane - b),
        abi::WARP_SHFL_DOWN => (offset + b < w).then(|| lane + b),
        abi::WARP_SHFL_XOR => {
            let src = lane ^ b;
            // Earlier segments may be read, later ones not.
            (src < base + w).then_some(src)
        }
        _ => None,
    }
}

/// Folds `f` over the lanes set in `m`, lowest first (a plain bit loop: the host device's
/// tests run unoptimised, where iterator chains cost tenfold).
fn fold_lanes<A>(m: u32, init: A, mut f: impl FnMut(A, usize) -> A) -> A {
    let (mut bits, mut acc) = (m, init);
    while bits != 0 {
        acc = f(acc, bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
    acc
}

/// Whether `pred` holds for a lane of `m` (`any`) or for every one (`!any`).
fn test_lanes(m: u32, any: bool, pred: impl Fn(usize) -> bool) -> bool {
    fold_lanes(
        m,
        !any,
        |acc, i| if any { acc || pred(i) } else { acc && pred(i) },
    )
}

/// Whether lane `lane`'s result depends only on the operation and its member lanes (the
/// same for every lane with the same members), so the caller may reuse it.
pub(crate) fn shared_result(kind: u32) -> bool {
    matches!(
        kind,
        abi::WARP_BALLOT
            | abi::WARP_ANY
            | abi::WARP_ALL
            | abi::WARP_SYNC
            | abi::WARP_REDUCE_ADD
            | abi::WARP_REDUCE_MIN
            | abi::WARP_REDUCE_MAX
            | abi::WARP_REDUCE_MIN_S
            | abi::WARP_REDUCE_MAX_S
            | abi::WARP_REDUCE_AND
            | abi::WARP_REDUCE_OR
            | abi::WARP_REDUCE_XOR
    )
}

/// The lanes whose values lane `lane`'s operation combines.
pub(crate) fn operation_lanes(slots: &[Slot], lane: usize, lanes: &Lanes) -> u32 {
    let s = &slots[lane];
    let own = if s.kind == abi::WARP_ACTIVEMASK {
        0
    } else {
        1 << lane
    };
    (members(slots, s, lanes) | own) & lanes.live
}

/// The result of lane `lane`'s warp operation, given every lane's slot of the warp.
pub(crate) fn result(slots: &[Slot], lane: usize, lanes: &Lanes) -> u64 {
    let s = &slots[lane];
    let m = operation_lanes(slots, lane, lanes);
    let v32 = |i: usize| slots[i].value as u32;
    let nonzero = |i: usize| slots[i].value != 0;
    let min_max = |signed: bool, max: bool| {
        let key = |i: usize| {
            if signed {
                i64::from(v32(i) as i32)
            } else {
                i64::from(v32(i))
            }
        };
        let best = fold_lanes(m, None::<i64>, |a, i| {
            let k = key(i);
            Some(a.map_or(k, |b| if max { b.max(k) } else { b.min(k) }))
        });
        u64::from(best.unwrap_or(0) as u32)
    };
    match s.kind {
        abi::WARP_SHFL | abi::WARP_SHFL_UP | abi::WARP_SHFL_DOWN | abi::WARP_SHFL_XOR => {
            match shuffle_source(s.kind, lane as u32, s.width, s.arg) {
                Some(src) if (src as usize) < slots.len() && lanes.at_warp & (1 << src) != 0 => {
                    slots[src as usize].value
                }
                _ => s.value,
            }
        }
        abi::WARP_BALLOT => u64::from(fold_lanes(
            m,
            0u32,
            |a, i| {
                if nonzero(i) { a | 1 << i } else { a }
            },
        )),
        abi::WARP_ANY => u64::from(test_lanes(m, true, nonzero)),
        abi::WARP_ALL => u64::from(test_lanes(m, false, nonzero)),
        abi::WARP_SYNC => 0,
        abi::WARP_MATCH_ANY => u64::from(fold_lanes(m, 0u32, |a, i| {
            if slots[i].value == s.value {
                a | 1 << i
            } else {
                a
            }
        })),
        abi::WARP_MATCH_ALL if test_lanes(m, false, |i| slots[i].value == s.value) => {
            (1u64 << 32) | u64::from(m)
        }
        abi::WARP_MATCH_ALL => 0,
        abi::WARP_REDUCE_ADD => u64::from(fold_lanes(m, 0u32, |a, i| a.wrapping_add(v32(i)))),
        abi::WARP_REDUCE_MIN => min_max(false, false),
        abi::WARP_REDUCE_MAX => min_max(false, true),
        abi::WARP_REDUCE_MIN_S => min_max(true, false),
        abi::WARP_REDUCE_MAX_S => min_max(true, true),
        abi::WARP_REDUCE_AND => u64::from(fold_lanes(m, u32::MAX, |a, i| a & v32(i))),
        abi::WARP_REDUCE_OR => u64::from(fold_lanes(m, 0u32, |a, i| a | v32(i))),
        abi::WARP_REDUCE_XOR => u64::from(fold_lanes(m, 0u32, |a, i| a ^ v32(i))),
        abi::WARP_ACTIVEMASK => u64::from(m),
        _ => 0,
    }
}

/// The name of a warp operation, for messages.
pub(crate) fn name(kind: u32) -> &'static str {
    match kind {
        abi::WARP_SHFL => "__shfl_sync",
        abi::WARP_SHFL_UP => "__shfl_up_sync",
        abi::WARP_SHFL_DOWN => "__shfl_down_sync",
        abi::WARP_SHFL_XOR => "__shfl_xor_sync",
        abi::WARP_BALLOT => "__ballot_sync",
        abi::WARP_ANY => "__any_sync",
        abi::WARP_ALL => "__all_sync",
        abi::WARP_SYNC => "__syncwarp",
        abi::WARP_MATCH_ANY => "__match_any_sync",
        abi::WARP_MATCH_ALL => "__match_all_sync",
        abi::WARP_REDUCE_ADD..=abi::WARP_REDUCE_XOR => "__reduce_*_sync",
        abi::WARP_ACTIVEMASK => "__activemask",
        _ => "a warp operation",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(n: usize, kind: u32, arg: i32, width: u32, values: impl Fn(usize) -> u64) -> Vec<Slot> {
        (0..n)
            .map(|i| Slot {
                op: abi::OP_WARP,
                kind,
                mask: u32::MAX,
                width,
                arg,
                value: values(i),
                ..Slot::default()
            })
            .collect()
    }

    fn all(n: usize) -> Lanes {
        let m = if n == 32 { u32::MAX } else { (1 << n) - 1 };
        Lanes {
            live: m,
            at_warp: m,
            blocked: m,
        }
    }

    /// PTX's definition of `shfl.sync` (with the `c` operand CUDA's intrinsics pass),
    /// written out per lane.
    fn reference(kind: u32, lane: i64, arg: i64, width: i64, n: i64) -> i64 {
        let b = arg & 31;
        let seg = 32 - width; // c[12:8]
        let clamp = if kind == abi::WARP_SHFL_UP { 0 } else { 31 }; // c[4:0]
        let max_lane = (lane & seg) | (clamp & !seg);
        let min_lane = lane & seg;
        let (j, ok) = match kind {
            abi::WARP_SHFL => {
                let j = min_lane | (b & !seg);
                (j, j <= max_lane)
            }
            abi::WARP_SHFL_UP => (lane - b, lane - b >= max_lane),
            abi::WARP_SHFL_DOWN => (lane + b, lane + b <= max_lane),
            _ => (lane ^ b, (lane ^ b) <= max_lane),
        };
        let src = if ok { j } else { lane };
        if src >= n { lane } else { src }
    }

    #[test]
    fn shuffles_match_cuda_for_every_width_offset_and_partial_warp() {
        for n in [32usize, 17, 1] {
            for width in [1u32, 2, 4, 8, 16, 32] {
                for kind in [
                    abi::WARP_SHFL,
                    abi::WARP_SHFL_UP,
                    abi::WARP_SHFL_DOWN,
                    abi::WARP_SHFL_XOR,
                ] {
                    for arg in -40..72 {
                        let slots = warp(n, kind, arg, width, |i| 1000 + i as u64);
                        for lane in 0..n {
                            let want = reference(
                                kind,
                                lane as i64,
                                i64::from(arg),
                                i64::from(width),
                                n as i64,
                            );
                            assert_eq!(
                                result(&slots, lane, &all(n)),
                                1000 + want as u64,
                                "kind {kind} width {width} arg {arg} lane {lane} of {n}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn exited_lanes_are_read_as_the_readers_own_value_and_do_not_hold_the_warp() {
        let slots = warp(32, abi::WARP_SHFL_DOWN, 1, 32, |i| i as u64);
        let lanes = Lanes {
            live: !(1 << 5),
            at_warp: !(1 << 5),
            blocked: !(1 << 5),
        };
        assert!(ready(&slots, 4, &lanes));
        assert_eq!(result(&slots, 4, &lanes), 4);
        assert_eq!(result(&slots, 3, &lanes), 4);
        // a lane waiting at a barrier does hold it back
        let lanes = Lanes {
            live: u32::MAX,
            at_warp: !(1 << 5),
            blocked: u32::MAX,
        };
        assert!(!ready(&slots, 4, &lanes));
        // unless it is outside the mask
        let mut s = slots.clone();
        s[4].mask = 0xF;
        assert!(!ready(&s, 4, &lanes), "lanes 0-3 wait with another mask");
        for x in &mut s[..4] {
            x.mask = 0x1F;
        }
        s[4].mask = 0x1F;
        assert!(ready(&s, 4, &lanes));
    }

    #[test]
    fn an_operation_waits_for_its_lanes_at_the_same_kind_and_mask() {
        let mut slots = warp(32, abi::WARP_SHFL_XOR, 1, 32, |i| i as u64);
        // lanes 16-31 wait at a __syncwarp with the same mask: neither completes
        for x in &mut slots[16..] {
            x.kind = abi::WARP_SYNC;
        }
        assert!(!ready(&slots, 0, &all(32)));
        assert!(!ready(&slots, 20, &all(32)));
        // a shuffle of lanes 0-15 only completes beside them
        for x in &mut slots[..16] {
            x.mask = 0xFFFF;
        }
        assert!(ready(&slots, 0, &all(32)));
        assert!(!ready(&slots, 20, &all(32)));
        // lanes of the mask at the same call with another mask hold it back
        slots[3].mask = 0xFF;
        assert!(!ready(&slots, 0, &all(32)));
    }

    #[test]
    fn votes_and_reductions() {
        let slots = warp(32, abi::WARP_BALLOT, 0, 32, |i| (i % 3 == 0) as u64);
        let want = (0..32).filter(|i| i % 3 == 0).fold(0u32, |a, i| a | 1 << i);
        assert_eq!(result(&slots, 7, &all(32)), u64::from(want));
        let mut s = warp(32, abi::WARP_ANY, 0, 32, |i| (i == 31) as u64);
        assert_eq!(result(&s, 0, &all(32)), 1);
        for x in &mut s {
            x.kind = abi::WARP_ALL;
        }
        assert_eq!(result(&s, 0, &all(32)), 0);
        // a mask restricts the vote
        for x in &mut s {
            x.mask = 0x7FFF_FFFF;
            x.kind = abi::WARP_ANY;
        }
        assert_eq!(result(&s, 0, &all(32)), 0);
        let r = |kind, f: fn(usize) -> u64| result(&warp(20, kind, 0, 32, f), 0, &all(20));
        assert_eq!(r(abi::WARP_REDUCE_ADD, |i| i as u64), 190);
        assert_eq!(r(abi::WARP_REDUCE_MIN, |i| 50 - i as u64), 31);
        assert_eq!(
            r(abi::WARP_REDUCE_MAX_S, |i| (i as i32 - 10) as u32 as u64),
            9
        );
        assert_eq!(
            r(abi::WARP_REDUCE_MIN_S, |i| (i as i32 - 10) as u32 as u64),
            (-10i32) as u32 as u64
        );
        assert_eq!(r(abi::WARP_REDUCE_OR, |i| 1 << (i % 4)), 0xF);
        assert_eq!(r(abi::WARP_REDUCE_XOR, |i| i as u64), 0); // 0 ^ 1 ^ ... ^ 19
        let m = warp(8, abi::WARP_MATCH_ANY, 0, 32, |i| (i % 2) as u64);
        assert_eq!(result(&m, 3, &all(8)), 0b1010_1010);
        let m = warp(8, abi::WARP_MATCH_ALL, 0, 32, |_| 7);
        assert_eq!(result(&m, 3, &all(8)), (1 << 32) | 0xFF);
    }
}
