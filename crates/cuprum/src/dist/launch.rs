//! Reading a launcher's environment: which rank this process is, how many there are, its
//! rank on its node and where the ranks meet.
//!
//! **Precedence** (the first launcher whose rank and size variables are both set wins, so
//! a launcher started inside another, say torchrun or mpirun inside a Slurm job, is read
//! rather than the outer one):
//! 1. cuprum's own: `CUPRUM_RANK`, `CUPRUM_WORLD_SIZE`, `CUPRUM_LOCAL_RANK`,
//!    `CUPRUM_LOCAL_WORLD_SIZE`;
//! 2. torchrun: `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `LOCAL_WORLD_SIZE`;
//! 3. Open MPI (PMIx): `OMPI_COMM_WORLD_RANK`, `…_SIZE`, `…_LOCAL_RANK`, `…_LOCAL_SIZE`;
//! 4. MPICH / Intel MPI (PMI): `PMI_RANK`, `PMI_SIZE`, `MPI_LOCALRANKID`, `MPI_LOCALNRANKS`;
//! 5. Slurm (`srun`): `SLURM_PROCID`, `SLURM_STEP_NUM_TASKS` (else `SLURM_NTASKS`),
//!    `SLURM_LOCALID`, and this node's
//!    entry of `SLURM_STEP_TASKS_PER_NODE` (by `SLURM_NODEID`); start the program with
//!    `srun` (a batch script's own shell is rank 0 of the job's task count, and would
//!    wait for ranks that never start);
//! 6. none: one process, rank 0 of 1.
//!
//! A missing local rank is the rank (one node). **Rendezvous**: `CUPRUM_RENDEZVOUS_FILE` (or
//! the older `CUPRUM_NCCL_ID_FILE`) chooses the shared file; one rank needs none; else TCP
//! at the root's host: `CUPRUM_MASTER_ADDR`, else `MASTER_ADDR`, else under Slurm the first
//! host of `SLURM_STEP_NODELIST` (or `SLURM_JOB_NODELIST`, `SLURM_NODELIST`), else
//! `127.0.0.1` when every rank is on this node, else an error naming these variables. The
//! port: `CUPRUM_MASTER_PORT`, else `MASTER_PORT` (plus one when torchrun's agent already
//! listens there: `TORCHELASTIC_USE_AGENT_STORE=True`), else under Slurm
//! `20000 + SLURM_JOB_ID % 10000` (jobs sharing a node do not collide), else 29517.
//! The rendezvous timeout is `CUPRUM_RENDEZVOUS_TIMEOUT` seconds (default 300).
//!
//! Everything here reads variables through a lookup function, so the rules are tested as
//! tables without touching the process environment.

use super::nodelist::{expand_tasks_per_node, first_node};
use crate::error::{Result, bail, err};
use std::path::PathBuf;
use std::time::Duration;

/// The port the TCP rendezvous uses when no variable names one (and not under Slurm).
pub const DEFAULT_PORT: u16 = 29517;

/// Which launcher's variables gave the rank (see the module docs for the order).
///
/// ```
/// assert_eq!(cuprum::dist::Launcher::Slurm.to_string(), "Slurm");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Launcher {
    /// `CUPRUM_RANK` and `CUPRUM_WORLD_SIZE`.
    Cuprum,
    /// torchrun's `RANK` and `WORLD_SIZE`.
    Torchrun,
    /// Open MPI's `OMPI_COMM_WORLD_RANK` and `OMPI_COMM_WORLD_SIZE`.
    OpenMpi,
    /// MPICH's and Intel MPI's `PMI_RANK` and `PMI_SIZE`.
    Mpich,
    /// Slurm's `SLURM_PROCID` and `SLURM_NTASKS`.
    Slurm,
    /// No launcher: one process.
    None,
}

