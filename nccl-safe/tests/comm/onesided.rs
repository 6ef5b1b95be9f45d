//! One-sided operations (`put_signal`, `signal`, `wait_signal`): values on 1-8
//! ranks, cumulative signal counts, a wait that orders the window's later uses on
//! other streams, NCCL's rules as typed errors, a put into a released window and a
//! wait whose peer is gone as stream errors; on cuda, two GPUs.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::common::{assert_unsupported, expect_err, one_rank};
use crate::on_ranks;
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, SignalWait, Stream, UniqueId,
    Version, Window, WindowFlags, group,
};

const SOON: Duration = Duration::from_secs(20);
/// Elements per block: one 4096-byte page of i32.
const BLOCK: usize = 1024;

/// A buffer of `blocks + 1` pages registered as one symmetric window: block `r` is
/// where rank `r` puts, the last block is what this rank puts from.
fn windowed(
    comm: &Communicator,
    dev: &Device,
    s: &Stream,
    blocks: usize,
) -> (DeviceBuffer<i32>, Window) {
    let mut buf = DeviceBuffer::<i32>::alloc_nccl(dev, (blocks + 1) * BLOCK).unwrap();
    buf.fill(s, -1).unwrap();
    let win = comm
        .register_window(&buf, WindowFlags::new().symmetric())
        .unwrap();
    (buf, win)
}

fn puts_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let (mut buf, win) = windowed(&comm, &dev, &s, n);
        let mine: Vec<i32> = (0..BLOCK as i32).map(|i| 1000 * me as i32 + i).collect();
        buf.view_mut(n * BLOCK..(n + 1) * BLOCK)
            .unwrap()
            .copy_from_slice(&s, &mine)
            .unwrap();
        let src = buf.view(n * BLOCK..(n + 1) * BLOCK).unwrap();
        // Every rank puts its block into every rank's block `me` (itself included),
        // then signals each once more without data.
        for peer in 0..n {
            comm.put_signal(&src, peer, &win, me * BLOCK * 4, &s)
                .unwrap();
            comm.signal(peer, &s).unwrap();
        }
        let waits: Vec<SignalWait> = (0..n).map(|p| SignalWait::new(p, 2)).collect();
        comm.wait_signal(&mut buf.view_mut(0..n * BLOCK).unwrap(), &waits, &s)
            .unwrap();
        let v = buf.view(0..n * BLOCK).unwrap().to_vec(&s).unwrap();
        s.synchronize_timeout(SOON).unwrap();
        drop(win);
        comm.close().unwrap();
        v
    });
    let want: Vec<i32> = (0..n)
        .flat_map(|r| (0..BLOCK as i32).map(move |i| 1000 * r as i32 + i))
        .collect();
    for (rank, v) in got.into_iter().enumerate() {
        assert_eq!(v, want, "rank {rank} of {n}");
    }
}

#[test]
fn puts_match_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        puts_on(DriverKind::Sim, n);
    }
}

#[test]
fn signal_counts_add_up_across_waits() {
    let met = Arc::new(Barrier::new(2));
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let (mut buf, win) = windowed(&comm, &dev, &s, 1);
        let mut seen = Vec::new();
        if me == 0 {
            // Three signals in all: two puts, then one signal, each sent only once
            // rank 1 has looked.
            let src = buf.view(BLOCK..BLOCK + 4).unwrap();
            comm.put_signal(&src, 1, &win, 0, &s).unwrap();
            s.synchronize_timeout(SOON).unwrap(); // it has arrived
            met.wait(); // A
            met.wait(); // B
            comm.put_signal(&src, 1, &win, 16, &s).unwrap();
            met.wait(); // C
            comm.signal(1, &s).unwrap();
        } else {
            let waits = Stream::new(&dev).unwrap();
            let mut into = buf.view_mut(0..8).unwrap();
            comm.wait_signal(&mut into, &[SignalWait::new(0, 2)], &waits)
                .unwrap();
            met.wait(); // A: one of the two has arrived
            std::thread::sleep(Duration::from_millis(50));
            seen.push(waits.query().unwrap());
            met.wait(); // B
            waits.synchronize_timeout(SOON).unwrap(); // both have
            // The next wait asks for one more than the two already asked for.
            comm.wait_signal(&mut into, &[SignalWait::new(0, 1)], &waits)
                .unwrap();
            std::thread::sleep(Duration::from_millis(50));
            seen.push(waits.query().unwrap());
            met.wait(); // C
            waits.synchronize_timeout(SOON).unwrap();
            seen.push(waits.query().unwrap());
        }
        s.synchronize_timeout(SOON).unwrap();
        drop(win);
        comm.close().unwrap();
        seen
    });
    assert_eq!(got[1], vec![false, false, true]);
}

