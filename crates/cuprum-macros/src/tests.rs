//! Translator unit tests: token streams in, C++ (or the error messages) out; no rustc.
//! Snapshots of the examples' C++ are in crates/cuprum/tests/jit_snapshots.rs; rustc's side
//! (type errors, spans) is in the trybuild UI tests.

use super::translate;

/// The C++ of a kernel (or device function), or its error messages joined by newlines.
fn cpp(kernel: bool, src: &str) -> Result<String, String> {
    let f: syn::ItemFn = syn::parse_str(src).map_err(|e| format!("parse: {e}"))?;
    match translate(kernel, &f) {
        Ok(t) => Ok(t.source),
        Err((e, _)) => Err(e
            .into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

fn k(src: &str) -> String {
    cpp(true, src).unwrap_or_else(|e| panic!("translation failed: {e}"))
}

fn d(src: &str) -> String {
    cpp(false, src).unwrap_or_else(|e| panic!("translation failed: {e}"))
}

fn kerr(src: &str) -> String {
    match cpp(true, src) {
        Ok(s) => panic!("expected an error, got:\n{s}"),
        Err(e) => e,
    }
}

fn has(s: &str, parts: &[&str]) {
    for p in parts {
        assert!(s.contains(p), "missing `{p}` in:\n{s}");
    }
}

#[test]
fn prime_factor_sum_has_the_raw_kernels_types() {
    let s = k(r#"
pub fn prime_factor_sum(out: &mut [i64], n: i32) {
    let idx = (block_dim().x * block_idx().x + thread_idx().x) as i32;
    if idx >= n { return; }
    let mut num = idx as i64 + 2;
    let mut total: i64 = 0;
    if num % 2 == 0 {
        let mut count = 0;
        while num % 2 == 0 { num /= 2; count += 1; }
        total += count as i64 * 2;
    }
    out[idx] = total;
}"#);
    has(
        &s,
        &[
            "extern \"C\" __global__ void prime_factor_sum(long long* __restrict__ out, const unsigned long long cj_len_out, int n) {",
            "int idx = (int)(blockDim.x * blockIdx.x + threadIdx.x);",
            "long long num = cj::add((long long)idx, 2LL);",
            "int count = 0;",
            "cj::add_to(count, 1);",
            "cj::add_to(total, cj::mul((long long)count, 2LL));",
            "out[cj::ix(idx, cj_len_out, CJ_SITE(",
        ],
    );
}

#[test]
fn literals_take_the_type_of_their_context() {
    let s = k("fn f(x: &mut [f32], y: &[f64], n: u64) {
        let a = 2.0; x[0] = a * x[1];
        let b = 3.0; let c = y[0] * b;
        let m = 7; let q = n / m;
        let z = 1; let w = z + 1;
    }");
    has(
        &s,
        &[
            "float a = 2.0f;",
            "double b = 3.0;",
            "unsigned long long m = 7ull;",
            "int z = 1;",
            "int w = cj::add(z, 1);",
        ],
    );
}

#[test]
fn unsigned_and_float_arithmetic_is_plain_cpp() {
    let s = k("fn f(x: &mut [u32], y: &mut [f32], a: u32, b: f32) {
        x[0] = a * 3 + a - 1; y[0] = b * b + 1.0 - b / 2.0; x[1] = a << 4; x[2] = a % 5;
    }");
    has(
        &s,
        &[
            "a * 3u + a - 1u",
            "b * b + 1.0f - b / 2.0f",
            "a << 4;",
            "a % 5u",
        ],
    );
}

#[test]
fn cpp_precedence_is_respected() {
    // Rust: (a & b) == c; C++ needs the parentheses.
    let s = k(
        "fn f(o: &mut [bool], a: u32, b: u32, c: u32) { o[0] = a & b == c; o[1] = (a + b) * c == 0 || a < b && b < c; }",
    );
    has(&s, &["(a & b) == c", "(a + b) * c == 0u || a < b && b < c"]);
}

#[test]
fn casts_follow_rust() {
    let s = k("fn f(o: &mut [i32], u: &mut [u8], x: f32, y: f64, z: i64) {
        o[0] = x as i32; u[0] = y as u8; o[1] = z as i32; o[2] = true as i32; u[1] = 300 as u8;
    }");
    has(
        &s,
        &[
            "cj::f2i<int>(x)",
            "cj::f2i<unsigned char>(y)",
            "(int)z",
            "(int)true",
        ],
    );
}

#[test]
fn shadowing_and_keywords_get_fresh_cpp_names() {
    let s = k(
        "fn f(o: &mut [i32], int: i32) { let x = int; let x = x + 1; let template = x; o[0] = template; }",
    );
    has(
        &s,
        &[
            "int cj_kw_int",
            "int x = cj_kw_int;",
            "int cj_v1_x = cj::add(x, 1);",
            "int cj_kw_template = cj_v1_x;",
        ],
    );
}

#[test]
fn loops_translate_with_rust_semantics() {
    let s = k("fn f(o: &mut [i32], n: i32) {
        for i in 0..n { o[i] = i; }
        for i in 0..=n { if i == 2 { continue; } o[0] += i; }
        for i in (0..n).rev() { o[1] += i; }
        for i in (0..n).step_by(4) { o[2] += i; }
        'a: loop { while true { break 'a; } }
        for i in grid_stride(o.len()) { o[i] = 0; }
    }");
    has(
        &s,
        &[
            "for (int i = 0, cj_end_0 = n; i < cj_end_0; ++i) {",
            "goto cj_cont_1;",
            "cj_cont_1: ;",
            "if (cj_v1_i == cj_end_1) break;",
            "--cj_k_2;",
            "cj::step_next(",
            "goto cj_brk_4;",
            "cj_brk_4: ;",
            "cj::stride_first(cj_n_6, (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)",
        ],
    );
}

#[test]
fn if_and_blocks_as_values() {
    let s = k("fn f(o: &mut [f32], c: bool, x: f32) {
        let a = if c { x } else { 0.0 };
        let b = if c { let t = x * 2.0; t + 1.0 } else { x };
        o[0] = a + b;
    }");
    has(
        &s,
        &[
            "float a = c ? x : 0.0f;",
            "float b;",
            "float t = x * 2.0f;",
            "b = t + 1.0f;",
        ],
    );
}

#[test]
fn device_functions_and_calls() {
    let s = d("pub fn relu(x: f32) -> f32 { x.max(0.0) }");
    has(
        &s,
        &[
            "namespace cj_dev {",
            "__device__ inline float relu(float x) {",
            "return cj::max(x, 0.0f);",
        ],
    );
    let s = d("fn g<T: Float>(x: T, v: &[T]) -> T { x.sqrt() + v[0] }");
    has(
        &s,
        &[
            "template <typename T>",
            "__device__ inline T g(T x, const T* __restrict__ v, const unsigned long long cj_len_v) {",
        ],
    );
    // The result's type is rustc's; here `+ 1.0` into `o[0]` shows it is f32.
    let s = k("fn k(o: &mut [f32], v: &[f32]) { let y = helper(o[0], v); o[0] = y + 1.0; }");
    has(
        &s,
        &["float y = cj_dev::helper(o[cj::ix(0, cj_len_o, CJ_SITE(0))], v, cj_len_v);"],
    );
    // Unknown to the macro: C++ names it with decltype, literals next to it take it too.
    let s = k("fn k(o: &mut [f32], v: &[f32]) { let y = helper(o[0], v); let z = y * 2; }");
    has(
        &s,
        &[
            "cj::plain_t<decltype(cj_dev::helper(cj::val<float&>(), cj::val<const float*>(), cj::val<unsigned long long>()))> y = cj_dev::helper(",
            "z = cj::mul(y, ((cj::plain_t<decltype(cj_dev::helper(",
        ],
    );
}

#[test]
fn generics_become_templates() {
    let s = k(
        "fn saxpy<T: Float, const N: usize>(a: T, x: &[T], y: &mut [T]) {
        let mut t = shared_array::<T, N>();
        for i in grid_stride(y.len()) { y[i] = a.mul_add(x[i], y[i]); }
        t[0] = T::zero();
    }",
    );
    has(
        &s,
        &[
            "template <typename T, unsigned long long N>",
            "__global__ void saxpy(T a, const T* __restrict__ x",
            "__shared__ T t[N];",
            "cj::mul_add(a, x[",
            "t[cj::ix(0, ((unsigned long long)N), CJ_SITE(",
            "cj::cvt<T>(0)",
        ],
    );
}

#[test]
fn shared_memory_atomics_warps() {
    let s = k("fn f(o: &mut [u32], v: &[u32]) {
        let mut s = dynamic_shared::<u32>();
        s[thread_idx().x] = v[0];
        sync_threads();
        let w = shfl_xor_sync(FULL_MASK, s[0], 1);
        o.atomic_add(w % 8, 1);
        let b = ballot_sync(FULL_MASK, w > 3);
        o[1] = b;
    }");
    has(
        &s,
        &[
            "unsigned int* s = reinterpret_cast<unsigned int*>(cj_dyn_smem);",
            "const unsigned long long cj_len_s = cj::dyn_smem_bytes() / sizeof(unsigned int);",
            "__syncthreads();",
            "cj::shfl_xor_sync(0xffffffffu, s[",
            "cj::atomic_add(&o[cj::ix(w % 8u, cj_len_o, CJ_SITE(",
            "__ballot_sync(0xffffffffu, w > 3u)",
        ],
    );
}

#[test]
fn grid_sync_marks_the_kernel_cooperative() {
    let s = k("fn f(o: &mut [u32]) { o[0] = 1; grid_sync(); o[1] = 2; }");
    has(
        &s,
        &["cj::grid_sync_init();", "cj::grid_sync(CJ_SITE(1u));"],
    );
    assert!(
        cpp(false, "fn g() { grid_sync(); }")
            .unwrap_err()
            .contains("only be called in a kernel body")
    );
}

#[test]
fn unchecked_access() {
    let s = k(
        "fn f(o: &mut [f32], x: &[f32]) { unsafe { *o.get_unchecked_mut(0) = *x.get_unchecked(1); } }",
    );
    has(&s, &["o[0] = x[1];"]);
    assert!(
        kerr("fn f(x: &[f32], o: &mut [f32]) { o[0] = *x.get_unchecked(1); }")
            .contains("inside an `unsafe { }` block")
    );
}

#[test]
fn unsupported_constructs_are_named() {
    for (src, want) in [
        (
            "fn f(o: &mut [i32], x: i32) { o[0] = match x { (1, 2) => 1, _ => 0 }; }",
            "tuple patterns are not supported in `match`",
        ),
        (
            "fn f(o: &mut [i32]) { let c = |x: i32| x; o[0] = apply(c); }",
            "the closure `c` can only be called",
        ),
        (
            "fn f(o: &mut [i32]) { println!(\"hi\"); }",
            "macros are not supported in kernels (`println!`)",
        ),
        (
            "fn f(o: &mut [i32]) { let [a, b] = [1, 2]; }",
            "only `let name = …;`",
        ),
        (
            "fn f(o: &mut [i32]) { let r = &o; }",
            "references (`&x`) are not supported",
        ),
        (
            "fn f(o: &mut [i32]) { let s = \"x\"; }",
            "only number, byte (`b'a'`) and bool literals",
        ),
        (
            "fn f(o: &mut [i32]) { for x in o.iter().rev() {} }",
            "`for` loops go over a range",
        ),
        (
            "fn f(o: &mut [i32]) { if let [a, b] = [1, 2] {} }",
            "slice patterns are not supported",
        ),
        (
            "fn f(o: &mut [i32]) -> i32 { 0 }",
            "a kernel cannot return a value",
        ),
        (
            "fn f(v: Vec<f32>) {}",
            "`Vec < f32 >` cannot be a parameter",
        ),
        (
            "fn f<'a>(v: &'a [f32]) {}",
            "lifetime parameters are not supported",
        ),
        (
            "fn f(o: &mut [i32]) { o[0] = n; }",
            "`n` is not a variable, parameter or const generic",
        ),
        (
            "fn f(o: &mut [i32]) { let cj_x = 1; }",
            "reserved by cuprum",
        ),
        (
            "fn f(o: &mut [i32]) { struct S; }",
            "items (fn, struct, use, const …) inside a kernel body",
        ),
        (
            "fn f(o: &mut [i32]) { o[0] = o.iter().sum(); }",
            "method `.iter()` is not supported",
        ),
        (
            "fn f(o: &mut [i32], x: f32) { o[0] = x.frobnicate(); }",
            "the method `frobnicate` is not supported",
        ),
        ("async fn f(o: &mut [i32]) {}", "cannot be `async`"),
        ("fn f(o: &mut [i32]) { let x = o[1..2][0]; }", "sub-slices"),
        (
            "fn f(o: &mut [i32]) { o[0] = loop { break 1; }; }",
            "`break` with a value is not supported",
        ),
    ] {
        let e = kerr(src);
        assert!(e.contains(want), "{src}: expected `{want}`, got: {e}");
    }
}

#[test]
fn several_errors_are_reported_together() {
    let e = kerr("fn f(o: &mut [i32]) { let s = \"x\"; let r = &o; }");
    assert!(e.contains("strings") && e.contains("references"), "{e}");
}

#[test]
fn the_translator_does_not_panic_on_odd_input() {
    for src in [
        "fn f() {}",
        "fn f(o: &mut [i32]) { o[0] = -2147483648; }",
        "fn f(o: &mut [u64]) { o[0] = 18446744073709551615; }",
        "fn f(o: &mut [i32]) { o[0] = 340282366920938463463374607431768211455; }",
        "fn f(o: &mut [i32]) { break; }",
        "fn f(o: &mut [i32]) { continue 'x; }",
        "fn f(o: &mut [f32]) { o[0] = f32::NAN + f32::MAX + std::f32::consts::PI; }",
        "fn f(o: &mut [i32]) { let x: [i32; 0] = []; }",
        "fn f(o: &mut [i32]) { let x; }",
        "fn f(o: &mut [i32]) { o[0] = { }; }",
        "fn f(o: &mut [i32]) { thread_idx().w; }",
        "fn f(o: &mut [i32]) { shared_array::<f32, 4>(); }",
        "fn f(o: &mut [i32]) { let s = shared_array::<f32>(); }",
        "fn f(o: &mut [i32]) { let s = dynamic_shared(); }",
        "fn f(o: &mut [i32], x: f16) { let y = x as f16; }",
    ] {
        let _ = cpp(true, src);
        let _ = cpp(false, src);
    }
}

#[test]
fn edge_cases() {
    let s = k(
        "fn f(o: &mut [i32], u: &mut [u8], bs: &mut [bool], a: bool, b: bool, x: i32) {
        let v = if a { 1 } else if b { 2 } else { 3 };
        o[0] = v + -x + -2147483648;
        bs[0] = !a & b | a ^ b;
        u[0] = 250u8 + 10 - !u[1];
        let arr = [x; 4];
        let w = arr[3] * arr.len() as i32;
        o[1] = w;
    }",
    );
    has(
        &s,
        &[
            "int v = a ? 1 : b ? 2 : 3;",
            "cj::add(cj::add(v, cj::neg(x)), (-2147483647 - 1))",
            "(bool)((bool)(!a & b) | (bool)(a ^ b))",
            "cj::sub(cj::add(((unsigned char)250), ((unsigned char)10)), cj::bnot(u[",
            "cj::Arr<int, 4> arr = cj::Arr<int, 4>::fill(x);",
            "int w = cj::mul(arr[cj::ix(3ull, 4ull, CJ_SITE(",
            "(int)4ull",
        ],
    );
    let s = d("fn g(x: i64) -> i64 { if x < 0 { return -x; } let y = x * 2; y + 1 }");
    has(
        &s,
        &[
            "return cj::neg(x);",
            "long long y = cj::mul(x, 2LL);",
            "return cj::add(y, 1LL);",
        ],
    );
    let s = d("fn h(v: &[f32], i: usize) -> [f32; 2] { [v[i], v[i + 1]] }");
    has(
        &s,
        &[
            "__device__ inline cj::Arr<float, 2> h(",
            "return cj::Arr<float, 2>{{v[cj::ix(i, cj_len_v, CJ_SITE(0))], v[cj::ix(i + 1ull, cj_len_v, CJ_SITE(",
        ],
    );
}

