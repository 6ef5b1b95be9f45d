//! The shared vocabulary, below both drivers: what the communicator hands the drivers
//! and what every layer names. Nothing here imports from the layers above (the
//! crate-wide leaves `dtype`, `error`, `fp8`, `sync` and `version` are at this level
//! too).
//!
//! - `op.rs`: operation descriptors as the drivers see them;
//! - `types.rs`: [`DriverKind`](crate::DriverKind) and the built-in elementwise ops;
//! - `host_fn.rs`: the host-function rule and the reaper thread;
//! - `config.rs`: [`Config`](crate::Config) (`ncclConfig_t` and deadlines);
//! - `coll_config.rs`: [`CollConfig`](crate::CollConfig) (`ncclCollConfig_t`);
//! - `id.rs`: [`UniqueId`](crate::UniqueId) as plain data, and the sim's magic prefix.

pub(crate) mod coll_config;
pub(crate) mod config;
pub(crate) mod host_fn;
pub(crate) mod id;
pub(crate) mod op;
pub(crate) mod types;
