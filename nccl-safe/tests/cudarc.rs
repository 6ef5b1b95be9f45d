//! The cudarc interop (`nccl_safe::cudarc_interop`, feature `cudarc`): what the sim
//! answers (typed errors naming the driver, closures never run, buffers untouched),
//! the thread-safety decisions at compile time, and the GPU scenarios (cudarc copies
//! and kernels on a cudarc stream against our collectives, ordered both ways), ignored
//! without a GPU.
#![cfg(feature = "cudarc")]

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use nccl_safe::cudarc_interop::CudarcBuffer;
use nccl_safe::cudarc_interop::cudarc::driver::{
    CudaContext, CudaStream, DevicePtr, DevicePtrMut, result,
};
use nccl_safe::{
    Communicator, Config, Device, DeviceBuffer, DriverKind, Error, Gate, ReduceOp, Stream,
};

const PATIENCE: Duration = Duration::from_secs(30);

fn assert_send<T: Send>() {}
fn assert_sync<T: Sync>() {}

/// Compiles only when `T` is not `Clone` (two candidate impls make the call ambiguous
/// for a `Clone` type).
trait AmbiguousIfClone<A> {
    fn check() {}
}
impl<T: ?Sized> AmbiguousIfClone<()> for T {}
impl<T: Clone> AmbiguousIfClone<u8> for T {}

#[test]
fn thread_safety_and_ownership_are_decided_at_compile_time() {
    // Buffers move to and are shared with other threads like DeviceBuffer; streams
    // made from cudarc are ordinary `Stream`s.
    assert_send::<CudarcBuffer<f32>>();
    assert_sync::<CudarcBuffer<f32>>();
    assert_send::<CudarcBuffer<nccl_safe::half::bf16>>();
    assert_sync::<CudarcBuffer<i64>>();
    assert_send::<Stream>();
    assert_sync::<Stream>();
    // One owner: a CudarcBuffer is not Clone (a clone would alias tracked memory).
    <CudarcBuffer<f32> as AmbiguousIfClone<_>>::check();
}

