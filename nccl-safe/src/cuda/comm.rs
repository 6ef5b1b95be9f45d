//! NCCL on the cuda driver: libnccl through nccl-sys.
//!
//! Every NCCL communicator is created non-blocking (Decision 5), whatever the user's
//! config says: a "blocking" communicator is one whose init the safe layer waits for.
//! So no NCCL call blocks for long, and no call holds a device's NCCL lock (Decision 7)
//! while it waits for peers or for the device: a call that returns `ncclInProgress`
//! is polled with `ncclCommGetAsyncError`, taking the lock for each poll only, until
//! it succeeds, fails, or its deadline passes. Teardown (`ncclCommAbort`,
//! `ncclCommDestroy`) frees memory, which waits for the whole device, so it runs
//! without the lock, after the communicator was taken out under it.
//!
//! Memory NCCL keeps pointers into lives on the heap as long as NCCL may use it: the
//! config and its strings (`commName`) with the communicator, and the out-slot of a
//! split that could not be confirmed with its parent.
//!
//! Past 600 lines: one launch's NCCL calls already moved to `issue.rs`; what stays is
//! the communicator's lifecycle against libnccl, whose ordering rules (the launch-order
//! lock, confirmation, abort) need to be read together.

use std::ffi::CString;
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nccl_sys as sys;

use super::issue::{issue, started};
use super::{CudaDevice, CudaStream};
use crate::base::config::Config;
use crate::base::op::{LaunchOp, RedOp};
use crate::sync::lock;
use crate::{Error, Result, check};

pub(super) fn lib() -> Result<&'static sys::Nccl> {
    Ok(sys::nccl()?)
}

/// The config as NCCL got it, with the strings it points into. NCCL keeps those
/// pointers (the background init and profiler plugins read `commName`), so both stay
/// on the heap for as long as the communicator.
pub(super) struct RawConfig {
    raw: sys::ncclConfig_t,
    _strings: Vec<CString>,
}

impl RawConfig {
    /// `config` made non-blocking (see the module's comment).
    pub(super) fn new(config: &Config) -> Result<Box<RawConfig>> {
        let (mut raw, strings) = config.to_raw()?;
        raw.blocking = 0;
        Ok(Box::new(RawConfig {
            raw,
            _strings: strings,
        }))
    }

    pub(super) fn as_mut_ptr(&mut self) -> *mut sys::ncclConfig_t {
        &mut self.raw
    }
}

/// A split whose end could not be confirmed: NCCL's background job may still write
/// the child into `slot` and read `config`, so both live until the parent is torn
/// down, which then aborts the child if one appeared.
struct Unconfirmed {
    slot: Box<sys::ncclComm_t>,
    config: Box<RawConfig>,
}

/// The parent's unconfirmed splits, and whether the parent was freed.
#[derive(Default)]
struct Splits {
    splits: Vec<Unconfirmed>,
    parent_freed: bool,
}

/// A raw communicator; `None` once destroyed or aborted.
pub(crate) struct CudaComm {
    raw: Mutex<Option<usize>>,
    _config: Box<RawConfig>,
    unconfirmed: Mutex<Splits>,
    /// Set by a launch that failed once its calls were issued: the communicator must
    /// be aborted, which its owner does through the one teardown path (remember
    /// what is cut short, revoke, quiesce the device, abort) after the launch locks
    /// are released ([`CudaComm::take_needs_abort`]).
    needs_abort: AtomicBool,
}

// SAFETY: an ncclComm_t may be used from any thread; NCCL's rule that one thread at a
// time calls into NCCL per device is kept by the device's NCCL lock, taken around
// every call except the abort or destroy of a communicator already taken out under it
// (which no other thread can reach any more). The config is only read by NCCL.
unsafe impl Send for CudaComm {}
// SAFETY: as above.
unsafe impl Sync for CudaComm {}

/// Polls `comm` (on `device`) until its state leaves `ncclInProgress`, under
/// `timeout`. The device's NCCL lock is taken for each poll and released between
/// polls, so an abort handle can get in (Decision 7); an aborted communicator ends
/// the wait with [`Error::Aborted`].
pub(super) fn poll(
    comm: &CudaComm,
    device: &CudaDevice,
    timeout: Duration,
    op: &'static str,
) -> Result<()> {
    settle(comm, device, timeout, op).and_then(|state| check(op, state))
}

