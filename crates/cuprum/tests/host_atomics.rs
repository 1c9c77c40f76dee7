//! Atomics on the host device under contention: many threads (more than the launches that
//! run inline, so blocks run on several worker threads at once) over a few addresses, in
//! global and shared memory. Integer results are exact, also the values each thread got
//! back (tickets, exchanges, `atomicInc`/`atomicDec` with CUDA's wrap rules); float sums
//! are within a bound of the summation order.
mod common;

use common::Rng;
use cuprum::{Array, DType, Device, RawModule};

fn host() -> Device {
    common::host_device()
}

/// Slots (addresses per operation): thread `i` uses slot `i % S`.
const S: usize = 7;

const ATOMICS: &str = r#"
#define S 7
__device__ unsigned limit_of(int s) { return 5u + 3u * (unsigned)s; }

// oi: add, sub, min, max, and, or, xor (S each); ou: the same, then inc, dec, a ticket
// counter; oull: add, min, max, and, or, xor; oll: min, max.
extern "C" __global__ void contend_int(const int* x, int* oi, unsigned* ou, unsigned long long* oull,
                                       long long* oll, unsigned* inc_old, unsigned* dec_old,
                                       unsigned* tickets, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = i % S;
    int v = x[i];
    unsigned u = (unsigned)v * 2654435761u;
    unsigned long long l = (unsigned long long)(long long)v * 0x9E3779B97F4A7C15ull;
    atomicAdd(&oi[0 * S + s], v);
    atomicSub(&oi[1 * S + s], v);
    atomicMin(&oi[2 * S + s], v);
    atomicMax(&oi[3 * S + s], v);
    atomicAnd(&oi[4 * S + s], v | 0x7ffffff0);
    atomicOr(&oi[5 * S + s], 1 << (u >> 27));
    atomicXor(&oi[6 * S + s], v);
    atomicAdd(&ou[0 * S + s], u);
    atomicSub(&ou[1 * S + s], u);
    atomicMin(&ou[2 * S + s], u);
    atomicMax(&ou[3 * S + s], u);
    atomicAnd(&ou[4 * S + s], u | 0xfffffff0u);
    atomicOr(&ou[5 * S + s], 1u << (u & 31));
    atomicXor(&ou[6 * S + s], u);
    inc_old[i] = atomicInc(&ou[7 * S + s], limit_of(s));
    dec_old[i] = atomicDec(&ou[8 * S + s], limit_of(s));
    tickets[i] = atomicAdd(&ou[9 * S + s], 1u);
    atomicAdd(&oull[0 * S + s], l);
    atomicMin(&oull[1 * S + s], l);
    atomicMax(&oull[2 * S + s], l);
    atomicAnd(&oull[3 * S + s], l | 0xfffffffffffff0ffull);
    atomicOr(&oull[4 * S + s], 1ull << (l >> 58));
    atomicXor(&oull[5 * S + s], l);
    atomicMin(&oll[0 * S + s], (long long)l);
    atomicMax(&oll[1 * S + s], (long long)l);
}

// of: sum, integer-valued sum, max by CAS; od: sum, quarter-valued sum; exchanges of int,
// unsigned long long and float; a ticket counter by CAS.
extern "C" __global__ void contend_float(const float* xf, const double* xd, float* of, double* od,
                                         int* ex, int* ex_old, unsigned long long* exl,
                                         unsigned long long* exl_old, float* exf, float* exf_old,
                                         int* cas_ctr, int* cas_ticket, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = i % S;
    float v = xf[i];
    atomicAdd(&of[s], v);
    atomicAdd(&of[S + s], (float)(i % 13 - 6));
    atomicAdd(&od[s], xd[i]);
    atomicAdd(&od[S + s], (double)(i % 1000) * 0.25);
    // a float maximum through atomicCAS on the bits
    int* addr = (int*)&of[2 * S + s];
    int old = *addr, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(addr, assumed, __float_as_int(v));
    } while (old != assumed);
    ex_old[i] = atomicExch(&ex[s], i + 1000);
    exl_old[i] = atomicExch(&exl[s], (unsigned long long)i << 33);
    exf_old[i] = atomicExch(&exf[s], (float)i + 0.5f);
    // a ticket through a CAS loop
    int c = cas_ctr[s], seen;
    do {
        seen = c;
        c = atomicCAS(&cas_ctr[s], seen, seen + 1);
    } while (c != seen);
    cas_ticket[i] = seen;
}

// A histogram of 16 bins in shared memory, added to the global one.
extern "C" __global__ void histogram(const unsigned char* x, unsigned* hist, int n) {
    __shared__ unsigned h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[x[i] & 15], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}
