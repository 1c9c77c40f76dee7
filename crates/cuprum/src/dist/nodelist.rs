//! Slurm's compressed host lists (`SLURM_JOB_NODELIST`, `SLURM_STEP_NODELIST`) and task
//! counts (`SLURM_STEP_TASKS_PER_NODE`), expanded by hand: the grammar is small
//! (`name[01-04,07]`, several bracket groups, commas outside brackets separating hosts;
//! `2(x3),1` for counts) and no maintained crate parses it without pulling in Slurm.
//! Zero padding of a range's numbers is kept (`node[08-10]` → `node08 node09 node10`).

use crate::error::{Result, bail};

/// Every host of a Slurm host list, in order.
///
/// ```
/// let hosts = cuprum::dist::expand_nodelist("node[01-03,07],gpu5")?;
/// assert_eq!(hosts, ["node01", "node02", "node03", "node07", "gpu5"]);
/// assert!(cuprum::dist::expand_nodelist("node[3-1]").is_err());
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn expand_nodelist(list: &str) -> Result<Vec<String>> {
    let mut hosts = Vec::new();
    for item in split_top(list, list)? {
        if item.is_empty() {
            bail!(
                InvalidArgument,
                "Slurm host list {list:?}: expected host names separated by commas, given an \
                 empty name"
            );
        }
        expand_item(list, &item, &mut hosts)?;
    }
    if hosts.is_empty() {
        bail!(InvalidArgument, "Slurm host list is empty");
    }
    Ok(hosts)
}

/// The first host of a Slurm host list (rank 0's node).
///
/// ```
/// assert_eq!(cuprum::dist::first_node("gpu-a[12-15]")?, "gpu-a12");
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn first_node(list: &str) -> Result<String> {
    let mut hosts = expand_nodelist(list)?;
    Ok(hosts.swap_remove(0))
}

/// Splits at commas outside brackets.
fn split_top(list: &str, text: &str) -> Result<Vec<String>> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in text.trim().chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            bail!(
                InvalidArgument,
                "Slurm host list {list:?}: unbalanced brackets"
            );
        }
        if c == ',' && depth == 0 {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        bail!(
            InvalidArgument,
            "Slurm host list {list:?}: unbalanced brackets"
        );
    }
    out.push(cur);
    Ok(out)
}

/// Expands one host pattern (any number of bracket groups) into `out`.
fn expand_item(list: &str, item: &str, out: &mut Vec<String>) -> Result<()> {
    let Some(open) = item.find('[') else {
        out.push(item.to_string());
        return Ok(());
    };
    let Some(close) = item[open..].find(']').map(|c| c + open) else {
        bail!(
            InvalidArgument,
            "Slurm host list {list:?}: unbalanced brackets"
        );
    };
    let (head, body, tail) = (&item[..open], &item[open + 1..close], &item[close + 1..]);
    for part in body.split(',') {
        for n in expand_range(list, part)? {
            expand_item(list, &format!("{head}{n}{tail}"), out)?;
        }
    }
    Ok(())
}

/// `07` → [`07`]; `08-10` → [`08`, `09`, `10`] (the width of the first bound kept).
fn expand_range(list: &str, part: &str) -> Result<Vec<String>> {
    let bad = || {
        crate::error::err!(
            InvalidArgument,
            "Slurm host list {list:?}: expected a number or a range like 01-04 inside brackets, \
             given {part:?}"
        )
    };
    let (lo, hi) = part.split_once('-').unwrap_or((part, part));
    if lo.is_empty() || !lo.bytes().chain(hi.bytes()).all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (a, b): (u64, u64) = (
        lo.parse().map_err(|_| bad())?,
        hi.parse().map_err(|_| bad())?,
    );
    if b < a || b - a > 100_000 {
        bail!(
            InvalidArgument,
            "Slurm host list {list:?}: expected an increasing range of at most 100000 hosts, \
             given {part:?}"
        );
    }
    let width = lo.len();
    Ok((a..=b).map(|n| format!("{n:0width$}")).collect())
}

/// Slurm's tasks per node (`2(x3),1` → [2, 2, 2, 1]).
///
/// ```
/// assert_eq!(cuprum::dist::expand_tasks_per_node("4(x2),3")?, [4, 4, 3]);
/// # Ok::<(), cuprum::Error>(())
/// ```
pub fn expand_tasks_per_node(text: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in text.trim().split(',') {
        let bad = || {
            crate::error::err!(
                InvalidArgument,
                "Slurm tasks per node {text:?}: expected counts like 2(x3),1, given {part:?}"
            )
        };
        let (count, times) = match part.split_once("(x") {
            Some((c, rest)) => (c, rest.strip_suffix(')').ok_or_else(bad)?),
            None => (part, "1"),
        };
        let c: usize = count.parse().map_err(|_| bad())?;
        let t: usize = times.parse().map_err(|_| bad())?;
        if t > 100_000 {
            return Err(bad());
        }
        out.extend(std::iter::repeat_n(c, t));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_lists_expand() {
        let cases: &[(&str, &[&str])] = &[
            ("node1", &["node1"]),
            ("node[1-3]", &["node1", "node2", "node3"]),
            (
                "node[01-04,07],gpu5",
                &["node01", "node02", "node03", "node04", "node07", "gpu5"],
            ),
            ("a[08-10]", &["a08", "a09", "a10"]),
            ("r[1-2]n[3,5]", &["r1n3", "r1n5", "r2n3", "r2n5"]),
            ("x,y[2],z", &["x", "y2", "z"]),
            ("cn-[100-101]-ib", &["cn-100-ib", "cn-101-ib"]),
        ];
        for (list, want) in cases {
            assert_eq!(expand_nodelist(list).unwrap(), *want, "{list}");
        }
        assert_eq!(first_node("node[01-04,07],gpu5").unwrap(), "node01");
    }

    #[test]
    fn bad_host_lists_say_why() {
        for (list, says) in [
            ("node[1-3", "unbalanced brackets"),
            ("node1-3]", "unbalanced brackets"),
            ("node[3-1]", "increasing range"),
            ("node[a-b]", "expected a number or a range"),
            ("node[]", "expected a number or a range"),
            ("a,,b", "empty name"),
            ("", "empty name"),
        ] {
            let e = expand_nodelist(list).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
            assert!(e.to_string().contains(says), "{list}: {e}");
        }
    }

    #[test]
    fn tasks_per_node_expand() {
        assert_eq!(expand_tasks_per_node("2").unwrap(), [2]);
        assert_eq!(expand_tasks_per_node("2(x3),1").unwrap(), [2, 2, 2, 1]);
        let e = expand_tasks_per_node("2(x3").unwrap_err();
        assert!(e.to_string().contains("given \"2(x3\""), "{e}");
    }
}
