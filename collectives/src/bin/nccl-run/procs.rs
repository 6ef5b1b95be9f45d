//! nccl-run's processes: starting each rank in a process group of its own (killed
//! when nccl-run dies), tagging its output, forwarding SIGINT/SIGTERM/SIGHUP,
//! stopping ranks and what they left behind, and describing how each ended.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

/// The last SIGINT, SIGTERM or SIGHUP received (0: none since the last look).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::SeqCst);
}

/// Catches SIGINT, SIGTERM and SIGHUP (to forward them to the ranks).
pub fn catch_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let handler = on_signal as extern "C" fn(libc::c_int);
        // SAFETY: installs a handler that only stores into an atomic, which is
        // async-signal-safe.
        unsafe {
            libc::signal(sig, handler as libc::sighandler_t);
        }
    }
}

/// A signal received since the last call, if any.
pub fn take_signal() -> Option<i32> {
    match SIGNAL.swap(0, Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The name of a signal number, for messages.
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGHUP => "SIGHUP".into(),
        other => format!("signal {other}"),
    }
}

/// One rank's process.
pub struct Rank {
    pub rank: usize,
    pub child: Child,
    pub status: Option<(ExitStatus, Instant)>,
    /// Stopped by nccl-run (after another rank failed, a signal, or the timeout).
    pub stopped: bool,
    /// Failed in a job whose groups heal: the others went on without this process
    /// (restarted or not), so its status is not the job's.
    pub healed_over: bool,
    pipes: Vec<JoinHandle<()>>,
}

impl Rank {
    /// Starts `program` as `rank` with `env`, in a process group of its own (so that
    /// a terminal's Ctrl-C reaches nccl-run alone, which forwards it once), killed by
    /// the kernel when nccl-run dies (`PR_SET_PDEATHSIG`), even by SIGKILL.
    pub fn spawn(
        program: &[String],
        rank: usize,
        env: &[(String, String)],
        tag: bool,
    ) -> Result<Rank, String> {
        let mut cmd = Command::new(&program[0]);
        cmd.args(&program[1..]).process_group(0);
        // SAFETY: getpid has no memory effects.
        let launcher = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe functions (prctl, getppid, _exit), touching no memory
        // of the parent.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // nccl-run may have died before the prctl: then nobody would kill it.
                if libc::getppid() != launcher {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        if tag {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {:?} as rank {rank}: {e}", program[0]))?;
        let mut pipes = Vec::new();
        if tag {
            if let Some(out) = child.stdout.take() {
                pipes.push(relay(out, rank, false));
            }
            if let Some(err) = child.stderr.take() {
                pipes.push(relay(err, rank, true));
            }
        }
        Ok(Rank {
            rank,
            child,
            status: None,
            stopped: false,
            healed_over: false,
            pipes,
        })
    }

    /// Sends `sig` to the rank's process group.
    pub fn signal(&self, sig: i32) {
        if self.status.is_some() {
            return;
        }
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill has no memory effects; a negative pid names the process
            // group this rank leads (set up by `process_group(0)`).
            unsafe {
                libc::kill(-pid, sig);
            }
        }
    }

    /// Looks whether the process ended; `true` the first time it is seen ended. It
    /// is left a zombie (not reaped) until [`Rank::finish`]: that keeps its pid, the
    /// id of its process group, from being handed to another process before the
    /// group's leftovers are killed. Never waits for its output: a background child
    /// of the rank may hold the pipes open.
    pub fn poll(&mut self) -> bool {
        if self.status.is_some() {
            return false;
        }
        let pid: libc::id_t = self.child.id();
        // SAFETY: siginfo_t is plain data; zero is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid on our own child with a valid out-pointer; WNOWAIT leaves
        // it waitable (a zombie), WNOHANG never blocks.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        // SAFETY: si_pid and si_status are set by waitid for an ended child (and
        // zero otherwise, as the struct was zeroed).
        let (who, code) = unsafe { (info.si_pid(), info.si_status()) };
        if rc != 0 || who == 0 {
            return false;
        }
        // The raw wait status, as waitpid would give it.
        let raw = match info.si_code {
            libc::CLD_EXITED => (code & 0xff) << 8,
            libc::CLD_DUMPED => (code & 0x7f) | 0x80,
            _ => code & 0x7f,
        };
        self.status = Some((ExitStatus::from_raw(raw), Instant::now()));
        true
    }

    /// Once the rank has ended and the job is over: kills what is left of its
    /// process group (background children it started), then waits for its output
    /// relays until `deadline` (a relay still held open after it is left running).
    pub fn finish(&mut self, deadline: Instant) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill has no memory effects. The group id is the rank's pid,
            // still held by its zombie (see `poll`), so it names no other process.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        // Now reaped.
        let _ = self.child.wait();
        while self.pipes.iter().any(|p| !p.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        for p in self.pipes.drain(..) {
            if p.is_finished() {
                let _ = p.join();
            }
        }
    }

    /// Whether it ended with status 0.
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|(s, _)| s.success())
    }
}

/// How a process ended, in words: `exit status 3` or `killed by SIGKILL`.
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(s)) => format!("killed by {}", signal_name(s)),
        _ => "ended".into(),
    }
}

/// The exit code nccl-run passes on for a rank's status (128 + signal when killed).
pub fn exit_code(status: ExitStatus) -> u8 {
    match (status.code(), status.signal()) {
        (Some(c), _) => u8::try_from(c).unwrap_or(1),
        (None, Some(s)) => u8::try_from(128 + s).unwrap_or(255),
        _ => 1,
    }
}

/// Copies `from` line by line to nccl-run's stdout or stderr, each line prefixed
/// with `[rank R] `.
fn relay(from: impl Read + Send + 'static, rank: usize, stderr: bool) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(from);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    let mut out = Vec::with_capacity(line.len() + 12);
                    out.extend_from_slice(format!("[rank {rank}] ").as_bytes());
                    out.extend_from_slice(&line);
                    let _ = if stderr {
                        std::io::stderr().lock().write_all(&out)
                    } else {
                        std::io::stdout().lock().write_all(&out)
                    };
                }
            }
        }
    })
}
