//! The `tracing` feature: a subscriber written here captures the spans of a sim
//! group's creation, its operations, its waits and the watchdog's actions, with their
//! fields and nesting. Built only with `--features tracing` (ci/test runs it).
#![cfg(feature = "tracing")]

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use collectives::{Error, Options, ProcessGroup};
use nccl_safe::{Device, DeviceBuffer, Gate, ReduceOp, Stream, UniqueId};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

#[derive(Clone, Debug)]
struct Captured {
    name: String,
    fields: HashMap<String, String>,
    parent: Option<u64>,
}

#[derive(Default)]
struct Capture {
    next: AtomicU64,
    spans: Mutex<Vec<(u64, Captured)>>,
    /// Each thread's entered spans, innermost last.
    entered: Mutex<HashMap<ThreadId, Vec<u64>>>,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

/// The subscriber installed; the test keeps the other `Arc` to look.
struct Handle(Arc<Capture>);

impl Subscriber for Handle {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let this = &self.0;
        let id = this.next.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = attrs.parent().map(Id::into_u64).or_else(|| {
            this.entered
                .lock()
                .unwrap()
                .get(&std::thread::current().id())
                .and_then(|s| s.last().copied())
        });
        this.spans.lock().unwrap().push((
            id,
            Captured {
                name: attrs.metadata().name().to_string(),
                fields,
                parent,
            },
        ));
        Id::from_u64(id)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, id: &Id) {
        self.0
            .entered
            .lock()
            .unwrap()
            .entry(std::thread::current().id())
            .or_default()
            .push(id.into_u64());
    }
    fn exit(&self, id: &Id) {
        if let Some(s) = self
            .0
            .entered
            .lock()
            .unwrap()
            .get_mut(&std::thread::current().id())
        {
            if let Some(i) = s.iter().rposition(|&x| x == id.into_u64()) {
                s.remove(i);
            }
        }
    }
}

impl Capture {
    fn named(&self, name: &str) -> Vec<(u64, Captured)> {
        self.spans
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, c)| c.name == name)
            .cloned()
            .collect()
    }
}

#[test]
fn spans_cover_creation_operations_waits_and_the_watchdog() {
    let capture = Arc::new(Capture::default());
    tracing::subscriber::set_global_default(Handle(capture.clone())).unwrap();

    let dev = Device::sim(0).unwrap();
    let options = Options::new()
        .name("traced")
        .timeout(Duration::from_millis(400));
    let pg = ProcessGroup::new(&dev, 0, 1, &UniqueId::random(), options).unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1.0f32; 64]).unwrap();
    let w = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    w.wait_host(Duration::from_secs(30)).unwrap();

    // Creation: init, with connect inside it (and, when NCCL would connect lazily,
    // the warm-up inside that).
    let init = capture.named("init");
    assert_eq!(init.len(), 1, "{init:?}");
    assert_eq!(init[0].1.fields["group"], "traced");
    assert_eq!(init[0].1.fields["size"], "1");
    let connect = capture.named("connect");
    assert_eq!(connect.len(), 1);
    assert_eq!(connect[0].1.parent, Some(init[0].0));
    if connect[0].1.fields["lazy"] == "true" {
        let warmup = capture.named("warmup");
        assert_eq!(warmup[0].1.parent, Some(connect[0].0));
    }
    // The operation: op, seq, bytes and the call site of this file.
    let ops = capture.named("collective");
    let ar = ops
        .iter()
        .find(|(_, c)| c.fields["op"] == "all_reduce")
        .expect("an all_reduce span");
    assert_eq!(ar.1.fields["seq"], "1");
    assert_eq!(ar.1.fields["bytes"], "256");
    assert!(ar.1.fields["call_site"].contains("tracing.rs:"), "{ar:?}");
    let waits = capture.named("wait");
    assert!(
        waits
            .iter()
            .any(|(_, c)| c.fields["op"] == "all_reduce" && c.fields["seq"] == "1"),
        "{waits:?}"
    );

    // The watchdog times out a gated operation on its own thread.
    let gate = Gate::new(&dev).unwrap();
    pg.comm_stream().wait_gate(&gate).unwrap();
    let w2 = pg.all_reduce(&mut x, ReduceOp::Sum).unwrap();
    let start = Instant::now();
    loop {
        let acts = capture.named("watchdog");
        if let Some((_, c)) = acts
            .iter()
            .find(|(_, c)| c.fields["why"] == "watchdog timeout")
        {
            assert!(c.fields["error"].contains("all_reduce"), "{c:?}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{acts:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(matches!(
        w2.wait_host(Duration::from_secs(30)),
        Err(Error::Timeout { .. })
    ));
    gate.open();
}