fn assert_sim_refusal(e: &Error) {
    match e {
        Error::Unsupported { driver, what } => {
            assert_eq!(*driver, DriverKind::Sim);
            assert!(what.contains("cudarc"), "{what}");
        }
        other => panic!("expected Unsupported on sim, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("sim driver") && msg.contains("cudarc"),
        "{msg}"
    );
}

#[test]
fn sim_buffers_lent_to_cudarc_are_refused_naming_the_driver_and_stay_usable() {
    let dev = Device::sim(0).unwrap();
    let (a, b) = (Stream::new(&dev).unwrap(), Stream::new(&dev).unwrap());
    let mut buf = DeviceBuffer::from_slice(&a, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let mut ran = false;
    let e = buf
        .with_cudarc(&a, |_, _| ran = true)
        .expect_err("no cudarc view exists on sim");
    assert_sim_refusal(&e);
    let e = buf
        .with_cudarc_mut(&a, |_, _| ran = true)
        .expect_err("no cudarc view exists on sim");
    assert_sim_refusal(&e);
    {
        let (mut left, right) = buf.split_at_mut(2).unwrap();
        assert_sim_refusal(
            &right
                .as_view()
                .with_cudarc(&b, |_, _| ran = true)
                .unwrap_err(),
        );
        assert_sim_refusal(&left.with_cudarc_mut(&b, |_, _| ran = true).unwrap_err());
        // Refused before any wait or record: the views keep working on both streams.
        left.scale(&b, 10.0).unwrap();
    }
    assert!(!ran, "the closure ran although the call was refused");
    buf.add_scalar(&a, 1.0).unwrap();
    assert_eq!(buf.to_vec(&b).unwrap(), vec![11.0, 21.0, 4.0, 5.0]);
}

#[test]
fn sim_refuses_a_stream_of_another_device_the_same_way_without_running_anything() {
    // Even with mismatched devices the first answer is the driver's: no cudarc object
    // can exist on the sim at all, whatever else is wrong.
    let (d0, d1) = (Device::sim(0).unwrap(), Device::sim(1).unwrap());
    let s1 = Stream::new(&d1).unwrap();
    let s0 = Stream::new(&d0).unwrap();
    let buf = DeviceBuffer::from_slice(&s0, &[7u8; 16]).unwrap();
    assert_sim_refusal(&buf.with_cudarc(&s1, |_, _| ()).unwrap_err());
    // A sim stream is never a cudarc stream.
    assert!(s0.cudarc_stream().is_none());
    assert_eq!(buf.to_vec(&s0).unwrap(), vec![7u8; 16]);
}

#[test]
fn empty_buffers_and_views_are_refused_as_values_too() {
    // The refusal is an `Err` before the closure could run (it would panic).
    let dev = Device::sim(0).unwrap();
    let s = Stream::new(&dev).unwrap();
    let mut empty = DeviceBuffer::<i32>::alloc(&dev, 0).unwrap();
    assert_sim_refusal(
        &empty
            .with_cudarc_mut(&s, |_, _| panic!("must not run"))
            .unwrap_err(),
    );
    assert_sim_refusal(
        &empty
            .as_view()
            .with_cudarc(&s, |_, _| panic!("must not run"))
            .unwrap_err(),
    );
}

// ---------------------------------------------------------------------------------
// GPU scenarios. Each needs a CUDA GPU (and cudarc finds libcuda by itself: it panics
// without one, so these are ignored, never run, on machines without).
// ---------------------------------------------------------------------------------

struct Gpu {
    dev: Device,
    ctx: Arc<CudaContext>,
    cu: Arc<CudaStream>,
    stream: Stream,
}

fn gpu() -> Gpu {
    let dev = Device::cuda(0).expect("a CUDA GPU");
    let ctx = CudaContext::new(0).unwrap();
    let cu = ctx.new_stream().unwrap();
    let stream = Stream::from_cudarc(&dev, &cu).unwrap();
    Gpu {
        dev,
        ctx,
        cu,
        stream,
    }
}

fn comm_of(dev: &Device) -> Communicator {
    Communicator::init_all(std::slice::from_ref(dev), &Config::new().blocking(false))
        .unwrap()
        .pop()
        .unwrap()
}

/// `s` has not completed for a while (it waits for a closed gate).
fn assert_held(s: &Stream, what: &str) {
    thread::sleep(Duration::from_millis(100));
    assert!(!s.query().unwrap(), "{what}: the stream ran ahead");
}

/// Opens `gate` from another thread after `after`.
fn open_later(gate: &Arc<Gate>, after: Duration) -> thread::JoinHandle<()> {
    let gate = gate.clone();
    thread::spawn(move || {
        thread::sleep(after);
        gate.open();
    })
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_streams_round_trip_without_copies() {
    let g = gpu();
    // The cudarc stream is the same queue, kept alive by ours.
    assert_eq!(
        g.stream.as_raw().unwrap() as usize,
        g.cu.cu_stream() as usize
    );
    assert!(Arc::ptr_eq(g.stream.cudarc_stream().unwrap(), &g.cu));
    // SAFETY: the returned Arc is the cudarc stream itself (it came from cudarc).
    let back = unsafe { g.stream.to_cudarc(&g.ctx) }.unwrap();
    assert!(Arc::ptr_eq(&back, &g.cu));
    // One of ours, lent to cudarc: the same raw stream, dropped before ours.
    let ours = Stream::new(&g.dev).unwrap();
    // SAFETY: `lent` is dropped at the end of this block, before `ours`.
    let lent = unsafe { ours.to_cudarc(&g.ctx) }.unwrap();
    assert_eq!(lent.cu_stream() as usize, ours.as_raw().unwrap() as usize);
    let x = lent.clone_htod(&[5u32; 64]).unwrap();
    assert_eq!(lent.clone_dtoh(&x).unwrap(), vec![5u32; 64]);
    drop((x, lent));
    // Our stream outlives the cudarc `Arc` the caller dropped.
    let Gpu { stream, cu, .. } = g;
    let weak = Arc::downgrade(&cu);
    drop(cu);
    assert!(
        weak.upgrade().is_some(),
        "our Stream keeps the cudarc stream alive"
    );
    let y = DeviceBuffer::from_slice(&stream, &[1i32; 8]).unwrap();
    assert_eq!(y.to_vec(&stream).unwrap(), vec![1; 8]);
    drop((y, stream));
    assert!(weak.upgrade().is_none(), "released with the last Stream");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_the_per_thread_stream_is_refused_with_a_typed_error() {
    let g = gpu();
    let e = Stream::from_cudarc(&g.dev, &g.ctx.per_thread_stream()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                op: "Stream::from_cudarc",
                ..
            }
        ),
        "{e:?}"
    );
    // A stream of ours is not a cudarc stream: lending our memory on it is refused.
    let ours = Stream::new(&g.dev).unwrap();
    let buf = DeviceBuffer::from_slice(&ours, &[1.0f32; 4]).unwrap();
    let e = buf.with_cudarc(&ours, |_, _| ()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                op: "with_cudarc",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("Stream::from_cudarc"), "{e}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_cudarc_copy_then_our_all_reduce_on_another_stream_is_ordered() {
    let g = gpu();
    let comm = comm_of(&g.dev);
    let comm_stream = Stream::new(&g.dev).unwrap();
    let gate = Arc::new(Gate::new(&g.dev).unwrap());
    let n = 1 << 20;
    let mut slice = g.cu.alloc_zeros::<f32>(n).unwrap();
    // cudarc's copy, held back on its stream behind the gate. From pinned memory: a
    // copy from pageable memory would make the host wait for the gated stream first.
    // SAFETY: every element is written below before the copy reads it.
    let mut host = unsafe { g.ctx.alloc_pinned::<f32>(n) }.unwrap();
    host.as_mut_slice().unwrap().fill(7.0);
    g.stream.wait_gate(&gate).unwrap();
    g.cu.memcpy_htod(&host, &mut slice).unwrap();
    let send = CudarcBuffer::new(&g.dev, slice).unwrap();
    let mut recv = DeviceBuffer::<f32>::alloc(&g.dev, n).unwrap();
    // Our collective on another stream waits for cudarc's copy by itself.
    comm.all_reduce(&send, &mut recv, ReduceOp::Sum, &comm_stream)
        .unwrap();
    assert_held(&comm_stream, "the all_reduce waits for cudarc's copy");
    gate.open();
    assert_eq!(recv.to_vec(&comm_stream).unwrap(), vec![7.0; n]);
    drop(send);
    comm.close().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_our_all_reduce_then_cudarc_work_on_its_stream_is_ordered() {
    let g = gpu();
    let comm = comm_of(&g.dev);
    let comm_stream = Stream::new(&g.dev).unwrap();
    let gate = Arc::new(Gate::new(&g.dev).unwrap());
    let n = 4096;
    let mut x = DeviceBuffer::from_slice(&comm_stream, &vec![3i32; n]).unwrap();
    comm_stream.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &comm_stream)
        .unwrap();
    x.add_scalar(&comm_stream, 10).unwrap(); // 13 once the gate opens
    // cudarc copies our buffer on its own stream: it first waits for the collective.
    let copy = x
        .with_cudarc(&g.stream, |cu, view| cu.clone_dtod(&view))
        .unwrap()
        .unwrap();
    assert_held(&g.stream, "cudarc's copy waits for our collective");
    let opener = open_later(&gate, Duration::from_millis(50));
    assert_eq!(g.cu.clone_dtoh(&copy).unwrap(), vec![13; n]);
    opener.join().unwrap();
    comm.close().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_cudarc_kernel_writes_our_buffer_between_our_collectives() {
    let g = gpu();
    let comm = comm_of(&g.dev);
    let comm_stream = Stream::new(&g.dev).unwrap();
    let gate = Arc::new(Gate::new(&g.dev).unwrap());
    // A real kernel launched through cudarc: the PTX of this crate's add-scalar kernel
    // (it takes `(u64 ptr, u64 n, f32 scalar)`), loaded and launched with cudarc.
    let ptx = std::ffi::CString::new(nccl_safe::builtin_kernels_ptx()).unwrap();
    g.ctx.bind_to_thread().unwrap();
    // SAFETY: `ptx` is a NUL-terminated PTX image; the module stays loaded for the
    // test's lifetime (never unloaded).
    let module = unsafe { result::module::load_data(ptx.as_ptr().cast()) }.unwrap();
    let name = std::ffi::CString::new("nccl_rs_add_f32").unwrap();
    // SAFETY: a loaded module and an entry it defines.
    let add = unsafe { result::module::get_function(module, name) }.unwrap();
    let n = 100_000usize;
    let mut x = DeviceBuffer::from_slice(&comm_stream, &vec![1.0f32; n]).unwrap();
    comm_stream.wait_gate(&gate).unwrap();
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &comm_stream)
        .unwrap();
    x.with_cudarc_mut(&g.stream, |cu, mut view| {
        let (ptr, _record) = view.device_ptr_mut(cu);
        let (mut p, mut count, mut scalar) = (ptr, n as u64, 100.0f32.to_bits());
        let mut params = [
            (&mut p as *mut u64).cast::<std::ffi::c_void>(),
            (&mut count as *mut u64).cast(),
            (&mut scalar as *mut u32).cast(),
        ];
        // SAFETY: the kernel's parameters are (u64, u64, b32) as given; it touches
        // only the `n` elements of the lent view, on the stream lent with it (the
        // unsafe boundary of the module docs' rule 6).
        unsafe {
            result::launch_kernel(add, (64, 1, 1), (256, 1, 1), 0, cu.cu_stream(), &mut params)
        }
    })
    .unwrap()
    .unwrap();
    assert_held(&g.stream, "the cudarc kernel waits for our collective");
    // Our next collective on the comm stream waits for the cudarc kernel.
    comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &comm_stream)
        .unwrap();
    gate.open();
    assert_eq!(x.to_vec(&comm_stream).unwrap(), vec![101.0; n]);
    comm.close().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_into_inner_hands_the_slice_back_after_our_pending_work() {
    let g = gpu();
    let ours = Stream::new(&g.dev).unwrap();
    let gate = Arc::new(Gate::new(&g.dev).unwrap());
    let mut buf = CudarcBuffer::new(&g.dev, g.cu.alloc_zeros::<u32>(1024).unwrap()).unwrap();
    assert_eq!(buf.len(), 1024);
    ours.wait_gate(&gate).unwrap();
    buf.fill(&ours, 42).unwrap(); // pending behind the gate
    let t = Instant::now();
    let slice = buf.into_inner().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "into_inner blocked the host"
    );
    // cudarc reads it on its stream, which waits for our fill.
    let opener = open_later(&gate, Duration::from_millis(100));
    assert_eq!(g.cu.clone_dtoh(&slice).unwrap(), vec![42; 1024]);
    opener.join().unwrap();
    // And on another cudarc stream, through cudarc's own write event.
    let other = g.ctx.new_stream().unwrap();
    assert_eq!(other.clone_dtoh(&slice).unwrap(), vec![42; 1024]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_dropping_a_cudarc_buffer_with_pending_work_never_blocks() {
    let g = gpu();
    let ours = Stream::new(&g.dev).unwrap();
    let gate = Arc::new(Gate::new(&g.dev).unwrap());
    let mut buf = CudarcBuffer::new(&g.dev, g.cu.alloc_zeros::<f32>(1 << 16).unwrap()).unwrap();
    ours.wait_gate(&gate).unwrap();
    buf.scale(&ours, 2.0).unwrap();
    let t = Instant::now();
    drop(buf); // the slice is dropped once the scale completed
    assert!(
        t.elapsed() < Duration::from_secs(1),
        "dropping blocked the host"
    );
    // cudarc's stream is not made to wait (Decision 3): it runs on.
    let y = g.cu.clone_htod(&[1u8; 16]).unwrap();
    assert_eq!(g.cu.clone_dtoh(&y).unwrap(), vec![1u8; 16]);
    gate.open();
    ours.synchronize_timeout(PATIENCE).unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_a_cudarc_read_on_another_cudarc_stream_waits_through_cudarcs_events() {
    // Rule 5: work a closure puts on another cudarc stream is ordered by cudarc's
    // own event tracking (on by default once the context made a stream).
    let g = gpu();
    let other = g.ctx.new_stream().unwrap();
    let ours = Stream::new(&g.dev).unwrap();
    let gate = Arc::new(Gate::new(&g.dev).unwrap());
    let mut x = DeviceBuffer::<f32>::alloc(&g.dev, 512).unwrap();
    ours.wait_gate(&gate).unwrap();
    x.fill(&ours, 9.0).unwrap();
    let copy = x
        .with_cudarc(&g.stream, |_, view| other.clone_dtod(&view))
        .unwrap()
        .unwrap();
    let opener = open_later(&gate, Duration::from_millis(100));
    assert_eq!(other.clone_dtoh(&copy).unwrap(), vec![9.0; 512]);
    opener.join().unwrap();
    // The view's read pointer: the address of our buffer, not a copy.
    let addr = x
        .with_cudarc(&g.stream, |cu, view| view.device_ptr(cu).0)
        .unwrap();
    // SAFETY: only compared, never dereferenced.
    assert_eq!(addr, unsafe { x.as_view().device_ptr() }.0);
}