impl std::fmt::Display for Launcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Launcher::Cuprum => "cuprum (CUPRUM_RANK)",
            Launcher::Torchrun => "torchrun (RANK)",
            Launcher::OpenMpi => "Open MPI (OMPI_COMM_WORLD_RANK)",
            Launcher::Mpich => "MPICH (PMI_RANK)",
            Launcher::Slurm => "Slurm",
            Launcher::None => "none",
        })
    }
}

/// Where the ranks meet to share NCCL's unique id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendezvous {
    /// One rank: nothing to share.
    Single,
    /// A small TCP store on rank 0 at `host:port`; `source` names the variables that gave
    /// the address (for error messages).
    Tcp {
        /// The root's host name or address.
        host: String,
        /// The port the root listens at.
        port: u16,
        /// Which variables gave the address, e.g. `MASTER_ADDR:MASTER_PORT`.
        source: String,
    },
    /// A file every rank can read: rank 0 writes the id, the others wait for it.
    File(PathBuf),
}

/// This process's place in a launch: rank, world size, local rank and rendezvous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Which launcher's variables were read.
    pub launcher: Launcher,
    /// This process's rank in `0..world_size`.
    pub rank: usize,
    /// The number of ranks.
    pub world_size: usize,
    /// This process's rank among those of its node.
    pub local_rank: usize,
    /// The number of ranks on this node, when the launcher says.
    pub local_world_size: Option<usize>,
    /// Where the ranks meet.
    pub rendezvous: Rendezvous,
    /// How long a rank waits for the others at the rendezvous.
    pub timeout: Duration,
    /// An identifier of the run that every rank shares (job and step ids), so that ranks of
    /// two runs meeting at one port refuse each other; empty when the launcher has none.
    pub run_id: String,
}

impl Launch {
    /// Reads the process environment (see the module docs).
    ///
    /// ```
    /// let launch = cuprum::dist::Launch::from_env()?;
    /// assert!(launch.rank < launch.world_size);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_env() -> Result<Launch> {
        Launch::from_vars(|name| std::env::var(name).ok())
    }

    /// Reads the variables `var` returns (`None`: unset): the same rules as
    /// [`from_env`](Launch::from_env), for tests and for programs that keep their own table.
    ///
    /// ```
    /// use cuprum::dist::{Launch, Launcher, Rendezvous};
    /// let vars = [("SLURM_PROCID", "5"), ("SLURM_NTASKS", "8"), ("SLURM_LOCALID", "1"),
    ///             ("SLURM_NODEID", "2"), ("SLURM_STEP_TASKS_PER_NODE", "2(x4)"),
    ///             ("SLURM_JOB_ID", "4242"), ("SLURM_JOB_NODELIST", "gpu[07-10]")];
    /// let l = Launch::from_vars(|n| vars.iter().find(|v| v.0 == n).map(|v| v.1.to_string()))?;
    /// assert_eq!((l.launcher, l.rank, l.world_size, l.local_rank), (Launcher::Slurm, 5, 8, 1));
    /// assert_eq!(l.local_world_size, Some(2));
    /// let Rendezvous::Tcp { host, port, .. } = l.rendezvous else { panic!() };
    /// assert_eq!((host.as_str(), port), ("gpu07", 24242));
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Launch> {
        let v = |n: &str| {
            var(n)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let (launcher, rank, size, local, local_size) = ranks(&v)?;
        if size == 0 || rank >= size {
            bail!(
                InvalidArgument,
                "{launcher}: expected a rank in 0..{size} (the world size), given rank {rank}"
            );
        }
        if let Some(ls) = local_size
            && local >= ls
        {
            bail!(
                InvalidArgument,
                "{launcher}: expected a local rank in 0..{ls} (the ranks on this node), given \
                 {local}"
            );
        }
        let rendezvous = rendezvous(&v, launcher, size, local_size)?;
        let timeout = match v("CUPRUM_RENDEZVOUS_TIMEOUT") {
            Some(t) => seconds("CUPRUM_RENDEZVOUS_TIMEOUT", &t)?,
            None => Duration::from_secs(300),
        };
        let run_id = [
            "CUPRUM_RUN_ID",
            "TORCHELASTIC_RUN_ID",
            "SLURM_JOB_ID",
            "OMPI_MCA_ess_base_jobid",
        ]
        .iter()
        .find_map(|n| v(n))
        .unwrap_or_default()
        .replace(char::is_whitespace, "_");
        Ok(Launch {
            launcher,
            rank,
            world_size: size,
            local_rank: local,
            local_world_size: local_size,
            rendezvous,
            timeout,
            run_id,
        })
    }
}

