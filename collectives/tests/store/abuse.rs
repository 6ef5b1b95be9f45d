//! A server under abuse, through raw sockets: requests before the hello, a wrong token,
//! malformed, truncated, oversized and stalled frames, a flood of connections. Each
//! closes only its own connection; a normal client is served promptly after each.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use collectives::store::frame::{self, ErrorCode, Frame, Limits};
use collectives::store::{ServerOptions, Store, StoreError, TcpStore};

use super::{assert_serving, client, client_options, encode, greeted, raw, server, until_closed};

#[test]
fn tokens_are_checked_and_a_rejected_client_does_not_disturb_the_others() {
    let srv = server(ServerOptions::new().token("sesame"));
    let addr = srv.local_addr().to_string();
    let good = TcpStore::connect(&addr, client_options().token("sesame")).unwrap();
    good.set("k", b"v").unwrap();
    for options in [client_options().token("sesamE"), client_options()] {
        match TcpStore::connect(&addr, options) {
            Err(StoreError::Rejected { addr: a, reason }) => {
                assert_eq!(a, addr);
                assert!(reason.contains("token"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
    // A request without the hello is never executed.
    let s = raw(&srv);
    let set = Frame::Set {
        key: "intruder".into(),
        value: b"x".to_vec(),
    };
    (&s).write_all(&encode(&set)).unwrap();
    let (frames, _) = until_closed(&s);
    assert!(
        matches!(
            &frames[..],
            [Frame::Error {
                code: ErrorCode::Rejected,
                ..
            }]
        ),
        "{frames:?}"
    );
    assert_eq!(good.get("intruder").unwrap(), None);
    // Before its hello, a client may not announce a frame bigger than a hello.
    let s = raw(&srv);
    (&s).write_all(&100_000u32.to_le_bytes()).unwrap();
    let (frames, _) = until_closed(&s);
    assert!(
        matches!(&frames[..], [Frame::TooLarge { size: 100_000, .. }]),
        "{frames:?}"
    );
    assert_eq!(good.get("k").unwrap().as_deref(), Some(&b"v"[..]));
    assert_serving(&srv, client_options().token("sesame"));
}

#[test]
fn malformed_truncated_and_oversized_frames_close_only_their_connection() {
    let srv = server(ServerOptions::new());
    let bystander = client(&srv);
    bystander.set("before", b"1").unwrap();
    // An unknown opcode.
    let s = greeted(&srv);
    (&s).write_all(&[1, 0, 0, 0, 0x42]).unwrap();
    let (frames, took) = until_closed(&s);
    let [Frame::Error { code, message }] = &frames[..] else {
        panic!("{frames:?}");
    };
    assert!(
        *code == ErrorCode::Protocol && message.contains("0x42"),
        "{message}"
    );
    assert!(took < Duration::from_secs(1));
    assert_serving(&srv, client_options());
    // Half a frame, then the end of the stream.
    let s = greeted(&srv);
    (&s).write_all(
        &encode(&Frame::Get {
            key: "before".into(),
        })[..7],
    )
    .unwrap();
    s.shutdown(Shutdown::Write).unwrap();
    let (frames, took) = until_closed(&s);
    assert!(
        frames.is_empty() && took < Duration::from_secs(1),
        "{frames:?}"
    );
    assert_serving(&srv, client_options());
    // A length prefix far over the limit: refused before any body arrives.
    let s = greeted(&srv);
    (&s).write_all(&0x7fff_ffffu32.to_le_bytes()).unwrap();
    let (frames, took) = until_closed(&s);
    assert!(
        matches!(
            &frames[..],
            [Frame::TooLarge {
                size: 0x7fff_ffff,
                ..
            }]
        ),
        "{frames:?}"
    );
    assert!(took < Duration::from_secs(1));
    // A reply opcode sent as a request.
    let s = greeted(&srv);
    (&s).write_all(&encode(&Frame::Int(3))).unwrap();
    let (frames, _) = until_closed(&s);
    assert!(matches!(
        &frames[..],
        [Frame::Error {
            code: ErrorCode::Protocol,
            ..
        }]
    ));
    assert_serving(&srv, client_options());
    assert_eq!(bystander.get("before").unwrap().as_deref(), Some(&b"1"[..]));
}

#[test]
fn a_slow_loris_is_cut_off_at_the_frame_deadline_while_others_are_served() {
    let deadline = Duration::from_millis(300);
    let srv = server(ServerOptions::new().frame_deadline(deadline));
    let idle = greeted(&srv);
    let s = greeted(&srv);
    let t = Instant::now();
    (&s).write_all(&encode(&Frame::Get { key: "k".into() })[..6])
        .unwrap();
    assert_serving(&srv, client_options());
    let (frames, _) = until_closed(&s);
    let took = t.elapsed();
    assert!(frames.is_empty(), "{frames:?}");
    assert!(
        took >= deadline && took < Duration::from_millis(1500),
        "{took:?}"
    );
    // An idle connection between frames is not cut off.
    (&idle)
        .write_all(&encode(&Frame::Get { key: "k".into() }))
        .unwrap();
    let mut reply = [0u8; 6];
    (&idle).read_exact(&mut reply).unwrap();
    assert_eq!(
        frame::decode(&reply, &Limits::default())
            .unwrap()
            .unwrap()
            .0,
        Frame::Value(None)
    );
    assert_serving(&srv, client_options());
}

#[test]
fn a_flood_of_connections_past_the_limit_is_refused_and_then_served() {
    let srv = server(ServerOptions::new().max_connections(8));
    let served: Vec<TcpStream> = (0..8).map(|_| greeted(&srv)).collect();
    // Past the limit of connections that said hello, new ones are told at once.
    let refused: Vec<TcpStream> = (0..32).map(|_| raw(&srv)).collect();
    for s in &refused {
        let (frames, took) = until_closed(s);
        let [Frame::Error { code, message }] = &frames[..] else {
            panic!("{frames:?}");
        };
        assert!(
            *code == ErrorCode::Busy && message.contains("8 connections"),
            "{message}"
        );
        assert!(took < Duration::from_secs(1));
    }
    for s in &served {
        s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        assert!(until_closed(s).0.is_empty());
    }
    assert_eq!(srv.connections(), 8);
    let addr = srv.local_addr().to_string();
    let short = client_options().connect_timeout(Duration::from_millis(300));
    match TcpStore::connect(&addr, short) {
        Err(StoreError::Connect {
            addr: a, waited, ..
        }) => {
            assert_eq!(a, addr);
            assert!(waited >= Duration::from_millis(300));
        }
        other => panic!("{other:?}"),
    }
    drop(served);
    assert_serving(&srv, client_options());
}

#[test]
fn connections_that_never_say_hello_cannot_lock_clients_out() {
    let srv = server(
        ServerOptions::new()
            .max_connections(8)
            .max_pending(4)
            .hello_deadline(Duration::from_secs(30)),
    );
    // Far more silent sockets than the quota for connections yet to say hello.
    let silent: Vec<TcpStream> = (0..200).map(|_| raw(&srv)).collect();
    let t = Instant::now();
    let c = client(&srv);
    c.set("k", b"v").unwrap();
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    // The oldest silent ones were closed to make room; at most the quota is left.
    // Each was told the server is busy (so that a slow client would retry).
    let closed = silent
        .iter()
        .take(190)
        .filter(|s| {
            s.set_read_timeout(Some(Duration::from_millis(500)))
                .unwrap();
            let mut bytes = Vec::new();
            let mut r = *s;
            r.read_to_end(&mut bytes).is_ok()
                && matches!(
                    frame::decode(&bytes, &Limits::default()),
                    Ok(Some((
                        Frame::Error {
                            code: ErrorCode::Busy,
                            ..
                        },
                        _
                    )))
                )
        })
        .count();
    assert_eq!(closed, 190);
    assert!(srv.connections() <= 1 + 4, "{}", srv.connections());
}

#[test]
fn a_silent_connection_is_closed_at_the_hello_deadline() {
    let deadline = Duration::from_millis(300);
    let srv = server(ServerOptions::new().hello_deadline(deadline));
    let s = raw(&srv);
    let t = Instant::now();
    let (frames, _) = until_closed(&s);
    assert!(frames.is_empty(), "{frames:?}");
    let took = t.elapsed();
    assert!(
        took >= deadline - Duration::from_millis(50) && took < Duration::from_secs(2),
        "{took:?}"
    );
    assert_serving(&srv, client_options());
}

#[test]
fn a_crowd_connecting_at_once_is_served_though_few_may_wait_for_their_hello() {
    // 8 may wait for their hello; 200 clients connect at the same moment. The ones
    // closed to make room are told the server is busy, and retry. What is asserted is
    // that every one is served in the end, not how soon: the connect timeout is a
    // launcher's (minutes), since on a loaded 2-core CI machine a client's ninth try
    // can come after the 2 s that the other tests allow (seen once in CI).
    let srv = server(ServerOptions::new().max_pending(8));
    let addr = srv.local_addr().to_string();
    let start = std::sync::Barrier::new(200);
    let joined: Vec<Result<(), StoreError>> = std::thread::scope(|s| {
        let clients: Vec<_> = (0..200)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    let patient = client_options().connect_timeout(Duration::from_secs(120));
                    let c = TcpStore::connect(&addr, patient)?;
                    c.add("arrived", 1).map(|_| ())
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let failed: Vec<&StoreError> = joined.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        failed.is_empty(),
        "{} failed, first: {:?}",
        failed.len(),
        failed.first()
    );
    let c = client(&srv);
    assert_eq!(c.get("arrived").unwrap().as_deref(), Some(&b"200"[..]));
}

#[test]
fn a_client_that_never_stops_sending_does_not_starve_the_others_or_the_stop() {
    let srv = server(ServerOptions::new());
    let flood = greeted(&srv);
    let nudges: Vec<u8> = (0..4096).flat_map(|_| encode(&Frame::Nudge)).collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flooder = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if (&flood).write_all(&nudges).is_err() {
                    return;
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    // Others are served, and new clients admitted, while it sends.
    let start = Instant::now();
    let other = client(&srv);
    other.set("k", b"v").unwrap();
    assert_eq!(other.get("k").unwrap().as_deref(), Some(&b"v"[..]));
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    // And the server stops promptly.
    let start = Instant::now();
    drop(other);
    drop(srv);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flooder.join().unwrap();
}
