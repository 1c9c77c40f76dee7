//! The TCP rendezvous: a tiny one-shot store on rank 0 that hands a payload (NCCL's unique
//! id) to every other rank once all have arrived.
//!
//! Protocol (text lines over one connection per rank): the rank sends
//! `CUPRUM-RENDEZVOUS 1 rank=<r> size=<n> run=<id>`; the root answers `OK <hex>` once every
//! rank `1..n` has connected, or `ERR <why>` (a wrong size or run, a rank twice, or ranks
//! missing when its timeout passes). The root hands out the id only when all ranks are
//! there, so a rank that never starts fails the others here, with its number, rather than
//! leaving them inside NCCL's own bootstrap. std::net suffices: no async runtime is needed
//! for one exchange per process.
//!
//! Bounds: a rank retries connecting (refused, reset, timed out: the root may not listen
//! yet) every 100 ms until its timeout; it then waits for the answer up to its timeout plus
//! 10 s (so that, usually, the root's own timeout message arrives first, naming the missing
//! ranks). A name that does not resolve fails at once; one whose resolver does not answer
//! fails when the timeout passes (the lookup runs on a thread of its own), naming the host.

use crate::error::{Result, bail, err};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

const HELLO: &str = "CUPRUM-RENDEZVOUS 1";
/// How long the root waits for one connected rank's greeting.
const GREETING: Duration = Duration::from_secs(10);
/// How long past its timeout a rank waits for the root's answer: 10 s (the unit tests, whose
/// silent root would otherwise hold the test binary for those 10 s, wait 0.5 s).
const ANSWER_GRACE: Duration = if cfg!(test) {
    Duration::from_millis(500)
} else {
    Duration::from_secs(10)
};

/// The root's listening end.
pub(crate) struct Root {
    listener: TcpListener,
}

impl Root {
    /// Listens on every interface at `port` (0: any free port).
    pub(crate) fn bind(port: u16, source: &str) -> Result<Root> {
        let listener = TcpListener::bind(("0.0.0.0", port)).map_err(|e| {
            err!(
                Rendezvous,
                "rank 0 could not listen for the rendezvous at port {port} ({source}): {e}; \
                 choose a free port with CUPRUM_MASTER_PORT"
            )
        })?;
        Ok(Root { listener })
    }