/// A duration in seconds from a variable (a positive number, fractions allowed).
pub(crate) fn seconds(name: &str, text: &str) -> Result<Duration> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => bail!(
            InvalidArgument,
            "expected {name} to be a positive number of seconds, given {text:?}"
        ),
    }
}

type Ranks = (Launcher, usize, usize, usize, Option<usize>);

/// The launcher, rank, size, local rank and local size by the precedence above.
fn ranks(v: &impl Fn(&str) -> Option<String>) -> Result<Ranks> {
    const TABLE: [(Launcher, [&str; 4]); 4] = [
        (
            Launcher::Cuprum,
            [
                "CUPRUM_RANK",
                "CUPRUM_WORLD_SIZE",
                "CUPRUM_LOCAL_RANK",
                "CUPRUM_LOCAL_WORLD_SIZE",
            ],
        ),
        (
            Launcher::Torchrun,
            ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"],
        ),
        (
            Launcher::OpenMpi,
            [
                "OMPI_COMM_WORLD_RANK",
                "OMPI_COMM_WORLD_SIZE",
                "OMPI_COMM_WORLD_LOCAL_RANK",
                "OMPI_COMM_WORLD_LOCAL_SIZE",
            ],
        ),
        (
            Launcher::Mpich,
            ["PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"],
        ),
    ];
    for (launcher, [r, s, lr, ls]) in TABLE {
        if let (Some(rank), Some(size)) = (v(r), v(s)) {
            let rank = number(r, &rank)?;
            let local = match v(lr) {
                Some(x) => number(lr, &x)?,
                None => rank,
            };
            let local_size = v(ls).map(|x| number(ls, &x)).transpose()?;
            return Ok((launcher, rank, number(s, &size)?, local, local_size));
        }
    }
    // srun's step size first: a batch script's own environment also has SLURM_NTASKS
    let size = ["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"]
        .into_iter()
        .find_map(|name| v(name).map(|text| (name, text)));
    if let (Some(rank), Some((size_var, size))) = (v("SLURM_PROCID"), size) {
        let rank = number("SLURM_PROCID", &rank)?;
        let local = match v("SLURM_LOCALID") {
            Some(x) => number("SLURM_LOCALID", &x)?,
            None => rank,
        };
        let local_size = match (v("SLURM_STEP_TASKS_PER_NODE"), v("SLURM_NODEID")) {
            (Some(t), Some(node)) => {
                let node = number("SLURM_NODEID", &node)?;
                expand_tasks_per_node(&t)?.get(node).copied()
            }
            _ => None,
        };
        return Ok((
            Launcher::Slurm,
            rank,
            number(size_var, &size)?,
            local,
            local_size,
        ));
    }
    Ok((Launcher::None, 0, 1, 0, Some(1)))
}

fn number(name: &str, text: &str) -> Result<usize> {
    text.parse().map_err(|_| {
        err!(
            InvalidArgument,
            "expected {name} to be a whole number, given {text:?}"
        )
    })
}