"#;

fn atomics() -> &'static RawModule {
    static M: std::sync::OnceLock<RawModule> = std::sync::OnceLock::new();
    M.get_or_init(|| RawModule::new(ATOMICS))
}

/// 64 blocks of 256 threads, the last one partly used.
const BLOCKS: u32 = 64;
const BS: u32 = 256;
const N: usize = (BLOCKS * BS) as usize - 37;

fn limit_of(s: usize) -> u32 {
    5 + 3 * s as u32
}

/// `f` applied `k` times to `x0`, every value on the way (the values the threads got back).
fn orbit(x0: u32, k: usize, f: impl Fn(u32) -> u32) -> (Vec<u32>, u32) {
    let mut seen = Vec::with_capacity(k);
    let mut x = x0;
    for _ in 0..k {
        seen.push(x);
        x = f(x);
    }
    seen.sort_unstable();
    (seen, x)
}

fn sorted<T: Ord + Copy>(v: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = v.collect();
    v.sort_unstable();
    v
}

#[test]
fn integer_atomics_under_contention_are_exact() {
    host().with(|| {
        let k = atomics().get_function("contend_int").unwrap();
        let mut rng = Rng::new(211);
        let xv: Vec<i32> = (0..N).map(|_| (rng.next_u64() as i32) | 1).collect();
        let init_i: Vec<i32> = (0..7 * S)
            .map(|j| match j / S {
                2 => i32::MAX,
                3 => i32::MIN,
                4 => -1,
                _ => rng.next_u64() as i32,
            })
            .collect();
        let init_u: Vec<u32> = (0..10 * S)
            .map(|j| match j / S {
                2 => u32::MAX,
                3 => 0,
                4 => u32::MAX,
                // inc and dec start below, at and above their limits
                7 | 8 => [0, limit_of(j % S), limit_of(j % S) + 9, 3][j % 4],
                9 => 0,
                _ => rng.next_u64() as u32,
            })
            .collect();
        let init_ull: Vec<u64> = (0..6 * S)
            .map(|j| match j / S {
                1 => u64::MAX,
                2 => 0,
                3 => u64::MAX,
                _ => rng.next_u64(),
            })
            .collect();
        let init_ll: Vec<i64> = (0..2 * S)
            .map(|j| if j < S { i64::MAX } else { i64::MIN })
            .collect();
        let (oi, ou) = (
            common::dev(&init_i, &[init_i.len()]),
            common::dev(&init_u, &[init_u.len()]),
        );
        let (oull, oll) = (
            common::dev(&init_ull, &[init_ull.len()]),
            common::dev(&init_ll, &[init_ll.len()]),
        );
        let olds: Vec<Array> = (0..3)
            .map(|_| Array::zeros(&[N], DType::U32).unwrap())
            .collect();
        k.launch(
            BLOCKS,
            BS,
            (
                &common::dev(&xv, &[N]),
                &oi,
                &ou,
                &oull,
                &oll,
                &olds[0],
                &olds[1],
                &olds[2],
                N as i32,
            ),
        )
        .unwrap();
        let (gi, gu) = (oi.to_vec::<i32>().unwrap(), ou.to_vec::<u32>().unwrap());
        let (gull, gll) = (oull.to_vec::<u64>().unwrap(), oll.to_vec::<i64>().unwrap());
        let olds: Vec<Vec<u32>> = olds.iter().map(|a| a.to_vec::<u32>().unwrap()).collect();
        for s in 0..S {
            let v = || (s..N).step_by(S).map(|i| xv[i]);
            let u = || v().map(|x| (x as u32).wrapping_mul(2_654_435_761));
            let l = || v().map(|x| (x as i64 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let count = v().count();
            let want_i = [
                v().fold(init_i[s], |a, x| a.wrapping_add(x)),
                v().fold(init_i[S + s], |a, x| a.wrapping_sub(x)),
                v().min().unwrap(),
                v().max().unwrap(),
                v().fold(-1, |a, x| a & (x | 0x7fff_fff0)),
                v().zip(u())
                    .fold(init_i[5 * S + s], |a, (_, y)| a | 1 << (y >> 27)),
                v().fold(init_i[6 * S + s], |a, x| a ^ x),
            ];
            let got_i: Vec<i32> = (0..7).map(|k| gi[k * S + s]).collect();
            assert_eq!(
                got_i, want_i,
                "slot {s}: int add, sub, min, max, and, or, xor"
            );
            let want_u = [
                u().fold(init_u[s], |a, x| a.wrapping_add(x)),
                u().fold(init_u[S + s], |a, x| a.wrapping_sub(x)),
                u().min().unwrap(),
                u().max().unwrap(),
                u().fold(u32::MAX, |a, x| a & (x | 0xffff_fff0)),
                u().fold(init_u[5 * S + s], |a, x| a | 1 << (x & 31)),
                u().fold(init_u[6 * S + s], |a, x| a ^ x),
            ];
            let got_u: Vec<u32> = (0..7).map(|k| gu[k * S + s]).collect();
            assert_eq!(
                got_u, want_u,
                "slot {s}: unsigned add, sub, min, max, and, or, xor"
            );
            let want_ull = [
                l().fold(init_ull[s], |a, x| a.wrapping_add(x)),
                l().min().unwrap(),
                l().max().unwrap(),
                l().fold(u64::MAX, |a, x| a & (x | 0xffff_ffff_ffff_f0ff)),
                l().fold(init_ull[4 * S + s], |a, x| a | 1 << (x >> 58)),
                l().fold(init_ull[5 * S + s], |a, x| a ^ x),
            ];
            let got_ull: Vec<u64> = (0..6).map(|k| gull[k * S + s]).collect();
            assert_eq!(
                got_ull, want_ull,
                "slot {s}: unsigned long long add, min, max, and, or, xor"
            );
            assert_eq!(
                [gll[s], gll[S + s]],
                [
                    l().map(|x| x as i64).min().unwrap(),
                    l().map(|x| x as i64).max().unwrap()
                ],
                "slot {s}: long long min, max"
            );
            // atomicInc / atomicDec: the values handed out, and the last one
            let lim = limit_of(s);
            let got_olds = |k: usize| sorted((s..N).step_by(S).map(|i| olds[k][i]));
            let (seen, last) = orbit(
                init_u[7 * S + s],
                count,
                |o| {
                    if o >= lim { 0 } else { o + 1 }
                },
            );
            assert_eq!(
                (got_olds(0), gu[7 * S + s]),
                (seen, last),
                "slot {s}: atomicInc(limit {lim}) from {}",
                init_u[7 * S + s]
            );
            let (seen, last) = orbit(init_u[8 * S + s], count, |o| {
                if o == 0 || o > lim { lim } else { o - 1 }
            });
            assert_eq!(
                (got_olds(1), gu[8 * S + s]),
                (seen, last),
                "slot {s}: atomicDec(limit {lim}) from {}",
                init_u[8 * S + s]
            );
            assert_eq!(
                (got_olds(2), gu[9 * S + s]),
                ((0..count as u32).collect::<Vec<_>>(), count as u32),
                "slot {s}: atomicAdd(1) tickets"
            );
        }
    });
}

#[test]
fn float_atomics_exchanges_and_cas_loops_under_contention() {
    host().with(|| {
        let k = atomics().get_function("contend_float").unwrap();
        let mut rng = Rng::new(223);
        let xf: Vec<f32> = (0..N)
            .map(|_| common::nz(&mut rng, -1.0, 1.0) as f32)
            .collect();
        let xd: Vec<f64> = (0..N).map(|_| common::nz(&mut rng, -1.0, 1.0)).collect();
        let init_f: Vec<f32> = (0..3 * S)
            .map(|j| if j < 2 * S { j as f32 * 0.5 } else { -2.0 })
            .collect();
        let init_d: Vec<f64> = (0..2 * S).map(|j| j as f64 * 0.25 + 1.0).collect();
        let of = common::dev(&init_f, &[3 * S]);
        let od = common::dev(&init_d, &[2 * S]);
        let init_ex: Vec<i32> = (0..S as i32).map(|s| -1 - s).collect();
        let init_exl: Vec<u64> = (0..S as u64).map(|s| u64::MAX - s).collect();
        let init_exf: Vec<f32> = (0..S).map(|s| -(s as f32) - 0.25).collect();
        let (ex, exl, exf) = (
            common::dev(&init_ex, &[S]),
            common::dev(&init_exl, &[S]),
            common::dev(&init_exf, &[S]),
        );
        let ex_old = Array::zeros(&[N], DType::I32).unwrap();
        let exl_old = Array::zeros(&[N], DType::U64).unwrap();
        let exf_old = Array::zeros(&[N], DType::F32).unwrap();
        let ctr = Array::zeros(&[S], DType::I32).unwrap();
        let ticket = Array::zeros(&[N], DType::I32).unwrap();
        k.launch(
            BLOCKS,
            BS,
            (
                &common::dev(&xf, &[N]),
                &common::dev(&xd, &[N]),
                &of,
                &od,
                &ex,
                &ex_old,
                &exl,
                &exl_old,
                &exf,
                &exf_old,
                &ctr,
                &ticket,
                N as i32,
            ),
        )
        .unwrap();
        let (gf, gd) = (of.to_vec::<f32>().unwrap(), od.to_vec::<f64>().unwrap());
        let (gex, gex_old) = (ex.to_vec::<i32>().unwrap(), ex_old.to_vec::<i32>().unwrap());
        let (gexl, gexl_old) = (
            exl.to_vec::<u64>().unwrap(),
            exl_old.to_vec::<u64>().unwrap(),
        );
        let (gexf, gexf_old) = (
            exf.to_vec::<f32>().unwrap(),
            exf_old.to_vec::<f32>().unwrap(),
        );
        let (gctr, gticket) = (
            ctr.to_vec::<i32>().unwrap(),
            ticket.to_vec::<i32>().unwrap(),
        );
        for s in 0..S {
            let idx = || (s..N).step_by(S);
            let count = idx().count();
            // float and double sums: within the error bound of any summation order
            let exact: f64 = f64::from(init_f[s]) + idx().map(|i| f64::from(xf[i])).sum::<f64>();
            let mass: f64 =
                idx().map(|i| f64::from(xf[i].abs())).sum::<f64>() + f64::from(init_f[s].abs());
            let bound = count as f64 * f64::from(f32::EPSILON) * mass;
            assert!(
                (f64::from(gf[s]) - exact).abs() <= bound,
                "slot {s}: float sum {} vs {exact} (bound {bound})",
                gf[s]
            );
            let ints: f32 = idx().map(|i| (i % 13) as f32 - 6.0).sum::<f32>() + init_f[S + s];
            assert_eq!(
                gf[S + s],
                ints,
                "slot {s}: integer-valued float sum (exact)"
            );
            let exact: f64 = init_d[s] + idx().map(|i| xd[i]).sum::<f64>();
            let mass: f64 = idx().map(|i| xd[i].abs()).sum::<f64>() + init_d[s].abs();
            let bound = count as f64 * f64::EPSILON * mass;
            assert!(
                (gd[s] - exact).abs() <= bound,
                "slot {s}: double sum {} vs {exact} (bound {bound})",
                gd[s]
            );
            let quarters = init_d[S + s] + idx().map(|i| (i % 1000) as f64 * 0.25).sum::<f64>();
            assert_eq!(
                gd[S + s],
                quarters,
                "slot {s}: quarter-valued double sum (exact)"
            );
            let max = idx().map(|i| xf[i]).fold(init_f[2 * S + s], f32::max);
            assert_eq!(gf[2 * S + s], max, "slot {s}: float max by atomicCAS");
            // exchanges: what came back, with what is left, is what went in, once each
            assert_eq!(
                sorted(idx().map(|i| gex_old[i]).chain([gex[s]])),
                sorted(idx().map(|i| i as i32 + 1000).chain([init_ex[s]])),
                "slot {s}: atomicExch(int)"
            );
            assert_eq!(
                sorted(idx().map(|i| gexl_old[i]).chain([gexl[s]])),
                sorted(idx().map(|i| (i as u64) << 33).chain([init_exl[s]])),
                "slot {s}: atomicExch(unsigned long long)"
            );
            let bits = |v: f32| (v * 4.0) as i64;
            assert_eq!(
                sorted(idx().map(|i| bits(gexf_old[i])).chain([bits(gexf[s])])),
                sorted(
                    idx()
                        .map(|i| bits(i as f32 + 0.5))
                        .chain([bits(init_exf[s])])
                ),
                "slot {s}: atomicExch(float)"
            );
            assert_eq!(gctr[s], count as i32, "slot {s}: CAS counter");
            assert_eq!(
                sorted(idx().map(|i| gticket[i])),
                (0..count as i32).collect::<Vec<_>>(),
                "slot {s}: CAS tickets"
            );
        }
    });
}

#[test]
fn shared_memory_atomics_build_a_histogram() {
    host().with(|| {
        let k = atomics().get_function("histogram").unwrap();
        let mut rng = Rng::new(227);
        for (n, blocks, bs) in [(1usize, 1u32, 16u32), (1000, 3, 33), (200_003, 40, 256)] {
            let xv: Vec<u8> = (0..n).map(|_| rng.usize(1, 256) as u8).collect();
            let hist = Array::zeros(&[16], DType::U32).unwrap();
            k.launch(blocks, bs, (&common::dev(&xv, &[n]), &hist, n as i32))
                .unwrap();
            let mut want = [0u32; 16];
            for x in &xv {
                want[usize::from(x & 15)] += 1;
            }
            assert_eq!(hist.to_vec::<u32>().unwrap(), want, "n {n}");
        }
    });
}