#[test]
fn a_wait_orders_the_windows_later_uses_on_other_streams() {
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let (mut buf, win) = windowed(&comm, &dev, &s, 1);
        s.synchronize().unwrap();
        let v = if me == 0 {
            buf.view_mut(BLOCK..2 * BLOCK)
                .unwrap()
                .copy_from_slice(&s, &vec![5; BLOCK])
                .unwrap();
            std::thread::sleep(Duration::from_millis(100)); // a late put
            comm.put_signal(&buf.view(BLOCK..2 * BLOCK).unwrap(), 1, &win, 0, &s)
                .unwrap();
            Vec::new()
        } else {
            let waiting = Stream::new(&dev).unwrap();
            comm.wait_signal(
                &mut buf.view_mut(0..BLOCK).unwrap(),
                &[SignalWait::new(0, 1)],
                &waiting,
            )
            .unwrap();
            // Read on yet another stream, with no wait of the caller's: the tracker
            // orders it after the wait, as after any write of the window.
            let reader = Stream::new(&dev).unwrap();
            buf.view(0..BLOCK).unwrap().to_vec(&reader).unwrap()
        };
        s.synchronize_timeout(SOON).unwrap();
        drop(win);
        comm.close().unwrap();
        v
    });
    assert_eq!(got[1], vec![5; BLOCK]);
}

#[test]
fn breaking_nccls_rules_is_a_typed_error() {
    let dev = Device::sim(3).unwrap();
    let comm = one_rank(&dev, &Config::new());
    let s = Stream::new(&dev).unwrap();
    let (mut buf, win) = windowed(&comm, &dev, &s, 1);
    let src = buf.view(BLOCK..2 * BLOCK).unwrap();
    let invalid = |e: Error, op: &str, says: &str| {
        assert!(
            matches!(&e, Error::InvalidArgument { op: o, .. } if *o == op)
                && e.to_string().contains(says),
            "{says}: {e}"
        );
    };
    invalid(
        expect_err(comm.put_signal(&src, 1, &win, 0, &s), "peer"),
        "put_signal",
        "peer 1 is not below the world size 1",
    );
    invalid(
        expect_err(comm.put_signal(&src, 0, &win, 4 * BLOCK + 4, &s), "end"),
        "put_signal",
        "4096 bytes at offset 4100 run past the end of the window (8192 bytes)",
    );
    let plain_mem = DeviceBuffer::<i32>::zeroed(&s, BLOCK).unwrap();
    invalid(
        expect_err(comm.put_signal(&plain_mem, 0, &win, 0, &s), "source"),
        "put_signal",
        "is not inside a symmetric window",
    );
    let page = DeviceBuffer::<i32>::alloc_nccl(&dev, BLOCK).unwrap();
    let plain = comm.register_window(&page, WindowFlags::new()).unwrap();
    invalid(
        expect_err(comm.put_signal(&src, 0, &plain, 0, &s), "not symmetric"),
        "put_signal",
        "need a symmetric window",
    );
    // A window of another communicator.
    let other = one_rank(&dev, &Config::new());
    let (mut obuf, owin) = windowed(&other, &dev, &s, 1);
    invalid(
        expect_err(comm.put_signal(&src, 0, &owin, 0, &s), "other"),
        "put_signal",
        "belongs to another communicator",
    );
    let mut dst = buf.view_mut(0..4).unwrap();
    invalid(
        expect_err(comm.wait_signal(&mut dst, &[], &s), "no waits"),
        "wait_signal",
        "no peer to wait for",
    );
    invalid(
        expect_err(
            comm.wait_signal(&mut dst, &[SignalWait::new(0, 0)], &s),
            "count 0",
        ),
        "wait_signal",
        "a wait for 0 signals from rank 0",
    );
    invalid(
        expect_err(comm.signal(2, &s), "signal peer"),
        "signal",
        "peer 2 is not below the world size 1",
    );
    // Into memory of another communicator's window.
    invalid(
        expect_err(
            comm.wait_signal(
                &mut obuf.view_mut(0..4).unwrap(),
                &[SignalWait::new(0, 1)],
                &s,
            ),
            "other",
        ),
        "wait_signal",
        "the destination (16 bytes at",
    );
    // Inside a group.
    let e = expect_err(group(|_| comm.signal(0, &s)), "group");
    assert!(matches!(e, Error::InvalidUsage { .. }), "{e}");
    // An NCCL older than 2.29.2.
    let old = one_rank(
        &dev,
        &Config::new().emulate_nccl_version(Version::new(2, 29, 1)),
    );
    let e = expect_err(old.signal(0, &s), "old NCCL");
    assert_unsupported(&e, "one-sided put and signal", "2.29.2");
    // Nothing was enqueued by the refusals: one put to itself and its wait.
    comm.put_signal(&buf.view(BLOCK..2 * BLOCK).unwrap(), 0, &win, 0, &s)
        .unwrap();
    comm.wait_signal(
        &mut buf.view_mut(0..BLOCK).unwrap(),
        &[SignalWait::new(0, 1)],
        &s,
    )
    .unwrap();
    s.synchronize_timeout(SOON).unwrap();
    drop((plain, page, owin, obuf, win, buf));
    for c in [comm, other, old] {
        c.close().unwrap();
    }
}

