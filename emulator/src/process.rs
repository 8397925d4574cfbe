//! Running a child process (an emulator, a runner script) with a wall-clock limit.
//!
//! The child gets its own process group, and on timeout the whole group is killed: emulators and
//! script runners may start helpers of their own, and none of them must outlive the run. Output is
//! captured by reader threads (so a chatty child never blocks on a full pipe) and capped in size.
use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Bytes of stdout and of stderr kept from a child; beyond that only the last bytes are kept.
pub const OUTPUT_CAP: usize = 1 << 20;
/// How often the child is polled while it runs.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// How a child run ended, with what it printed (lossily decoded, capped at `OUTPUT_CAP` each).
#[derive(Debug)]
pub struct Finished {
    /// `None` when the child was killed for running past its limit.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Finished {
    pub fn timed_out(&self) -> bool {
        self.status.is_none()
    }

    /// The stdout and stderr text together, for logs and error messages.
    pub fn output(&self) -> String {
        match (self.stdout.trim().is_empty(), self.stderr.trim().is_empty()) {
            (true, _) => self.stderr.clone(),
            (false, true) => self.stdout.clone(),
            (false, false) => format!("{}\n{}", self.stdout, self.stderr),
        }
    }
}

/// Runs `command` to completion or until `timeout` has passed, then kills its process group.
/// Stdin is closed; stdout and stderr are captured.
pub fn run_with_timeout(command: &mut Command, timeout: Duration) -> io::Result<Finished> {
    let started = Instant::now();
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).spawn()?;
    let stdout = capture(child.stdout.take());
    let stderr = capture(child.stderr.take());
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() >= timeout {
            kill_group(&mut child);
            break None;
        }
        std::thread::sleep(POLL_INTERVAL);
    };
    // Helpers left in the group could hold the pipes open; the group goes in every case. (A group id
    // stays taken while any member lives; with none left, the id was freed microseconds ago and
    // Linux hands out pids sequentially, so the kill finds nothing rather than a stranger.)
    kill_group(&mut child);
    Ok(Finished { status, stdout: join(stdout), stderr: join(stderr), elapsed: started.elapsed() })
}

/// SIGKILL to the child's whole process group (its id is the child's pid), then reaps the child.
fn kill_group(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group; it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.wait();
}

fn capture<R: Read + Send + 'static>(pipe: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut pipe| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        kept.extend_from_slice(&chunk[..n]);
                        if kept.len() > 2 * OUTPUT_CAP {
                            kept.drain(..kept.len() - OUTPUT_CAP);
                        }
                    }
                }
            }
            if kept.len() > OUTPUT_CAP {
                kept.drain(..kept.len() - OUTPUT_CAP);
            }
            kept
        })
    })
}

fn join(reader: Option<JoinHandle<Vec<u8>>>) -> String {
    let bytes = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_exit_status() {
        let done = run_with_timeout(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(done.status.and_then(|s| s.code()), Some(3));
        assert_eq!(done.stdout, "out\n");
        assert_eq!(done.stderr, "err\n");
        assert!(!done.timed_out());
    }

    /// True once `pid` has exited (gone, or a zombie waiting for its new parent to reap it).
    fn has_exited(pid: &str) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
        }
    }

    #[test]
    fn kills_the_whole_group_on_timeout() {
        // The shell starts a grandchild that would outlive it if only the shell were killed.
        let done =
            run_with_timeout(Command::new("sh").args(["-c", "sleep 600 & echo $!; wait"]), Duration::from_millis(300))
                .unwrap();
        assert!(done.timed_out());
        let grandchild = done.stdout.trim();
        assert!(!grandchild.is_empty(), "no pid printed: {done:?}");
        // SIGKILL is delivered asynchronously: give the grandchild a moment to die before judging.
        let gone = (0..500).any(|_| {
            has_exited(grandchild) || {
                std::thread::sleep(Duration::from_millis(10));
                false
            }
        });
        assert!(gone, "grandchild {grandchild} survived the group kill");
    }

    #[test]
    fn keeps_only_the_tail_of_huge_output() {
        let done = run_with_timeout(
            Command::new("sh").args(["-c", "head -c 3000000 /dev/zero | tr '\\0' a; echo END"]),
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(done.stdout.len(), OUTPUT_CAP);
        assert!(done.stdout.ends_with("aEND\n"));
    }
}