    /// The port it listens at.
    pub(crate) fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Waits up to `timeout` for ranks `1..size` and hands each `payload`; on timeout tells
    /// the ranks that came which are missing and fails naming them.
    pub(crate) fn serve(
        self,
        size: usize,
        run: &str,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let mut arrived: Vec<Option<TcpStream>> = (0..size).map(|_| None).collect();
        self.listener
            .set_nonblocking(true)
            .map_err(|e| err!(Rendezvous, "rendezvous at port {}: {e}", self.port()))?;
        while arrived.iter().skip(1).any(Option::is_none) {
            if Instant::now() >= deadline {
                let missing: Vec<String> = (1..size)
                    .filter(|&r| arrived[r].is_none())
                    .map(|r| r.to_string())
                    .collect();
                let why = format!(
                    "rank{} {} of {size} did not arrive at the rendezvous on port {} within \
                     {:.1} s (never started, or cannot reach rank 0's host)",
                    if missing.len() > 1 { "s" } else { "" },
                    missing.join(", "),
                    self.port(),
                    timeout.as_secs_f64()
                );
                for s in arrived.iter_mut().flatten() {
                    let _ = writeln!(s, "ERR {why}");
                }
                bail!(Rendezvous, "{why}");
            }
            match self.listener.accept() {
                Ok((s, _)) => self.greet(s, size, run, &mut arrived),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        let hex: String = payload.iter().map(|b| format!("{b:02x}")).collect();
        for s in arrived.iter_mut().flatten() {
            // A rank that hung up meanwhile fails in NCCL's bootstrap; nothing to add here.
            let _ = writeln!(s, "OK {hex}");
        }
        Ok(())
    }

    /// Reads one rank's greeting; keeps its connection or answers why it is refused.
    fn greet(&self, s: TcpStream, size: usize, run: &str, arrived: &mut [Option<TcpStream>]) {
        let _ = s.set_nonblocking(false);
        let _ = s.set_read_timeout(Some(GREETING));
        let mut line = String::new();
        let Ok(reader) = s.try_clone() else { return };
        if BufReader::new(reader).read_line(&mut line).is_err() {
            return;
        }
        match check_greeting(line.trim(), size, run, arrived) {
            Ok(rank) => arrived[rank] = Some(s),
            Err(why) => {
                let mut s = s;
                let _ = writeln!(s, "ERR {why}");
            }
        }
    }
}

/// The rank a greeting names, or why it is refused.
fn check_greeting(
    line: &str,
    size: usize,
    run: &str,
    arrived: &[Option<TcpStream>],
) -> std::result::Result<usize, String> {
    let rest = line
        .strip_prefix(HELLO)
        .ok_or_else(|| format!("expected a cuprum rendezvous greeting, given {line:?}"))?;
    let field = |k: &str| {
        rest.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .unwrap_or("")
            .to_string()
    };
    let (rank, their_size, their_run) = (field("rank="), field("size="), field("run="));
    if their_size != size.to_string() || their_run != run {
        return Err(format!(
            "rank 0 runs a world of {size} ranks (run {run:?}); this rank expects {their_size} \
             (run {their_run:?}): two runs share the port?"
        ));
    }
    match rank.parse::<usize>() {
        Ok(r) if (1..size).contains(&r) && arrived[r].is_none() => Ok(r),
        Ok(r) if (1..size).contains(&r) => Err(format!("rank {r} arrived twice")),
        _ => Err(format!("expected a rank in 1..{size}, given {rank:?}")),
    }
}

/// A non-root rank: connects to the root at `host:port` (retrying until `timeout`), greets
/// it and returns the payload it hands out. `source` names the variables that gave the
/// address.
pub(crate) fn fetch(
    host: &str,
    port: u16,
    source: &str,
    rank: usize,
    size: usize,
    run: &str,
    timeout: Duration,
) -> Result<Vec<u8>> {
    let at = format!("{host}:{port}");
    let deadline = Instant::now() + timeout;
    let system = |host: &str, port: u16| (host, port).to_socket_addrs().map(Vec::from_iter);
    let mut addrs = resolve_within(host, port, deadline, system).map_err(|why| {
        err!(
            Rendezvous,
            "rank {rank}: the rendezvous root's address {at} ({source}) {why}"
        )
    })?;
    // The root listens on IPv4 (0.0.0.0): IPv4 addresses first (`localhost` may resolve to
    // ::1 first), each address tried in every attempt.
    addrs.sort_by_key(|a| !a.is_ipv4());
    if addrs.is_empty() {
        bail!(
            Rendezvous,
            "rank {rank}: the rendezvous root's address {at} ({source}) has no IP address"
        );
    }
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        let left = deadline.saturating_duration_since(Instant::now());
        let each =
            (left / addrs.len() as u32).clamp(Duration::from_millis(10), Duration::from_secs(5));
        let mut last = None;
        for addr in &addrs {
            match TcpStream::connect_timeout(addr, each) {
                Ok(s) => return answer(s, rank, size, run, &at, source, deadline),
                Err(e) => last = Some(e),
            }
        }
        let last = last.map_or_else(String::new, |e| e.to_string());
        if Instant::now() + Duration::from_millis(100) >= deadline {
            bail!(
                Rendezvous,
                "rank {rank}: could not reach the rendezvous root (rank 0) at {at} ({source}) \
                 within {:.1} s ({attempts} attempts; last: {last})",
                timeout.as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `host:port`'s addresses by `resolve` (the system resolver in `fetch`), given up at
/// `deadline`: the resolver runs on a thread of its own, since a name server that does not
/// answer makes the system resolver wait far longer than a rendezvous timeout (the thread
/// is left to finish by itself). The error completes "the root's address … ".
fn resolve_within<F>(
    host: &str,
    port: u16,
    deadline: Instant,
    resolve: F,
) -> std::result::Result<Vec<SocketAddr>, String>
where
    F: FnOnce(&str, u16) -> std::io::Result<Vec<SocketAddr>> + Send + 'static,
{
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = host.to_owned();
    let spawned = std::thread::Builder::new()
        .name("cuprum-resolve".into())
        .spawn(move || {
            let _ = tx.send(resolve(&owned, port));
        });
    if let Err(e) = spawned {
        return Err(format!(
            "could not be resolved: no thread for the resolver ({e})"
        ));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    match rx.recv_timeout(left) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(e)) => Err(format!("does not resolve: {e}")),
        Err(_) => Err(format!(
            "did not resolve within the rendezvous timeout: the host name {host:?} got no \
             answer from the system resolver in time (check the name and the DNS setup, or \
             give an IP address)"
        )),
    }
}

/// Greets the root on a connected stream and reads its answer (up to the deadline +
/// [`ANSWER_GRACE`]).
fn answer(
    mut s: TcpStream,
    rank: usize,
    size: usize,
    run: &str,
    at: &str,
    source: &str,
    deadline: Instant,
) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| {
        err!(
            Rendezvous,
            "rank {rank}: the rendezvous with rank 0 at {at}: {e}"
        )
    };
    writeln!(s, "{HELLO} rank={rank} size={size} run={run}").map_err(io)?;
    let wait = deadline.saturating_duration_since(Instant::now()) + ANSWER_GRACE;
    s.set_read_timeout(Some(wait)).map_err(io)?;
    let mut line = String::new();
    match BufReader::new(s).read_line(&mut line) {
        Ok(0) => bail!(
            Rendezvous,
            "rank {rank}: rank 0 at {at} closed the rendezvous without an answer (did it fail?)"
        ),
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            bail!(
                Rendezvous,
                "rank {rank}: no answer from the rendezvous root at {at} ({source}) within {:.1} s \
             (the other ranks did not all arrive?)",
                wait.as_secs_f64()
            )
        }
        Err(e) => return Err(io(e)),
    }
    let line = line.trim();
    if let Some(why) = line.strip_prefix("ERR ") {
        bail!(
            Rendezvous,
            "rank {rank}: the rendezvous root at {at} says: {why}"
        );
    }
    let hex = line.strip_prefix("OK ").ok_or_else(|| {
        err!(
            Rendezvous,
            "rank {rank}: rank 0 at {at} answered {line:?}, not a cuprum rendezvous"
        )
    })?;
    decode_hex(hex).ok_or_else(|| {
        err!(
            Rendezvous,
            "rank {rank}: rank 0 at {at} sent a damaged payload"
        )
    })
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    const T: Duration = Duration::from_secs(10);

    #[test]
    fn every_rank_gets_the_payload() {
        let root = Root::bind(0, "test").unwrap();
        let port = root.port();
        let payload: Vec<u8> = (0..128u8).map(|b| b.wrapping_mul(37)).collect();
        let ranks: Vec<_> = (1..4)
            .map(|r| std::thread::spawn(move || fetch("127.0.0.1", port, "test", r, 4, "job7", T)))
            .collect();
        root.serve(4, "job7", &payload, T).unwrap();
        for h in ranks {
            assert_eq!(h.join().unwrap().unwrap(), payload);
        }
    }

    #[test]
    fn a_rank_started_before_the_root_retries() {
        let probe = Root::bind(0, "test").unwrap();
        let port = probe.port();
        drop(probe);
        let h = std::thread::spawn(move || fetch("localhost", port, "test", 1, 2, "", T));
        std::thread::sleep(Duration::from_millis(400));
        let root = Root::bind(port, "test").unwrap();
        root.serve(2, "", b"\x01\xff", T).unwrap();
        assert_eq!(h.join().unwrap().unwrap(), vec![1, 255]);
    }

    #[test]
    fn missing_ranks_are_named_on_every_side() {
        let root = Root::bind(0, "test").unwrap();
        let port = root.port();
        let one = std::thread::spawn(move || fetch("127.0.0.1", port, "test", 2, 4, "", T));
        let start = Instant::now();
        let e = root
            .serve(4, "", b"x", Duration::from_millis(600))
            .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(e.kind(), ErrorKind::Rendezvous);
        assert!(
            e.to_string().contains("ranks 1, 3 of 4 did not arrive"),
            "{e}"
        );
        let e = one.join().unwrap().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Rendezvous);
        assert!(
            e.to_string()
                .contains("says: ranks 1, 3 of 4 did not arrive"),
            "{e}"
        );
    }

    #[test]
    fn an_unreachable_root_is_named() {
        let probe = Root::bind(0, "test").unwrap();
        let port = probe.port();
        drop(probe);
        let start = Instant::now();
        let e = fetch(
            "127.0.0.1",
            port,
            "MASTER_ADDR",
            1,
            2,
            "",
            Duration::from_millis(500),
        )
        .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(e.kind(), ErrorKind::Rendezvous);
        let want = format!(
            "rank 1: could not reach the rendezvous root (rank 0) at 127.0.0.1:{port} (MASTER_ADDR) within 0.5 s"
        );
        assert!(e.to_string().contains(&want), "{e}");
        let e = fetch("no-such-host.invalid", 1, "MASTER_ADDR", 1, 2, "", T).unwrap_err();
        assert!(
            e.to_string()
                .contains("no-such-host.invalid:1 (MASTER_ADDR) does not resolve"),
            "{e}"
        );
    }

    #[test]
    fn a_slow_resolver_is_given_up_at_the_deadline_naming_the_host() {
        let start = Instant::now();
        let slow = |_: &str, _: u16| {
            std::thread::sleep(Duration::from_secs(10));
            Ok(Vec::new())
        };
        let deadline = start + Duration::from_millis(300);
        let why = resolve_within("slow-dns.example", 29500, deadline, slow).unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert!(why.contains("\"slow-dns.example\""), "{why}");
        assert!(
            why.starts_with("did not resolve within the rendezvous timeout"),
            "{why}"
        );
        let quick = |_: &str, port: u16| Ok(vec![SocketAddr::from(([127, 0, 0, 1], port))]);
        let later = Instant::now() + Duration::from_secs(5);
        let addrs = resolve_within("h", 7, later, quick).unwrap();
        assert_eq!(addrs, [SocketAddr::from(([127, 0, 0, 1], 7))]);
        let failing = |_: &str, _: u16| Err(std::io::Error::other("no such name"));
        let why = resolve_within("h", 7, later, failing).unwrap_err();
        assert_eq!(why, "does not resolve: no such name");
    }

    #[test]
    fn a_silent_root_times_out_naming_its_address() {
        // Something listens but never answers.
        let quiet = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = quiet.local_addr().unwrap().port();
        let start = Instant::now();
        let e = fetch(
            "127.0.0.1",
            port,
            "test",
            1,
            2,
            "",
            Duration::from_millis(100),
        )
        .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(15));
        assert!(
            e.to_string().contains(&format!(
                "no answer from the rendezvous root at 127.0.0.1:{port}"
            )),
            "{e}"
        );
    }