#[test]
fn a_put_into_a_released_window_fails_its_stream() {
    let met = Arc::new(Barrier::new(2));
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let (buf, win) = windowed(&comm, &dev, &s, 1);
        s.synchronize().unwrap();
        let r = if me == 1 {
            drop((win, buf)); // nothing pending: released now
            assert_eq!(comm.windows(), 0);
            met.wait();
            met.wait();
            Ok(())
        } else {
            met.wait();
            let src = buf.view(BLOCK..2 * BLOCK).unwrap();
            comm.put_signal(&src, 1, &win, 0, &s).unwrap();
            let r = s.synchronize_timeout(SOON);
            met.wait();
            r
        };
        let _ = comm.abort();
        r
    });
    let e = got[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("put_signal to rank 1: its window #0 is released"),
        "{e}"
    );
}

#[test]
fn a_wait_whose_peer_is_gone_fails_its_stream_naming_the_peer() {
    let id = UniqueId::random();
    let waiter = std::thread::spawn(move || {
        let dev = Device::sim(4).unwrap();
        let comm = Communicator::init(&dev, 1, 2, &id, &Config::new()).unwrap();
        let s = Stream::new(&dev).unwrap();
        let (mut buf, _win) = windowed(&comm, &dev, &s, 1);
        comm.wait_signal(
            &mut buf.view_mut(0..BLOCK).unwrap(),
            &[SignalWait::new(0, 1)],
            &s,
        )
        .unwrap();
        let r = s.synchronize_timeout(SOON);
        let _ = comm.abort();
        r
    });
    let dev = Device::sim(5).unwrap();
    let comm = Communicator::init(&dev, 0, 2, &id, &Config::new()).unwrap();
    let s = Stream::new(&dev).unwrap();
    let (buf, win) = windowed(&comm, &dev, &s, 1);
    s.synchronize().unwrap();
    std::thread::sleep(Duration::from_millis(50));
    drop((win, buf));
    comm.abort().unwrap(); // gone without a signal
    let e = waiter.join().unwrap().unwrap_err().to_string();
    assert!(
        e.contains("wait_signal waited for signal #1 from rank 0 (0 arrived)")
            && e.contains("rank 0"),
        "{e}"
    );
}

#[test]
#[ignore = "needs two CUDA GPUs"]
fn cuda_two_gpus_put_and_signal() {
    let n = 2;
    let ok = on_ranks(DriverKind::Cuda, n, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut buf = DeviceBuffer::<i32>::alloc_nccl(&dev, 2 * BLOCK).unwrap();
        buf.fill(&s, me as i32).unwrap();
        let win = match comm.register_window(&buf, WindowFlags::new().symmetric()) {
            Err(Error::WindowUnsupported { reason }) => {
                eprintln!("no symmetric memory here: {reason}");
                return None;
            }
            other => other.unwrap(),
        };
        let src = buf.view(BLOCK..2 * BLOCK).unwrap();
        comm.put_signal(&src, 1 - me, &win, 0, &s).unwrap();
        comm.wait_signal(
            &mut buf.view_mut(0..BLOCK).unwrap(),
            &[SignalWait::new(1 - me, 1)],
            &s,
        )
        .unwrap();
        let v = buf.view(0..BLOCK).unwrap().to_vec(&s).unwrap();
        drop(win);
        comm.close().unwrap();
        Some(v)
    });
    for (me, v) in ok.into_iter().enumerate() {
        if let Some(v) = v {
            assert_eq!(v, vec![1 - me as i32; BLOCK]);
        }
    }
}

