//! Process groups over NCCL whose asynchronous collectives are honest about what
//! blocks: explicit initialisation and connection, `Work` handles that distinguish a
//! stream-wait from a host-wait, a watchdog, and hang reports that name the missing
//! rank.
//!
//! None of that exists yet; this crate re-exports the layer it builds on.

pub use nccl_safe;