    #[test]
    fn wrong_sizes_runs_and_duplicates_are_refused() {
        let root = Root::bind(0, "test").unwrap();
        let port = root.port();
        let wrong = std::thread::spawn(move || fetch("127.0.0.1", port, "t", 1, 3, "a", T));
        let other_run = std::thread::spawn(move || fetch("127.0.0.1", port, "t", 1, 2, "b", T));
        let e = root
            .serve(2, "a", b"x", Duration::from_millis(800))
            .unwrap_err();
        assert!(e.to_string().contains("rank 1 of 2 did not arrive"), "{e}");
        let e = wrong.join().unwrap().unwrap_err();
        assert!(
            e.to_string()
                .contains("rank 0 runs a world of 2 ranks (run \"a\"); this rank expects 3"),
            "{e}"
        );
        let e = other_run.join().unwrap().unwrap_err();
        assert!(e.to_string().contains("(run \"b\")"), "{e}");
        let mut arrived: Vec<Option<TcpStream>> = vec![None, None];
        assert!(
            check_greeting("hello", 2, "", &arrived)
                .unwrap_err()
                .contains("expected a cuprum rendezvous greeting")
        );
        assert!(
            check_greeting(&format!("{HELLO} rank=0 size=2 run="), 2, "", &arrived)
                .unwrap_err()
                .contains("expected a rank in 1..2")
        );
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        arrived[1] = Some(TcpStream::connect(l.local_addr().unwrap()).unwrap());
        assert_eq!(
            check_greeting(&format!("{HELLO} rank=1 size=2 run="), 2, "", &arrived).unwrap_err(),
            "rank 1 arrived twice"
        );
    }
}
