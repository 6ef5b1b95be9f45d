//! What is refused or reported: mismatched collectives naming both sides, launch
//! orders across communicators, destroyed peers, misuse as typed errors, and
//! send/receive deadlocks the sim names.

use std::time::Duration;

use crate::common::{PATIENCE, expect_err};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream, UniqueId,
    group,
};

use super::on_ranks;

/// Runs two ranks that issue different things; returns the error either saw.
fn mismatch(
    issue: impl Fn(usize, &Communicator, &Stream, &Device) -> nccl_safe::Result<()>
    + Send
    + Sync
    + 'static,
) -> String {
    let errors = on_ranks(DriverKind::Sim, 2, Config::new(), move |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        match issue(rank, &comm, &s, &dev) {
            Err(e) => Some(e),
            Ok(()) => s.synchronize_timeout(PATIENCE).err(),
        }
    });
    let texts: Vec<String> = errors
        .into_iter()
        .flatten()
        .map(|e| e.to_string())
        .collect();
    assert!(!texts.is_empty(), "a mismatch must be reported");
    texts.join(" | ")
}

#[test]
fn mismatched_op_count_dtype_and_root_are_reported_naming_both_sides() {
    let t = mismatch(|rank, comm, s, _| {
        let mut x = DeviceBuffer::from_slice(s, &[1.0f32; 4])?;
        let op = if rank == 0 {
            ReduceOp::Sum
        } else {
            ReduceOp::Max
        };
        comm.all_reduce_in_place(&mut x, op, s)
    });
    assert!(
        t.contains("sum") && t.contains("max") && t.contains("collective #1"),
        "{t}"
    );

    let t = mismatch(|rank, comm, s, _| {
        let mut x = DeviceBuffer::from_slice(s, &vec![1i32; 4 + rank])?;
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, s)
    });
    assert!(t.contains("count 4") && t.contains("count 5"), "{t}");

    let t = mismatch(|rank, comm, s, _| {
        if rank == 0 {
            comm.all_reduce_in_place(
                &mut DeviceBuffer::from_slice(s, &[1.0f32; 4])?,
                ReduceOp::Sum,
                s,
            )
        } else {
            comm.all_reduce_in_place(
                &mut DeviceBuffer::from_slice(s, &[1i32; 4])?,
                ReduceOp::Sum,
                s,
            )
        }
    });
    assert!(t.contains("f32") && t.contains("i32"), "{t}");

    let t = mismatch(|rank, comm, s, _| {
        let mut x = DeviceBuffer::from_slice(s, &[1u64; 4])?;
        comm.broadcast(&mut x, rank, s) // each rank names itself the root
    });
    assert!(t.contains("root 0") && t.contains("root 1"), "{t}");

    let t = mismatch(|rank, comm, s, dev| {
        let x = DeviceBuffer::from_slice(s, &[1u8; 4])?;
        if rank == 0 {
            let mut y = DeviceBuffer::<u8>::alloc(dev, 8)?;
            comm.all_gather(&x, &mut y, s)
        } else {
            let mut y = DeviceBuffer::<u8>::alloc(dev, 4)?;
            comm.all_reduce(&x, &mut y, ReduceOp::Sum, s)
        }
    });
    assert!(t.contains("all_gather") && t.contains("all_reduce"), "{t}");
}

#[test]
fn communicators_sharing_devices_launched_in_different_orders_are_reported() {
    let devs = [Device::sim(4).unwrap(), Device::sim(5).unwrap()];
    let a = Communicator::init_all(&devs, &Config::new()).unwrap();
    let b = Communicator::init_all(&devs, &Config::new()).unwrap();
    let s: Vec<Stream> = devs.iter().map(|d| Stream::new(d).unwrap()).collect();
    let mut bufs: Vec<DeviceBuffer<f32>> = s
        .iter()
        .map(|st| DeviceBuffer::from_slice(st, &[1.0; 4]).unwrap())
        .collect();
    // Device 4: A then B. Device 5: B then A.
    a[0].all_reduce_in_place(&mut bufs[0], ReduceOp::Sum, &s[0])
        .unwrap();
    b[0].all_reduce_in_place(&mut bufs[0], ReduceOp::Sum, &s[0])
        .unwrap();
    b[1].all_reduce_in_place(&mut bufs[1], ReduceOp::Sum, &s[1])
        .unwrap();
    let e = expect_err(
        a[1].all_reduce_in_place(&mut bufs[1], ReduceOp::Sum, &s[1]),
        "launch order",
    );
    let t = e.to_string();
    assert!(
        matches!(e, Error::Mismatch { .. })
            && t.contains("sim device 4")
            && t.contains("sim device 5"),
        "{t}"
    );
    for c in a.into_iter().chain(b) {
        c.abort().unwrap();
    }
}

