//! `TorchStore` against PyTorch's own `TCPStore` server (both of its backends, libuv
//! and the older one), run by the PyTorch that ci/setup installs into `.deps/torch`
//! (or the Python in `NCCL_RS_TORCH_PYTHON`). These need PyTorch, so plain `cargo
//! test` shows them as ignored; ci/test runs them with `--ignored`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
use common::torch_python;

use collectives::store::{
    self, ClientOptions, ServerOptions, Store, StoreError, TcpStore, TcpStoreServer, TorchStore,
};

/// A PyTorch `TCPStore` server on a free loopback port, driven by lines on stdin:
/// `get KEY` and `set KEY VALUE` act as a PyTorch client of it would (PyTorch puts
/// its client's keys under `/`).
struct TorchServer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    port: u16,
}

const SERVER: &str = r#"
import sys, datetime
import torch.distributed as dist
libuv = sys.argv[1] == "libuv"
s = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False,
                  timeout=datetime.timedelta(seconds=5), use_libuv=libuv)
print(s.port, flush=True)
for line in sys.stdin:
    op, *rest = line.split()
    if op == "get":
        print(s.get(rest[0]).decode(), flush=True)
    elif op == "set":
        s.set(rest[0], rest[1])
        s.get(rest[0])  # a set has no reply: this round trip makes sure it is done
        print("ok", flush=True)
"#;

impl TorchServer {
    fn start(backend: &str) -> TorchServer {
        let mut child = Command::new(torch_python())
            .args(["-c", SERVER, backend])
            .env("PYTHONWARNINGS", "ignore")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python starts");
        let input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("{line:?}"));
        TorchServer {
            child,
            input,
            output,
            port,
        }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn ask(&mut self, line: &str) -> String {
        writeln!(self.input, "{line}").unwrap();
        let mut reply = String::new();
        self.output.read_line(&mut reply).unwrap();
        reply.trim().to_string()
    }
}

impl Drop for TorchServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn options() -> ClientOptions {
    ClientOptions::new()
        .connect_timeout(Duration::from_secs(10))
        .request_timeout(Duration::from_secs(10))
}

