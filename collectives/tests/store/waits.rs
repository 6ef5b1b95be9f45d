//! Waits without polling: a wait is one request however long it lasts, a request of
//! another thread of the client cuts it short and the wait goes on, `interrupt_wait`
//! ends a `wait_once`; idle clients cost the server no thread of their own; and the
//! rendezvous costs a constant number of requests per rank.

use std::io::{Read, Write};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use collectives::store::frame::Frame;
use collectives::store::{self, RendezvousError, ServerOptions, Store, StoreError, TcpStore};

use super::{client, client_options, encode, greeted, server};

/// Interrupts `c`'s wait until `waiter` has ended (a nudge that arrives before the
/// wait began is ignored), failing after 20 s.
fn interrupt_until_done<T>(c: &TcpStore, waiter: &thread::JoinHandle<T>) {
    let start = Instant::now();
    while !waiter.is_finished() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "never interrupted"
        );
        c.interrupt_wait();
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_wait_costs_the_server_one_request_however_long_it_lasts() {
    let srv = server(ServerOptions::new());
    let c = client(&srv);
    let before = srv.requests();
    let e = c.wait(&["never"], Duration::from_millis(700)).unwrap_err();
    assert!(
        matches!(&e, StoreError::Timeout { missing, .. } if missing == &["never"]),
        "{e:?}"
    );
    assert_eq!(srv.requests() - before, 1);
    // Answered when the key appears, by the one request.
    let setter = client(&srv);
    let before = srv.requests();
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(300));
        setter.set("later", b"x").unwrap();
    });
    c.wait(&["later"], Duration::from_secs(30)).unwrap();
    t.join().unwrap();
    assert_eq!(srv.requests() - before, 2, "the wait and the set");
}

#[test]
fn another_threads_request_cuts_a_wait_short_and_the_wait_goes_on() {
    let srv = server(ServerOptions::new());
    let c = Arc::new(client(&srv));
    let waiter = {
        let c = c.clone();
        thread::spawn(move || c.wait(&["k"], Duration::from_secs(60)))
    };
    thread::sleep(Duration::from_millis(200));
    // Without the nudge these would queue behind the 60 s wait.
    let start = Instant::now();
    for i in 0..20 {
        c.set(&format!("other/{i}"), b"1").unwrap();
        assert_eq!(c.get("other/0").unwrap().as_deref(), Some(&b"1"[..]));
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(!waiter.is_finished(), "the wait ended without its key");
    c.set("k", b"v").unwrap();
    waiter.join().unwrap().unwrap();
}

#[test]
fn interrupt_wait_ends_a_wait_once_and_a_set_key_ends_it_true() {
    let srv = server(ServerOptions::new());
    let c = Arc::new(client(&srv));
    let waiter = {
        let c = c.clone();
        thread::spawn(move || c.wait_once(&["k"], Duration::from_secs(600)))
    };
    interrupt_until_done(&c, &waiter);
    assert!(!waiter.join().unwrap().unwrap());
    // Its time running out is `false` too, and a key there already is `true`.
    assert!(!c.wait_once(&["k"], Duration::from_millis(50)).unwrap());
    c.set("k", b"v").unwrap();
    assert!(c.wait_once(&["k"], Duration::from_secs(5)).unwrap());
    // The client is still usable, and says so when closed.
    c.close().unwrap();
    assert!(matches!(
        c.wait_once(&["k"], Duration::from_secs(1)),
        Err(StoreError::Closed { .. })
    ));
}

#[test]
fn wait_get_returns_the_value_once_set_and_none_when_cut_short_or_out_of_time() {
    let srv = server(ServerOptions::new());
    let c = Arc::new(client(&srv));
    assert_eq!(c.wait_get("k", Duration::from_millis(50)).unwrap(), None);
    let setter = client(&srv);
    let before = srv.requests();
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        setter.set("k", b"the record").unwrap();
    });
    let got = c.wait_get("k", Duration::from_secs(60)).unwrap();
    assert_eq!(got.as_deref(), Some(&b"the record"[..]));
    t.join().unwrap();
    assert_eq!(
        srv.requests() - before,
        2,
        "the wait and the set, no read after"
    );
    // Already there: at once.
    assert_eq!(
        c.wait_get("k", Duration::ZERO).unwrap().as_deref(),
        Some(&b"the record"[..])
    );
    // Cut short.
    let waiter = {
        let c = c.clone();
        thread::spawn(move || c.wait_get("absent", Duration::from_secs(600)))
    };
    interrupt_until_done(&c, &waiter);
    assert_eq!(waiter.join().unwrap().unwrap(), None);
    assert!(matches!(
        c.wait_get("", Duration::ZERO),
        Err(StoreError::InvalidKey { .. })
    ));
}

