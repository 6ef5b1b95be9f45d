//! Process groups over NCCL whose asynchronous collectives are honest about what
//! blocks.
//!
//! - **Init and connection are explicit.** [`ProcessGroup::new`] creates the
//!   communicator and, with [`InitWait::Block`], returns once every rank has joined;
//!   when NCCL would connect peers lazily (`NCCL_RUNTIME_CONNECT`, on by default) it
//!   runs warm-up collectives there and then, so later calls never wait for a peer on
//!   the host.
//! - **Two waits, two names.** Every operation returns a [`Work`] once its kernels are
//!   enqueued: [`Work::wait_stream`] makes a stream depend on it and returns at once;
//!   [`Work::wait_host`] blocks the thread, under a timeout. `work.await` is the
//!   host-wait of `async` code ([`WorkFuture`]): any executor, woken on completion.
//! - **Hangs are diagnosable.** A watchdog fails operations that run past the timeout,
//!   aborts per policy, and dumps a flight recorder; [`hang_report`] (and the
//!   `nccl-hang-report` program) merges the dumps of all ranks into one line per
//!   finding, naming the rank that never arrived. Dumps can also be written in
//!   PyTorch's flight-recorder format ([`DumpFormat`]) for its analyzer; on cuda a
//!   timeout asks NCCL's RAS service what it thinks of the job ([`ras`]).
//! - **Operations can be watched.** [`ProcessGroup::add_hook`] runs callbacks before
//!   issue, on completion, on timeout and on abort; [`Options::check_finite`] fails
//!   an operation whose input holds a NaN or an infinity
//!   ([`Error::NonFinite`]), naming the rank, call site and element.
//! - **Jobs can heal.** Under [`ErrorPolicy::Shrink`] a failure ends the group's
//!   epoch, not the job: [`ProcessGroup::shrink`] makes the group of the survivors,
//!   and [`ProcessGroup::admit`] lets replacements in (`nccl-run --max-restarts`).
//!
//! Backpressure: a GPU's launch queue holds about a thousand pending operations, after
//! which a launch blocks the host with no word why. [`Options::max_in_flight`] caps the
//! operations in flight; past it, a call waits (at most the timeout) for the oldest to
//! finish, and says so if it cannot.

// docs.rs marks what each feature adds.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod connect;
mod error;
mod finite;
mod future;
mod handle;
mod heal;
mod hooks;
mod issue;
mod labels;
pub mod launch;
mod onesided;
mod options;
mod process_group;
pub mod ras;
mod recorder;
mod registered;
mod report;
mod shared;
mod state;
pub mod store;
mod suspend;
mod timer;
mod trace;
mod vcoll;
mod watchdog;
mod work;

pub use connect::runtime_connect;
pub use error::{Error, ReplacedBy, Result};
pub use future::{WorkFuture, WorkSetFuture};
pub use handle::GroupHandle;
pub use hooks::{HookEvent, HookHandle, HookOp, HookPoint};
pub use launch::{Launch, LaunchError, Launcher, Overrides, Rendezvous, Source};
pub use options::{DumpFormat, ErrorPolicy, InitWait, Options};
pub use process_group::ProcessGroup;
pub use recorder::{Dump, Entry, State};
pub use report::hang_report;
pub use shared::{SharedGroup, Turn};
pub use work::{WaitMode, Work, WorkSet};

pub use nccl_safe;