/// The rendezvous by the rules above.
fn rendezvous(
    v: &impl Fn(&str) -> Option<String>,
    launcher: Launcher,
    size: usize,
    local_size: Option<usize>,
) -> Result<Rendezvous> {
    if let Some(f) = v("CUPRUM_RENDEZVOUS_FILE").or_else(|| v("CUPRUM_NCCL_ID_FILE")) {
        return Ok(Rendezvous::File(PathBuf::from(f)));
    }
    if size == 1 {
        return Ok(Rendezvous::Single);
    }
    let slurm_list = [
        "SLURM_STEP_NODELIST",
        "SLURM_JOB_NODELIST",
        "SLURM_NODELIST",
    ]
    .into_iter()
    .find_map(|n| v(n).map(|l| (n, l)));
    let (host, host_from) = if let Some(h) = v("CUPRUM_MASTER_ADDR") {
        (h, "CUPRUM_MASTER_ADDR".to_string())
    } else if let Some(h) = v("MASTER_ADDR") {
        (h, "MASTER_ADDR".to_string())
    } else if let Some((name, list)) = slurm_list {
        (first_node(&list)?, format!("the first host of {name}"))
    } else if local_size == Some(size) {
        (
            "127.0.0.1".to_string(),
            "every rank on this node".to_string(),
        )
    } else {
        bail!(
            InvalidArgument,
            "{launcher}: {size} ranks need the root's address: set CUPRUM_MASTER_ADDR (or \
             MASTER_ADDR) to rank 0's host, or CUPRUM_RENDEZVOUS_FILE to a file every rank can \
             read"
        );
    };
    let agent = v("TORCHELASTIC_USE_AGENT_STORE").is_some_and(|s| s.eq_ignore_ascii_case("true"));
    let (port, port_from) = if let Some(p) = v("CUPRUM_MASTER_PORT") {
        (
            port_number("CUPRUM_MASTER_PORT", &p, 0)?,
            "CUPRUM_MASTER_PORT".to_string(),
        )
    } else if let Some(p) = v("MASTER_PORT") {
        let plus = u16::from(agent);
        let from = if agent {
            "MASTER_PORT + 1 (torchrun's agent holds MASTER_PORT)"
        } else {
            "MASTER_PORT"
        };
        (port_number("MASTER_PORT", &p, plus)?, from.to_string())
    } else if let Some(job) = v("SLURM_JOB_ID") {
        let job = number("SLURM_JOB_ID", &job)?;
        (
            (20000 + job % 10000) as u16,
            "20000 + SLURM_JOB_ID % 10000".to_string(),
        )
    } else {
        (DEFAULT_PORT, "cuprum's default port".to_string())
    };
    Ok(Rendezvous::Tcp {
        host,
        port,
        source: format!("{host_from}, port from {port_from}"),
    })
}