#[test]
fn asserts_fault_at_their_site() {
    let s = k(
        "fn f(o: &mut [f32], n: i32) { assert!(n > 0); debug_assert!(n < 9, \"small\"); o[0] = 1.0; }",
    );
    has(
        &s,
        &[
            "if (!(n > 0)) CJ_FAIL(CJ_SITE(",
            "), cj::K_ASSERT, 0, 0);",
            "#ifdef CUPRUM_JIT_CHECKED\n",
            "if (!(n < 9)) CJ_FAIL(CJ_SITE(",
            "#endif",
        ],
    );
    // Only the debug one is inside the checked-build guard.
    let guard = s.find("#ifdef").unwrap_or(0);
    assert!(s.find("n > 0").unwrap_or(usize::MAX) < guard, "{s}");
    assert!(
        kerr("fn f(n: i32) { assert!(n > 0, \"n = {}\", n); }").contains("kernels cannot format")
    );
    assert!(kerr("fn f() { assert!(); }").contains("`assert!` needs a condition"));
    assert!(kerr("fn f() { std::assert!(true); }").contains("macros are not supported"));
}

#[test]
fn wide_chunks_of_four() {
    let s = k("fn f(a: &[f32], c: &mut [f32]) { let x = a.load4(1u32); c.store4(0u32, x); }");
    has(
        &s,
        &[
            "cj::Arr<float, 4> x = cj::load4(a, cj_len_a, 1u, CJ_SITE(",
            "cj::store4(c, cj_len_c, 0u, CJ_SITE(",
        ],
    );
    assert!(
        kerr("fn f(a: &[f32]) { let x = a.load4(0u32, 1u32); }")
            .contains("`load4` takes a chunk index")
    );
    assert!(
        kerr("fn f(c: &mut [f32]) { c.store4(0u32); }")
            .contains("`store4` takes a chunk index and an array")
    );
}

