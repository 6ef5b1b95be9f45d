//! The driver layer's behaviour, through bodies shared by the `sim` and `cuda` drivers.
//! Late work is emulated with gates; every check is an ordering, never a timing. The
//! bodies live by concept: orderings between streams in `driver/ordering.rs`,
//! buffers' contents and refusals in `driver/buffers.rs`, streams and events in
//! `driver/streams.rs`; devices and driver selection in `driver/devices.rs`.

mod common;

#[path = "driver/buffers.rs"]
mod buffers;
#[path = "driver/devices.rs"]
mod devices;
#[path = "driver/ordering.rs"]
mod ordering;
#[path = "driver/streams.rs"]
mod streams;

on_both_drivers!(
    write_on_one_stream_is_seen_by_a_read_on_another,
    read_on_one_stream_is_not_overwritten_by_a_later_write_on_another,
    a_read_on_the_writing_stream_does_not_hide_the_write_from_other_readers,
    independent_halves_run_concurrently,
    dropping_a_buffer_with_pending_work_does_not_block_and_the_work_completes,
    async_copy_to_host_arrives_after_the_producer,
    async_copy_from_host_is_read_before_the_host_may_write,
    elementwise_ops_compute_every_dtype,
    find_non_finite_names_the_first_nan_or_infinity_of_every_float_type,
    views_out_of_range_and_length_mismatches_are_typed_errors,
    objects_of_another_device_are_refused,
    allocating_too_much_is_out_of_memory,
    stream_basics_timeout_query_and_host_functions_in_order,
    events_record_query_synchronize_and_time,
    raw_device_pointers_are_lent_with_the_waits_inserted,
);

/// The bodies `on_both_drivers!` runs, from the module of each one's concept.
mod bodies {
    pub use super::buffers::*;
    pub use super::ordering::*;
    pub use super::streams::*;
}
