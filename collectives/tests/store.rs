//! The rendezvous store: every operation on the TCP and file stores, from threads and
//! from child processes (this binary re-run as a client), exact counters under
//! contention, limits, connecting and stopping, and on-disconnect keys set for a killed
//! child. The server under abuse is in `store/abuse.rs`;
//! waits, nudges and the rendezvous in `store/waits.rs`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use collectives::store::frame::{self, Frame, Limits};
use collectives::store::{
    self, ClientOptions, FileStore, ServerOptions, Store, StoreError, TcpStore, TcpStoreServer,
};

#[path = "store/abuse.rs"]
mod abuse;
#[path = "store/security.rs"]
mod security;
#[path = "store/waits.rs"]
mod waits;

/// The environment variable that makes a test act as a child process: its role.
const ROLE: &str = "STORE_TEST_ROLE";
/// Where the child finds the store (a TCP address or a directory).
const WHERE: &str = "STORE_TEST_WHERE";
/// The child's number.
const ID: &str = "STORE_TEST_ID";

fn server(options: ServerOptions) -> TcpStoreServer {
    TcpStoreServer::bind("127.0.0.1:0", options).unwrap()
}

fn client_options() -> ClientOptions {
    ClientOptions::new().connect_timeout(Duration::from_secs(2))
}

fn client(server: &TcpStoreServer) -> TcpStore {
    TcpStore::connect(&server.local_addr().to_string(), client_options()).unwrap()
}