#[test]
fn match_on_integers_as_statement_and_value() {
    let s = k(r#"
fn m(out: &mut [i32], x: &[i32]) {
    let i = global_index();
    let v = x[i];
    let c = match v {
        0 => 10,
        1 | 2 => 20,
        -5..=-1 => 30,
        100.. => 40,
        _ => 50,
    };
    match v {
        0 => out[i] = c,
        n @ 3..10 if n % 2 == 0 => { out[i] = n + c; }
        n if n < 0 => out[i] = -n,
        _ => {}
    }
}"#);
    has(
        &s,
        &[
            "int c = v == 0 ? 10 : (v == 1 || v == 2) ? 20 : v >= -5 && v <= -1 ? 30 : v >= 100 ? 40 : 50;",
            "int n = v;",
            "int cj_v1_n = v;",
            "if (v == 0) {",
            "} else if (v >= 3 && v < 10 && n % 2 == 0) {",
            "} else if (cj_v1_n < 0) {",
            "} else {",
        ],
    );
}

#[test]
fn match_scrutinee_is_computed_once_and_typed_by_its_patterns() {
    let s = d(r#"
fn f(a: u8, b: u8) -> u32 {
    match a.wrapping_add(b) {
        0 => 1,
        x @ (1 | 255) => x as u32 + 2,
        _ => {
            let y = a as u32;
            y * 3
        }
    }
}"#);
    has(
        &s,
        &[
            "const unsigned char cj_match = cj::wrapping_add(a, b);",
            "unsigned char x = cj_match;",
            "if (cj_match == ((unsigned char)0)) {",
            "return 1u;",
            "} else if ((cj_match == ((unsigned char)1) || cj_match == ((unsigned char)255))) {",
            "return (unsigned int)x + 2u;",
            "unsigned int y = (unsigned int)a;",
        ],
    );
}

#[test]
fn match_arms_after_a_catch_all_are_dropped_and_a_lone_arm_is_a_block() {
    let s = k(r#"
fn m(out: &mut [u64], n: u64) {
    match n {
        _ => out[0] = n,
    }
    let r = match n { x => x + 1, };
    out[1] = match n { 7 => 1, _ => 2, 9 => 3 };
    out[2] = r;
}"#);
    has(
        &s,
        &[
            "{\n        out[",
            "unsigned long long x = n;",
            "n == 7ull ? 1ull : 2ull",
        ],
    );
    assert!(!s.contains("3ull"), "{s}");
}

#[test]
fn match_patterns_outside_the_subset_are_errors() {
    let e = kerr("fn m(out: &mut [i32], x: f32) { out[0] = match x { 1.5 => 1, _ => 2 }; }");
    assert!(e.contains("float patterns are not supported"), "{e}");
    let e = kerr("fn m(out: &mut [i32], x: i32) { out[0] = match x { Some(y) => y, _ => 2 }; }");
    assert!(
        e.contains("this pattern is not supported in kernels"),
        "{e}"
    );
    let e = kerr("fn m(out: &mut [i32], x: i32) { out[0] = match x { ref y => *y }; }");
    assert!(e.contains("`ref` bindings are not supported"), "{e}");
}

#[test]
fn tuples_literals_fields_destructuring_and_returns() {
    let s = d(r#"
fn divmod(a: u32, b: u32) -> (u32, u32) {
    (a / b, a % b)
}"#);
    has(
        &s,
        &[
            "__device__ inline cj::Tup2<unsigned int, unsigned int> divmod(unsigned int a, unsigned int b) {",
            "return cj::Tup2<unsigned int, unsigned int>{cj::div(a, b, CJ_SITE(0)), cj::rem(a, b, CJ_SITE(1))};",
        ],
    );
    let s = k(r#"
fn t(out: &mut [f32], x: &[f32]) {
    let i = global_index();
    let p = (x[i], 2.0f32, (1u8, true));
    let (a, _, (c, d)) = p;
    let mut q = (a, c);
    q.0 += 1.0;
    let (m, n) = divmod(7, 2);
    let r = divmod(9, 4).1;
    out[i] = q.0 + p.1 + (p.2).0 as f32 + if d { m as f32 } else { n as f32 } + r as f32;
}"#);
    has(
        &s,
        &[
            "cj::Tup3<float, float, cj::Tup2<unsigned char, bool>> p = cj::Tup3<float, float, cj::Tup2<unsigned char, bool>>{x[cj::ix(i, cj_len_x, CJ_SITE(0))], 2.0f, cj::Tup2<unsigned char, bool>{((unsigned char)1), true}};",
            "cj::Tup3<float, float, cj::Tup2<unsigned char, bool>> cj_tup = p;",
            "float a = cj_tup.f0;",
            "cj::Tup2<unsigned char, bool> cj_v1_cj_tup = cj_tup.f2;",
            "unsigned char c = cj_v1_cj_tup.f0;",
            "bool d = cj_v1_cj_tup.f1;",
            "cj::Tup2<float, unsigned char> q = cj::Tup2<float, unsigned char>{a, c};",
            "q.f0 += 1.0f;",
            "cj::plain_t<decltype(cj_dev::divmod(cj::val<int&>(), cj::val<int&>()))> cj_v2_cj_tup = cj_dev::divmod(7, 2);",
            "cj::plain_t<decltype(cj::val<cj::plain_t<decltype(cj_dev::divmod(cj::val<int&>(), cj::val<int&>()))>>().f0)> m = cj_v2_cj_tup.f0;",
            "= cj_dev::divmod(9, 4).f1;",
            "p.f2.f0",
        ],
    );
}

#[test]
fn tuples_outside_the_subset_are_errors() {
    let e = kerr("fn t(out: &mut [i32], p: (i32, i32)) { out[0] = p.0; }");
    assert!(e.contains("a kernel cannot take a tuple"), "{e}");
    let e = kerr("fn t(out: &mut [i32]) { let p = (1, 2); out[0] = p.2; }");
    assert!(e.contains("a tuple of 2 values has no field `.2`"), "{e}");
    let e = kerr("fn t(out: &mut [i32]) { let (a, ..) = (1, 2); out[0] = a; }");
    assert!(e.contains("`..` in tuple patterns is not supported"), "{e}");
    let e = kerr("fn t(out: &mut [i32]) { let x = 1; out[0] = x.0; }");
    assert!(e.contains("`.0` needs a tuple"), "{e}");
    let e = kerr("fn t(out: &mut [i32]) { let p = (1, 2, 3, 4, 5, 6, 7, 8, 9); }");
    assert!(e.contains("more than 8 values"), "{e}");
    let e = kerr("fn t(out: &mut [i32]) { let p = (out, 1); }");
    assert!(e.contains("a tuple holds values"), "{e}");
}

#[test]
fn module_constants_are_device_dependencies() {
    let s = k(r#"
fn c(out: &mut [f32], x: &[f32]) {
    let i = global_index();
    out[i] = x[i] * SCALE + consts::BIAS;
    match i {
        LIMIT => out[i] = 0.0,
        _ => {}
    }
}"#);
    has(
        &s,
        &[
            "x[cj::ix(i, cj_len_x, CJ_SITE(3))] * cj_dev::SCALE() + cj_dev::BIAS()",
            "if (i == cj_dev::LIMIT()) {",
        ],
    );
    // A constant is a device function without parameters; a device `const fn` is accepted.
    let s = d("const fn cube(x: i32) -> i32 { x * x * x }");
    has(&s, &["__device__ inline int cube(int x) {"]);
    let s = d("fn BIG() -> i32 { cube(3) + LIMIT }");
    has(
        &s,
        &[
            "__device__ inline int BIG() {",
            "return cj::add(cj_dev::cube(3), cj_dev::LIMIT());",
        ],
    );
    // Lowercase unknown names, types' constants and kernels that are `const` stay errors.
    let e = kerr("fn c(out: &mut [f32]) { out[0] = scale; }");
    assert!(e.contains("nor a module-level constant"), "{e}");
    let e = kerr("fn c(out: &mut [f32]) { out[0] = f32::SCALE; }");
    assert!(e.contains("nor a module-level constant"), "{e}");
    let e = kerr("const fn c(out: &mut [f32]) { }");
    assert!(e.contains("a kernel cannot be `const`"), "{e}");
}

#[test]
fn closures_are_lambdas_called_in_place() {
    let s = k(r#"
fn c(out: &mut [f32], x: &[f32], s: f32) {
    let scale = |v: f32| v * s;
    let mut count = 0u32;
    let mut bump = |k| { count += k; };
    let add = move |a, b: f32| -> f32 { if a > b { return a; } a + b };
    let s = 100.0f32;
    for i in grid_stride(x.len()) {
        out[i] = scale(x[i]) + add(x[i], 1.0) + s;
        bump(2);
    }
    let unused = |z| z;
    out[0] = count as f32;
}"#);
    has(
        &s,
        &[
            "auto scale = [&](float v) -> float {",
            "return v * s;",
            "auto bump = [&](unsigned int k) -> void {",
            "count += k;",
            "auto add = [=](float a, float b) mutable -> float {",
            "if (a > b) {",
            "return a;",
            "return a + b;",
            "float cj_v1_s = 100.0f;",
            "= scale(x[cj::ix(i, cj_len_x, CJ_SITE(",
            ") + add(x[cj::ix(i, cj_len_x, CJ_SITE(",
            ", 1.0f) + cj_v1_s;",
            "bump(2u);",
        ],
    );
    assert!(!s.contains("unused"), "{s}");
}

#[test]
fn closures_that_escape_are_errors() {
    let e = kerr("fn c(out: &mut [i32]) { let f = |x: i32| x; let g = f; }");
    assert!(e.contains("the closure `f` can only be called"), "{e}");
    let e = kerr("fn c(out: &mut [i32]) { out[0] = (|x: i32| x)(1); }");
    assert!(
        e.contains("a closure must be bound by `let f = |x| …;`"),
        "{e}"
    );
    let e = kerr("fn c(out: &mut [i32]) { let f = |(a, b): (i32, i32)| a; }");
    assert!(e.contains("closure parameters must be names"), "{e}");
}

#[test]
fn element_loops_over_slices_and_arrays() {
    let s = k(r#"
fn e(out: &mut [f32], x: &[f32]) {
    let mut acc = [0.0f32; 4];
    let mut sum = 0.0f32;
    for v in x.iter() {
        sum += *v * 2.0;
    }
    for (i, &v) in x.iter().enumerate() {
        if i > 3 { break; }
        acc[i] = v;
    }
    for a in acc.iter() {
        sum += a.abs();
    }
    for o in out.iter_mut() {
        *o = *o + sum;
    }
}"#);
    has(
        &s,
        &[
            "for (unsigned long long cj_k = 0; cj_k < cj_len_x; ++cj_k) {",
            "const float v = x[cj_k];",
            "sum += v * 2.0f;",
            "for (unsigned long long cj_v1_cj_k = 0; cj_v1_cj_k < cj_len_x; ++cj_v1_cj_k) {",
            "const float cj_v1_v = x[cj_v1_cj_k];",
            "const unsigned long long i = cj_v1_cj_k;",
            "< 4ull; ++",
            "const float a = acc[",
            "sum += cj::abs(a);",
            "float& o = out[",
            "o = o + sum;",
        ],
    );
    let e = kerr("fn e(x: &[f32]) { for v in x.iter_mut() { *v = 1.0; } }");
    assert!(
        e.contains("`iter_mut()` needs a `&mut [T]` parameter"),
        "{e}"
    );
    let e = kerr("fn e(x: &[f32], o: &mut [f32]) { for v in x.iter().map(|a| a) { o[0] = *v; } }");
    assert!(e.contains("`for` loops go over a range"), "{e}");
    let e =
        kerr("fn e(x: &[f32], o: &mut [f32]) { for v in x.iter().enumerate() { o[0] = 1.0; } }");
    assert!(e.contains("as `(i, x)`"), "{e}");
}

/// `#[cuprum::device] impl`: `&mut self` becomes a C++ reference, `self` and `&self` copies;
/// another receiver is refused naming the three.
#[test]
fn device_method_receivers() {
    let i: syn::ItemImpl = syn::parse_str(
        "impl Vec3 {
            fn scale(&mut self, s: f32) { self.x *= s; }
            fn dot(&self, o: Vec3) -> f32 { self.x * o.x }
        }",
    )
    .expect("parses");
    let out = crate::methods::expand_impl(&i).to_string();
    assert!(
        out.contains("cj_m_Vec3_scale(Vec3& self, float s)"),
        "{out}"
    );
    assert!(out.contains("self.x *= s;"), "{out}");
    assert!(out.contains("cj_m_Vec3_dot(Vec3 self, Vec3 o)"), "{out}");
    let i: syn::ItemImpl =
        syn::parse_str("impl Vec3 { fn f(self: Box<Self>) -> f32 { 0.0 } }").expect("parses");
    let out = crate::methods::expand_impl(&i).to_string();
    assert!(out.contains("take `self`, `&self` or `&mut self`"), "{out}");
}

/// A local copy of a device type's field (`let c = p.c;`) indexes as a fixed array; field
/// reads copy through `cj::cp`, whole-field writes go through `cj::set`.
#[test]
fn field_copies_index_as_arrays() {
    let s = k("fn f(ps: &mut [P], o: &mut [f32]) {
        let p = ps[0];
        let mut c = p.c;
        c[1] = 2.0;
        o[0] = c[1] + c.len() as f32;
        ps[0].c = c;
    }");
    has(
        &s,
        &[
            "cj::plain_t<decltype(cj::val<P>().c)> c = cj::cp(p.c);",
            "c[cj::ix(1ull, cj::extent_of(c), CJ_SITE(",
            "cj::set(ps[cj::ix(0, cj_len_ps, CJ_SITE(",
        ],
    );
}

#[test]
fn nested_arrays_index_twice_with_a_check_per_index() {
    let s = k("fn f(o: &mut [i32], ps: &mut [Tri]) {
        let p = ps[0];
        let mut l = [[0i32; 2]; 3];
        l[2][1] = p.m[1][0];
        l[0][0] += 1;
        ps[0].m[0][1] = l[2][1];
        o[0] = l[2][1];
    }");
    has(
        &s,
        &[
            "l[cj::ix(2ull, 3ull, CJ_SITE(",
            "][cj::ix(1ull, cj::extent_of(l[cj::ix(2ull, 3ull,",
            "cj::cp(p.m[cj::ix(1ull, cj::extent_of(p.m), CJ_SITE(",
            "cj::set(ps[cj::ix(0, cj_len_ps, CJ_SITE(",
        ],
    );
    let e = kerr("fn f(o: &mut [i32], x: &[i32]) { o[0] = x[0][1]; }");
    assert!(e.contains("only arrays of arrays are indexed twice"), "{e}");
}

#[test]
fn methods_on_fields_are_refused_with_the_way_out() {
    for src in [
        "fn f(o: &mut [f32], ps: &[P]) { let p = ps[0]; o[0] = p.vel.len(); }",
        "fn f(o: &mut [f32], ps: &[P]) { let v = ps[0].vel.scale(2.0); o[0] = v.x; }",
    ] {
        let e = kerr(src);
        assert!(
            e.contains("on the field `.vel` is not supported")
                && e.contains("let v: Vec3 = p.vel;"),
            "{e}"
        );
    }
}

/// The Rust items of a kernel (the twin, the launcher module and its type uses).
fn rust_items(src: &str) -> String {
    let f: syn::ItemFn = syn::parse_str(src).expect("parses");
    match translate(true, &f) {
        Ok(t) => t.rust.to_string(),
        Err((e, _)) => panic!("translation failed: {e}"),
    }
}

/// `match` on an enum-typed field (`r.mode`, whose type only rustc knows) is typed by its
/// variant patterns as a local is: the C++ tests the tag, reads the variant's fields, and
/// the enum becomes a type the kernel names (rustc checks it is a device type).
#[test]
fn match_on_a_field_is_typed_by_its_variant_patterns() {
    let src = "fn f(rs: &[R], out: &mut [f32]) {
        let r = rs[0];
        out[0] = match r.mode { Mode::Add => 1.0, Mode::Scale(k) => k };
        match r.mode {
            Mode::Add | Mode::Clamp { .. } => out[1] = 2.0,
            m @ Mode::Scale(_) => { let n = m; out[2] = 3.0; }
        }
    }";
    let s = k(src);
    has(
        &s,
        &[
            "const Mode cj_match = cj::cp(r.mode);",
            "cj_match.tag == Mode::tag_Add",
            "float k = cj_match.Scale.f0;",
            "(cj_v1_cj_match.tag == Mode::tag_Add || cj_v1_cj_match.tag == Mode::tag_Clamp)",
            "Mode m = cj_v1_cj_match;",
            "Mode n = m;",
        ],
    );
    let rust = rust_items(src);
    assert!(rust.contains("TypeUse :: new (\"Mode\""), "{rust}");
}

/// The other scrutinees whose type the translator does not see: a field of a field, an
/// element's field, an element, a device method's and a device function's result; and
/// `if let` / `while let`, which share the patterns.
#[test]
fn match_on_any_enum_valued_expression_is_typed_by_its_patterns() {
    let s = k("fn f(rs: &[R], modes: &[Mode], out: &mut [f32], i: usize) {
        let r = rs[i];
        out[0] = match r.inner.mode { Mode::Add => 1.0, Mode::Scale(k) => k };
        out[1] = match rs[i].mode { Mode::Add => 1.0, Mode::Scale(k) => k };
        out[2] = match modes[i] { Mode::Add => 1.0, Mode::Scale(k) => k };
        out[3] = match r.mode() { Mode::Add => 1.0, Mode::Scale(k) => k };
        out[4] = match pick(i) { modes::Mode::Add => 1.0, modes::Mode::Scale(k) => k };
        if let Mode::Scale(k) = r.mode { out[5] = k; }
        while let Mode::Scale(k) = rs[i].mode { out[6] = k; break; }
    }");
    has(
        &s,
        &[
            "const Mode cj_match = cj::cp(r.inner.mode);",
            "const Mode cj_v1_cj_match = cj::cp(rs[cj::ix(i, cj_len_rs, CJ_SITE(",
            "const Mode cj_v2_cj_match = modes[cj::ix(i, cj_len_modes, CJ_SITE(",
            "const Mode cj_v3_cj_match = cj_dev::cj_m_R_mode(r);",
            "const Mode cj_v4_cj_match = cj_dev::pick(i);",
            "const Mode cj_v5_cj_match = cj::cp(r.mode);",
            "if (cj_v5_cj_match.tag == Mode::tag_Scale) {",
            "if (cj_v6_cj_match.tag == Mode::tag_Scale) {",
        ],
    );
}

/// Inside a variant, a field of enum type matched by a variant pattern is typed the same
/// way; `Self::Variant` in a device method names the `impl`'s type.
#[test]
fn nested_and_self_variant_patterns_type_their_values() {
    let s = k("fn f(ss: &[Shape], out: &mut [f32]) {
        out[0] = match ss[0] { Shape::Tagged(Mode::Scale(k), w) => k * w, _ => 0.0 };
    }");
    has(
        &s,
        &[
            "cj_match.tag == Shape::tag_Tagged && (cj_match.Tagged.f0.tag == Mode::tag_Scale)",
            "k = cj_match.Tagged.f0.Scale.f0;",
        ],
    );
    let i: syn::ItemImpl = syn::parse_str(
        "impl R {
            fn gain(&self) -> f32 { match self.mode { Self::Add => 1.0, Self::Scale(k) => k } }
        }",
    )
    .expect("parses");
    let out = crate::methods::expand_impl(&i).to_string();
    assert!(out.contains("cj_match.tag == R::tag_Add"), "{out}");
}

/// A scrutinee whose type the translator cannot know, matched by a variant written without
/// its enum (`use Mode::*`), is refused with the two ways out; patterns that are not
/// variants (constants, bindings, `_`) leave such a scrutinee as it was.
#[test]
fn an_unnamed_variant_on_an_untyped_scrutinee_says_what_to_write() {
    let e = kerr(
        "fn f(rs: &[R], out: &mut [f32]) { out[0] = match rs[0].mode { Scale(k) => k, _ => 0.0 }; }",
    );
    assert!(
        e.contains("cannot tell which enum `Scale` is a variant of")
            && e.contains("`Enum::Scale`")
            && e.contains("bind it first: `let m: Enum = rs[0].mode;`"),
        "{e}"
    );
    let e = kerr("fn f(r: R, out: &mut [f32]) { if let Scale(k) = r.mode() { out[0] = k; } }");
    assert!(e.contains("`let m: Enum = r.mode();`"), "{e}");
    // Another arm names the enum: the unnamed variant is then refused as on a local.
    let e = kerr(
        "fn f(r: R, out: &mut [f32]) { out[0] = match r.mode { Scale(k) => k, Mode::Add => 0.0 }; }",
    );
    assert!(
        e.contains("expected a variant of `Mode` (`Mode::Variant`)"),
        "{e}"
    );
    let s = k("fn f(r: R, out: &mut [u32]) { out[0] = match r.n { 0 => 1, LIMIT => 2, _ => 3 }; }");
    has(
        &s,
        &["cj_match = cj::cp(r.n);", "cj_match == cj_dev::LIMIT()"],
    );
}

/// An or-pattern whose alternatives bind one name from different places (another variant's
/// field, a field of a field, `x @ p` inside a variant) binds it from the alternative that
/// matched: the C++ tests the alternatives in order and assigns each binding as it goes
/// (was: every binding read the first alternative's field, `k` of `Clamp { hi: k, .. }`
/// read `Scale`'s `f0`, which is `lo`'s bytes).
#[test]
fn or_pattern_bindings_come_from_the_alternative_that_matched() {
    let s = k("fn f(ms: &[Mode], out: &mut [f32]) {
        out[0] = match ms[0] { Mode::Scale(k) | Mode::Clamp { hi: k, .. } => k, Mode::Add => 0.0 };
    }");
    has(
        &s,
        &[
            "float k = cj_match.Scale.f0;",
            "if (((cj_match.tag == Mode::tag_Scale && (k = cj_match.Scale.f0, true)) || (cj_match.tag == Mode::tag_Clamp && (k = cj_match.Clamp.hi, true)))) {",
        ],
    );
    // Two tuple variants' fields at other positions; the arm is the last one (C++'s
    // `else`): its bindings are assigned there.
    let s = k("fn f(ps: &[Pair], out: &mut [f32]) {
        out[0] = match ps[0] { Pair::Zero => 0.0, Pair::A(k, _) | Pair::B(_, _, k) => k };
    }");
    has(
        &s,
        &[
            "} else {",
            "(void)(((cj_match.tag == Pair::tag_A && (k = cj_match.A.f0, true)) || (cj_match.tag == Pair::tag_B && (k = cj_match.B.f2, true))));",
        ],
    );
    // Nested: an or-pattern inside a variant's field, alternatives of an outer enum, and
    // `x @ p` whose place differs by alternative.
    let s = k("fn f(ss: &[Shape], out: &mut [f32]) {
        out[0] = match ss[0] {
            Shape::Tagged(Mode::Scale(k) | Mode::Clamp { lo: k, .. }, w) => k * w,
            Shape::One(m @ Mode::Add) | Shape::Two(_, m @ Mode::Add) => { let n = m; 1.0 }
            Shape::Two(Mode::Scale(k), _) | Shape::Two(_, Mode::Clamp { hi: k, .. }) => k,
            _ => 0.0,
        };
    }");
    has(
        &s,
        &[
            "(k = cj_match.Tagged.f0.Scale.f0, (w = cj_match.Tagged.f1, true))",
            "(k = cj_match.Tagged.f0.Clamp.lo, (w = cj_match.Tagged.f1, true))",
            "m = cj_match.One.f0, cj_match.One.f0.tag == Mode::tag_Add",
            "m = cj_match.Two.f1, cj_match.Two.f1.tag == Mode::tag_Add",
            "cj_v1_k = cj_match.Two.f0.Scale.f0, true",
            "cj_v1_k = cj_match.Two.f1.Clamp.hi, true",
        ],
    );
    // A guard is tested after each alternative that matches, with that alternative's
    // bindings (rustc: `P(1, 9)` takes the arm by its second alternative).
    let s = k("fn f(ps: &[Pair], out: &mut [f32]) {
        out[0] = match ps[0] { Pair::A(k, _) | Pair::A(_, k) if k > 5.0 => k, _ => 0.0 };
    }");
    has(
        &s,
        &[
            "if (((cj_match.tag == Pair::tag_A && (k = cj_match.A.f0, k > 5.0f)) || (cj_match.tag == Pair::tag_A && (k = cj_match.A.f1, k > 5.0f)))) {",
        ],
    );
    // `if let` shares the patterns.
    let s = k("fn f(m: Mode, out: &mut [f32]) {
        if let Mode::Scale(k) | Mode::Clamp { hi: k, .. } = m { out[0] = k; }
    }");
    has(&s, &["k = m.Clamp.hi, true"]);
    // Alternatives that bind a name from the same place keep the plain test.
    let s = k("fn f(xs: &[i32], out: &mut [i32]) {
        out[0] = match xs[0] { x @ 1 | x @ 5 => x, _ => 0 };
    }");
    has(
        &s,
        &[
            "int x = cj_match;",
            "if ((cj_match == 1 || cj_match == 5)) {",
        ],
    );
}

/// A bare identifier starting with an uppercase letter in a pattern against a device
/// type's value is what rustc reads as a variant (after `use Mode::*`, which the macro does
/// not see), not a binding that matches everything: it is refused with the enum's name.
#[test]
fn a_bare_variant_name_is_refused_not_bound() {
    for src in [
        "fn f(m: Mode, out: &mut [f32]) { out[0] = match m { Add => 1.0, Mode::Scale(k) => k, _ => 0.0 }; }",
        "fn f(m: Mode, out: &mut [f32]) { out[0] = match m { Add => 1.0, _ => 0.0 }; }",
        "fn f(m: Mode, out: &mut [f32]) { if let Add = m { out[0] = 1.0; } }",
        "fn f(r: R, out: &mut [f32]) { out[0] = match r.mode { Mode::Scale(k) => k, Add => 1.0 }; }",
        "fn f(m: Mode, out: &mut [f32]) { out[0] = match m { Mode::Scale(k) | Add => 1.0, _ => 0.0 }; }",
    ] {
        let e = kerr(src);
        assert!(
            e.contains("`Add` in a pattern on a `Mode` is the variant `Mode::Add` to rustc")
                && e.contains("write `Mode::Add`"),
            "{src}: {e}"
        );
    }
    // An all-caps name is refused there too (a unit variant such as `A`).
    let e = kerr("fn f(m: Mode, out: &mut [f32]) { out[0] = match m { A => 1.0, _ => 0.0 }; }");
    assert!(e.contains("write `Mode::A`"), "{e}");
    // On a value whose type the translator does not see (a field): which enum is unknown.
    let e = kerr("fn f(r: R, out: &mut [f32]) { out[0] = match r.mode { Add => 1.0, _ => 0.0 }; }");
    assert!(
        e.contains("cannot tell which enum `Add` is a variant of")
            && e.contains("`Enum::Add`")
            && e.contains("a binding's name starts with a lowercase letter"),
        "{e}"
    );
    // Inside a variant's field.
    let e = kerr(
        "fn f(ss: &[Shape], out: &mut [f32]) { out[0] = match ss[0] { Shape::Tagged(Add, w) => w, _ => 0.0 }; }",
    );
    assert!(
        e.contains("cannot tell which enum `Add` is a variant of"),
        "{e}"
    );
    // A lower-case binding stays one.
    let s = k(
        "fn f(m: Mode, out: &mut [f32]) { out[0] = match m { Mode::Scale(k) => k, other => 0.0 }; }",
    );
    has(&s, &["Mode other = m;"]);
}
