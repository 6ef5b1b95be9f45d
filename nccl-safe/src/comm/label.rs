//! Call labels: a short text the caller attaches to the operations it issues (the
//! collectives layer uses `op #seq at file:line`), kept by the sim beside each
//! operation so that a mismatch names both sides' call sites.

use std::cell::RefCell;

thread_local! {
    static LABEL: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f` with `label` attached to every operation it issues on this thread (on the
/// sim, a mismatch names the label of both sides; NCCL ignores labels).
///
/// ```
/// let x = nccl_safe::with_call_label("all_reduce #1 at train.rs:57", || 41 + 1);
/// assert_eq!(x, 42);
/// ```
pub fn with_call_label<R>(label: &str, f: impl FnOnce() -> R) -> R {
    struct Restore(String);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = std::mem::take(&mut self.0);
            LABEL.with(|l| *l.borrow_mut() = old);
        }
    }
    let _restore =
        Restore(LABEL.with(|l| std::mem::replace(&mut *l.borrow_mut(), label.to_string())));
    f()
}

/// The label in effect on this thread.
pub(crate) fn current() -> String {
    LABEL.with(|l| l.borrow().clone())
}