fn every_operation(backend: &str) {
    let srv = TorchServer::start(backend);
    let s = TorchStore::connect(&srv.addr(), "nccl-rs/job/", &options()).unwrap();
    assert_eq!(s.get("a").unwrap(), None);
    s.set("a", b"1").unwrap();
    assert_eq!(s.get("a").unwrap().as_deref(), Some(&b"1"[..]));
    s.set("empty", b"").unwrap();
    assert_eq!(s.get("empty").unwrap().as_deref(), Some(&b""[..]));
    assert_eq!(s.add("n", 5).unwrap(), 5);
    assert_eq!(s.add("n", -2).unwrap(), 3);
    assert_eq!(s.get("n").unwrap().as_deref(), Some(&b"3"[..]));
    // An add on a value that is no counter is refused here; PyTorch's server would
    // drop the connection.
    s.set("word", b"one").unwrap();
    assert!(matches!(s.add("word", 1), Err(StoreError::Counter { .. })));
    assert_eq!(s.get("word").unwrap().as_deref(), Some(&b"one"[..]));
    // compare_set: absent and expected absent; a mismatch; a match; absent but a
    // value expected.
    assert_eq!(
        s.compare_set("c", None, b"x").unwrap().as_deref(),
        Some(&b"x"[..])
    );
    assert_eq!(
        s.compare_set("c", None, b"y").unwrap().as_deref(),
        Some(&b"x"[..])
    );
    assert_eq!(
        s.compare_set("c", Some(b"z"), b"y").unwrap().as_deref(),
        Some(&b"x"[..])
    );
    assert_eq!(
        s.compare_set("c", Some(b"x"), b"y").unwrap().as_deref(),
        Some(&b"y"[..])
    );
    assert_eq!(s.compare_set("gone", Some(b"v"), b"w").unwrap(), None);
    assert_eq!(s.compare_set("gone", Some(b"w"), b"w").unwrap(), None);
    assert_eq!(s.get("gone").unwrap(), None);
    assert!(s.delete("c").unwrap());
    assert!(!s.delete("c").unwrap());
    assert_eq!(s.get("c").unwrap(), None);
    // wait: at once when present, a timeout naming exactly the missing keys.
    s.wait(&["a", "n"], Duration::from_millis(100)).unwrap();
    let t = Instant::now();
    match s.wait(&["a", "x1", "x2"], Duration::from_millis(300)) {
        Err(StoreError::Timeout { missing, .. }) => assert_eq!(missing, ["x1", "x2"]),
        other => panic!("{other:?}"),
    }
    assert!(t.elapsed() >= Duration::from_millis(300));
    // A wait is released by a set through another connection, and threads share one.
    let shared = Arc::new(s);
    let waiter = {
        let s = shared.clone();
        std::thread::spawn(move || s.wait(&["late"], Duration::from_secs(10)))
    };
    std::thread::sleep(Duration::from_millis(100));
    let other = TorchStore::connect(&srv.addr(), "nccl-rs/job/", &options()).unwrap();
    other.set("late", b"!").unwrap();
    waiter.join().unwrap().unwrap();
    // watch_get: nothing when the time runs out, the value once set, and
    // interrupt_watch ends one in progress; meanwhile the client serves other calls.
    assert!(shared.watches_without_polling());
    assert_eq!(
        shared.watch_get("w", Duration::from_millis(100)).unwrap(),
        None
    );
    let watcher = {
        let s = shared.clone();
        std::thread::spawn(move || s.watch_get("w", Duration::from_secs(60)))
    };
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(shared.get("late").unwrap().as_deref(), Some(&b"!"[..]));
    other.set("w", b"record").unwrap();
    assert_eq!(
        watcher.join().unwrap().unwrap().as_deref(),
        Some(&b"record"[..])
    );
    let watcher = {
        let s = shared.clone();
        std::thread::spawn(move || s.watch_get("never", Duration::from_secs(600)))
    };
    let start = Instant::now();
    while !watcher.is_finished() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never interrupted"
        );
        shared.interrupt_watch();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(watcher.join().unwrap().unwrap(), None);
    // Namespaces keep attempts apart.
    let next = TorchStore::connect(&srv.addr(), "nccl-rs/job-attempt-1/", &options()).unwrap();
    assert_eq!(next.get("a").unwrap(), None);
    // Values over PyTorch's limit are refused before they are sent.
    assert!(matches!(
        shared.set("big", &vec![0u8; (8 << 20) + 1]),
        Err(StoreError::TooLarge { .. })
    ));
    shared.set("after", b"ok").unwrap();
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn every_operation_on_pytorchs_libuv_server() {
    every_operation("libuv");
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn every_operation_on_pytorchs_older_server() {
    every_operation("legacy");
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn pytorch_clients_and_ours_see_each_others_keys() {
    let mut srv = TorchServer::start("libuv");
    // PyTorch's client puts its keys under "/".
    let s = TorchStore::connect(&srv.addr(), "/", &options()).unwrap();
    assert_eq!(srv.ask("set from-torch hello"), "ok");
    assert_eq!(s.get("from-torch").unwrap().as_deref(), Some(&b"hello"[..]));
    s.set("from-rust", b"hi").unwrap();
    assert_eq!(srv.ask("get from-rust"), "hi");
    // The URL form reaches the same keys (no namespace).
    let url = store::connect(&format!("torch+tcp://{}", srv.addr()), &options()).unwrap();
    assert_eq!(url.get("/from-rust").unwrap().as_deref(), Some(&b"hi"[..]));
}

#[test]
#[ignore = "needs PyTorch (ci/test runs it with --ignored)"]
fn each_client_tells_the_other_kind_of_server_apart_at_once() {
    let srv = TorchServer::start("libuv");
    let t = Instant::now();
    let e = TcpStore::connect(&srv.addr(), options()).unwrap_err();
    assert!(
        matches!(&e, StoreError::Protocol { what } if what.contains("not a store")),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(7), "{:?}", t.elapsed());
    let ours = TcpStoreServer::bind("127.0.0.1:0", ServerOptions::new()).unwrap();
    let t = Instant::now();
    let e = TorchStore::connect(&ours.local_addr().to_string(), "", &options()).unwrap_err();
    assert!(
        matches!(&e, StoreError::Protocol { what } if what.contains("not PyTorch's TCPStore")),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(7), "{:?}", t.elapsed());
    // PyTorch's store has no token: asking for one is an error, not a silent no-op.
    let e = TorchStore::connect(&srv.addr(), "", &options().token("t")).unwrap_err();
    assert!(
        matches!(
            e,
            StoreError::InvalidOption {
                option: "token",
                ..
            }
        ),
        "{e}"
    );
}
