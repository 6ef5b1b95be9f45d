//! The text of a group's labels around their numbers (`all_reduce #`, ` at
//! train.rs:57 (rank 0 of g)`), made once per operation name and call site: the sim
//! keeps a label beside every operation, so the group makes it without writing text
//! (see `nccl_safe::CallLabel::numbered`).

use std::collections::HashMap;
use std::sync::Arc;

/// A label's text before and after its number.
pub(crate) type Parts = (Arc<str>, Arc<str>);

/// An operation's name (its address and length) and its call site's text (its address).
type Key = (usize, usize, usize);

/// At most this many pairs are kept (a program issues from a few sites; sites made
/// afresh while thread locals are destroyed would otherwise add one per operation).
const KEPT: usize = 4096;

/// The parts by operation name and call site (their addresses; the site's text is
/// kept, so its address is not reused), and the last pair asked for, which a loop asks
/// for again.
#[derive(Default)]
pub(crate) struct LabelParts {
    last: Option<(Key, Parts)>,
    all: HashMap<Key, (Arc<str>, Parts)>,
}

impl LabelParts {
    /// The parts of `op`'s label at `call_site`, made by `make` the first time.
    pub(crate) fn parts(
        &mut self,
        op: &'static str,
        call_site: &Arc<str>,
        make: impl FnOnce() -> Parts,
    ) -> Parts {
        let key = (
            op.as_ptr() as usize,
            op.len(),
            Arc::as_ptr(call_site).cast::<u8>() as usize,
        );
        if let Some((k, parts)) = &self.last {
            if *k == key {
                return parts.clone();
            }
        }
        if self.all.len() >= KEPT {
            self.all.clear();
        }
        let parts = self
            .all
            .entry(key)
            .or_insert_with(|| (call_site.clone(), make()))
            .1
            .clone();
        self.last = Some((key, parts.clone()));
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_made_once_per_operation_and_site() {
        let mut p = LabelParts::default();
        let (a, b): (Arc<str>, Arc<str>) = ("a.rs:1".into(), "a.rs:2".into());
        let mut made = 0;
        let mut get = |p: &mut LabelParts, op: &'static str, site: &Arc<str>| {
            p.parts(op, site, || {
                made += 1;
                (format!("{op} #").into(), format!(" at {site}").into())
            })
        };
        let first = get(&mut p, "all_reduce", &a);
        assert_eq!((&*first.0, &*first.1), ("all_reduce #", " at a.rs:1"));
        let other_site = get(&mut p, "all_reduce", &b);
        assert_eq!(&*other_site.1, " at a.rs:2");
        let other_op = get(&mut p, "broadcast", &a);
        assert_eq!(&*other_op.0, "broadcast #");
        // Asked again, in another order: nothing is made again.
        assert!(Arc::ptr_eq(&get(&mut p, "all_reduce", &a).0, &first.0));
        assert!(Arc::ptr_eq(&get(&mut p, "all_reduce", &b).1, &other_site.1));
        assert_eq!(made, 3);
    }
}
