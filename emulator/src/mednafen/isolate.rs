//! Running a closure in a forked child process with a wall-clock limit, so that a crash (a C++ abort,
//! a segfault) or a hang of the libretro core cannot take the xtask down.
//!
//! The child only runs the closure and leaves with `_exit`, skipping the parent's atexit handlers and
//! destructors. glibc's fork keeps the allocator and C stdio usable in the child even when the parent has
//! threads (the test harness does); the child must still avoid the locks glibc does not reset: Rust's
//! stdout/stderr locks (it reports through files only) and the dynamic loader's lock (the core is loaded
//! and its symbols looked up before the fork; a thread printing a backtrace holds that lock).
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::RunError;

const POLL_INTERVAL: Duration = Duration::from_millis(5);

#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

/// Runs `child` in a forked process; its return value is the exit status. Kills it past `timeout`.
pub fn run_in_child(timeout: Duration, child: impl FnOnce() -> i32) -> Result<Ended, RunError> {
    // SAFETY: fork has no preconditions; the child below only runs `child` and then `_exit`s.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    if pid == 0 {
        let code = child();
        // SAFETY: ends the child without unwinding or running the parent's exit handlers.
        unsafe { libc::_exit(code) }
    }
    let deadline = Instant::now() + timeout;
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child only.
        let waited = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if waited == pid {
            if libc::WIFEXITED(status) {
                return Ok(Ended::Exited(libc::WEXITSTATUS(status)));
            }
            if libc::WIFSIGNALED(status) {
                return Ok(Ended::Signaled(libc::WTERMSIG(status)));
            }
            continue; // stopped/continued: keep waiting
        }
        if waited < 0 {
            return Err(std::io::Error::last_os_error().into());
        }
        if Instant::now() >= deadline {
            // SAFETY: our own child, still unreaped, so the pid cannot have been reused.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return Ok(Ended::TimedOut);
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// In the child: sends everything the core prints on stdout/stderr to `file`.
pub fn redirect_output_to(file: &std::fs::File) {
    // SAFETY: dup2 on descriptors we own; only called in the forked child.
    unsafe {
        libc::dup2(file.as_raw_fd(), 1);
        libc::dup2(file.as_raw_fd(), 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_exit_status_signal_and_timeout() {
        assert_eq!(
            run_in_child(Duration::from_secs(10), || 7).unwrap(),
            Ended::Exited(7)
        );
        let aborted = run_in_child(Duration::from_secs(10), || {
            // SAFETY: the child aborts on purpose, as a crashing core would.
            unsafe { libc::abort() }
        });
        assert_eq!(aborted.unwrap(), Ended::Signaled(libc::SIGABRT));
        let hung = run_in_child(Duration::from_millis(200), || loop {
            std::thread::sleep(Duration::from_millis(50));
        });
        assert_eq!(hung.unwrap(), Ended::TimedOut);
    }
}
