//! Communicators, stream-ordered collectives and groups.
//!
//! - `id.rs`: [`UniqueId`];
//! - `config.rs`: [`Config`] (`ncclConfig_t` and deadlines);
//! - `op.rs`: operation descriptors as the drivers see them;
//! - `communicator.rs`: [`Communicator`] and its lifecycle, [`AbortHandle`];
//! - `collectives.rs`: the collectives, point-to-point, [`ReduceOp`];
//! - `group.rs`: [`group`].

mod collectives;
mod communicator;
pub(crate) mod config;
mod group;
pub(crate) mod id;
mod label;
pub(crate) mod op;

pub use collectives::ReduceOp;
pub use communicator::{AbortHandle, Communicator, wait_for_teardowns};
pub use config::Config;
pub use group::{Group, group};
pub use id::UniqueId;
pub use label::{with_call_label, with_checked_call_label};
