//! What a seed example found, how an example reports it, and the host references the
//! checks use.

/// The calls a seed times after its check (its kernels and data moved in).
pub type Timed = Box<dyn FnMut() -> cuprum::Result<()>>;

/// What one seed example found.
pub struct Checked {
    /// One line: the result, and what was off when it did not match.
    pub result: String,
    /// Whether every check passed.
    pub ok: bool,
    /// The seed's main call, for timing once checked.
    pub timed: Timed,
}

impl Checked {
    /// Prints `NAME: RESULT: OK` (or `MISMATCH`) and exits 1 on a mismatch: an example's end.
    pub fn report(&self, name: &str) {
        report(name, &self.result, self.ok);
    }
}

/// An example's `main`: runs `seed` on the current device and reports its line (exit 1 on
/// a mismatch). Without a GPU it runs on the host device, the CPU, and says so (as
/// `cuprum demo` does); without a C++ compiler for that either, it says so and exits 0.
pub fn example(name: &str, seed: impl FnOnce() -> cuprum::Result<Checked>) -> cuprum::Result<()> {
    if !choose_device(name) {
        return Ok(());
    }
    seed()?.report(name);
    Ok(())
}

/// Whether an example can run: on the current device when it is the host device
/// (`CUPRUM_DEVICE=host`) or a GPU; else, without a GPU, on the host device (made the
/// process default, said on stdout) when there is a C++ compiler; else it says why not and
/// gives `false`.
pub fn choose_device(name: &str) -> bool {
    if cuprum::Device::current().is_ok_and(cuprum::Device::is_host) {
        return true;
    }
    let Some(why) = cuprum::Device::no_gpu_reason() else {
        return true;
    };
    match cuprum::compile::host_compiler() {
        Ok(_) => {
            println!("{name}: no GPU here, running on the host device (the CPU) instead");
            cuprum::Device::host().make_default();
            true
        }
        Err(e) => {
            println!(
                "{name}: no GPU here ({why}), nor a C++ compiler for the host device ({e}); nothing to run"
            );
            false
        }
    }
}

/// Prints `NAME: RESULT: OK` (or `MISMATCH`) and exits 1 on a mismatch.
pub fn report(name: &str, result: &str, ok: bool) {
    println!("{name}: {result}: {}", if ok { "OK" } else { "MISMATCH" });
    if !ok {
        std::process::exit(1);
    }
}

/// `[a, b, c]` with each value's shortest form (`11`, `5.5`).
pub fn list<T: std::fmt::Display>(v: &[T]) -> String {
    let items: Vec<String> = v.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// `"; N of TOTAL off WHAT"` when N > 0, else nothing.
pub fn off(n: usize, total: usize, what: &str) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("; {n} of {total} off {what}")
    }
}

/// Kahan-compensated sum.
pub fn kahan(values: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for v in values {
        let y = v - c;
        let t = s + y;
        c = (t - s) - y;
        s = t;
    }
    s
}

/// `|v - r| <= rtol * |r|`.
pub fn close(v: f64, r: f64, rtol: f64) -> bool {
    (v - r).abs() <= rtol * r.abs()
}
