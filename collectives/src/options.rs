//! [`Options`] of a process group, and the enums they take.

use std::path::PathBuf;
use std::time::Duration;

/// How group creation waits for the other ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitWait {
    /// Return once every rank has joined (within the timeout).
    Block,
    /// Return at once; the group becomes usable when every rank has joined (the first
    /// operation waits for that, within the timeout).
    Return,
}

/// What the watchdog does when an operation times out or fails asynchronously.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Abort the communicator (local), fail every pending operation, refuse new ones.
    Abort,
    /// Fail the operation concerned and record it. After a timeout the group keeps
    /// working (the late operation itself fails when it is seen). After any other
    /// failure (an asynchronous error of the stream or communicator, which stays
    /// failed on both drivers) the group refuses new work with
    /// [`Error::GroupAborted`](crate::Error::GroupAborted) saying that the
    /// communication stream cannot be used again; the communicator is not aborted.
    Report,
    /// The job goes on without the ranks that failed. As `Abort`, pending operations
    /// fail and new ones are refused, but the communicator is revoked (its work
    /// stops; it can still be shrunk) rather than aborted, and a group of
    /// [`ProcessGroup::from_env`](crate::ProcessGroup::from_env) publishes the
    /// failure to the job's other ranks as the end of this group's *epoch*, not of
    /// the job: theirs are revoked too, and neither `nccl-run` nor rank 0 ends the
    /// job. The program then calls
    /// [`ProcessGroup::shrink`](crate::ProcessGroup::shrink) on every surviving rank,
    /// which agrees on who is gone and returns the group of the survivors, and may
    /// later let replacements in with [`ProcessGroup::admit`](crate::ProcessGroup::admit).
    /// It needs `ncclCommRevoke` (NCCL 2.28.7): a group under it is refused with
    /// [`nccl_safe::Error::UnsupportedByNccl`] on an older NCCL.
    Shrink,
}

/// What a group writes to its dump folder ([`Options::dump_dir`]) on each dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpFormat {
    /// Our JSON dumps, one file per dump, which [`hang_report`](crate::hang_report)
    /// and `nccl-hang-report` read (the default).
    Json,
    /// PyTorch's flight-recorder format, version 2.10, one file per rank that each
    /// dump replaces (see [`Dump::write_torch`](crate::Dump::write_torch)): run
    /// PyTorch's analyzer on `<dir>/torch/<group>`.
    Torch,
    /// Both, side by side.
    Both,
}

impl DumpFormat {
    /// Parses `json`, `torch` or `both` (the values of `NCCL_RS_TRACE_FORMAT`).
    pub fn parse(text: &str) -> Option<DumpFormat> {
        match text.trim() {
            "json" => Some(DumpFormat::Json),
            "torch" => Some(DumpFormat::Torch),
            "both" => Some(DumpFormat::Both),
            _ => None,
        }
    }

    pub(crate) fn json(self) -> bool {
        self != DumpFormat::Torch
    }

    pub(crate) fn torch(self) -> bool {
        self != DumpFormat::Json
    }
}

/// Settings of a [`ProcessGroup`](crate::ProcessGroup).
#[derive(Clone, Debug)]
pub struct Options {
    pub(crate) name: String,
    pub(crate) timeout: Duration,
    pub(crate) init_wait: InitWait,
    pub(crate) eager_connect: bool,
    pub(crate) p2p: bool,
    pub(crate) on_error: ErrorPolicy,
    pub(crate) max_in_flight: usize,
    pub(crate) watchdog_interval: Duration,
    pub(crate) dump_dir: Option<PathBuf>,
    pub(crate) dump_format: DumpFormat,
    /// `NCCL_RS_TRACE_FORMAT` when it is not a format (refused by `validate`).
    pub(crate) bad_dump_format: Option<String>,
    pub(crate) recorder_capacity: usize,
    pub(crate) propagate_failures: bool,
    pub(crate) check_call_sites: bool,
    pub(crate) shrink_excludes_late: bool,
    pub(crate) check_finite: bool,
    pub(crate) launch_events: bool,
}