#[test]
fn limits_for_a_job_follow_its_size() {
    // Past the default limit of 1,024 connections.
    let srv = store::TcpStoreServer::bind("127.0.0.1:0", ServerOptions::for_job(1100)).unwrap();
    let addr = srv.local_addr().to_string();
    let clients: Vec<TcpStore> = (0..1100)
        .map(|_| TcpStore::connect(&addr, client_options()).unwrap())
        .collect();
    assert_eq!(srv.connections(), 1100);
    clients[1099].set("last", b"in").unwrap();
    drop(clients);
}

#[test]
fn a_set_key_wakes_many_waiters_and_a_departed_waiter_sets_its_record() {
    let srv = server(ServerOptions::new());
    let addr = srv.local_addr().to_string();
    let waiters: Vec<_> = (0..50)
        .map(|_| {
            let c = TcpStore::connect(&addr, client_options()).unwrap();
            thread::spawn(move || c.wait(&["go", "go2"], Duration::from_secs(60)))
        })
        .collect();
    let c = client(&srv);
    // A waiter that dies during its wait (a raw connection: its end of stream is
    // what the server sees of a killed process).
    let doomed = greeted(&srv);
    let register = Frame::OnDisconnectCreate {
        key: "failed".into(),
        value: b"doomed".to_vec(),
    };
    (&doomed).write_all(&encode(&register)).unwrap();
    let mut ok = [0u8; 5];
    (&doomed).read_exact(&mut ok).unwrap();
    let wait = Frame::Wait {
        keys: vec!["never".into()],
        timeout_ms: 60_000,
    };
    (&doomed).write_all(&encode(&wait)).unwrap();
    thread::sleep(Duration::from_millis(200));
    c.set("go", b"").unwrap();
    thread::sleep(Duration::from_millis(100));
    assert!(waiters.iter().all(|w| !w.is_finished()), "woken by half");
    c.set("go2", b"").unwrap();
    for w in waiters {
        w.join().unwrap().unwrap();
    }
    let start = Instant::now();
    drop(doomed);
    c.wait(&["failed"], Duration::from_secs(10)).unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(c.get("failed").unwrap().as_deref(), Some(&b"doomed"[..]));
}