#[test]
fn a_collective_that_needs_a_destroyed_rank_fails_instead_of_hanging() {
    let devs = [Device::sim(4).unwrap(), Device::sim(5).unwrap()];
    let mut comms = Communicator::init_all(&devs, &Config::new()).unwrap();
    comms.pop().unwrap().close().unwrap(); // rank 1 leaves (destroy is collective)
    let s = Stream::new(&devs[0]).unwrap();
    let mut x = DeviceBuffer::from_slice(&s, &[1i32; 4]).unwrap();
    comms[0]
        .all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        .unwrap();
    let e = expect_err(s.synchronize_timeout(PATIENCE), "peer destroyed");
    let pid = std::process::id();
    assert!(
        e.to_string()
            .contains(&format!("rank 1 (pid {pid}) destroyed its communicator")),
        "{e}"
    );
}

#[test]
fn misuse_is_a_typed_error_naming_the_values() {
    let dev = Device::sim(6).unwrap();
    let other = Device::sim(7).unwrap();
    let s = Stream::new(&dev).unwrap();
    let s_other = Stream::new(&other).unwrap();
    let id = UniqueId::random();
    let mut cases: Vec<(&str, Error)> = Vec::new();
    let mut case =
        |name: &'static str, r: nccl_safe::Result<()>| cases.push((name, expect_err(r, name)));

    case(
        "rank >= size",
        Communicator::init(&dev, 2, 2, &id, &Config::new()).map(drop),
    );
    case(
        "world size 0",
        Communicator::init(&dev, 0, 0, &id, &Config::new()).map(drop),
    );
    case(
        "min > max ctas",
        Communicator::init(&dev, 0, 1, &id, &Config::new().min_ctas(4).max_ctas(2)).map(drop),
    );
    case("id of 5 bytes", UniqueId::from_bytes(&[0; 5]).map(drop));
    case(
        "init_all of nothing",
        Communicator::init_all(&[], &Config::new()).map(drop),
    );
    case(
        "init_all device twice",
        Communicator::init_all(&[dev.clone(), dev.clone()], &Config::new()).map(drop),
    );

    let comm = Communicator::init_all(&[dev.clone(), other.clone()], &Config::new()).unwrap();
    let c = &comm[0];
    let x = DeviceBuffer::from_slice(&s, &[1.0f32; 4]).unwrap();
    let mut y3 = DeviceBuffer::<f32>::alloc(&dev, 3).unwrap();
    let mut y4 = DeviceBuffer::<f32>::alloc(&dev, 4).unwrap();
    let mut y8 = DeviceBuffer::<f32>::alloc(&dev, 8).unwrap();
    let far = DeviceBuffer::from_slice(&s_other, &[1.0f32; 4]).unwrap();
    let two = DeviceBuffer::from_slice(&s, &[1.0f32; 2]).unwrap();
    let mut odd = DeviceBuffer::<f32>::alloc(&dev, 5).unwrap();

    case(
        "all_reduce lengths",
        c.all_reduce(&x, &mut y3, ReduceOp::Sum, &s),
    );
    case(
        "all_reduce buffer of another device",
        c.all_reduce(&far, &mut y4, ReduceOp::Sum, &s),
    );
    case(
        "stream of another device",
        c.all_reduce(&x, &mut y4, ReduceOp::Sum, &s_other),
    );
    case("broadcast root 2", c.broadcast(&mut y4, 2, &s));
    case("reduce root 9", c.reduce(&x, None, ReduceOp::Sum, 9, &s));
    case(
        "reduce root without recv",
        c.reduce(&x, None, ReduceOp::Sum, 0, &s),
    );
    case("all_gather recv length", c.all_gather(&x, &mut y4, &s));
    case(
        "all_gather in place, odd length",
        c.all_gather_in_place(&mut odd, &s),
    );
    case(
        "reduce_scatter send length",
        c.reduce_scatter(&x, &mut y4, ReduceOp::Sum, &s),
    );
    case(
        "all_to_all odd length",
        c.all_to_all(
            &odd.as_view(),
            &mut DeviceBuffer::<f32>::alloc(&dev, 5).unwrap(),
            &s,
        ),
    );
    case(
        "gather recv length",
        c.gather(&x, Some(&mut y4.as_view_mut()), 0, &s),
    );
    case(
        "scatter send length",
        c.scatter(Some(&x.as_view()), &mut y4, 0, &s),
    );
    case("scatter root without send", c.scatter(None, &mut y4, 0, &s));
    case("send to peer 2", c.send(&x, 2, &s));
    case("recv from peer 5", c.recv(&mut y4, 5, &s));
    case(
        "premulsum device scalar of 2",
        c.all_reduce(&x, &mut y4, ReduceOp::PreMulSumDevice(two.as_view()), &s),
    );
    case(
        "split color above i32::MAX",
        c.split(Some(u32::MAX), 0, &Config::new()).map(drop),
    );
    case("nested group", group(|_| group(|_| Ok(()))));
    case(
        "NUL in comm name",
        Communicator::init(&dev, 0, 1, &id, &Config::new().comm_name("a\0")).map(drop),
    );
    let _ = &mut y8;

    for (name, e) in &cases {
        let typed = matches!(
            e,
            Error::InvalidArgument { .. }
                | Error::LengthMismatch { .. }
                | Error::WrongDevice { .. }
                | Error::InvalidUsage { .. }
        );
        assert!(typed, "{name}: {e:?}");
    }
    let texts: Vec<String> = cases.iter().map(|(_, e)| e.to_string()).collect();
    assert!(
        texts[0].contains("rank 2") && texts[0].contains("world size 2"),
        "{}",
        texts[0]
    );
    assert!(texts.iter().any(|t| t.contains("root 2")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("peer 5")), "{texts:?}");
    assert!(cases.len() >= 20, "{} cases", cases.len());
    // Nothing was launched by the refused calls: the communicator still works.
    for c in comm {
        c.abort().unwrap();
    }
}

