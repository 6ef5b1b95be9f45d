//! CUDA graphs of NCCL calls: one launch's calls captured from a stream
//! (`cuStreamBeginCapture` .. `cuStreamEndCapture`), instantiated, and replayed with
//! `cuGraphLaunch`.

use std::ptr;
use std::sync::Arc;

use nccl_sys as sys;

use super::comm::Part;
use super::{CudaDevice, CudaStream};
use crate::Result;
use crate::error::check_cuda;

/// An instantiated graph; destroyed with the value.
pub(crate) struct CudaGraphExec {
    device: Arc<CudaDevice>,
    exec: sys::CUgraphExec,
}

// SAFETY: a graph exec is a handle the driver lets any thread use once the device's
// context is current, which every use here makes so.
unsafe impl Send for CudaGraphExec {}
// SAFETY: as above; launches of one exec are serialised by the driver.
unsafe impl Sync for CudaGraphExec {}

impl CudaGraphExec {
    /// Replays the graph on `stream`.
    pub fn launch(&self, stream: &CudaStream) -> Result<()> {
        let lib = sys::cuda()?;
        let _ctx = self.device.bind()?;
        // SAFETY: a live exec of this device and a live stream of it.
        check_cuda("cuGraphLaunch", unsafe {
            lib.cuGraphLaunch(self.exec, stream.raw)?
        })
    }
}

impl Drop for CudaGraphExec {
    fn drop(&mut self) {
        let Ok(lib) = sys::cuda() else { return };
        let Ok(_ctx) = self.device.bind() else { return };
        // SAFETY: destroyed once; the driver keeps it alive until replays enqueued
        // before complete.
        let _ = unsafe { lib.cuGraphExecDestroy(self.exec) };
    }
}

/// Captures `part`'s calls, issued as one NCCL group on its stream, into a graph, and
/// instantiates it. Nothing runs now.
pub(crate) fn capture(part: &Part<'_>) -> Result<CudaGraphExec> {
    let lib = sys::cuda()?;
    let (_, device, stream, _, _, _) = part;
    let _ctx = device.bind()?;
    // SAFETY: a live stream of this device; thread-local capture leaves other
    // threads' CUDA calls alone.
    check_cuda("cuStreamBeginCapture", unsafe {
        lib.cuStreamBeginCapture_v2(stream.raw, sys::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?
    })?;
    let issued = super::comm::launch_group(std::slice::from_ref(part));
    let mut graph: sys::CUgraph = ptr::null_mut();
    // SAFETY: ends the capture begun above, also after a failed issue.
    let ended = check_cuda("cuStreamEndCapture", unsafe {
        lib.cuStreamEndCapture(stream.raw, &mut graph)?
    });
    let destroy_graph = |g: sys::CUgraph| {
        if !g.is_null() {
            // SAFETY: the graph the capture made, destroyed once (the exec keeps its
            // own copy).
            let _ = unsafe { lib.cuGraphDestroy(g) };
        }
    };
    if let Err(e) = issued.and(ended) {
        destroy_graph(graph);
        return Err(e);
    }
    let mut exec: sys::CUgraphExec = ptr::null_mut();
    // SAFETY: a graph just captured; writes one exec.
    let made = check_cuda("cuGraphInstantiateWithFlags", unsafe {
        lib.cuGraphInstantiateWithFlags(&mut exec, graph, 0)?
    });
    destroy_graph(graph);
    made?;
    Ok(CudaGraphExec {
        device: Arc::clone(&stream.device),
        exec,
    })
}