/// Starts this test binary again, running only `test`, as a child with `role`.
fn child(test: &str, role: &str, at: &str, id: usize) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(WHERE, at)
        .env(ID, id.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

fn run_children(test: &str, role: &str, at: &str, n: usize) -> Vec<thread::JoinHandle<()>> {
    (0..n)
        .map(|i| {
            let mut cmd = child(test, role, at, i);
            thread::spawn(move || {
                let out = cmd.output().unwrap();
                assert!(
                    out.status.success(),
                    "child {i} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            })
        })
        .collect()
}

/// The role of this process when it was started as a child, with its store and id.
fn as_child() -> Option<(String, String, usize)> {
    let role = std::env::var(ROLE).ok()?;
    let at = std::env::var(WHERE).unwrap();
    Some((role, at, std::env::var(ID).unwrap().parse().unwrap()))
}

/// Every operation's semantics, on any backend.
fn exercise(s: &dyn Store) {
    assert_eq!(s.get("absent").unwrap(), None);
    s.set("k", b"v1").unwrap();
    assert_eq!(s.get("k").unwrap().as_deref(), Some(&b"v1"[..]));
    s.set("k", b"").unwrap();
    assert_eq!(s.get("k").unwrap().as_deref(), Some(&b""[..]));
    let binary: Vec<u8> = (0..=255).collect();
    s.set("bin", &binary).unwrap();
    assert_eq!(s.get("bin").unwrap(), Some(binary));

    assert_eq!(s.add("n", 5).unwrap(), 5);
    assert_eq!(s.add("n", -7).unwrap(), -2);
    assert_eq!(s.get("n").unwrap().as_deref(), Some(&b"-2"[..]));
    s.set("n", b"40").unwrap();
    assert_eq!(s.add("n", 2).unwrap(), 42);
    assert!(matches!(s.add("k", 1), Err(StoreError::Counter { .. })));
    s.set("big", i64::MAX.to_string().as_bytes()).unwrap();
    assert!(matches!(s.add("big", 1), Err(StoreError::Counter { .. })));

    assert_eq!(
        s.compare_set("c", None, b"a").unwrap().as_deref(),
        Some(&b"a"[..])
    );
    assert_eq!(
        s.compare_set("c", None, b"b").unwrap().as_deref(),
        Some(&b"a"[..])
    );
    assert_eq!(
        s.compare_set("c", Some(b"x"), b"b").unwrap().as_deref(),
        Some(&b"a"[..])
    );
    assert_eq!(
        s.compare_set("c", Some(b"a"), b"b").unwrap().as_deref(),
        Some(&b"b"[..])
    );
    assert_eq!(s.compare_set("none", Some(b"a"), b"b").unwrap(), None);
    assert_eq!(s.get("none").unwrap(), None);

    assert!(s.delete("c").unwrap());
    assert!(!s.delete("c").unwrap());
    assert_eq!(s.get("c").unwrap(), None);

    s.wait(&[], Duration::ZERO).unwrap();
    s.wait(&["k", "n"], Duration::from_millis(100)).unwrap();
    assert!(matches!(
        s.set("", b"x"),
        Err(StoreError::InvalidKey { .. })
    ));
    let long = "x".repeat(store::MAX_KEY_LEN + 1);
    assert!(matches!(s.get(&long), Err(StoreError::TooLarge { .. })));
    for key in ["../../etc/passwd", "/abs", "a/b", ".", "..", "nul\0", "Ünï"] {
        s.set(key, key.as_bytes()).unwrap();
        assert_eq!(s.get(key).unwrap().as_deref(), Some(key.as_bytes()));
    }
}

/// Threads share one store: counters, a wait answered by a later set, a timeout.
fn from_threads(s: Arc<dyn Store>) {
    let workers: Vec<_> = (0..8)
        .map(|t| {
            let s = s.clone();
            thread::spawn(move || {
                for i in 0..25 {
                    s.add("shared", 1).unwrap();
                    s.set(&format!("t{t}/{i}"), &[t as u8, i as u8]).unwrap();
                }
            })
        })
        .collect();
    let waiter = {
        let s = s.clone();
        thread::spawn(move || {
            let t = Instant::now();
            s.wait(&["late", "t0/0"], Duration::from_secs(5)).unwrap();
            t.elapsed()
        })
    };
    thread::sleep(Duration::from_millis(150));
    s.set("late", b"now").unwrap();
    let waited = waiter.join().unwrap();
    // It really waited (the set came 150 ms in), and the workers did not starve it.
    assert!(waited >= Duration::from_millis(100), "{waited:?}");
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(s.get("shared").unwrap().as_deref(), Some(&b"200"[..]));
    assert_eq!(s.get("t7/24").unwrap(), Some(vec![7, 24]));

    s.set("here", b"1").unwrap();
    let t = Instant::now();
    let err = s
        .wait(&["here", "gone-a", "gone-b"], Duration::from_millis(200))
        .unwrap_err();
    match &err {
        StoreError::Timeout { missing, waited } => {
            assert_eq!(missing, &["gone-a", "gone-b"]);
            assert!(*waited >= Duration::from_millis(200), "{waited:?}");
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains("gone-a"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn tcp_store_does_every_operation() {
    let srv = server(ServerOptions::new());
    exercise(&client(&srv));
    let by_url = store::connect(&srv.url(), &client_options()).unwrap();
    assert_eq!(by_url.get("k").unwrap().as_deref(), Some(&b""[..]));
}

#[test]
fn file_store_does_every_operation() {
    let dir = tempfile::tempdir().unwrap();
    exercise(&FileStore::open(dir.path()).unwrap());
    let url = format!("file://{}", dir.path().display());
    let by_url = store::connect(&url, &ClientOptions::new()).unwrap();
    assert_eq!(by_url.get("n").unwrap().as_deref(), Some(&b"42"[..]));
}

#[test]
fn tcp_store_serves_threads_sharing_one_client() {
    let srv = server(ServerOptions::new());
    from_threads(Arc::new(client(&srv)));
}

#[test]
fn file_store_serves_threads() {
    let dir = tempfile::tempdir().unwrap();
    from_threads(Arc::new(FileStore::open(dir.path()).unwrap()));
}

/// What each child process does: check in, count, wait for the parent's go, report.
fn child_work(s: &dyn Store, id: usize) {
    s.set(&format!("child/{id}"), b"up").unwrap();
    for _ in 0..50 {
        s.add("counter", 1).unwrap();
    }
    s.add("finished", 1).unwrap();
    s.wait(&["go"], Duration::from_secs(5)).unwrap();
    let go = s.get("go").unwrap().unwrap();
    s.set(&format!("done/{id}"), &go).unwrap();
}

fn parent_work(s: &dyn Store, children: Vec<thread::JoinHandle<()>>) {
    s.wait(&["child/0", "child/1", "child/2"], Duration::from_secs(5))
        .unwrap();
    for _ in 0..50 {
        s.add("counter", 1).unwrap();
    }
    // The children keep adding until each has said it finished.
    let t = Instant::now();
    while s.get("finished").unwrap().as_deref() != Some(b"3") {
        assert!(t.elapsed() < Duration::from_secs(5));
        thread::sleep(Duration::from_millis(5));
    }
    s.set("go", b"parent says go").unwrap();
    s.wait(&["done/0", "done/1", "done/2"], Duration::from_secs(5))
        .unwrap();
    assert_eq!(s.get("counter").unwrap().as_deref(), Some(&b"200"[..]));
    assert_eq!(
        s.get("done/2").unwrap().as_deref(),
        Some(&b"parent says go"[..])
    );
    for c in children {
        c.join().unwrap();
    }
}

#[test]
fn tcp_store_serves_child_processes() {
    if let Some((role, at, id)) = as_child() {
        assert_eq!(role, "tcp");
        let s = TcpStore::connect(&at, client_options()).unwrap();
        child_work(&s, id);
        s.close().unwrap();
        return;
    }
    let srv = server(ServerOptions::new());
    let addr = srv.local_addr().to_string();
    let children = run_children("tcp_store_serves_child_processes", "tcp", &addr, 3);
    parent_work(&client(&srv), children);
}

#[test]
fn file_store_serves_child_processes() {
    if let Some((role, at, id)) = as_child() {
        assert_eq!(role, "file");
        child_work(&FileStore::open(at).unwrap(), id);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().to_str().unwrap().to_string();
    let children = run_children("file_store_serves_child_processes", "file", &at, 3);
    parent_work(&FileStore::open(&at).unwrap(), children);
}

/// A normal client connects and works, promptly.
fn assert_serving(srv: &TcpStoreServer, options: ClientOptions) {
    let t = Instant::now();
    let c = TcpStore::connect(&srv.local_addr().to_string(), options).unwrap();
    c.set("alive", b"yes").unwrap();
    assert_eq!(c.get("alive").unwrap().as_deref(), Some(&b"yes"[..]));
    c.close().unwrap();
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
}

fn raw(srv: &TcpStoreServer) -> TcpStream {
    let s = TcpStream::connect(srv.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    s
}

/// A raw connection that has said its hello (no token, no job) and read the `Ok`.
fn greeted(srv: &TcpStoreServer) -> TcpStream {
    let mut s = raw(srv);
    let hello = Frame::Hello {
        version: frame::PROTOCOL_VERSION,
        token: None,
        job: None,
    };
    s.write_all(&encode(&hello)).unwrap();
    let mut reply = [0u8; 5];
    s.read_exact(&mut reply).unwrap();
    let ok = frame::decode(&reply, &frame::Limits::default())
        .unwrap()
        .unwrap()
        .0;
    assert_eq!(ok, Frame::Ok);
    s
}

/// Everything the server sends until it closes the connection, and how long that took.
fn until_closed(mut s: &TcpStream) -> (Vec<Frame>, Duration) {
    let t = Instant::now();
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let mut frames = Vec::new();
    let mut at = 0;
    while let Ok(Some((f, used))) = frame::decode(&bytes[at..], &Limits::default()) {
        frames.push(f);
        at += used;
    }
    (frames, t.elapsed())
}

fn encode(f: &Frame) -> Vec<u8> {
    frame::encode(f, &Limits::default()).unwrap()
}

#[test]
fn sixty_four_clients_adding_at_once_count_exactly() {
    let srv = Arc::new(server(ServerOptions::new()));
    let threads: Vec<_> = (0..64)
        .map(|_| {
            let srv = srv.clone();
            thread::spawn(move || {
                let c = client(&srv);
                let mut last = 0;
                for _ in 0..100 {
                    let now = c.add("total", 1).unwrap();
                    assert!(now > last);
                    last = now;
                }
                c.close().unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        client(&srv).get("total").unwrap().as_deref(),
        Some(&b"6400"[..])
    );
}

#[test]
fn a_killed_child_has_its_on_disconnect_key_set_promptly() {
    if let Some((role, at, _)) = as_child() {
        assert_eq!(role, "doomed");
        let s = TcpStore::connect(&at, client_options()).unwrap();
        s.on_disconnect_create("failed/rank1", b"rank 1 died")
            .unwrap();
        s.set("ready/rank1", b"1").unwrap();
        // Killed in the middle of this wait.
        let _ = s.wait(&["never"], Duration::from_secs(10));
        return;
    }
    let srv = server(ServerOptions::new());
    let addr = srv.local_addr().to_string();
    let name = "a_killed_child_has_its_on_disconnect_key_set_promptly";
    let mut doomed = child(name, "doomed", &addr, 1)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let s = client(&srv);
    s.wait(&["ready/rank1"], Duration::from_secs(5)).unwrap();
    assert_eq!(s.get("failed/rank1").unwrap(), None);
    doomed.kill().unwrap();
    let killed = Instant::now();
    s.wait(&["failed/rank1"], Duration::from_secs(2)).unwrap();
    let took = killed.elapsed();
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(
        s.get("failed/rank1").unwrap().as_deref(),
        Some(&b"rank 1 died"[..])
    );
    doomed.wait().unwrap();
}

#[test]
fn on_disconnect_keys_are_dropped_by_close_and_set_by_drop() {
    let srv = server(ServerOptions::new());
    let watcher = client(&srv);
    let polite = client(&srv);
    polite.on_disconnect_create("gone/polite", b"x").unwrap();
    polite
        .on_disconnect_create("gone/polite", b"replaced")
        .unwrap();
    polite.close().unwrap();
    polite.close().unwrap();
    assert!(matches!(polite.get("k"), Err(StoreError::Closed { .. })));
    let dropped = client(&srv);
    dropped
        .on_disconnect_create("gone/dropped", b"dropped")
        .unwrap();
    drop(dropped);
    watcher
        .wait(&["gone/dropped"], Duration::from_secs(1))
        .unwrap();
    let err = watcher
        .wait(&["gone/polite"], Duration::from_millis(100))
        .unwrap_err();
    assert!(matches!(err, StoreError::Timeout { .. }), "{err}");
}

/// Issue 18 item 6: the disconnect record creates its key only if absent, so a
/// failure published first is never replaced by the publisher's own exit.
#[test]
fn a_disconnect_record_never_replaces_a_value_already_there() {
    let srv = server(ServerOptions::new());
    let watcher = client(&srv);
    let first = client(&srv);
    first.on_disconnect_create("failed", b"exited").unwrap();
    first.compare_set("failed", None, b"timed out").unwrap();
    drop(first); // no close: the registration fires, and finds the key set
    let second = client(&srv);
    second
        .on_disconnect_create("failed", b"second exited")
        .unwrap();
    drop(second);
    // The server has handled both disconnects once only the watcher is connected.
    let start = Instant::now();
    while srv.connections() > 1 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "disconnects unseen"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        watcher.get("failed").unwrap().as_deref(),
        Some(&b"timed out"[..])
    );
}

#[test]
fn limits_refuse_writes_with_too_large_and_the_client_stays_usable() {
    let srv = server(ServerOptions::new().max_stored_bytes(100).max_keys(3));
    let c = client(&srv);
    c.set("a", &[0; 50]).unwrap();
    let err = c.set("b", &[0; 60]).unwrap_err();
    assert!(
        matches!(&err, StoreError::TooLarge { what, limit: 100, .. } if what == "stored bytes"),
        "{err}"
    );
    c.set("b", b"1").unwrap();
    c.add("c", 1).unwrap();
    let err = c.set("d", b"1").unwrap_err();
    assert!(
        matches!(&err, StoreError::TooLarge { limit: 3, .. }),
        "{err}"
    );
    assert!(c.delete("a").unwrap());
    c.set("d", b"1").unwrap();
    let small = TcpStore::connect(
        &srv.local_addr().to_string(),
        client_options().max_frame(4096),
    )
    .unwrap();
    let err = small.set("big", &[0; 5000]).unwrap_err();
    assert!(
        matches!(err, StoreError::TooLarge { limit: 4096, .. }),
        "{err}"
    );
    assert_eq!(small.get("d").unwrap().as_deref(), Some(&b"1"[..]));
}

#[test]
fn connect_retries_until_the_server_is_up_and_names_the_address_when_it_never_is() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let late = {
        let addr = addr.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(300));
            TcpStoreServer::bind(&addr, ServerOptions::new()).unwrap()
        })
    };
    let t = Instant::now();
    let c = TcpStore::connect(&addr, client_options()).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
    c.set("k", b"v").unwrap();
    let srv = late.join().unwrap();
    drop(srv);
    // The server is gone: the client says so, and a new connection times out.
    let err = c.get("k").unwrap_err();
    assert!(
        matches!(err, StoreError::Closed { .. } | StoreError::Io { .. }),
        "{err}"
    );
    let t = Instant::now();
    let short = client_options().connect_timeout(Duration::from_millis(200));
    match TcpStore::connect(&addr, short) {
        Err(StoreError::Connect {
            addr: a,
            waited,
            last_error,
        }) => {
            assert_eq!(a, addr);
            assert!(waited >= Duration::from_millis(200), "{waited:?}");
            assert!(!last_error.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(1));
}

#[test]
fn dropping_the_server_is_prompt_with_clients_connected_and_waiting() {
    let srv = server(ServerOptions::new());
    let c = Arc::new(client(&srv));
    let idle = raw(&srv);
    let w = c.clone();
    let waiting = thread::spawn(move || w.wait(&["never"], Duration::from_secs(10)));
    thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    drop(srv);
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    let err = waiting.join().unwrap().unwrap_err();
    assert!(
        matches!(err, StoreError::Closed { .. } | StoreError::Io { .. }),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    let (_, took) = until_closed(&idle);
    assert!(took < Duration::from_millis(500));
}
