//! Signals raised by kernel code on the host device become errors, not crashes.
//!
//! An integer division by zero (SIGFPE), an access outside mapped memory or into a fiber's
//! guard page (SIGSEGV, SIGBUS) or an illegal instruction (SIGILL) raised while a kernel's
//! fiber runs is caught by a handler that cuprum installs (once, at the first host launch,
//! keeping the previous handlers): when the interrupted stack pointer lies in the running
//! fiber's stack, the handler redirects the fiber so that it ends at once, returning the
//! signal (corosensei's trap support); the launch then fails with
//! [`ErrorKind::KernelFault`](crate::ErrorKind::KernelFault) naming the block and thread.
//! Any other signal goes to the previous handler (or the default action), unchanged.
//!
//! What the kernel wrote before the fault stays written (as on a GPU); a wild write that
//! hit mapped memory is not detected at all (use a sanitizer build for that).

use corosensei::trap::{CoroutineTrapHandler, TrapHandlerRegs};
use std::cell::Cell;
use std::sync::OnceLock;

/// A signal that ended a kernel thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trap {
    pub signal: i32,
    pub code: i32,
    pub addr: usize,
}

impl Trap {
    /// What happened, in words.
    pub(crate) fn describe(&self) -> String {
        match (self.signal, self.code) {
            // x86 reports both as FPE_INTDIV.
            (libc::SIGFPE, FPE_INTDIV) => {
                "integer division by zero (or the most negative value divided by -1)".to_string()
            }
            (libc::SIGFPE, FPE_INTOVF) => {
                "integer overflow in a division (the most negative value divided by -1)".to_string()
            }
            (libc::SIGFPE, _) => "arithmetic exception (SIGFPE)".to_string(),
            (libc::SIGSEGV, _) => format!(
                "invalid memory access at address 0x{:x} (SIGSEGV: an index out of bounds, a \
                 null or dangling pointer, or a thread's stack overflowed)",
                self.addr
            ),
            (libc::SIGBUS, _) => format!(
                "bus error at address 0x{:x} (SIGBUS: a misaligned or unmapped access)",
                self.addr
            ),
            (libc::SIGILL, _) => "illegal instruction (SIGILL)".to_string(),
            (s, _) => format!("signal {s}"),
        }
    }
}

/// `si_code` values of SIGFPE (Linux, `<asm-generic/siginfo.h>`).
const FPE_INTDIV: i32 = 1;
const FPE_INTOVF: i32 = 2;

type Handler = CoroutineTrapHandler<Option<Trap>>;

thread_local! {
    static ARMED: Cell<Option<Handler>> = const { Cell::new(None) };
}

/// While it lives, signals raised on the fiber's stack end that fiber.
pub(crate) struct Armed(Option<Handler>);

impl Armed {
    pub(crate) fn new(h: Handler) -> Armed {
        install();
        Armed(ARMED.with(|a| a.replace(Some(h))))
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.with(|a| a.set(self.0));
    }
}

const SIGNALS: [libc::c_int; 4] = [libc::SIGFPE, libc::SIGSEGV, libc::SIGBUS, libc::SIGILL];

/// The handlers that were installed before cuprum's, per entry of `SIGNALS`.
static PREVIOUS: OnceLock<[libc::sigaction; 4]> = OnceLock::new();

fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: an all-zero sigaction is a valid value (SIG_DFL, empty mask, no flags).
        let mut old: [libc::sigaction; 4] = unsafe { std::mem::zeroed() };
        for (k, &sig) in SIGNALS.iter().enumerate() {
            // SAFETY: `sa` is fully initialised below; `handler` has the SA_SIGINFO
            // signature; `old[k]` is a valid out pointer.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = handler as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, &mut old[k]);
            }
        }
        old
    });
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn stack_pointer(uc: &libc::ucontext_t) -> usize {
    uc.uc_mcontext.gregs[libc::REG_RSP as usize] as usize
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn redirect(uc: &mut libc::ucontext_t, r: TrapHandlerRegs) {
    let g = &mut uc.uc_mcontext.gregs;
    g[libc::REG_RIP as usize] = r.rip as i64;
    g[libc::REG_RSP as usize] = r.rsp as i64;
    g[libc::REG_RBP as usize] = r.rbp as i64;
    g[libc::REG_RDI as usize] = r.rdi as i64;
    g[libc::REG_RSI as usize] = r.rsi as i64;
}

#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
fn stack_pointer(uc: &libc::ucontext_t) -> usize {
    uc.uc_mcontext.sp as usize
}

#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
fn redirect(uc: &mut libc::ucontext_t, r: TrapHandlerRegs) {
    let m = &mut uc.uc_mcontext;
    m.pc = r.pc;
    m.sp = r.sp;
    m.regs[0] = r.x0;
    m.regs[1] = r.x1;
    m.regs[29] = r.x29;
    m.regs[30] = r.lr;
}

unsafe extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // Only async-signal-safe work here: a const thread-local read, register reads and
    // writes, and corosensei's trampoline setup (stores onto the fiber's stack).
    let armed = ARMED.with(|a| a.get());
    if let Some(h) = armed
        && !ctx.is_null()
        && !info.is_null()
    {
        // SAFETY: the kernel passes a valid ucontext and siginfo to an SA_SIGINFO handler.
        let (uc, info) = unsafe { (&mut *ctx.cast::<libc::ucontext_t>(), &*info) };
        if h.stack_ptr_in_bounds(stack_pointer(uc)) {
            let trap = Trap {
                signal: sig,
                code: info.si_code,
                // SAFETY: si_addr is defined for the four signals handled here.
                addr: unsafe { info.si_addr() } as usize,
            };
            // SAFETY: the interrupted code runs on the armed fiber's stack (checked above);
            // the fiber is abandoned (it returns `Some(trap)` at once) and its register
            // state is updated as corosensei requires.
            let regs = unsafe { h.setup_trap_handler(move || Some(trap)) };
            redirect(uc, regs);
            return;
        }
    }
    chain(sig, info, ctx);
}

/// Hands a signal that is not ours to the handler installed before cuprum's.
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let Some(prev) = PREVIOUS.get() else {
        return;
    };
    let Some(k) = SIGNALS.iter().position(|&s| s == sig) else {
        return;
    };
    let old = &prev[k];
    let h = old.sa_sigaction;
    if h == libc::SIG_DFL || h == libc::SIG_IGN {
        // Restore the default action and return: the faulting instruction runs again and
        // the signal takes its default effect (for these signals: the process ends).
        // SAFETY: resetting a signal's action to its default is async-signal-safe.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = libc::SIG_DFL;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
        return;
    }
    if old.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed with SA_SIGINFO, so it has this
        // signature; it is called as the kernel would have called it.
        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(h) };
        f(sig, info, ctx);
    } else {
        // SAFETY: a plain handler takes the signal number only.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(h) };
        f(sig);
    }
}
