//! Memory that is safe by construction.
//!
//! Every buffer tracks, per byte range, the reads and writes still pending on each
//! stream (as events). Every operation this library enqueues first makes its stream
//! wait for the conflicting ones of other streams (a write conflicts with everything,
//! a read with writes), then records its own. So work on a buffer from several streams
//! is ordered without explicit waits, and disjoint views (from `split_at_mut`) stay
//! independent. Allocation and free are stream-ordered on the device's internal
//! stream, the free after every pending use; dropping a buffer never blocks the host.
//!
//! - `tracker.rs`: pending accesses per byte range and the enqueue protocol;
//! - `alloc.rs`: stream-ordered allocations and owned uses;
//! - `buffer.rs`: allocations and [`DeviceBuffer`];
//! - `view.rs`: [`DeviceView`], [`DeviceViewMut`] and the operations on them;
//! - `host.rs`: [`HostBuffer`].

pub(crate) mod alloc;
mod buffer;
#[cfg(feature = "cudarc")]
pub(crate) use buffer::whole_buffer_methods;
mod host;
pub(crate) mod tracker;
mod view;

pub use alloc::DevicePtr;
pub use buffer::DeviceBuffer;
pub use host::HostBuffer;
pub use view::{AsDeviceView, AsDeviceViewMut, DeviceView, DeviceViewMut};