/// As [`poll`], but returns the state the communicator settled in (any code but
/// `ncclInProgress`) instead of turning an error into one.
pub(super) fn settle(
    comm: &CudaComm,
    device: &CudaDevice,
    timeout: Duration,
    op: &'static str,
) -> Result<sys::ncclResult_t> {
    let lib = lib()?;
    let deadline = crate::sync::deadline(timeout);
    let mut pause = Duration::from_micros(1);
    loop {
        let state = {
            let _guard = device.nccl_lock();
            let raw = comm.raw()?;
            let mut state = sys::ncclSuccess;
            // SAFETY: a live communicator (the lock keeps abort out); writes one code.
            check("ncclCommGetAsyncError", unsafe {
                lib.ncclCommGetAsyncError(raw, &mut state)?
            })?;
            state
        };
        if state != sys::ncclInProgress {
            return Ok(state);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Error::Timeout {
                op,
                waited: timeout,
            });
        }
        // Short at first (an enqueue usually ends within microseconds), then at most
        // 50 us between polls.
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_micros(50));
    }
}

impl CudaComm {
    pub(super) fn from_parts(raw: sys::ncclComm_t, config: Box<RawConfig>) -> CudaComm {
        CudaComm {
            raw: Mutex::new(Some(raw as usize)),
            _config: config,
            unconfirmed: Mutex::new(Splits::default()),
            needs_abort: AtomicBool::new(false),
        }
    }

    pub(super) fn raw(&self) -> Result<sys::ncclComm_t> {
        match *lock(&self.raw) {
            Some(p) => Ok(p as sys::ncclComm_t),
            None => Err(Error::Aborted {
                what: "the communicator was aborted or destroyed".into(),
            }),
        }
    }

    /// Whether this communicator still holds `raw` (the caller holds the lock).
    fn holds(&self, raw: usize) -> bool {
        *lock(&self.raw) == Some(raw)
    }

    fn take(&self) -> Option<sys::ncclComm_t> {
        lock(&self.raw).take().map(|p| p as sys::ncclComm_t)
    }

    /// Starts this rank's init under the device's NCCL lock (not held by the caller);
    /// the caller waits for readiness (polling [`CudaComm::is_ready`]). One id is
    /// `ncclCommInitRankConfig`; several are `ncclCommInitRankScalable` (one bootstrap
    /// root per id), which the caller has checked the loaded NCCL has. When NCCL
    /// fails the call but made a communicator, it is aborted after the lock is
    /// released.
    pub fn init(
        device: &CudaDevice,
        rank: usize,
        size: usize,
        ids: &[sys::ncclUniqueId],
        config: &Config,
    ) -> Result<CudaComm> {
        let lib = lib()?;
        let mut cfg = RawConfig::new(config)?;
        let mut comm: sys::ncclComm_t = ptr::null_mut();
        let mut ids = ids.to_vec();
        let call = if ids.len() == 1 {
            "ncclCommInitRankConfig"
        } else {
            "ncclCommInitRankScalable"
        };
        let rc = {
            let _guard = device.nccl_lock();
            let _ctx = device.bind()?;
            if let [id] = ids[..] {
                // SAFETY: valid out-pointer and id; the config (and its strings) stay
                // on the heap with the communicator.
                unsafe {
                    lib.ncclCommInitRankConfig(
                        &mut comm,
                        size as i32,
                        id,
                        rank as i32,
                        cfg.as_mut_ptr(),
                    )?
                }
            } else {
                // SAFETY: valid out-pointer; `ids` holds `ids.len()` ids and outlives
                // the call (NCCL copies what it keeps); the config as above.
                unsafe {
                    lib.ncclCommInitRankScalable(
                        &mut comm,
                        size as i32,
                        rank as i32,
                        ids.len() as i32,
                        ids.as_mut_ptr(),
                        cfg.as_mut_ptr(),
                    )?
                }
            }
        };
        let created = CudaComm::from_parts(comm, cfg);
        if let Err(e) = started(call, rc) {
            if !comm.is_null() {
                let _ = created.free_now(device, "ncclCommAbort");
            }
            return Err(e);
        }
        Ok(created)
    }