/// Builder methods that set one field of [`Options`].
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, value: $ty) -> Options {
                self.$name = value;
                self
            }
        )*
    };
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// Defaults: name `default`, timeout 10 min, blocking init, eager connection,
    /// abort on error, 1024 operations in flight, watchdog every 100 ms, dumps to
    /// `NCCL_RS_TRACE_DIR` when set, in the format `NCCL_RS_TRACE_FORMAT` names
    /// (`json`, `torch` or `both`; JSON when unset), 2000 recorder entries.
    pub fn new() -> Options {
        let (dump_format, bad_dump_format) = match std::env::var("NCCL_RS_TRACE_FORMAT") {
            Err(_) => (DumpFormat::Json, None),
            Ok(v) => match DumpFormat::parse(&v) {
                Some(f) => (f, None),
                None => (DumpFormat::Json, Some(v)),
            },
        };
        Options {
            name: "default".into(),
            timeout: Duration::from_secs(600),
            init_wait: InitWait::Block,
            eager_connect: true,
            p2p: false,
            on_error: ErrorPolicy::Abort,
            max_in_flight: 1024,
            watchdog_interval: Duration::from_millis(100),
            dump_dir: std::env::var_os("NCCL_RS_TRACE_DIR").map(PathBuf::from),
            dump_format,
            bad_dump_format,
            recorder_capacity: 2000,
            propagate_failures: true,
            check_call_sites: false,
            shrink_excludes_late: false,
            check_finite: std::env::var("NCCL_RS_CHECK_FINITE").is_ok_and(|v| v.trim() == "1"),
            launch_events: false,
        }
    }

    /// The group's name (in errors, logs and dumps).
    pub fn name(mut self, name: &str) -> Options {
        self.name = name.to_string();
        self
    }

    setters! {
        /// The default timeout: of init, of host-waits without their own, and the age
        /// at which the watchdog declares an operation hung. `Duration::MAX` means no
        /// deadline.
        timeout: Duration;
        /// How creation waits for the other ranks.
        init_wait: InitWait;
        /// Connect peers at creation when NCCL would connect lazily (Decision 6).
        eager_connect: bool;
        /// Also connect every peer for point-to-point at creation.
        p2p: bool;
        /// What to do on a timeout or an asynchronous error.
        on_error: ErrorPolicy;
        /// How often the watchdog looks at pending operations.
        watchdog_interval: Duration;
        /// Entries the flight recorder keeps (pending ones are never evicted).
        recorder_capacity: usize;
        /// For groups made by `ProcessGroup::from_env` (default on): publish this
        /// rank's abort through the job's store, and abort when another rank publishes
        /// one or its process dies. Off: each rank waits for its own timeout.
        propagate_failures: bool;
        /// On the sim driver (default off): check, per sequence number, that every
        /// rank issued its collective from the same call site (`file:line`), and fail
        /// it with [`Error::Mismatch`](crate::Error::Mismatch) naming both sites when
        /// not, even when the two operations look alike. This catches a group whose
        /// ranks issue from several threads in different orders, which otherwise
        /// pairs unrelated operations of the same shape. Off by default: a correct
        /// program may issue one collective from different lines on different ranks.
        /// NCCL has no such check; on cuda this does nothing.
        check_call_sites: bool;
        /// For [`ProcessGroup::shrink`](crate::ProcessGroup::shrink) (default off): a
        /// rank that is alive as far as the store knows, but did not come to the
        /// shrink within the group's timeout, is left out of the new group, which it
        /// learns when it comes. Off: only ranks known gone are left out, and the
        /// shrink fails naming the late ones: a rank that is only slow is not dropped
        /// unless the program says so.
        shrink_excludes_late: bool;
        /// Check every float input for NaN and infinity before its operation (default
        /// off; `NCCL_RS_CHECK_FINITE=1` turns it on). The scan is enqueued on the
        /// communication stream just before the operation: on the sim it runs on the
        /// stream's thread, on cuda it is a small kernel; the host never waits for it.
        /// An input that is not finite fails that operation's `Work` with
        /// [`Error::NonFinite`](crate::Error::NonFinite), naming the rank, the
        /// operation, its call site and the first bad element; the operation itself
        /// has run (its outputs hold what NCCL made of the values), and the group goes
        /// on. What is scanned: the input of each collective (the buffer of an
        /// in-place one; on the root only, the data of `broadcast` and `scatter`) and
        /// of `send`. Costs one pass over each input (docs/performance.md).
        check_finite: bool;
        /// Learn when NCCL has launched each collective (default off; NCCL 2.32.3 or
        /// later, else making the group fails with
        /// [`Error::Safe`](crate::Error::Safe) holding
        /// [`nccl_safe::Error::UnsupportedByNccl`]). Each collective then carries a
        /// launch-completion event ([`nccl_safe::with_launch_event`]), which gives a
        /// [`Work`](crate::Work) a state between issued and complete,
        /// [`Work::is_launched`](crate::Work::is_launched): launched means the
        /// collective is running on the device, so a collective that stays launched
        /// and incomplete is waiting for its peers, and one not launched is behind
        /// earlier work on the stream (or NCCL has not launched it). The watchdog
        /// notes each launch in the flight record (`started_ms`, PyTorch's `started`
        /// state) and the hang report says which ranks had launched a pending
        /// collective. Point-to-point calls, the v-collectives, graph replays and
        /// `grouped` calls carry no event (NCCL attaches it to one collective); their
        /// `is_launched` is `None`. Costs one event per collective.
        launch_events: bool;
    }

    /// How many operations may be in flight before a new call waits for room (at most
    /// the timeout). GPUs stall the host invisibly past about a thousand pending
    /// launches; this cap makes the wait explicit and bounded. Each operation of a
    /// group takes exactly one place in its stream's launch queue, so with the cap at
    /// or below the queue's depth (the default, 1024, is both), the cap is where the
    /// host first waits.
    ///
    /// On the sim driver the cap may not exceed the collectives a communicator holds
    /// pending, [`nccl_safe::SIM_PENDING_COLLECTIVES`] (2048): making a group with a
    /// larger one is an [`InvalidOption`](crate::Error::InvalidOption). Messages have a
    /// limit of their own, [`nccl_safe::SIM_PENDING_MESSAGES`] (64) between one pair
    /// of ranks: a send or receive past it waits for room at most the timeout, then
    /// fails with [`nccl_safe::Error::PendingLimit`] having launched nothing (the
    /// group goes on, and the call may be made again).
    pub fn max_in_flight(mut self, cap: usize) -> Options {
        self.max_in_flight = cap;
        self
    }

    /// Checks every value, naming the first that is out of range.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOption`](crate::Error::InvalidOption).
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |option: &'static str, value: String, reason: &str| {
            Err(crate::Error::InvalidOption {
                option,
                value,
                reason: reason.into(),
            })
        };
        if self.timeout.is_zero() {
            return bad(
                "timeout",
                "0s".into(),
                "must be positive (Duration::MAX: no deadline)",
            );
        }
        if self.max_in_flight == 0 {
            return bad("max_in_flight", "0".into(), "at least 1 operation must fit");
        }
        if self.recorder_capacity == 0 {
            return bad(
                "recorder_capacity",
                "0".into(),
                "must keep at least 1 entry",
            );
        }
        if self.watchdog_interval < Duration::from_millis(1) {
            return bad(
                "watchdog_interval",
                format!("{:?}", self.watchdog_interval),
                "must be at least 1 ms (a busy watchdog burns a core)",
            );
        }
        if let Some(v) = &self.bad_dump_format {
            return bad(
                "NCCL_RS_TRACE_FORMAT",
                format!("{v:?}"),
                "must be json, torch or both",
            );
        }
        if self.name.is_empty() || self.name.len() > 64 {
            return bad(
                "name",
                format!("{:?}", self.name),
                "must have 1 to 64 characters",
            );
        }
        Ok(())
    }

    /// The folder the flight recorder is dumped to (overrides `NCCL_RS_TRACE_DIR`;
    /// without either, nothing is written). A dump is written whenever the group
    /// fails or is told of a failure: an operation timing out (and then every other
    /// rank of the group in this process, asked by it), an asynchronous error or a
    /// mismatch, another rank's failure seen through the job's store, a drop while
    /// panicking or with work nobody waits for, [`ProcessGroup::abort`] and
    /// [`ProcessGroup::dump_flight_record`].
    ///
    /// Every dump is a file of its own, never overwritten:
    /// `<dir>/<group>-rank<rank>-<pid>-<n>.json`, where `<group>` is the group's name
    /// with every character other than ASCII letters, digits, `-` and `_` made `_`,
    /// and `n` counts that group and rank's dumps in this process from 0. Each is written whole to a hidden
    /// `.<name>.tmp` beside it, then renamed into place, so a reader never sees half
    /// a dump. Dumps are written on a thread of their own: no operation, wait or
    /// abort waits for the file system, and dropping the group waits at most a second
    /// for dumps under way (so that a program exiting on its error leaves them whole).
    /// [`Options::dump_format`] adds PyTorch's format. Read one with [`Dump::read`](crate::Dump::read); merge several with
    /// [`hang_report`](crate::hang_report).
    ///
    /// [`ProcessGroup::abort`]: crate::ProcessGroup::abort
    /// [`ProcessGroup::dump_flight_record`]: crate::ProcessGroup::dump_flight_record
    pub fn dump_dir(mut self, dir: impl Into<PathBuf>) -> Options {
        self.dump_dir = Some(dir.into());
        self
    }

    /// What each dump writes into the dump folder (overrides `NCCL_RS_TRACE_FORMAT`):
    /// our JSON (the default), PyTorch's flight-recorder format for its analyzer
    /// (`torchfrtrace <dir>/torch/<group>`), or both.
    pub fn dump_format(mut self, format: DumpFormat) -> Options {
        self.dump_format = format;
        self.bad_dump_format = None;
        self
    }
}
