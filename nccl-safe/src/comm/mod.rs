//! Communicators, stream-ordered collectives and groups.
//!
//! - `id.rs`: the ways to make a [`UniqueId`] that ask a driver or NCCL;
//! - `communicator.rs`: [`Communicator`] and its lifecycle, [`AbortHandle`];
//! - `collectives.rs`: the collectives, point-to-point, [`ReduceOp`];
//! - `group.rs`: [`group`];
//! - `launch_event.rs`: [`with_launch_event`], NCCL's launch-completion events;
//! - `completion.rs`: [`with_completion_event`], the event recorded after a launch;
//! - `onesided.rs`: puts, signals and waits on windows ([`SignalWait`]);
//! - `reshape.rs`: revoke, shrink and grow ([`Revoked`], [`Shrunk`], [`GrowId`]).

mod collectives;
mod communicator;
mod completion;
mod estimate;
mod graph;
mod group;
mod id;
mod label;
mod launch_event;
mod onesided;
mod register;
mod reshape;
mod scalable;
mod suspend;
mod suspend_state;
mod vcoll;
mod window;

pub use collectives::ReduceOp;
pub use communicator::{AbortHandle, Communicator, wait_for_teardowns};
pub use completion::with_completion_event;
pub use estimate::{SIM_LINK_BANDWIDTH, SIM_STEP_LATENCY, estimate};
pub use graph::Graph;
pub use group::{Group, group};
pub use label::{with_call_label, with_checked_call_label};
pub use launch_event::with_launch_event;
pub use onesided::SignalWait;
pub use register::Registration;
pub use reshape::{GrowId, RankMap, Revoked, Shrunk};
pub use suspend::MemStats;
pub use vcoll::Blocks;
pub use window::{WINDOW_ALIGNMENT, Window, WindowFlags};
