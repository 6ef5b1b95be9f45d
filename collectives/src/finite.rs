//! The check for values that are not finite ([`Options::check_finite`]): before an
//! operation, its input is scanned on the communication stream (on the sim, on the
//! stream's thread; on cuda, a small kernel), into a one-element device buffer; the
//! host never waits for it. When the operation is seen complete, the buffer is read
//! (on a stream of the group's own, which the scan has long passed) and a bad index
//! fails the operation's `Work` with [`Error::NonFinite`] (its flight-record entry
//! says completed: the operation ran).
//!
//! [`Options::check_finite`]: crate::Options::check_finite

use nccl_safe::{DataType, DeviceBuffer, DeviceView, Stream};

use crate::Error;
use crate::recorder::State;
use crate::state::{Inner, Outcome, WorkState, lock};

/// What an operation's enqueue step scans (see [`Scan::input`]).
pub(crate) struct Scan<'a> {
    inner: &'a Inner,
    /// The buffer the scan writes into, to keep with the work.
    pub(crate) slot: Option<DeviceBuffer<u64>>,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(inner: &'a Inner) -> Scan<'a> {
        Scan { inner, slot: None }
    }

    /// Enqueues the scan of `input` on `stream`, when the group checks and the input
    /// is of a float type.
    pub(crate) fn input<T: DataType>(
        &mut self,
        input: &DeviceView<'_, T>,
        stream: &Stream,
    ) -> nccl_safe::Result<()> {
        if !self.inner.options.check_finite || !T::DTYPE.is_float() {
            return Ok(());
        }
        let mut slot = DeviceBuffer::<u64>::alloc(&self.inner.device, 1)?;
        input.find_non_finite(stream, &mut slot.as_view_mut())?;
        self.slot = Some(slot);
        Ok(())
    }
}

impl Inner {
    /// For a work whose operation completed: the error its scan (into `slot`) found,
    /// if any.
    pub(crate) fn scan_result(&self, w: &WorkState, slot: DeviceBuffer<u64>) -> Option<Error> {
        let stream = match self.probe_stream.get() {
            Some(s) => s,
            None => match Stream::new(&self.device) {
                Ok(s) => self.probe_stream.get_or_init(|| s),
                Err(e) => {
                    log::error!("group {}: cannot read a NaN check: {e}", self.options.name);
                    return None;
                }
            },
        };
        match slot.to_vec(stream) {
            Ok(v) if v[0] == u64::MAX => None,
            Ok(v) => Some(Error::NonFinite {
                group: self.options.name.clone(),
                rank: self.rank,
                op: w.op.to_string(),
                seq: w.seq,
                call_site: w.call_site.to_string(),
                index: v[0],
            }),
            Err(e) => {
                log::error!("group {}: cannot read a NaN check: {e}", self.options.name);
                None
            }
        }
    }

    /// For a work whose operation completed: fails it with the error its scan
    /// found, if any (the group goes on). Under the work's probe lock, so that a
    /// second thread observing it at once does not settle it as done before.
    pub(crate) fn check_scan(&self, w: &WorkState) {
        let mut probe = lock(&w.probe);
        if let Some(err) = probe.take().and_then(|slot| self.scan_result(w, slot)) {
            log::error!("{err}");
            // The operation itself completed (the hang report must not take it for a
            // stuck one); its Work carries the error.
            if w.settle(Outcome::Failed(err)) {
                self.recorder.set_state(w.entry, State::Completed);
            }
        }
    }
}
