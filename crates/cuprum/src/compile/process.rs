//! Starting the helper programs cuprum runs (Python, the host C++ compiler).

use std::process::{Child, Command, Output, Stdio};

/// Starts `cmd`, retrying for up to half a second while its executable is busy (ETXTBSY: a
/// script written just now is still open for writing in a child that another thread of
/// this process forked and that has not yet started its own program).
pub(crate) fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            r => return r,
        }
    }
}

/// [`Command::output`] through [`spawn`]: stdout and stderr captured (stdin as `cmd`
/// says, else inherited).
pub(crate) fn output(cmd: &mut Command) -> std::io::Result<Output> {
    spawn(cmd.stdout(Stdio::piped()).stderr(Stdio::piped()))?.wait_with_output()
}
