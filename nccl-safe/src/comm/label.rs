//! Call labels: a short text the caller attaches to the operations it issues (the
//! collectives layer uses `op #seq at file:line`), kept by the sim beside each
//! operation so that a mismatch names both sides' call sites.

use std::cell::RefCell;

use crate::base::op::CallLabel;

thread_local! {
    static LABEL: RefCell<CallLabel> = const { RefCell::new(CallLabel::NONE) };
    static SITE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f` with `label` attached to every operation it issues on this thread (on the
/// sim, a mismatch names the label of both sides; NCCL ignores labels).
///
/// The label is a string or a [`CallLabel`]; the operations share it, so an `Arc<str>`
/// made once is attached without copying its text, and a [`CallLabel::numbered`] one
/// (`all_reduce #` 7 ` at train.rs:57`) without formatting or allocating it.
///
/// ```
/// let x = nccl_safe::with_call_label("all_reduce #1 at train.rs:57", || 41 + 1);
/// assert_eq!(x, 42);
/// ```
pub fn with_call_label<R>(label: impl Into<CallLabel>, f: impl FnOnce() -> R) -> R {
    struct Restore(CallLabel);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = std::mem::take(&mut self.0);
            LABEL.with(|l| *l.borrow_mut() = old);
        }
    }
    let label = label.into();
    let _restore = Restore(LABEL.with(|l| std::mem::replace(&mut *l.borrow_mut(), label)));
    f()
}

/// Like [`with_call_label`], and asks the sim to check that every rank issues each
/// collective `f` issues from the same `site` (such as `train.rs:57`): a rank whose
/// operation at that position came from another site (also checked) fails it with a
/// mismatch naming both labels, even when the two operations look alike. A correct
/// program may issue one collective from different lines on different ranks, so
/// this is for callers that know theirs do not. NCCL ignores both.
///
/// ```
/// let x = nccl_safe::with_checked_call_label("all_reduce #1 at train.rs:57", "train.rs:57", || 7);
/// assert_eq!(x, 7);
/// ```
pub fn with_checked_call_label<R>(
    label: impl Into<CallLabel>,
    site: &str,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            SITE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SITE.with(|s| s.replace(site_key(site))));
    with_call_label(label, f)
}

/// A call site as a nonzero number (FNV-1a): equal sites give equal numbers.
fn site_key(site: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in site.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h.max(1)
}

/// The label in effect on this thread.
pub(crate) fn current() -> CallLabel {
    LABEL.with(|l| l.borrow().clone())
}

/// The checked call site in effect on this thread (0: none).
pub(crate) fn current_site() -> u32 {
    SITE.with(std::cell::Cell::get)
}