#[test]
fn a_thousand_idle_clients_cost_the_server_one_thread_and_little_memory() {
    let (mut child, addr) = super::security::serving_process(None);
    let pid = child.id();
    let threads = || -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap()
    };
    let (rss0, _) = super::security::memory_kib(pid);
    let threads0 = threads();
    let clients: Vec<TcpStore> = (0..1000)
        .map(|i| {
            let c = TcpStore::connect(&addr, client_options()).unwrap();
            c.set(&format!("joined/{i}"), b"1").unwrap();
            c
        })
        .collect();
    // Every client waits, as a rank watching the failure key does.
    let clients: Vec<Arc<TcpStore>> = clients.into_iter().map(Arc::new).collect();
    let waits: Vec<_> = clients
        .iter()
        .map(|c| {
            let c = c.clone();
            thread::spawn(move || c.wait_once(&["failed"], Duration::from_secs(600)))
        })
        .collect();
    thread::sleep(Duration::from_millis(500));
    let (rss1, _) = super::security::memory_kib(pid);
    assert_eq!(threads(), threads0, "a thread per connection");
    let per_client = (rss1.saturating_sub(rss0)) * 1024 / 1000;
    assert!(per_client < 16 * 1024, "{per_client} bytes per idle client");
    // One failure record reaches them all.
    clients[0].interrupt_wait();
    let c = TcpStore::connect(&addr, client_options()).unwrap();
    c.set("failed", b"rank 3").unwrap();
    let mut ended = 0;
    for w in waits {
        // (Client 0's wait may have been cut short by the nudge.)
        let _ = w.join().unwrap().unwrap();
        ended += 1;
    }
    assert_eq!(ended, 1000);
    drop(clients);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_rendezvous_gives_everyone_rank_zeros_value_at_constant_requests_per_rank() {
    let srv = server(ServerOptions::new());
    let addr = srv.local_addr().to_string();
    let mut per_rank = Vec::new();
    for size in [16usize, 128] {
        let before = srv.requests();
        let ranks: Vec<_> = (0..size)
            .map(|rank| {
                let addr = addr.clone();
                thread::spawn(move || {
                    let c = TcpStore::connect(&addr, client_options()).unwrap();
                    let value = format!("id of job {size}");
                    let v = (rank == 0).then_some(value.as_bytes());
                    let got = store::rendezvous(
                        &c,
                        &format!("job/{size}"),
                        rank,
                        size,
                        v,
                        Duration::from_secs(60),
                    );
                    c.close().unwrap();
                    got
                })
            })
            .collect();
        for r in ranks {
            assert_eq!(
                r.join().unwrap().unwrap(),
                format!("id of job {size}").into_bytes()
            );
        }
        per_rank.push((srv.requests() - before) as f64 / size as f64);
    }
    // hello, set, add, one wait that brings the value, goodbye (and the last rank's
    // get and compare_set).
    assert!(per_rank.iter().all(|r| *r <= 5.2), "{per_rank:?}");
}

/// Ranks 0, 1 and 3 of 4 meet under `prefix`; `quitter` gives up after 500 ms, the
/// others would wait 30 s. Each error, with how long its rank waited.
fn three_of_four(
    addr: &str,
    prefix: &str,
    quitter: usize,
) -> Vec<(usize, RendezvousError, Duration)> {
    let ranks: Vec<_> = [0usize, 1, 3]
        .into_iter()
        .map(|rank| {
            let (addr, prefix) = (addr.to_string(), prefix.to_string());
            thread::spawn(move || {
                let c = TcpStore::connect(&addr, client_options()).unwrap();
                let timeout = if rank == quitter { 500 } else { 30_000 };
                let start = Instant::now();
                let e = store::rendezvous(
                    &c,
                    &prefix,
                    rank,
                    4,
                    Some(b"id"),
                    Duration::from_millis(timeout),
                )
                .unwrap_err();
                (rank, e, start.elapsed())
            })
        })
        .collect();
    ranks.into_iter().map(|r| r.join().unwrap()).collect()
}

#[test]
fn a_rendezvous_missing_a_rank_names_it_on_every_rank_that_came() {
    let srv = server(ServerOptions::new());
    let addr = srv.local_addr().to_string();
    // Rank 0 gives up first, then rank 1 does: each time every rank that came fails
    // at once naming rank 2.
    for (prefix, quitter) in [("j", 0), ("k", 1)] {
        for (rank, e, took) in three_of_four(&addr, prefix, quitter) {
            let RendezvousError::Missing { missing, what, .. } = &e else {
                panic!("rank {rank}: {e:?}");
            };
            assert_eq!(missing, &[2], "rank {rank}: {e}");
            if rank != quitter {
                assert!(what.contains("another rank gave up"), "{what}");
                assert!(took < Duration::from_secs(10), "{took:?}");
            }
        }
        // Rank 2, late, completes the count: it fails too instead of going on alone.
        let c = client(&srv);
        let e = store::rendezvous(&c, prefix, 2, 4, None, Duration::from_secs(30)).unwrap_err();
        assert!(
            matches!(&e, RendezvousError::Missing { missing, .. } if missing == &[2]),
            "{e:?}"
        );
    }
    let c = client(&srv);
    assert!(matches!(
        store::rendezvous(&c, "k", 4, 4, None, Duration::from_secs(1)),
        Err(RendezvousError::InvalidArgument {
            rank: 4,
            size: 4,
            ..
        })
    ));
    let e = store::rendezvous(&c, "k", 0, 4, None, Duration::from_secs(1)).unwrap_err();
    assert!(e.to_string().contains("rank 0 must give"), "{e}");
}