    pub fn init_all(
        devices: &[std::sync::Arc<CudaDevice>],
        id: &sys::ncclUniqueId,
        config: &Config,
    ) -> Result<Vec<CudaComm>> {
        let lib = lib()?;
        let mut order: Vec<&std::sync::Arc<CudaDevice>> = devices.iter().collect();
        order.sort_by_key(|d| d.ordinal);
        let guards: Vec<_> = order.iter().map(|d| d.nccl_lock()).collect();
        let mut comms: Vec<CudaComm> = Vec::with_capacity(devices.len());
        // SAFETY: group calls have no arguments.
        check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
        let mut result = Ok(());
        for (rank, d) in devices.iter().enumerate() {
            let step = (|| -> Result<CudaComm> {
                let mut cfg = RawConfig::new(config)?;
                let _ctx = d.bind()?;
                let mut comm: sys::ncclComm_t = ptr::null_mut();
                // SAFETY: as in `init`.
                let rc = unsafe {
                    lib.ncclCommInitRankConfig(
                        &mut comm,
                        devices.len() as i32,
                        *id,
                        rank as i32,
                        cfg.as_mut_ptr(),
                    )?
                };
                let created = CudaComm::from_parts(comm, cfg);
                match started("ncclCommInitRankConfig", rc) {
                    Ok(()) => Ok(created),
                    Err(e) => {
                        if !comm.is_null() {
                            comms.push(created);
                        }
                        Err(e)
                    }
                }
            })();
            match step {
                Ok(c) => comms.push(c),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // The group always ends, also after an error.
        // SAFETY: closes the group opened above.
        let end = unsafe { lib.ncclGroupEnd() }
            .map_err(Error::from)
            .and_then(|rc| started("ncclGroupEnd", rc));
        drop(guards);
        if let Err(e) = result.and(end) {
            for (c, d) in comms.iter().zip(devices) {
                let _ = c.free_now(d, "ncclCommAbort");
            }
            return Err(e);
        }
        Ok(comms)
    }

    pub fn is_ready(&self) -> Result<bool> {
        let lib = lib()?;
        let mut state = sys::ncclSuccess;
        // SAFETY: a live communicator; writes one result code.
        check("ncclCommGetAsyncError", unsafe {
            lib.ncclCommGetAsyncError(self.raw()?, &mut state)?
        })?;
        if state == sys::ncclInProgress {
            return Ok(false);
        }
        check("ncclCommInitRankConfig", state)?;
        Ok(true)
    }

    pub fn async_error(&self) -> Result<Option<Error>> {
        let lib = lib()?;
        let mut state = sys::ncclSuccess;
        // SAFETY: as above.
        check("ncclCommGetAsyncError", unsafe {
            lib.ncclCommGetAsyncError(self.raw()?, &mut state)?
        })?;
        Ok(match state {
            sys::ncclSuccess | sys::ncclInProgress => None,
            rc => check("asynchronous error", rc).err(),
        })
    }

    /// Launches `calls` in one NCCL group on `stream`, polled until NCCL has enqueued
    /// them (see [`launch_group`]).
    pub fn launch(
        &self,
        device: &CudaDevice,
        stream: &CudaStream,
        calls: &[LaunchOp],
        config: &Config,
        event: Option<sys::CUevent>,
    ) -> Result<()> {
        launch_group(&[(self, device, stream, calls, config, event)])
    }

    /// Whether a failed launch left this communicator to be aborted (see
    /// `needs_abort`). It stays set: the abort ends the communicator.
    pub fn needs_abort(&self) -> bool {
        self.needs_abort.load(Ordering::Acquire)
    }

    /// `ncclCommRevoke`: stops in-flight operations without freeing (so without
    /// waiting for the device). `false` when the loaded NCCL lacks it or it fails.
    /// It runs under the NCCL lock: with the abort flag set NCCL joins the
    /// communicator's in-flight group job, which ends promptly (the flag stops it);
    /// that join is the one wait taken under the lock, accepted because nothing but
    /// that job can hold it up.
    pub fn revoke(&self, device: &CudaDevice) -> bool {
        let Ok(lib) = lib() else { return false };
        if lib.has_function("ncclCommRevoke") != Some(true) {
            return false;
        }
        let _guard = device.nccl_lock();
        let Ok(raw) = self.raw() else { return false };
        let Ok(_ctx) = device.bind() else {
            return false;
        };
        // SAFETY: a live communicator; revoke frees nothing.
        let rc = unsafe { lib.ncclCommRevoke(raw, sys::NCCL_REVOKE_DEFAULT as i32) };
        matches!(rc, Ok(sys::ncclSuccess | sys::ncclInProgress))
    }

    pub fn abort(&self, device: &CudaDevice) -> Result<()> {
        self.free_now(device, "ncclCommAbort")
    }

    pub fn destroy(&self, device: &CudaDevice) -> Result<()> {
        self.free_now(device, "ncclCommDestroy")
    }

    /// Takes the communicator out (later calls see it gone: taking it happens under the
    /// device's NCCL lock) and frees it with `call` (abort or destroy) *without* the
    /// lock: both free memory, which waits for the whole device, and another
    /// communicator's watchdog or abort handle must still get the lock meanwhile.
    /// A failed destroy is followed by an abort (NCCL's destroy can fail after opening
    /// a group, which is closed first, so this thread's later groups are not absorbed
    /// into it). Then the children of unconfirmed splits are settled. A no-op when it
    /// is already gone.
    fn free_now(&self, device: &CudaDevice, call: &'static str) -> Result<()> {
        let lib = lib()?;
        let ctx = device.bind()?;
        let comm = {
            let _guard = device.nccl_lock();
            self.take()
        };
        let Some(comm) = comm else {
            return Ok(());
        };
        // SAFETY: the communicator was live and is now owned here alone (taken out
        // under the lock); abort frees it even with work pending, destroy after the
        // caller's finalize.
        let rc = unsafe {
            if call == "ncclCommDestroy" {
                lib.ncclCommDestroy(comm)
            } else {
                lib.ncclCommAbort(comm)
            }
        };
        let result = rc.map_err(Error::from).and_then(|rc| check(call, rc));
        if result.is_err() && call == "ncclCommDestroy" {
            // SAFETY: ends the group a failed destroy may have left open (without one
            // NCCL answers ncclInvalidUsage, ignored), then aborts the communicator,
            // which the failed destroy did not free.
            unsafe {
                let _ = lib.ncclGroupEnd();
                let _ = lib.ncclCommAbort(comm);
            }
        }
        drop(ctx);
        self.settle_unconfirmed(device, true);
        result
    }

    /// Settles the splits of [`Unconfirmed`]: once the parent is freed (its abort or
    /// destroy joins NCCL's split job, so the slot is final), each child NCCL made is
    /// aborted, and a slot it never wrote is leaked (8 bytes) rather than freed.
    /// `parent_freed` marks the parent freed; a split that fails later settles its own.
    fn settle_unconfirmed(&self, device: &CudaDevice, parent_freed: bool) {
        let list = {
            let mut u = lock(&self.unconfirmed);
            if parent_freed {
                u.parent_freed = true;
            }
            if !u.parent_freed {
                return;
            }
            std::mem::take(&mut u.splits)
        };
        for split in list {
            // SAFETY: the slot is NCCL's out-pointer of the split, final once the
            // parent is freed (see above).
            let child = unsafe { ptr::read_volatile(&*split.slot) };
            if !child.is_null() {
                let orphan = CudaComm::from_parts(child, split.config);
                let _ = orphan.free_now(device, "ncclCommAbort");
            }
            std::mem::forget(split.slot);
        }
    }

    pub fn finalize(&self, device: &CudaDevice, timeout: Duration) -> Result<()> {
        {
            let _guard = device.nccl_lock();
            let comm = self.raw()?;
            let _ctx = device.bind()?;
            // SAFETY: a live communicator.
            started("ncclCommFinalize", unsafe {
                lib()?.ncclCommFinalize(comm)?
            })?;
        }
        poll(self, device, timeout, "ncclCommFinalize")
    }

    /// Splits; polled without the NCCL lock. The child's out-slot and config are on
    /// the heap: when the parent's poll fails (or times out), NCCL's job may still
    /// write the slot, so both stay with the parent (see [`Unconfirmed`]) and the
    /// parent is aborted; a child whose own init then fails is aborted.
    pub fn split(
        &self,
        device: &CudaDevice,
        color: Option<u32>,
        key: i32,
        config: &Config,
        timeout: Duration,
    ) -> Result<Option<(usize, usize, CudaComm)>> {
        let lib = lib()?;
        let color = color.map_or(sys::NCCL_SPLIT_NOCOLOR, |c| c as i32);
        self.child(
            device,
            "ncclCommSplit",
            config,
            timeout,
            |parent, slot, cfg| {
                // SAFETY: a live parent; the out-slot and the config are on the heap and
                // outlive NCCL's use of them (see `child`).
                Ok(unsafe { lib.ncclCommSplit(parent, color, key, slot, cfg)? })
            },
        )
    }

    /// Makes a child of this communicator (a split, shrink or grow) with `start`,
    /// given the parent, the child's out-slot and its config: the call is issued
    /// under the NCCL lock, then the parent and the child are polled without it.
    /// `None` when NCCL made no child for this rank (a split without a colour).
    ///
    /// When the parent's poll fails, the parent cannot be used again (NCCL refuses
    /// every call on a communicator whose last one did not succeed) and NCCL's job
    /// may still create the child: the parent is aborted, which joins that job, then
    /// the child is aborted if it appeared (or, when another thread is freeing the
    /// parent, that thread does once its abort returned).
    pub(super) fn child(
        &self,
        device: &CudaDevice,
        call: &'static str,
        config: &Config,
        timeout: Duration,
        start: impl FnOnce(
            sys::ncclComm_t,
            *mut sys::ncclComm_t,
            *mut sys::ncclConfig_t,
        ) -> Result<sys::ncclResult_t>,
    ) -> Result<Option<(usize, usize, CudaComm)>> {
        let lib = lib()?;
        let mut cfg = RawConfig::new(config)?;
        let mut slot: Box<sys::ncclComm_t> = Box::new(ptr::null_mut());
        // Making a child launches work on the device like a collective (see
        // `launch_group`).
        let order = device.launch_lock();
        {
            let _guard = device.nccl_lock();
            let parent = self.raw()?;
            let _ctx = device.bind()?;
            started(call, start(parent, &mut *slot, cfg.as_mut_ptr())?)?;
        }
        if let Err(e) = poll(self, device, timeout, call) {
            drop(order);
            lock(&self.unconfirmed)
                .splits
                .push(Unconfirmed { slot, config: cfg });
            let _ = self.free_now(device, "ncclCommAbort");
            self.settle_unconfirmed(device, false);
            return Err(e);
        }
        drop(order);
        let new = *slot;
        if new.is_null() {
            return Ok(None);
        }
        let child = CudaComm::from_parts(new, cfg);
        if let Err(e) = poll(&child, device, timeout, call) {
            let _ = child.abort(device);
            return Err(e);
        }
        let (mut rank, mut size) = (0, 0);
        {
            let _guard = device.nccl_lock();
            // SAFETY: a live communicator; each writes one int.
            unsafe {
                check("ncclCommUserRank", lib.ncclCommUserRank(new, &mut rank)?)?;
                check("ncclCommCount", lib.ncclCommCount(new, &mut size)?)?;
            }
        }
        Ok(Some((rank as usize, size as usize, child)))
    }
}

/// Marks every communicator of a failed launch to be aborted by its owner (see
/// `CudaComm::needs_abort`): NCCL launches the calls issued before a failing one, and
/// an unconfirmed launch may still leave kernels running on a dead peer. Aborting
/// here, under the launch locks, would skip the device's quiesce step and hold up
/// every other launch on the device while the abort's frees wait for it.
fn must_abort(comms: &[(&CudaComm, &CudaDevice)], e: Error) -> Error {
    for (c, _) in comms {
        c.needs_abort.store(true, Ordering::Release);
    }
    e
}

/// The error of a launch NCCL did not confirm in time; its communicators are aborted
/// by their owners next (`must_abort`): an aborted communicator enqueues nothing more,
/// and its kernels that already run stop at the abort flag. (The buffers' uses are
/// recorded after the launch whatever its result, so their frees wait for what did
/// run.)
fn unconfirmed_launch(waited: Duration) -> Error {
    Error::Aborted {
        what: format!(
            "NCCL did not confirm the launch (ncclGroupEnd still in progress after \
             {waited:?}); the communicator is aborted so that no kernel can use the \
             buffers after they are freed"
        ),
    }
}

/// Destroys the PreMulSum ops of a launch, after its group ended and was polled, for
/// the communicators of `comms` that still hold theirs: an op of a communicator
/// aborted or destroyed meanwhile (by a watchdog or an abort handle) was freed with it.
/// The caller holds the NCCL lock of every device involved.
pub(crate) fn destroy_ops_locked(created: Vec<(sys::ncclRedOp_t, usize)>, comms: &[&CudaComm]) {
    let Ok(lib) = lib() else { return };
    for (op, comm) in created {
        if !comms.iter().any(|c| c.holds(comm)) {
            continue;
        }
        // SAFETY: created for this communicator, which is still live (checked under
        // the lock); NCCL copied the op's state at the call.
        let _ = unsafe { lib.ncclRedOpDestroy(op, comm as sys::ncclComm_t) };
    }
}

/// One communicator's part of a launch.
pub(crate) type Part<'a> = (
    &'a CudaComm,
    &'a CudaDevice,
    &'a CudaStream,
    &'a [LaunchOp],
    &'a Config,
    // The launch-completion event of the op whose `launch_event` is set.
    Option<sys::CUevent>,
);

/// Launches the calls of one or more communicators of this process in one NCCL group
/// and polls each until NCCL confirms the enqueue.
///
/// - Order: since NCCL 2.23 a non-blocking communicator's group launches its kernels
///   from a background thread after `ncclGroupEnd` returned, so the device's NCCL lock
///   alone no longer orders the kernels of two communicators of one device. The
///   devices' launch locks (taken first, in ordinal order) are held until every part
///   is confirmed, so launches on a device reach it in the order they were made
///   (Decision 7); aborts and queries take only the NCCL lock and get through.
/// - Checks that cannot fail inside NCCL (a live communicator, its context, device
///   scalars) run before `ncclGroupStart`, so a refusal leaves nothing half-issued.
/// - Any failure once a call was issued leaves every communicator of the launch to be
///   aborted by its owner once this returns (`must_abort`): NCCL launches the calls
///   issued before a failing one, and a failed confirmation may still leave kernels
///   running on a dead peer.
/// - The PreMulSum ops are destroyed afterwards, for the communicators still held.
pub(crate) fn launch_group(parts: &[Part<'_>]) -> Result<()> {
    launch_group_with(parts, &|lib, raw, stream, part, created| {
        let (_, _, _, calls, _, event) = part;
        for call in *calls {
            let event = event.filter(|_| call.launch_event);
            issue(lib, raw, stream, call, event, created)?;
        }
        Ok(())
    })
}

/// Issues one part's NCCL calls inside the open group: the library, the raw
/// communicator and stream, the part, and the PreMulSum ops made so far.
pub(crate) type IssuePart<'f> = dyn Fn(
        &sys::Nccl,
        sys::ncclComm_t,
        sys::CUstream,
        &Part<'_>,
        &mut Vec<(sys::ncclRedOp_t, usize)>,
    ) -> Result<()>
    + 'f;

/// [`launch_group`], each part's calls issued by `issue_part` (the one-sided
/// operations issue theirs, not a [`LaunchOp`]'s).
pub(crate) fn launch_group_with(parts: &[Part<'_>], issue_part: &IssuePart<'_>) -> Result<()> {
    let lib = lib()?;
    let mut devices: Vec<&CudaDevice> = Vec::new();
    for (_, d, ..) in parts {
        if !devices.iter().any(|e| std::ptr::eq(*e, *d)) {
            devices.push(d);
        }
    }
    devices.sort_by_key(|d| d.ordinal);
    let _order: Vec<_> = devices.iter().map(|d| d.launch_lock()).collect();
    let comms: Vec<(&CudaComm, &CudaDevice)> = parts.iter().map(|(c, d, ..)| (*c, *d)).collect();
    // A communicator an earlier launch left to be aborted takes nothing more: its
    // owner aborts it as soon as that launch returned (NCCL forbids calls on a
    // communicator whose group failed or is still in progress).
    if comms.iter().any(|(c, _)| c.needs_abort()) {
        return Err(Error::Aborted {
            what: "an earlier launch on this communicator failed once issued; it is being \
                   aborted"
                .into(),
        });
    }
    let (created, issued) = {
        let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
        let mut raws = Vec::with_capacity(parts.len());
        for (comm, _, stream, calls, _, _) in parts {
            raws.push(comm.raw()?);
            drop(stream.device.bind()?);
            if calls
                .iter()
                .any(|c| matches!(c.desc.op, RedOp::PreMulSumDevice) && c.scalar.is_none())
            {
                return Err(Error::InvalidArgument {
                    op: "premulsum",
                    reason: "no device scalar".into(),
                });
            }
        }
        let mut created = Vec::new();
        // SAFETY: no arguments.
        check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
        let mut result = Ok(());
        for (part, raw) in parts.iter().zip(&raws) {
            let stream = part.2;
            let _ctx = match stream.device.bind() {
                Ok(c) => c,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if let Err(e) = issue_part(lib, *raw, stream.raw, part, &mut created) {
                result = Err(e);
                break;
            }
        }
        // The group always ends, also after an error.
        // SAFETY: closes the group opened above.
        let end = unsafe { lib.ncclGroupEnd() }
            .map_err(Error::from)
            .and_then(|rc| started("ncclGroupEnd", rc));
        (created, result.and(end))
    };
    if let Err(e) = issued {
        return Err(must_abort(&comms, e));
    }
    for (comm, device, _, _, config, _) in parts {
        match poll(comm, device, config.call_timeout, "ncclGroupEnd") {
            Ok(()) => {}
            Err(Error::Timeout { waited, .. }) => {
                return Err(must_abort(&comms, unconfirmed_launch(waited)));
            }
            Err(e) => return Err(must_abort(&comms, e)),
        }
    }
    let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
    let held: Vec<&CudaComm> = comms.iter().map(|(c, _)| *c).collect();
    destroy_ops_locked(created, &held);
    Ok(())
}

/// `ncclCommFinalize` on several communicators in one NCCL group (under their devices'
/// locks, taken in ordinal order and released before polling), then each polled.
pub(crate) fn finalize_many(comms: &[(&CudaComm, &CudaDevice, Duration)]) -> Result<()> {
    let lib = lib()?;
    {
        let mut devices: Vec<&CudaDevice> = Vec::new();
        for (_, d, _) in comms {
            if !devices.iter().any(|e| std::ptr::eq(*e, *d)) {
                devices.push(d);
            }
        }
        devices.sort_by_key(|d| d.ordinal);
        let _guards: Vec<_> = devices.iter().map(|d| d.nccl_lock()).collect();
        // SAFETY: no arguments.
        check("ncclGroupStart", unsafe { lib.ncclGroupStart()? })?;
        let mut result = Ok(());
        for (comm, device, _) in comms {
            let step = (|| {
                let raw = comm.raw()?;
                let _ctx = device.bind()?;
                // SAFETY: a live communicator.
                started("ncclCommFinalize", unsafe { lib.ncclCommFinalize(raw)? })
            })();
            if let Err(e) = step {
                result = Err(e);
                break;
            }
        }
        // The group always ends.
        // SAFETY: closes the group opened above.
        let end = unsafe { lib.ncclGroupEnd() };
        result?;
        started("ncclGroupEnd", end?)?;
    }
    for (comm, device, timeout) in comms {
        poll(comm, device, *timeout, "ncclCommFinalize")?;
    }
    Ok(())
}
