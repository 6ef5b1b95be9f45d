//! Windows: collectives on symmetric windows on 1-8 ranks, the alignment and memory
//! rules as typed errors, no window where NCCL makes none, a rank that never
//! registers, and a release that waits for the operations issued before it; on cuda,
//! two GPUs.

use std::time::Duration;

use crate::common::{expect_err, one_rank as one};
use crate::on_ranks;
use nccl_safe::{
    Config, Device, DeviceBuffer, DriverKind, Error, ReduceOp, Stream, Version, WINDOW_ALIGNMENT,
    WindowFlags,
};

fn symmetric_all_reduce_on(driver: DriverKind, n: usize) {
    let got = on_ranks(driver, n, Config::new(), |rank, dev, comm| {
        let s = Stream::new(&dev).unwrap();
        let mut buf = DeviceBuffer::<f32>::alloc_nccl(&dev, 3000).unwrap();
        let win = comm
            .register_window(&buf, WindowFlags::new().symmetric())
            .unwrap();
        assert_eq!((win.bytes(), comm.windows()), (12000, 1));
        // A second, strictly ordered window on the second 4096-byte page.
        let page = WINDOW_ALIGNMENT / 4;
        let strict = comm
            .register_window(
                &buf.view(page..2 * page).unwrap(),
                WindowFlags::new().strict_ordering(),
            )
            .unwrap();
        assert_eq!(strict.flags().bits(), 0x02);
        buf.fill(&s, rank as f32 + 1.0).unwrap();
        comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &s)
            .unwrap();
        let v = buf.to_vec(&s).unwrap();
        win.deregister();
        drop(strict);
        assert_eq!(comm.windows(), 2, "released while the buffer lives");
        drop(buf); // nothing pending: the windows are released, then the memory goes
        assert_eq!(comm.windows(), 0);
        comm.close().unwrap();
        v
    });
    let want = (n * (n + 1) / 2) as f32;
    for (rank, v) in got.into_iter().enumerate() {
        assert_eq!(v, vec![want; 3000], "rank {rank} of {n}");
    }
}

#[test]
fn collectives_on_symmetric_windows_match_the_reference_on_one_to_eight_ranks() {
    for n in 1..=8 {
        symmetric_all_reduce_on(DriverKind::Sim, n);
    }
}

#[test]
fn windows_that_break_nccls_rules_are_typed_errors() {
    let dev = Device::sim(2).unwrap();
    let s = Stream::new(&dev).unwrap();
    let comm = one(&dev, &Config::new());
    let buf = DeviceBuffer::<f32>::alloc_nccl(&dev, 4096).unwrap();
    let e = expect_err(
        comm.register_window(&buf.view(1..).unwrap(), WindowFlags::new()),
        "misaligned",
    );
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                op: "register_window",
                ..
            }
        ) && e
            .to_string()
            .contains("starts 4 bytes past a 4096-byte boundary (byte 4"),
        "{e}"
    );
    let ours = DeviceBuffer::<f32>::zeroed(&s, 4096).unwrap();
    let e = expect_err(
        comm.register_window(&ours, WindowFlags::new()),
        "our memory",
    );
    assert!(e.to_string().contains("not allocated by NCCL"), "{e}");
    let e = expect_err(
        comm.register_window(&buf.view(0..0).unwrap(), WindowFlags::new()),
        "empty",
    );
    assert!(e.to_string().contains("empty"), "{e}");
    let old = one(
        &dev,
        &Config::new().emulate_nccl_version(Version::new(2, 27, 2)),
    );
    let e = expect_err(old.register_window(&buf, WindowFlags::new()), "old NCCL");
    assert!(
        matches!(
            e,
            Error::UnsupportedByNccl {
                feature: "window registration",
                ..
            }
        ),
        "{e}"
    );
    let none = one(&dev, &Config::new().emulate_no_symmetric_memory());
    let e = expect_err(
        none.register_window(&buf, WindowFlags::new().symmetric()),
        "none",
    );
    assert!(
        matches!(e, Error::WindowUnsupported { .. }) && e.to_string().contains("no symmetric"),
        "{e}"
    );
    // Inside an open group the call would wait for the group, and the group for it.
    let e = expect_err(
        nccl_safe::group(|_| comm.register_window(&buf, WindowFlags::new()).map(drop)),
        "in a group",
    );
    assert!(e.to_string().contains("inside an open group"), "{e}");
    let e = expect_err(nccl_safe::group(|_| comm.suspend()), "suspend in a group");
    assert!(e.to_string().contains("inside an open group"), "{e}");
    assert!(!comm.is_suspended());
    assert_eq!(comm.windows() + old.windows() + none.windows(), 0);
    for c in [comm, old, none] {
        c.close().unwrap();
    }
}

#[test]
fn a_rank_that_never_registers_its_window_is_a_timeout() {
    let config = Config::new().call_timeout(Duration::from_millis(300));
    let got = on_ranks(DriverKind::Sim, 2, config, |rank, dev, comm| {
        if rank == 1 {
            std::thread::sleep(Duration::from_millis(800));
            comm.abort().unwrap();
            return None;
        }
        let buf = DeviceBuffer::<u8>::alloc_nccl(&dev, 4096).unwrap();
        let r = comm.register_window(&buf, WindowFlags::new()).map(drop);
        let windows = comm.windows();
        comm.abort().unwrap();
        Some((r, windows))
    });
    let (r, windows) = got.into_iter().flatten().next().unwrap();
    let e = expect_err(r, "rank 1 never registers");
    assert!(
        matches!(
            e,
            Error::Timeout {
                op: "register_window",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(windows, 0);
}

#[test]
#[ignore = "needs 2 CUDA GPUs (one rank per GPU)"]
fn cuda_two_gpus_symmetric_windows() {
    // Where NCCL has no symmetric support for these GPUs, the typed error says so.
    let r = std::panic::catch_unwind(|| symmetric_all_reduce_on(DriverKind::Cuda, 2));
    if let Err(p) = r {
        let msg = p.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("WindowUnsupported"), "{msg}");
    }
}