#[test]
fn a_rank_may_put_from_its_window_while_it_waits_into_another_part() {
    // Each rank waits (on one stream) for data into its first page, and puts (on
    // another) from its second page: the wait's write covers only the first page, so
    // the put does not wait for it, as it would not in NCCL.
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let (mut buf, win) = windowed(&comm, &dev, &s, 1);
        buf.view_mut(BLOCK..2 * BLOCK)
            .unwrap()
            .fill(&s, 100 + me as i32)
            .unwrap();
        s.synchronize().unwrap();
        let (waiting, putting) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
        comm.wait_signal(
            &mut buf.view_mut(0..BLOCK).unwrap(),
            &[SignalWait::new(1 - me, 1)],
            &waiting,
        )
        .unwrap();
        comm.put_signal(
            &buf.view(BLOCK..2 * BLOCK).unwrap(),
            1 - me,
            &win,
            0,
            &putting,
        )
        .unwrap();
        putting.synchronize_timeout(SOON).unwrap();
        waiting.synchronize_timeout(SOON).unwrap();
        let v = buf.view(0..2).unwrap().to_vec(&s).unwrap();
        drop(win);
        comm.close().unwrap();
        v
    });
    assert_eq!(got, vec![vec![101; 2], vec![100; 2]]);
}

#[test]
fn registration_waits_for_the_buffers_pending_writes_so_no_put_is_overwritten() {
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |me, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut buf = DeviceBuffer::<i32>::alloc_nccl(&dev, 2 * BLOCK).unwrap();
        if me == 1 {
            // A late fill, still queued when the window is registered.
            s.launch_host_fn(|| std::thread::sleep(Duration::from_millis(100)))
                .unwrap();
        }
        buf.fill(&s, -1).unwrap();
        let win = comm
            .register_window(&buf, WindowFlags::new().symmetric())
            .unwrap();
        let v = if me == 0 {
            buf.view_mut(BLOCK..2 * BLOCK).unwrap().fill(&s, 9).unwrap();
            comm.put_signal(&buf.view(BLOCK..2 * BLOCK).unwrap(), 1, &win, 0, &s)
                .unwrap();
            Vec::new()
        } else {
            comm.wait_signal(
                &mut buf.view_mut(0..BLOCK).unwrap(),
                &[SignalWait::new(0, 1)],
                &s,
            )
            .unwrap();
            buf.view(0..4).unwrap().to_vec(&s).unwrap()
        };
        s.synchronize_timeout(SOON).unwrap();
        drop(win);
        comm.close().unwrap();
        v
    });
    assert_eq!(got[1], vec![9; 4]);
}

#[test]
fn ranks_agree_on_a_symmetric_windows_size_and_on_the_sims_window_limit() {
    let got = on_ranks(DriverKind::Sim, 2, Config::new(), move |me, dev, comm| {
        // Different sizes: every rank refuses, naming both.
        let odd = DeviceBuffer::<u8>::alloc_nccl(&dev, 4096 * (me + 1)).unwrap();
        let e = expect_err(
            comm.register_window(&odd, WindowFlags::new().symmetric()),
            "sizes",
        );
        assert!(
            matches!(e, Error::InvalidArgument { .. })
                && e.to_string()
                    .contains("symmetric windows of 4096 to 8192 bytes"),
            "{e}"
        );
        assert_eq!(comm.windows(), 0);
        // The sim's table: 32 symmetric windows at once, then every rank refuses.
        let pages: Vec<_> = (0..33)
            .map(|_| DeviceBuffer::<u8>::alloc_nccl(&dev, 4096).unwrap())
            .collect();
        let mut held: Vec<Window> = pages[..32]
            .iter()
            .map(|p| {
                comm.register_window(p, WindowFlags::new().symmetric())
                    .unwrap()
            })
            .collect();
        let e = expect_err(
            comm.register_window(&pages[32], WindowFlags::new().symmetric()),
            "33rd",
        );
        assert!(
            e.to_string().contains("at most 32 symmetric windows"),
            "{e}"
        );
        // Windows that are not symmetric take no place in it.
        let plain = comm
            .register_window(&pages[32], WindowFlags::new())
            .unwrap();
        // A released one makes room.
        drop(held.remove(0));
        drop(pages);
        let again = DeviceBuffer::<u8>::alloc_nccl(&dev, 4096).unwrap();
        held.push(
            comm.register_window(&again, WindowFlags::new().symmetric())
                .unwrap(),
        );
        let n = comm.windows();
        drop((held, plain, again, odd));
        comm.close().unwrap();
        n
    });
    assert_eq!(got, vec![33, 33]); // 31 held, the plain one, the one made again
}