#[test]
fn a_nudged_wait_leaves_an_idle_connection_alive_past_the_frame_deadline() {
    // The nudge is read while the wait is parked; nothing of it may count as a frame
    // begun once the wait ends (the server once closed such a connection as stalled,
    // and set its records).
    let srv = server(ServerOptions::new().frame_deadline(Duration::from_millis(500)));
    let c = Arc::new(client(&srv));
    c.on_disconnect_create("failed", b"c died").unwrap();
    let waiter = {
        let c = c.clone();
        thread::spawn(move || c.wait_once(&["never"], Duration::from_secs(600)))
    };
    interrupt_until_done(&c, &waiter);
    assert!(!waiter.join().unwrap().unwrap());
    thread::sleep(Duration::from_millis(1200));
    c.set("still", b"here").unwrap();
    assert_eq!(client(&srv).get("failed").unwrap(), None);
}

#[test]
fn two_threads_waiting_on_one_client_take_turns_without_spinning() {
    let srv = server(ServerOptions::new());
    let c = Arc::new(client(&srv));
    let watcher = {
        let c = c.clone();
        thread::spawn(move || {
            loop {
                match c.wait_get("stop", Duration::from_secs(600)) {
                    Ok(Some(_)) => return,
                    Ok(None) => continue,
                    Err(e) => panic!("{e}"),
                }
            }
        })
    };
    thread::sleep(Duration::from_millis(200));
    let before = srv.requests();
    let e = c.wait(&["b"], Duration::from_secs(1)).unwrap_err();
    assert!(matches!(e, StoreError::Timeout { .. }), "{e:?}");
    let spent = srv.requests() - before;
    // A wait steps aside for the other every 100 ms: about 10 rounds each, not
    // thousands.
    // (About 20 on an idle machine; a loaded one cuts more slices short, and one run
    // beside a build counted 148. Spinning would be thousands.)
    assert!(spent < 400, "{spent} requests in 1 s");
    // And the second wait still ends as soon as its key is set.
    let setter = client(&srv);
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        setter.set("b", b"").unwrap();
    });
    c.wait(&["b"], Duration::from_secs(30)).unwrap();
    t.join().unwrap();
    client(&srv).set("stop", b"").unwrap();
    watcher.join().unwrap();
}

#[test]
fn a_wait_on_two_keys_ends_though_one_was_deleted_and_set_again() {
    let srv = server(ServerOptions::new());
    let c = client(&srv);
    c.set("k1", b"1").unwrap();
    let waiter = {
        let w = client(&srv);
        thread::spawn(move || w.wait(&["k1", "k2"], Duration::from_secs(60)))
    };
    thread::sleep(Duration::from_millis(200));
    assert!(c.delete("k1").unwrap());
    c.set("k2", b"2").unwrap();
    thread::sleep(Duration::from_millis(100));
    assert!(!waiter.is_finished(), "ended without k1");
    let start = Instant::now();
    c.set("k1", b"again").unwrap();
    waiter.join().unwrap().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_rank_that_times_out_while_the_last_one_is_counting_itself_waits_for_it() {
    // Rank 3 has set its key and not yet counted itself when rank 0 gives up: rank 0
    // must not fail the job naming no one.
    let srv = server(ServerOptions::new());
    let addr = srv.local_addr().to_string();
    client(&srv).set("m/joined/3", b"pid").unwrap();
    let ranks: Vec<_> = (0..3usize)
        .map(|rank| {
            let addr = addr.clone();
            thread::spawn(move || {
                let c = TcpStore::connect(&addr, client_options()).unwrap();
                let timeout = if rank == 0 { 300 } else { 30_000 };
                store::rendezvous(&c, "m", rank, 4, Some(b"v"), Duration::from_millis(timeout))
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(700));
    let c = client(&srv);
    let last = store::rendezvous(&c, "m", 3, 4, None, Duration::from_secs(30));
    assert_eq!(last.unwrap(), b"v");
    for r in ranks {
        assert_eq!(r.join().unwrap().unwrap(), b"v");
    }
}