fn port_number(name: &str, text: &str, plus: u16) -> Result<u16> {
    match text.parse::<u16>().ok().and_then(|p| p.checked_add(plus)) {
        Some(p) if p > 0 => Ok(p),
        _ => bail!(
            InvalidArgument,
            "expected {name} to be a TCP port in 1..={}, given {text:?}",
            65535 - plus
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(vars: &[(&str, &str)]) -> Result<Launch> {
        Launch::from_vars(|n| vars.iter().find(|v| v.0 == n).map(|v| v.1.to_string()))
    }

    fn tcp(l: &Launch) -> (String, u16) {
        match &l.rendezvous {
            Rendezvous::Tcp { host, port, .. } => (host.clone(), *port),
            other => panic!("expected TCP, given {other:?}"),
        }
    }

    #[test]
    fn each_launcher_as_it_sets_its_variables() {
        // torchrun on one node of 4 (its agent store at MASTER_PORT)
        let t = launch(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "4"),
            ("LOCAL_RANK", "3"),
            ("LOCAL_WORLD_SIZE", "4"),
            ("GROUP_RANK", "0"),
            ("MASTER_ADDR", "127.0.0.1"),
            ("MASTER_PORT", "29500"),
            ("TORCHELASTIC_USE_AGENT_STORE", "True"),
            ("TORCHELASTIC_RUN_ID", "none"),
        ])
        .unwrap();
        assert_eq!(
            (t.launcher, t.rank, t.world_size, t.local_rank),
            (Launcher::Torchrun, 3, 4, 3)
        );
        assert_eq!(t.local_world_size, Some(4));
        assert_eq!(tcp(&t), ("127.0.0.1".into(), 29501));
        assert_eq!(t.run_id, "none");
        // Slurm, 2 nodes × 2 tasks, rank 3 on the second node
        let s = launch(&[
            ("SLURM_PROCID", "3"),
            ("SLURM_NTASKS", "4"),
            ("SLURM_LOCALID", "1"),
            ("SLURM_NODEID", "1"),
            ("SLURM_STEP_TASKS_PER_NODE", "2(x2)"),
            ("SLURM_JOB_ID", "123"),
            ("SLURM_JOB_NODELIST", "node[01-02]"),
            ("SLURM_STEP_NODELIST", "node[01-02]"),
        ])
        .unwrap();
        assert_eq!(
            (s.launcher, s.rank, s.world_size, s.local_rank),
            (Launcher::Slurm, 3, 4, 1)
        );
        assert_eq!(s.local_world_size, Some(2));
        assert_eq!(tcp(&s), ("node01".into(), 20123));
        assert_eq!(s.run_id, "123");
        // mpirun on one node: no address variable, every rank local → loopback
        let m = launch(&[
            ("OMPI_COMM_WORLD_RANK", "1"),
            ("OMPI_COMM_WORLD_SIZE", "2"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", "2"),
        ])
        .unwrap();
        assert_eq!(
            (m.launcher, m.rank, m.local_rank),
            (Launcher::OpenMpi, 1, 1)
        );
        assert_eq!(tcp(&m), ("127.0.0.1".into(), DEFAULT_PORT));
        // MPICH
        let p = launch(&[("PMI_RANK", "0"), ("PMI_SIZE", "2"), ("MASTER_ADDR", "h")]).unwrap();
        assert_eq!(
            (p.launcher, p.rank, p.local_rank, tcp(&p).0.as_str()),
            (Launcher::Mpich, 0, 0, "h")
        );
        // cuprum's own, with a file
        let c = launch(&[
            ("CUPRUM_RANK", "1"),
            ("CUPRUM_WORLD_SIZE", "2"),
            ("CUPRUM_RENDEZVOUS_FILE", "/tmp/x.id"),
        ])
        .unwrap();
        assert_eq!((c.launcher, c.local_rank), (Launcher::Cuprum, 1));
        assert_eq!(c.rendezvous, Rendezvous::File("/tmp/x.id".into()));
        // nothing
        let n = launch(&[]).unwrap();
        assert_eq!(
            (n.launcher, n.rank, n.world_size, &n.rendezvous),
            (Launcher::None, 0, 1, &Rendezvous::Single)
        );
        assert_eq!(n.timeout, Duration::from_secs(300));
    }

    #[test]
    fn a_slurm_step_smaller_than_the_job() {
        let s = launch(&[
            ("SLURM_PROCID", "1"),
            ("SLURM_NTASKS", "8"),
            ("SLURM_STEP_NUM_TASKS", "2"),
            ("SLURM_JOB_NODELIST", "a[1-2]"),
            ("SLURM_STEP_NODELIST", "a2"),
        ])
        .unwrap();
        assert_eq!((s.rank, s.world_size), (1, 2));
        assert_eq!(tcp(&s).0, "a2");
    }

    #[test]
    fn a_bad_slurm_size_names_the_variable_read() {
        for name in ["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"] {
            let e = launch(&[("SLURM_PROCID", "0"), (name, "two")]).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
            assert!(
                e.to_string().contains(&format!(
                    "expected {name} to be a whole number, given \"two\""
                )),
                "{name}: {e}"
            );
        }
        // The step's size is read first, and so named, even beside a good job size.
        let e = launch(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "4"),
            ("SLURM_STEP_NUM_TASKS", "x"),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("SLURM_STEP_NUM_TASKS"), "{e}");
    }

    #[test]
    fn precedence_inner_launcher_first() {
        // torchrun inside a Slurm job: torchrun's variables win, MASTER_ADDR over the list
        let t = launch(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "1"),
            ("SLURM_JOB_NODELIST", "n[1-2]"),
            ("RANK", "5"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "n2"),
            ("MASTER_PORT", "1234"),
        ])
        .unwrap();
        assert_eq!(
            (t.launcher, t.rank, tcp(&t)),
            (Launcher::Torchrun, 5, ("n2".into(), 1234))
        );
        // mpirun under Slurm: Open MPI's ranks, Slurm's first node as the root
        let m = launch(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_JOB_NODELIST", "g[3-4]"),
            ("OMPI_COMM_WORLD_RANK", "3"),
            ("OMPI_COMM_WORLD_SIZE", "4"),
        ])
        .unwrap();
        assert_eq!(
            (m.launcher, m.rank, tcp(&m).0.as_str()),
            (Launcher::OpenMpi, 3, "g3")
        );
        // cuprum's variables over all; CUPRUM_MASTER_* over MASTER_*
        let c = launch(&[
            ("RANK", "1"),
            ("WORLD_SIZE", "2"),
            ("CUPRUM_RANK", "0"),
            ("CUPRUM_WORLD_SIZE", "3"),
            ("MASTER_ADDR", "a"),
            ("CUPRUM_MASTER_ADDR", "b"),
            ("MASTER_PORT", "1"),
            ("CUPRUM_MASTER_PORT", "2"),
            ("CUPRUM_RENDEZVOUS_TIMEOUT", "2.5"),
        ])
        .unwrap();
        assert_eq!(
            (c.launcher, c.world_size, tcp(&c)),
            (Launcher::Cuprum, 3, ("b".into(), 2))
        );
        assert_eq!(c.timeout, Duration::from_millis(2500));
    }

    #[test]
    fn bad_environments_say_what_and_which_variable() {
        for (vars, says) in [
            (
                &[("RANK", "x"), ("WORLD_SIZE", "2")][..],
                "expected RANK to be a whole number, given \"x\"",
            ),
            (
                &[("RANK", "2"), ("WORLD_SIZE", "2")][..],
                "expected a rank in 0..2 (the world size), given rank 2",
            ),
            (
                &[("RANK", "0"), ("WORLD_SIZE", "0")][..],
                "expected a rank in 0..0",
            ),
            (
                &[
                    ("RANK", "1"),
                    ("WORLD_SIZE", "4"),
                    ("LOCAL_RANK", "2"),
                    ("LOCAL_WORLD_SIZE", "2"),
                ][..],
                "expected a local rank in 0..2 (the ranks on this node), given 2",
            ),
            (
                &[("RANK", "1"), ("WORLD_SIZE", "4")][..],
                "set CUPRUM_MASTER_ADDR (or MASTER_ADDR)",
            ),
            (
                &[
                    ("RANK", "0"),
                    ("WORLD_SIZE", "2"),
                    ("MASTER_ADDR", "h"),
                    ("MASTER_PORT", "70000"),
                ][..],
                "expected MASTER_PORT to be a TCP port in 1..=65535, given \"70000\"",
            ),
            (
                &[("CUPRUM_RENDEZVOUS_TIMEOUT", "-1")][..],
                "CUPRUM_RENDEZVOUS_TIMEOUT to be a positive number",
            ),
            (
                &[
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "2"),
                    ("SLURM_JOB_NODELIST", "n[2-1]"),
                ][..],
                "increasing range",
            ),
        ] {
            let e = launch(vars).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument, "{e}");
            assert!(e.to_string().contains(says), "{vars:?}: {e}");
        }
    }
}