#[test]
fn sends_to_each_other_outside_a_group_deadlock_as_in_nccl_and_the_sim_names_the_cycle() {
    // Both ranks send first: NCCL's sends wait for their receivers, so this hangs. The
    // sim sees the cycle (each receive is queued behind its rank's own blocked send on
    // the same stream) and fails both streams, naming the ranks, within a second.
    let out = on_ranks(
        DriverKind::Sim,
        2,
        Config::new().blocking(false),
        |rank, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let x = DeviceBuffer::from_slice(&s, &[1u16 as i32; 4]).unwrap();
            let mut y = DeviceBuffer::<i32>::alloc(&dev, 4).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            comm.send(&x, 1 - rank, &s).unwrap();
            comm.recv(&mut y, 1 - rank, &s).unwrap();
            let start = std::time::Instant::now();
            let e = s.synchronize_timeout(PATIENCE).unwrap_err().to_string();
            let took = start.elapsed();
            comm.abort_handle().unwrap().abort().unwrap();
            (e, took)
        },
    );
    let pid = std::process::id();
    for (e, took) in out {
        assert!(
            e.contains("deadlock")
                && e.contains(&format!("rank 0 (pid {pid})"))
                && e.contains(&format!("rank 1 (pid {pid})")),
            "{e}"
        );
        assert!(took < Duration::from_secs(1), "reported after {took:?}");
    }
}

#[test]
fn a_ring_of_sends_before_receives_is_a_reported_deadlock_and_a_self_send_is_refused_at_the_call() {
    // NCCL's ring example without its group: every rank sends to the next before it
    // receives from the previous, all on one stream.
    let out = on_ranks(
        DriverKind::Sim,
        3,
        Config::new().blocking(false),
        |rank, dev, comm| {
            let s = Stream::new(&dev).unwrap();
            let x = DeviceBuffer::from_slice(&s, &[rank as i64; 8]).unwrap();
            let mut y = DeviceBuffer::<i64>::alloc(&dev, 8).unwrap();
            comm.wait_ready(PATIENCE).unwrap();
            comm.send(&x, (rank + 1) % 3, &s).unwrap();
            comm.recv(&mut y, (rank + 2) % 3, &s).unwrap();
            let e = s.synchronize_timeout(PATIENCE).unwrap_err().to_string();
            comm.abort_handle().unwrap().abort().unwrap();
            e
        },
    );
    for e in out {
        assert!(e.contains("deadlock"), "{e}");
        for r in 0..3 {
            assert!(
                e.contains(&format!("rank {r} (pid")),
                "names every rank: {e}"
            );
        }
    }
    // A send to itself then its receive, on one stream: refused at the receive.
    let dev = Device::sim(3).unwrap();
    let comm = Communicator::init_all(std::slice::from_ref(&dev), &Config::new().blocking(false))
        .unwrap()
        .pop()
        .unwrap();
    let s = Stream::new(&dev).unwrap();
    let x = DeviceBuffer::from_slice(&s, &[1u8; 4]).unwrap();
    let mut y = DeviceBuffer::<u8>::alloc(&dev, 4).unwrap();
    comm.send(&x, 0, &s).unwrap();
    let e = expect_err(comm.recv(&mut y, 0, &s), "self receive behind the send");
    assert!(
        matches!(e, Error::InvalidUsage { .. }) && e.to_string().contains("deadlock"),
        "{e}"
    );
    let e = expect_err(
        s.synchronize_timeout(PATIENCE),
        "the send's receive was refused",
    );
    assert!(e.to_string().contains("receive failed"), "{e}");
    comm.abort_handle().unwrap().abort().unwrap();
}
