// Generated with bindgen by nccl-sys's build script (feature `buildtime-bindgen`)
// from nccl.h with NCCL_VERSION_CODE 23203 and cuda.h with CUDA_VERSION 12090.
// Do not edit: `ci/regen-bindings` rewrites the bundled copy in src/bundled/ from the
// pinned headers, and `ci/regen-bindings --check` (run by ci/test) fails on any drift.

pub const CUDA_VERSION: u32 = 12090;
pub const CU_MEMHOSTALLOC_PORTABLE: u32 = 1;
pub const CU_MEMHOSTALLOC_DEVICEMAP: u32 = 2;
pub const CU_MEMHOSTALLOC_WRITECOMBINED: u32 = 4;
pub const CU_MEMHOSTREGISTER_PORTABLE: u32 = 1;
pub const CU_MEMHOSTREGISTER_DEVICEMAP: u32 = 2;
pub const CU_MEMHOSTREGISTER_IOMEMORY: u32 = 4;
pub const CU_MEMHOSTREGISTER_READ_ONLY: u32 = 8;
pub const NCCL_MAJOR: u32 = 2;
pub const NCCL_MINOR: u32 = 32;
pub const NCCL_PATCH: u32 = 3;
pub const NCCL_SUFFIX: &::std::ffi::CStr = c"";
pub const NCCL_VERSION_CODE: u32 = 23203;
pub const NCCL_UNIQUE_ID_BYTES: u32 = 128;
pub const NCCL_SPLIT_NOCOLOR: i32 = -1;
pub const NCCL_UNDEF_FLOAT: f64 = -1.0;
pub const NCCL_API_MAGIC: u32 = 3405692655;
pub const NCCL_WIN_DEFAULT: u32 = 0;
pub const NCCL_WIN_COLL_SYMMETRIC: u32 = 1;
pub const NCCL_WIN_STRICT_ORDERING: u32 = 2;
pub const NCCL_WIN_GIN_ONLY: u32 = 4;
pub const NCCL_WIN_CFT_COUNTED: u32 = 8;
pub const NCCL_WIN_REQUIRED_ALIGNMENT: u32 = 4096;
pub const NCCL_CTA_POLICY_DEFAULT: u32 = 0;
pub const NCCL_CTA_POLICY_EFFICIENCY: u32 = 1;
pub const NCCL_CTA_POLICY_ZERO: u32 = 2;
pub const NCCL_SHRINK_DEFAULT: u32 = 0;
pub const NCCL_SHRINK_ABORT: u32 = 1;
pub const NCCL_REVOKE_DEFAULT: u32 = 0;
pub const NCCL_SUSPEND_MEM: u32 = 1;
pub type cuuint32_t = u32;
pub type CUdeviceptr_v2 = ::std::os::raw::c_ulonglong;
pub type CUdeviceptr = CUdeviceptr_v2;
pub type CUdevice_v1 = ::std::os::raw::c_int;
pub type CUdevice = CUdevice_v1;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUctx_st {
    _unused: [u8; 0],
}
pub type CUcontext = *mut CUctx_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUmod_st {
    _unused: [u8; 0],
}
pub type CUmodule = *mut CUmod_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUfunc_st {
    _unused: [u8; 0],
}
pub type CUfunction = *mut CUfunc_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUevent_st {
    _unused: [u8; 0],
}
pub type CUevent = *mut CUevent_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUstream_st {
    _unused: [u8; 0],
}
pub type CUstream = *mut CUstream_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUgraph_st {
    _unused: [u8; 0],
}
pub type CUgraph = *mut CUgraph_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUgraphExec_st {
    _unused: [u8; 0],
}
pub type CUgraphExec = *mut CUgraphExec_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUmemPoolHandle_st {
    _unused: [u8; 0],
}
pub type CUmemoryPool = *mut CUmemPoolHandle_st;
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct CUuuid_st {
    pub bytes: [::std::os::raw::c_char; 16usize],
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of CUuuid_st"][::std::mem::size_of::<CUuuid_st>() - 16usize];
    ["Alignment of CUuuid_st"][::std::mem::align_of::<CUuuid_st>() - 1usize];
    [
        "Offset of field: CUuuid_st::bytes",
    ][::std::mem::offset_of!(CUuuid_st, bytes) - 0usize];
};
pub type CUuuid = CUuuid_st;
/**```text
< Automatic scheduling
```*/
pub const CU_CTX_SCHED_AUTO: CUctx_flags_enum = 0;
/**```text
< Set spin as default scheduling
```*/
pub const CU_CTX_SCHED_SPIN: CUctx_flags_enum = 1;
/**```text
< Set yield as default scheduling
```*/
pub const CU_CTX_SCHED_YIELD: CUctx_flags_enum = 2;
/**```text
< Set blocking synchronization as default scheduling
```*/
pub const CU_CTX_SCHED_BLOCKING_SYNC: CUctx_flags_enum = 4;
/**```text
< Set blocking synchronization as default scheduling
  \deprecated This flag was deprecated as of CUDA 4.0
  and was replaced with ::CU_CTX_SCHED_BLOCKING_SYNC.
```*/
pub const CU_CTX_BLOCKING_SYNC: CUctx_flags_enum = 4;
pub const CU_CTX_SCHED_MASK: CUctx_flags_enum = 7;
/**```text
< \deprecated This flag was deprecated as of CUDA 11.0
  and it no longer has any effect. All contexts
  as of CUDA 3.2 behave as though the flag is enabled.
```*/
pub const CU_CTX_MAP_HOST: CUctx_flags_enum = 8;
/**```text
< Keep local memory allocation after launch
```*/
pub const CU_CTX_LMEM_RESIZE_TO_MAX: CUctx_flags_enum = 16;
/**```text
< Trigger coredumps from exceptions in this context
```*/
pub const CU_CTX_COREDUMP_ENABLE: CUctx_flags_enum = 32;
/**```text
< Enable user pipe to trigger coredumps in this context
```*/
pub const CU_CTX_USER_COREDUMP_ENABLE: CUctx_flags_enum = 64;
/**```text
< Ensure synchronous memory operations on this context will synchronize
```*/
pub const CU_CTX_SYNC_MEMOPS: CUctx_flags_enum = 128;
pub const CU_CTX_FLAGS_MASK: CUctx_flags_enum = 255;
/**```text
 Context creation flags
```*/
pub type CUctx_flags_enum = ::std::os::raw::c_uint;
/**```text
 Context creation flags
```*/
pub use self::CUctx_flags_enum as CUctx_flags;
/**```text
< Default stream flag
```*/
pub const CU_STREAM_DEFAULT: CUstream_flags_enum = 0;
/**```text
< Stream does not synchronize with stream 0 (the NULL stream)
```*/
pub const CU_STREAM_NON_BLOCKING: CUstream_flags_enum = 1;
/**```text
 Stream creation flags
```*/
pub type CUstream_flags_enum = ::std::os::raw::c_uint;
/**```text
 Stream creation flags
```*/
pub use self::CUstream_flags_enum as CUstream_flags;
/**```text
< Default event flag
```*/
pub const CU_EVENT_DEFAULT: CUevent_flags_enum = 0;
/**```text
< Event uses blocking synchronization
```*/
pub const CU_EVENT_BLOCKING_SYNC: CUevent_flags_enum = 1;
/**```text
< Event will not record timing data
```*/
pub const CU_EVENT_DISABLE_TIMING: CUevent_flags_enum = 2;
/**```text
< Event is suitable for interprocess use. CU_EVENT_DISABLE_TIMING must be set
```*/
pub const CU_EVENT_INTERPROCESS: CUevent_flags_enum = 4;
/**```text
 Event creation flags
```*/
pub type CUevent_flags_enum = ::std::os::raw::c_uint;
/**```text
 Event creation flags
```*/
pub use self::CUevent_flags_enum as CUevent_flags;
/**```text
< Default event record flag
```*/
pub const CU_EVENT_RECORD_DEFAULT: CUevent_record_flags_enum = 0;
/**```text
< When using stream capture, create an event record node
  instead of the default behavior.  This flag is invalid
  when used outside of capture.
```*/
pub const CU_EVENT_RECORD_EXTERNAL: CUevent_record_flags_enum = 1;
/**```text
 Event record flags
```*/
pub type CUevent_record_flags_enum = ::std::os::raw::c_uint;
/**```text
 Event record flags
```*/
pub use self::CUevent_record_flags_enum as CUevent_record_flags;
/**```text
< Default event wait flag
```*/
pub const CU_EVENT_WAIT_DEFAULT: CUevent_wait_flags_enum = 0;
/**```text
< When using stream capture, create an event wait node
  instead of the default behavior.  This flag is invalid
  when used outside of capture.
```*/
pub const CU_EVENT_WAIT_EXTERNAL: CUevent_wait_flags_enum = 1;
/**```text
 Event wait flags
```*/
pub type CUevent_wait_flags_enum = ::std::os::raw::c_uint;
/**```text
 Event wait flags
```*/
pub use self::CUevent_wait_flags_enum as CUevent_wait_flags;
/**```text
< Wait until (int32_t)(*addr - value) >= 0 (or int64_t for 64 bit
values). Note this is a cyclic comparison which ignores wraparound.
(Default behavior.)
```*/
pub const CU_STREAM_WAIT_VALUE_GEQ: CUstreamWaitValue_flags_enum = 0;
/**```text
< Wait until *addr == value.
```*/
pub const CU_STREAM_WAIT_VALUE_EQ: CUstreamWaitValue_flags_enum = 1;
/**```text
< Wait until (*addr & value) != 0.
```*/
pub const CU_STREAM_WAIT_VALUE_AND: CUstreamWaitValue_flags_enum = 2;
/**```text
< Wait until ~(*addr | value) != 0. Support for this operation can be
queried with ::cuDeviceGetAttribute() and
::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR.
```*/
pub const CU_STREAM_WAIT_VALUE_NOR: CUstreamWaitValue_flags_enum = 3;
/**```text
< Follow the wait operation with a flush of outstanding remote writes. This
means that, if a remote write operation is guaranteed to have reached the
device before the wait can be satisfied, that write is guaranteed to be
visible to downstream device work. The device is permitted to reorder
remote writes internally. For example, this flag would be required if
two remote writes arrive in a defined order, the wait is satisfied by the
second write, and downstream work needs to observe the first write.
Support for this operation is restricted to selected platforms and can be
queried with ::CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES.
```*/
pub const CU_STREAM_WAIT_VALUE_FLUSH: CUstreamWaitValue_flags_enum = 1073741824;
/**```text
 Flags for ::cuStreamWaitValue32 and ::cuStreamWaitValue64
```*/
pub type CUstreamWaitValue_flags_enum = ::std::os::raw::c_uint;
/**```text
 Flags for ::cuStreamWaitValue32 and ::cuStreamWaitValue64
```*/
pub use self::CUstreamWaitValue_flags_enum as CUstreamWaitValue_flags;
/**```text
< Default behavior
```*/
pub const CU_STREAM_WRITE_VALUE_DEFAULT: CUstreamWriteValue_flags_enum = 0;
/**```text
< Permits the write to be reordered with writes which were issued
before it, as a performance optimization. Normally,
::cuStreamWriteValue32 will provide a memory fence before the
write, which has similar semantics to
__threadfence_system() but is scoped to the stream
rather than a CUDA thread.
This flag is not supported in the v2 API.
```*/
pub const CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER: CUstreamWriteValue_flags_enum = 1;
/**```text
 Flags for ::cuStreamWriteValue32
```*/
pub type CUstreamWriteValue_flags_enum = ::std::os::raw::c_uint;
/**```text
 Flags for ::cuStreamWriteValue32
```*/
pub use self::CUstreamWriteValue_flags_enum as CUstreamWriteValue_flags;
/**```text
< Maximum number of threads per block
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: CUdevice_attribute_enum = 1;
/**```text
< Maximum block dimension X
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: CUdevice_attribute_enum = 2;
/**```text
< Maximum block dimension Y
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: CUdevice_attribute_enum = 3;
/**```text
< Maximum block dimension Z
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: CUdevice_attribute_enum = 4;
/**```text
< Maximum grid dimension X
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: CUdevice_attribute_enum = 5;
/**```text
< Maximum grid dimension Y
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: CUdevice_attribute_enum = 6;
/**```text
< Maximum grid dimension Z
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: CUdevice_attribute_enum = 7;
/**```text
< Maximum shared memory available per block in bytes
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: CUdevice_attribute_enum = 8;
/**```text
< Deprecated, use CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
```*/
pub const CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK: CUdevice_attribute_enum = 8;
/**```text
< Memory available on device for __constant__ variables in a CUDA C kernel in bytes
```*/
pub const CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: CUdevice_attribute_enum = 9;
/**```text
< Warp size in threads
```*/
pub const CU_DEVICE_ATTRIBUTE_WARP_SIZE: CUdevice_attribute_enum = 10;
/**```text
< Maximum pitch in bytes allowed by memory copies
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_PITCH: CUdevice_attribute_enum = 11;
/**```text
< Maximum number of 32-bit registers available per block
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: CUdevice_attribute_enum = 12;
/**```text
< Deprecated, use CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK
```*/
pub const CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK: CUdevice_attribute_enum = 12;
/**```text
< Typical clock frequency in kilohertz
```*/
pub const CU_DEVICE_ATTRIBUTE_CLOCK_RATE: CUdevice_attribute_enum = 13;
/**```text
< Alignment requirement for textures
```*/
pub const CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: CUdevice_attribute_enum = 14;
/**```text
< Device can possibly copy memory and execute a kernel concurrently. Deprecated. Use instead CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT.
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: CUdevice_attribute_enum = 15;
/**```text
< Number of multiprocessors on device
```*/
pub const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: CUdevice_attribute_enum = 16;
/**```text
< Specifies whether there is a run time limit on kernels
```*/
pub const CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: CUdevice_attribute_enum = 17;
/**```text
< Device is integrated with host memory
```*/
pub const CU_DEVICE_ATTRIBUTE_INTEGRATED: CUdevice_attribute_enum = 18;
/**```text
< Device can map host memory into CUDA address space
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: CUdevice_attribute_enum = 19;
/**```text
< Compute mode (See ::CUcomputemode for details)
```*/
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: CUdevice_attribute_enum = 20;
/**```text
< Maximum 1D texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: CUdevice_attribute_enum = 21;
/**```text
< Maximum 2D texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: CUdevice_attribute_enum = 22;
/**```text
< Maximum 2D texture height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: CUdevice_attribute_enum = 23;
/**```text
< Maximum 3D texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: CUdevice_attribute_enum = 24;
/**```text
< Maximum 3D texture height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: CUdevice_attribute_enum = 25;
/**```text
< Maximum 3D texture depth
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: CUdevice_attribute_enum = 26;
/**```text
< Maximum 2D layered texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH: CUdevice_attribute_enum = 27;
/**```text
< Maximum 2D layered texture height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: CUdevice_attribute_enum = 28;
/**```text
< Maximum layers in a 2D layered texture
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: CUdevice_attribute_enum = 29;
/**```text
< Deprecated, use CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH: CUdevice_attribute_enum = 27;
/**```text
< Deprecated, use CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT: CUdevice_attribute_enum = 28;
/**```text
< Deprecated, use CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES: CUdevice_attribute_enum = 29;
/**```text
< Alignment requirement for surfaces
```*/
pub const CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: CUdevice_attribute_enum = 30;
/**```text
< Device can possibly execute multiple kernels concurrently
```*/
pub const CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: CUdevice_attribute_enum = 31;
/**```text
< Device has ECC support enabled
```*/
pub const CU_DEVICE_ATTRIBUTE_ECC_ENABLED: CUdevice_attribute_enum = 32;
/**```text
< PCI bus ID of the device
```*/
pub const CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: CUdevice_attribute_enum = 33;
/**```text
< PCI device ID of the device
```*/
pub const CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: CUdevice_attribute_enum = 34;
/**```text
< Device is using TCC driver model
```*/
pub const CU_DEVICE_ATTRIBUTE_TCC_DRIVER: CUdevice_attribute_enum = 35;
/**```text
< Peak memory clock frequency in kilohertz
```*/
pub const CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: CUdevice_attribute_enum = 36;
/**```text
< Global memory bus width in bits
```*/
pub const CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: CUdevice_attribute_enum = 37;
/**```text
< Size of L2 cache in bytes
```*/
pub const CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: CUdevice_attribute_enum = 38;
/**```text
< Maximum resident threads per multiprocessor
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: CUdevice_attribute_enum = 39;
/**```text
< Number of asynchronous engines
```*/
pub const CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: CUdevice_attribute_enum = 40;
/**```text
< Device shares a unified address space with the host
```*/
pub const CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: CUdevice_attribute_enum = 41;
/**```text
< Maximum 1D layered texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: CUdevice_attribute_enum = 42;
/**```text
< Maximum layers in a 1D layered texture
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: CUdevice_attribute_enum = 43;
/**```text
< Deprecated, do not use.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: CUdevice_attribute_enum = 44;
/**```text
< Maximum 2D texture width if CUDA_ARRAY3D_TEXTURE_GATHER is set
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH: CUdevice_attribute_enum = 45;
/**```text
< Maximum 2D texture height if CUDA_ARRAY3D_TEXTURE_GATHER is set
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: CUdevice_attribute_enum = 46;
/**```text
< Alternate maximum 3D texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE: CUdevice_attribute_enum = 47;
/**```text
< Alternate maximum 3D texture height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: CUdevice_attribute_enum = 48;
/**```text
< Alternate maximum 3D texture depth
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE: CUdevice_attribute_enum = 49;
/**```text
< PCI domain ID of the device
```*/
pub const CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: CUdevice_attribute_enum = 50;
/**```text
< Pitch alignment requirement for textures
```*/
pub const CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: CUdevice_attribute_enum = 51;
/**```text
< Maximum cubemap texture width/height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH: CUdevice_attribute_enum = 52;
/**```text
< Maximum cubemap layered texture width/height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH: CUdevice_attribute_enum = 53;
/**```text
< Maximum layers in a cubemap layered texture
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS: CUdevice_attribute_enum = 54;
/**```text
< Maximum 1D surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: CUdevice_attribute_enum = 55;
/**```text
< Maximum 2D surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: CUdevice_attribute_enum = 56;
/**```text
< Maximum 2D surface height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: CUdevice_attribute_enum = 57;
/**```text
< Maximum 3D surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH: CUdevice_attribute_enum = 58;
/**```text
< Maximum 3D surface height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT: CUdevice_attribute_enum = 59;
/**```text
< Maximum 3D surface depth
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: CUdevice_attribute_enum = 60;
/**```text
< Maximum 1D layered surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: CUdevice_attribute_enum = 61;
/**```text
< Maximum layers in a 1D layered surface
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: CUdevice_attribute_enum = 62;
/**```text
< Maximum 2D layered surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH: CUdevice_attribute_enum = 63;
/**```text
< Maximum 2D layered surface height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: CUdevice_attribute_enum = 64;
/**```text
< Maximum layers in a 2D layered surface
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: CUdevice_attribute_enum = 65;
/**```text
< Maximum cubemap surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH: CUdevice_attribute_enum = 66;
/**```text
< Maximum cubemap layered surface width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: CUdevice_attribute_enum = 67;
/**```text
< Maximum layers in a cubemap layered surface
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: CUdevice_attribute_enum = 68;
/**```text
< Deprecated, do not use. Use cudaDeviceGetTexture1DLinearMaxWidth() or cuDeviceGetTexture1DLinearMaxWidth() instead.
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: CUdevice_attribute_enum = 69;
/**```text
< Maximum 2D linear texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: CUdevice_attribute_enum = 70;
/**```text
< Maximum 2D linear texture height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: CUdevice_attribute_enum = 71;
/**```text
< Maximum 2D linear texture pitch in bytes
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: CUdevice_attribute_enum = 72;
/**```text
< Maximum mipmapped 2D texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: CUdevice_attribute_enum = 73;
/**```text
< Maximum mipmapped 2D texture height
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: CUdevice_attribute_enum = 74;
/**```text
< Major compute capability version number
```*/
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: CUdevice_attribute_enum = 75;
/**```text
< Minor compute capability version number
```*/
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: CUdevice_attribute_enum = 76;
/**```text
< Maximum mipmapped 1D texture width
```*/
pub const CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: CUdevice_attribute_enum = 77;
/**```text
< Device supports stream priorities
```*/
pub const CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: CUdevice_attribute_enum = 78;
/**```text
< Device supports caching globals in L1
```*/
pub const CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: CUdevice_attribute_enum = 79;
/**```text
< Device supports caching locals in L1
```*/
pub const CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: CUdevice_attribute_enum = 80;
/**```text
< Maximum shared memory available per multiprocessor in bytes
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: CUdevice_attribute_enum = 81;
/**```text
< Maximum number of 32-bit registers available per multiprocessor
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: CUdevice_attribute_enum = 82;
/**```text
< Device can allocate managed memory on this system
```*/
pub const CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: CUdevice_attribute_enum = 83;
/**```text
< Device is on a multi-GPU board
```*/
pub const CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: CUdevice_attribute_enum = 84;
/**```text
< Unique id for a group of devices on the same multi-GPU board
```*/
pub const CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: CUdevice_attribute_enum = 85;
/**```text
< Link between the device and the host supports native atomic operations
```*/
pub const CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: CUdevice_attribute_enum = 86;
/**```text
< Ratio of single precision performance (in floating-point operations per second) to double precision performance
```*/
pub const CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: CUdevice_attribute_enum = 87;
/**```text
< Device supports coherently accessing pageable memory without calling cudaHostRegister on it
```*/
pub const CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: CUdevice_attribute_enum = 88;
/**```text
< Device can coherently access managed memory concurrently with the CPU
```*/
pub const CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: CUdevice_attribute_enum = 89;
/**```text
< Device supports compute preemption.
```*/
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: CUdevice_attribute_enum = 90;
/**```text
< Device can access host registered memory at the same virtual address as the CPU
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: CUdevice_attribute_enum = 91;
/**```text
< Deprecated, along with v1 MemOps API, ::cuStreamBatchMemOp and related APIs are supported.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1: CUdevice_attribute_enum = 92;
/**```text
< Deprecated, along with v1 MemOps API, 64-bit operations are supported in ::cuStreamBatchMemOp and related APIs.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1: CUdevice_attribute_enum = 93;
/**```text
< Deprecated, along with v1 MemOps API, ::CU_STREAM_WAIT_VALUE_NOR is supported.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1: CUdevice_attribute_enum = 94;
/**```text
< Device supports launching cooperative kernels via ::cuLaunchCooperativeKernel
```*/
pub const CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: CUdevice_attribute_enum = 95;
/**```text
< Deprecated, ::cuLaunchCooperativeKernelMultiDevice is deprecated.
```*/
pub const CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: CUdevice_attribute_enum = 96;
/**```text
< Maximum optin shared memory per block
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: CUdevice_attribute_enum = 97;
/**```text
< The ::CU_STREAM_WAIT_VALUE_FLUSH flag and the ::CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES MemOp are supported on the device. See \ref CUDA_MEMOP for additional details.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: CUdevice_attribute_enum = 98;
/**```text
< Device supports host memory registration via ::cudaHostRegister.
```*/
pub const CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: CUdevice_attribute_enum = 99;
/**```text
< Device accesses pageable memory via the host's page tables.
```*/
pub const CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: CUdevice_attribute_enum = 100;
/**```text
< The host can directly access managed memory on the device without migration.
```*/
pub const CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: CUdevice_attribute_enum = 101;
/**```text
< Deprecated, Use CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
```*/
pub const CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED: CUdevice_attribute_enum = 102;
/**```text
< Device supports virtual memory management APIs like ::cuMemAddressReserve, ::cuMemCreate, ::cuMemMap and related APIs
```*/
pub const CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: CUdevice_attribute_enum = 102;
/**```text
< Device supports exporting memory to a posix file descriptor with ::cuMemExportToShareableHandle, if requested via ::cuMemCreate
```*/
pub const CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: CUdevice_attribute_enum = 103;
/**```text
< Device supports exporting memory to a Win32 NT handle with ::cuMemExportToShareableHandle, if requested via ::cuMemCreate
```*/
pub const CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED: CUdevice_attribute_enum = 104;
/**```text
< Device supports exporting memory to a Win32 KMT handle with ::cuMemExportToShareableHandle, if requested via ::cuMemCreate
```*/
pub const CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: CUdevice_attribute_enum = 105;
/**```text
< Maximum number of blocks per multiprocessor
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: CUdevice_attribute_enum = 106;
/**```text
< Device supports compression of memory
```*/
pub const CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: CUdevice_attribute_enum = 107;
/**```text
< Maximum L2 persisting lines capacity setting in bytes.
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: CUdevice_attribute_enum = 108;
/**```text
< Maximum value of CUaccessPolicyWindow::num_bytes.
```*/
pub const CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: CUdevice_attribute_enum = 109;
/**```text
< Device supports specifying the GPUDirect RDMA flag with ::cuMemCreate
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: CUdevice_attribute_enum = 110;
/**```text
< Shared memory reserved by CUDA driver per block in bytes
```*/
pub const CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: CUdevice_attribute_enum = 111;
/**```text
< Device supports sparse CUDA arrays and sparse CUDA mipmapped arrays
```*/
pub const CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: CUdevice_attribute_enum = 112;
/**```text
< Device supports using the ::cuMemHostRegister flag ::CU_MEMHOSTERGISTER_READ_ONLY to register memory that must be mapped as read-only to the GPU
```*/
pub const CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: CUdevice_attribute_enum = 113;
/**```text
< External timeline semaphore interop is supported on the device
```*/
pub const CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED: CUdevice_attribute_enum = 114;
/**```text
< Device supports using the ::cuMemAllocAsync and ::cuMemPool family of APIs
```*/
pub const CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: CUdevice_attribute_enum = 115;
/**```text
< Device supports GPUDirect RDMA APIs, like nvidia_p2p_get_pages (see https://docs.nvidia.com/cuda/gpudirect-rdma for more information)
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: CUdevice_attribute_enum = 116;
/**```text
< The returned attribute shall be interpreted as a bitmask, where the individual bits are described by the ::CUflushGPUDirectRDMAWritesOptions enum
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: CUdevice_attribute_enum = 117;
/**```text
< GPUDirect RDMA writes to the device do not need to be flushed for consumers within the scope indicated by the returned attribute. See ::CUGPUDirectRDMAWritesOrdering for the numerical values returned here.
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: CUdevice_attribute_enum = 118;
/**```text
< Handle types supported with mempool based IPC
```*/
pub const CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: CUdevice_attribute_enum = 119;
/**```text
< Indicates device supports cluster launch
```*/
pub const CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: CUdevice_attribute_enum = 120;
/**```text
< Device supports deferred mapping CUDA arrays and CUDA mipmapped arrays
```*/
pub const CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: CUdevice_attribute_enum = 121;
/**```text
< 64-bit operations are supported in ::cuStreamBatchMemOp and related MemOp APIs.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: CUdevice_attribute_enum = 122;
/**```text
< ::CU_STREAM_WAIT_VALUE_NOR is supported by MemOp APIs.
```*/
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: CUdevice_attribute_enum = 123;
/**```text
< Device supports buffer sharing with dma_buf mechanism.
```*/
pub const CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: CUdevice_attribute_enum = 124;
/**```text
< Device supports IPC Events.
```*/
pub const CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: CUdevice_attribute_enum = 125;
/**```text
< Number of memory domains the device supports.
```*/
pub const CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: CUdevice_attribute_enum = 126;
/**```text
< Device supports accessing memory using Tensor Map.
```*/
pub const CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: CUdevice_attribute_enum = 127;
/**```text
< Device supports exporting memory to a fabric handle with cuMemExportToShareableHandle() or requested with cuMemCreate()
```*/
pub const CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED: CUdevice_attribute_enum = 128;
/**```text
< Device supports unified function pointers.
```*/
pub const CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: CUdevice_attribute_enum = 129;
/**```text
< NUMA configuration of a device: value is of type ::CUdeviceNumaConfig enum
```*/
pub const CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: CUdevice_attribute_enum = 130;
/**```text
< NUMA node ID of the GPU memory
```*/
pub const CU_DEVICE_ATTRIBUTE_NUMA_ID: CUdevice_attribute_enum = 131;
/**```text
< Device supports switch multicast and reduction operations.
```*/
pub const CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: CUdevice_attribute_enum = 132;
/**```text
< Indicates if contexts created on this device will be shared via MPS
```*/
pub const CU_DEVICE_ATTRIBUTE_MPS_ENABLED: CUdevice_attribute_enum = 133;
/**```text
< NUMA ID of the host node closest to the device. Returns -1 when system does not support NUMA.
```*/
pub const CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: CUdevice_attribute_enum = 134;
/**```text
< Device supports CIG with D3D12.
```*/
pub const CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED: CUdevice_attribute_enum = 135;
/**```text
< The returned valued shall be interpreted as a bitmask, where the individual bits are described by the ::CUmemDecompressAlgorithm enum.
```*/
pub const CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK: CUdevice_attribute_enum = 136;
/**```text
< The returned valued is the maximum length in bytes of a single decompress operation that is allowed.
```*/
pub const CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH: CUdevice_attribute_enum = 137;
/**```text
< Device supports CIG with Vulkan.
```*/
pub const CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED: CUdevice_attribute_enum = 138;
/**```text
< The combined 16-bit PCI device ID and 16-bit PCI vendor ID.
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: CUdevice_attribute_enum = 139;
/**```text
< The combined 16-bit PCI subsystem ID and 16-bit PCI subsystem vendor ID.
```*/
pub const CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: CUdevice_attribute_enum = 140;
/**```text
< Device supports HOST_NUMA location with the virtual memory management APIs like ::cuMemCreate, ::cuMemMap and related APIs
```*/
pub const CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: CUdevice_attribute_enum = 141;
/**```text
< Device supports HOST_NUMA location with the ::cuMemAllocAsync and ::cuMemPool family of APIs
```*/
pub const CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: CUdevice_attribute_enum = 142;
/**```text
< Device supports HOST_NUMA location IPC between nodes in a multi-node system.
```*/
pub const CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED: CUdevice_attribute_enum = 143;
pub const CU_DEVICE_ATTRIBUTE_MAX: CUdevice_attribute_enum = 144;
/**```text
 Device properties
```*/
pub type CUdevice_attribute_enum = ::std::os::raw::c_uint;
/**```text
 Device properties
```*/
pub use self::CUdevice_attribute_enum as CUdevice_attribute;
/**```text
< The ::CUcontext on which a pointer was allocated or registered
```*/
pub const CU_POINTER_ATTRIBUTE_CONTEXT: CUpointer_attribute_enum = 1;
/**```text
< The ::CUmemorytype describing the physical location of a pointer
```*/
pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: CUpointer_attribute_enum = 2;
/**```text
< The address at which a pointer's memory may be accessed on the device
```*/
pub const CU_POINTER_ATTRIBUTE_DEVICE_POINTER: CUpointer_attribute_enum = 3;
/**```text
< The address at which a pointer's memory may be accessed on the host
```*/
pub const CU_POINTER_ATTRIBUTE_HOST_POINTER: CUpointer_attribute_enum = 4;
/**```text
< A pair of tokens for use with the nv-p2p.h Linux kernel interface
```*/
pub const CU_POINTER_ATTRIBUTE_P2P_TOKENS: CUpointer_attribute_enum = 5;
/**```text
< Synchronize every synchronous memory operation initiated on this region
```*/
pub const CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: CUpointer_attribute_enum = 6;
/**```text
< A process-wide unique ID for an allocated memory region
```*/
pub const CU_POINTER_ATTRIBUTE_BUFFER_ID: CUpointer_attribute_enum = 7;
/**```text
< Indicates if the pointer points to managed memory
```*/
pub const CU_POINTER_ATTRIBUTE_IS_MANAGED: CUpointer_attribute_enum = 8;
/**```text
< A device ordinal of a device on which a pointer was allocated or registered
```*/
pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: CUpointer_attribute_enum = 9;
/**```text
< 1 if this pointer maps to an allocation that is suitable for ::cudaIpcGetMemHandle, 0 otherwise
```*/
pub const CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: CUpointer_attribute_enum = 10;
/**```text
< Starting address for this requested pointer
```*/
pub const CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: CUpointer_attribute_enum = 11;
/**```text
< Size of the address range for this requested pointer
```*/
pub const CU_POINTER_ATTRIBUTE_RANGE_SIZE: CUpointer_attribute_enum = 12;
/**```text
< 1 if this pointer is in a valid address range that is mapped to a backing allocation, 0 otherwise
```*/
pub const CU_POINTER_ATTRIBUTE_MAPPED: CUpointer_attribute_enum = 13;
/**```text
< Bitmask of allowed ::CUmemAllocationHandleType for this allocation
```*/
pub const CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: CUpointer_attribute_enum = 14;
/**```text
< 1 if the memory this pointer is referencing can be used with the GPUDirect RDMA API
```*/
pub const CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: CUpointer_attribute_enum = 15;
/**```text
< Returns the access flags the device associated with the current context has on the corresponding memory referenced by the pointer given
```*/
pub const CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: CUpointer_attribute_enum = 16;
/**```text
< Returns the mempool handle for the allocation if it was allocated from a mempool. Otherwise returns NULL.
```*/
pub const CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: CUpointer_attribute_enum = 17;
/**```text
< Size of the actual underlying mapping that the pointer belongs to
```*/
pub const CU_POINTER_ATTRIBUTE_MAPPING_SIZE: CUpointer_attribute_enum = 18;
/**```text
< The start address of the mapping that the pointer belongs to
```*/
pub const CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: CUpointer_attribute_enum = 19;
/**```text
< A process-wide unique id corresponding to the physical allocation the pointer belongs to
```*/
pub const CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: CUpointer_attribute_enum = 20;
/**```text
< Returns in \p *data a boolean that indicates whether the pointer points to memory that is capable to be used for hardware accelerated decompression.
```*/
pub const CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: CUpointer_attribute_enum = 21;
/**```text
 Pointer information
```*/
pub type CUpointer_attribute_enum = ::std::os::raw::c_uint;
/**```text
 Pointer information
```*/
pub use self::CUpointer_attribute_enum as CUpointer_attribute;
/**```text
 The maximum number of threads per block, beyond which a launch of the
 function would fail. This number depends on both the function and the
 device on which the function is currently loaded.
```*/
pub const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: CUfunction_attribute_enum = 0;
/**```text
 The size in bytes of statically-allocated shared memory required by
 this function. This does not include dynamically-allocated shared
 memory requested by the user at runtime.
```*/
pub const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: CUfunction_attribute_enum = 1;
/**```text
 The size in bytes of user-allocated constant memory required by this
 function.
```*/
pub const CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: CUfunction_attribute_enum = 2;
/**```text
 The size in bytes of local memory used by each thread of this function.
```*/
pub const CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: CUfunction_attribute_enum = 3;
/**```text
 The number of registers used by each thread of this function.
```*/
pub const CU_FUNC_ATTRIBUTE_NUM_REGS: CUfunction_attribute_enum = 4;
/**```text
 The PTX virtual architecture version for which the function was
 compiled. This value is the major PTX version * 10 + the minor PTX
 version, so a PTX version 1.3 function would return the value 13.
 Note that this may return the undefined value of 0 for cubins
 compiled prior to CUDA 3.0.
```*/
pub const CU_FUNC_ATTRIBUTE_PTX_VERSION: CUfunction_attribute_enum = 5;
/**```text
 The binary architecture version for which the function was compiled.
 This value is the major binary version * 10 + the minor binary version,
 so a binary version 1.3 function would return the value 13. Note that
 this will return a value of 10 for legacy cubins that do not have a
 properly-encoded binary architecture version.
```*/
pub const CU_FUNC_ATTRIBUTE_BINARY_VERSION: CUfunction_attribute_enum = 6;
/**```text
 The attribute to indicate whether the function has been compiled with
 user specified option "-Xptxas --dlcm=ca" set .
```*/
pub const CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: CUfunction_attribute_enum = 7;
/**```text
 The maximum size in bytes of dynamically-allocated shared memory that can be used by
 this function. If the user-specified dynamic shared memory size is larger than this
 value, the launch will fail.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: CUfunction_attribute_enum = 8;
/**```text
 On devices where the L1 cache and shared memory use the same hardware resources,
 this sets the shared memory carveout preference, in percent of the total shared memory.
 Refer to ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR.
 This is only a hint, and the driver can choose a different ratio if required to execute the function.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: CUfunction_attribute_enum = 9;
/**```text
 If this attribute is set, the kernel must launch with a valid cluster
 size specified.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: CUfunction_attribute_enum = 10;
/**```text
 The required cluster width in blocks. The values must either all be 0 or
 all be positive. The validity of the cluster dimensions is otherwise
 checked at launch time.

 If the value is set during compile time, it cannot be set at runtime.
 Setting it at runtime will return CUDA_ERROR_NOT_PERMITTED.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: CUfunction_attribute_enum = 11;
/**```text
 The required cluster height in blocks. The values must either all be 0 or
 all be positive. The validity of the cluster dimensions is otherwise
 checked at launch time.

 If the value is set during compile time, it cannot be set at runtime.
 Setting it at runtime should return CUDA_ERROR_NOT_PERMITTED.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: CUfunction_attribute_enum = 12;
/**```text
 The required cluster depth in blocks. The values must either all be 0 or
 all be positive. The validity of the cluster dimensions is otherwise
 checked at launch time.

 If the value is set during compile time, it cannot be set at runtime.
 Setting it at runtime should return CUDA_ERROR_NOT_PERMITTED.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: CUfunction_attribute_enum = 13;
/**```text
 Whether the function can be launched with non-portable cluster size. 1 is
 allowed, 0 is disallowed. A non-portable cluster size may only function
 on the specific SKUs the program is tested on. The launch might fail if
 the program is run on a different hardware platform.

 CUDA API provides cudaOccupancyMaxActiveClusters to assist with checking
 whether the desired size can be launched on the current device.

 Portable Cluster Size

 A portable cluster size is guaranteed to be functional on all compute
 capabilities higher than the target compute capability. The portable
 cluster size for sm_90 is 8 blocks per cluster. This value may increase
 for future compute capabilities.

 The specific hardware unit may support higher cluster sizes that’s not
 guaranteed to be portable.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: CUfunction_attribute_enum = 14;
/**```text
 The block scheduling policy of a function. The value type is
 CUclusterSchedulingPolicy / cudaClusterSchedulingPolicy.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: CUfunction_attribute_enum = 15;
/**```text
 The block scheduling policy of a function. The value type is
 CUclusterSchedulingPolicy / cudaClusterSchedulingPolicy.
 See ::cuFuncSetAttribute, ::cuKernelSetAttribute
```*/
pub const CU_FUNC_ATTRIBUTE_MAX: CUfunction_attribute_enum = 16;
/**```text
 Function properties
```*/
pub type CUfunction_attribute_enum = ::std::os::raw::c_uint;
/**```text
 Function properties
```*/
pub use self::CUfunction_attribute_enum as CUfunction_attribute;
/**```text
 Max number of registers that a thread may use.\n
 Option type: unsigned int\n
 Applies to: compiler only
```*/
pub const CU_JIT_MAX_REGISTERS: CUjit_option_enum = 0;
/**```text
 IN: Specifies minimum number of threads per block to target compilation
 for\n
 OUT: Returns the number of threads the compiler actually targeted.
 This restricts the resource utilization of the compiler (e.g. max
 registers) such that a block with the given number of threads should be
 able to launch based on register limitations. Note, this option does not
 currently take into account any other resource limitations, such as
 shared memory utilization.\n
 Cannot be combined with ::CU_JIT_TARGET.\n
 Option type: unsigned int\n
 Applies to: compiler only
```*/
pub const CU_JIT_THREADS_PER_BLOCK: CUjit_option_enum = 1;
/**```text
 Overwrites the option value with the total wall clock time, in
 milliseconds, spent in the compiler and linker\n
 Option type: float\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_WALL_TIME: CUjit_option_enum = 2;
/**```text
 Pointer to a buffer in which to print any log messages
 that are informational in nature (the buffer size is specified via
 option ::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)\n
 Option type: char *\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_INFO_LOG_BUFFER: CUjit_option_enum = 3;
/**```text
 IN: Log buffer size in bytes.  Log messages will be capped at this size
 (including null terminator)\n
 OUT: Amount of log buffer filled with messages\n
 Option type: unsigned int\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: CUjit_option_enum = 4;
/**```text
 Pointer to a buffer in which to print any log messages that
 reflect errors (the buffer size is specified via option
 ::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)\n
 Option type: char *\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_ERROR_LOG_BUFFER: CUjit_option_enum = 5;
/**```text
 IN: Log buffer size in bytes.  Log messages will be capped at this size
 (including null terminator)\n
 OUT: Amount of log buffer filled with messages\n
 Option type: unsigned int\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: CUjit_option_enum = 6;
/**```text
 Level of optimizations to apply to generated code (0 - 4), with 4
 being the default and highest level of optimizations.\n
 Option type: unsigned int\n
 Applies to: compiler only
```*/
pub const CU_JIT_OPTIMIZATION_LEVEL: CUjit_option_enum = 7;
/**```text
 No option value required. Determines the target based on the current
 attached context (default)\n
 Option type: No option value needed\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_TARGET_FROM_CUCONTEXT: CUjit_option_enum = 8;
/**```text
 Target is chosen based on supplied ::CUjit_target.  Cannot be
 combined with ::CU_JIT_THREADS_PER_BLOCK.\n
 Option type: unsigned int for enumerated type ::CUjit_target\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_TARGET: CUjit_option_enum = 9;
/**```text
 Specifies choice of fallback strategy if matching cubin is not found.
 Choice is based on supplied ::CUjit_fallback.  This option cannot be
 used with cuLink* APIs as the linker requires exact matches.\n
 Option type: unsigned int for enumerated type ::CUjit_fallback\n
 Applies to: compiler only
```*/
pub const CU_JIT_FALLBACK_STRATEGY: CUjit_option_enum = 10;
/**```text
 Specifies whether to create debug information in output (-g)
 (0: false, default)\n
 Option type: int\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_GENERATE_DEBUG_INFO: CUjit_option_enum = 11;
/**```text
 Generate verbose log messages (0: false, default)\n
 Option type: int\n
 Applies to: compiler and linker
```*/
pub const CU_JIT_LOG_VERBOSE: CUjit_option_enum = 12;
/**```text
 Generate line number information (-lineinfo) (0: false, default)\n
 Option type: int\n
 Applies to: compiler only
```*/
pub const CU_JIT_GENERATE_LINE_INFO: CUjit_option_enum = 13;
/**```text
 Specifies whether to enable caching explicitly (-dlcm) \n
 Choice is based on supplied ::CUjit_cacheMode_enum.\n
 Option type: unsigned int for enumerated type ::CUjit_cacheMode_enum\n
 Applies to: compiler only
```*/
pub const CU_JIT_CACHE_MODE: CUjit_option_enum = 14;
/**```text
 \deprecated
 This jit option is deprecated and should not be used.
```*/
pub const CU_JIT_NEW_SM3X_OPT: CUjit_option_enum = 15;
/**```text
 This jit option is used for internal purpose only.
```*/
pub const CU_JIT_FAST_COMPILE: CUjit_option_enum = 16;
/**```text
 Array of device symbol names that will be relocated to the corresponding
 host addresses stored in ::CU_JIT_GLOBAL_SYMBOL_ADDRESSES.\n
 Must contain ::CU_JIT_GLOBAL_SYMBOL_COUNT entries.\n
 When loading a device module, driver will relocate all encountered
 unresolved symbols to the host addresses.\n
 It is only allowed to register symbols that correspond to unresolved
 global variables.\n
 It is illegal to register the same device symbol at multiple addresses.\n
 Option type: const char **\n
 Applies to: dynamic linker only
```*/
pub const CU_JIT_GLOBAL_SYMBOL_NAMES: CUjit_option_enum = 17;
/**```text
 Array of host addresses that will be used to relocate corresponding
 device symbols stored in ::CU_JIT_GLOBAL_SYMBOL_NAMES.\n
 Must contain ::CU_JIT_GLOBAL_SYMBOL_COUNT entries.\n
 Option type: void **\n
 Applies to: dynamic linker only
```*/
pub const CU_JIT_GLOBAL_SYMBOL_ADDRESSES: CUjit_option_enum = 18;
/**```text
 Number of entries in ::CU_JIT_GLOBAL_SYMBOL_NAMES and
 ::CU_JIT_GLOBAL_SYMBOL_ADDRESSES arrays.\n
 Option type: unsigned int\n
 Applies to: dynamic linker only
```*/
pub const CU_JIT_GLOBAL_SYMBOL_COUNT: CUjit_option_enum = 19;
/**```text
 \deprecated
 Enable link-time optimization (-dlto) for device code (Disabled by default).\n
 This option is not supported on 32-bit platforms.\n
 Option type: int\n
 Applies to: compiler and linker

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_LTO: CUjit_option_enum = 20;
/**```text
 \deprecated
 Control single-precision denormals (-ftz) support (0: false, default).
 1 : flushes denormal values to zero
 0 : preserves denormal values
 Option type: int\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_FTZ: CUjit_option_enum = 21;
/**```text
 \deprecated
 Control single-precision floating-point division and reciprocals
 (-prec-div) support (1: true, default).
 1 : Enables the IEEE round-to-nearest mode
 0 : Enables the fast approximation mode
 Option type: int\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_PREC_DIV: CUjit_option_enum = 22;
/**```text
 \deprecated
 Control single-precision floating-point square root
 (-prec-sqrt) support (1: true, default).
 1 : Enables the IEEE round-to-nearest mode
 0 : Enables the fast approximation mode
 Option type: int\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_PREC_SQRT: CUjit_option_enum = 23;
/**```text
 \deprecated
 Enable/Disable the contraction of floating-point multiplies
 and adds/subtracts into floating-point multiply-add (-fma)
 operations (1: Enable, default; 0: Disable).
 Option type: int\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_FMA: CUjit_option_enum = 24;
/**```text
 \deprecated
 Array of kernel names that should be preserved at link time while others
 can be removed.\n
 Must contain ::CU_JIT_REFERENCED_KERNEL_COUNT entries.\n
 Note that kernel names can be mangled by the compiler in which case the
 mangled name needs to be specified.\n
 Wildcard "*" can be used to represent zero or more characters instead of
 specifying the full or mangled name.\n
 It is important to note that the wildcard "*" is also added implicitly.
 For example, specifying "foo" will match "foobaz", "barfoo", "barfoobaz" and
 thus preserve all kernels with those names. This can be avoided by providing
 a more specific name like "barfoobaz".\n
 Option type: const char **\n
 Applies to: dynamic linker only

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_REFERENCED_KERNEL_NAMES: CUjit_option_enum = 25;
/**```text
 \deprecated
 Number of entries in ::CU_JIT_REFERENCED_KERNEL_NAMES array.\n
 Option type: unsigned int\n
 Applies to: dynamic linker only

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_REFERENCED_KERNEL_COUNT: CUjit_option_enum = 26;
/**```text
 \deprecated
 Array of variable names (__device__ and/or __constant__) that should be
 preserved at link time while others can be removed.\n
 Must contain ::CU_JIT_REFERENCED_VARIABLE_COUNT entries.\n
 Note that variable names can be mangled by the compiler in which case the
 mangled name needs to be specified.\n
 Wildcard "*" can be used to represent zero or more characters instead of
 specifying the full or mangled name.\n
 It is important to note that the wildcard "*" is also added implicitly.
 For example, specifying "foo" will match "foobaz", "barfoo", "barfoobaz" and
 thus preserve all variables with those names. This can be avoided by providing
 a more specific name like "barfoobaz".\n
 Option type: const char **\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_REFERENCED_VARIABLE_NAMES: CUjit_option_enum = 27;
/**```text
 \deprecated
 Number of entries in ::CU_JIT_REFERENCED_VARIABLE_NAMES array.\n
 Option type: unsigned int\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_REFERENCED_VARIABLE_COUNT: CUjit_option_enum = 28;
/**```text
 \deprecated
 This option serves as a hint to enable the JIT compiler/linker
 to remove constant (__constant__) and device (__device__) variables
 unreferenced in device code (Disabled by default).\n
 Note that host references to constant and device variables using APIs like
 ::cuModuleGetGlobal() with this option specified may result in undefined behavior unless
 the variables are explicitly specified using ::CU_JIT_REFERENCED_VARIABLE_NAMES.\n
 Option type: int\n
 Applies to: link-time optimization specified with CU_JIT_LTO

 Only valid with LTO-IR compiled with toolkits prior to CUDA 12.0
```*/
pub const CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES: CUjit_option_enum = 29;
/**```text
 Generate position independent code (0: false)\n
 Option type: int\n
 Applies to: compiler only
```*/
pub const CU_JIT_POSITION_INDEPENDENT_CODE: CUjit_option_enum = 30;
/**```text
 This option hints to the JIT compiler the minimum number of CTAs from the
 kernel’s grid to be mapped to a SM. This option is ignored when used together
 with ::CU_JIT_MAX_REGISTERS or ::CU_JIT_THREADS_PER_BLOCK.
 Optimizations based on this option need ::CU_JIT_MAX_THREADS_PER_BLOCK to
 be specified as well. For kernels already using PTX directive .minnctapersm,
 this option will be ignored by default. Use ::CU_JIT_OVERRIDE_DIRECTIVE_VALUES
 to let this option take precedence over the PTX directive.
 Option type: unsigned int\n
 Applies to: compiler only
```*/
pub const CU_JIT_MIN_CTA_PER_SM: CUjit_option_enum = 31;
/**```text
 Maximum number threads in a thread block, computed as the product of
 the maximum extent specifed for each dimension of the block. This limit
 is guaranteed not to be exeeded in any invocation of the kernel. Exceeding
 the the maximum number of threads results in runtime error or kernel launch
 failure. For kernels already using PTX directive .maxntid, this option will
 be ignored by default. Use ::CU_JIT_OVERRIDE_DIRECTIVE_VALUES to let this
 option take precedence over the PTX directive.
 Option type: int\n
 Applies to: compiler only
```*/
pub const CU_JIT_MAX_THREADS_PER_BLOCK: CUjit_option_enum = 32;
/**```text
 This option lets the values specified using ::CU_JIT_MAX_REGISTERS,
 ::CU_JIT_THREADS_PER_BLOCK, ::CU_JIT_MAX_THREADS_PER_BLOCK and
 ::CU_JIT_MIN_CTA_PER_SM take precedence over any PTX directives.
 (0: Disable, default; 1: Enable)
 Option type: int\n
 Applies to: compiler only
```*/
pub const CU_JIT_OVERRIDE_DIRECTIVE_VALUES: CUjit_option_enum = 33;
/**```text
 This option lets the values specified using ::CU_JIT_MAX_REGISTERS,
 ::CU_JIT_THREADS_PER_BLOCK, ::CU_JIT_MAX_THREADS_PER_BLOCK and
 ::CU_JIT_MIN_CTA_PER_SM take precedence over any PTX directives.
 (0: Disable, default; 1: Enable)
 Option type: int\n
 Applies to: compiler only
```*/
pub const CU_JIT_NUM_OPTIONS: CUjit_option_enum = 34;
/**```text
 Online compiler and linker options
```*/
pub type CUjit_option_enum = ::std::os::raw::c_uint;
/**```text
 Online compiler and linker options
```*/
pub use self::CUjit_option_enum as CUjit_option;
/**```text
 CUDA host function
 \param userData Argument value passed to the function
```*/
pub type CUhostFn = ::std::option::Option<
    unsafe extern "C" fn(userData: *mut ::std::os::raw::c_void),
>;
pub const CU_STREAM_CAPTURE_MODE_GLOBAL: CUstreamCaptureMode_enum = 0;
pub const CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: CUstreamCaptureMode_enum = 1;
pub const CU_STREAM_CAPTURE_MODE_RELAXED: CUstreamCaptureMode_enum = 2;
/**```text
 Possible modes for stream capture thread interactions. For more details see
 ::cuStreamBeginCapture and ::cuThreadExchangeStreamCaptureMode
```*/
pub type CUstreamCaptureMode_enum = ::std::os::raw::c_uint;
/**```text
 Possible modes for stream capture thread interactions. For more details see
 ::cuStreamBeginCapture and ::cuThreadExchangeStreamCaptureMode
```*/
pub use self::CUstreamCaptureMode_enum as CUstreamCaptureMode;
/**```text
 The API call returned with no errors. In the case of query calls, this
 also means that the operation being queried is complete (see
 ::cuEventQuery() and ::cuStreamQuery()).
```*/
pub const CUDA_SUCCESS: cudaError_enum = 0;
/**```text
 This indicates that one or more of the parameters passed to the API call
 is not within an acceptable range of values.
```*/
pub const CUDA_ERROR_INVALID_VALUE: cudaError_enum = 1;
/**```text
 The API call failed because it was unable to allocate enough memory or
 other resources to perform the requested operation.
```*/
pub const CUDA_ERROR_OUT_OF_MEMORY: cudaError_enum = 2;
/**```text
 This indicates that the CUDA driver has not been initialized with
 ::cuInit() or that initialization has failed.
```*/
pub const CUDA_ERROR_NOT_INITIALIZED: cudaError_enum = 3;
/**```text
 This indicates that the CUDA driver is in the process of shutting down.
```*/
pub const CUDA_ERROR_DEINITIALIZED: cudaError_enum = 4;
/**```text
 This indicates profiler is not initialized for this run. This can
 happen when the application is running with external profiling tools
 like visual profiler.
```*/
pub const CUDA_ERROR_PROFILER_DISABLED: cudaError_enum = 5;
/**```text
 \deprecated
 This error return is deprecated as of CUDA 5.0. It is no longer an error
 to attempt to enable/disable the profiling via ::cuProfilerStart or
 ::cuProfilerStop without initialization.
```*/
pub const CUDA_ERROR_PROFILER_NOT_INITIALIZED: cudaError_enum = 6;
/**```text
 \deprecated
 This error return is deprecated as of CUDA 5.0. It is no longer an error
 to call cuProfilerStart() when profiling is already enabled.
```*/
pub const CUDA_ERROR_PROFILER_ALREADY_STARTED: cudaError_enum = 7;
/**```text
 \deprecated
 This error return is deprecated as of CUDA 5.0. It is no longer an error
 to call cuProfilerStop() when profiling is already disabled.
```*/
pub const CUDA_ERROR_PROFILER_ALREADY_STOPPED: cudaError_enum = 8;
/**```text
 This indicates that the CUDA driver that the application has loaded is a
 stub library. Applications that run with the stub rather than a real
 driver loaded will result in CUDA API returning this error.
```*/
pub const CUDA_ERROR_STUB_LIBRARY: cudaError_enum = 34;
/**```text
 This indicates that requested CUDA device is unavailable at the current
 time. Devices are often unavailable due to use of
 ::CU_COMPUTEMODE_EXCLUSIVE_PROCESS or ::CU_COMPUTEMODE_PROHIBITED.
```*/
pub const CUDA_ERROR_DEVICE_UNAVAILABLE: cudaError_enum = 46;
/**```text
 This indicates that no CUDA-capable devices were detected by the installed
 CUDA driver.
```*/
pub const CUDA_ERROR_NO_DEVICE: cudaError_enum = 100;
/**```text
 This indicates that the device ordinal supplied by the user does not
 correspond to a valid CUDA device or that the action requested is
 invalid for the specified device.
```*/
pub const CUDA_ERROR_INVALID_DEVICE: cudaError_enum = 101;
/**```text
 This error indicates that the Grid license is not applied.
```*/
pub const CUDA_ERROR_DEVICE_NOT_LICENSED: cudaError_enum = 102;
/**```text
 This indicates that the device kernel image is invalid. This can also
 indicate an invalid CUDA module.
```*/
pub const CUDA_ERROR_INVALID_IMAGE: cudaError_enum = 200;
/**```text
 This most frequently indicates that there is no context bound to the
 current thread. This can also be returned if the context passed to an
 API call is not a valid handle (such as a context that has had
 ::cuCtxDestroy() invoked on it). This can also be returned if a user
 mixes different API versions (i.e. 3010 context with 3020 API calls).
 See ::cuCtxGetApiVersion() for more details.
 This can also be returned if the green context passed to an API call
 was not converted to a ::CUcontext using ::cuCtxFromGreenCtx API.
```*/
pub const CUDA_ERROR_INVALID_CONTEXT: cudaError_enum = 201;
/**```text
 This indicated that the context being supplied as a parameter to the
 API call was already the active context.
 \deprecated
 This error return is deprecated as of CUDA 3.2. It is no longer an
 error to attempt to push the active context via ::cuCtxPushCurrent().
```*/
pub const CUDA_ERROR_CONTEXT_ALREADY_CURRENT: cudaError_enum = 202;
/**```text
 This indicates that a map or register operation has failed.
```*/
pub const CUDA_ERROR_MAP_FAILED: cudaError_enum = 205;
/**```text
 This indicates that an unmap or unregister operation has failed.
```*/
pub const CUDA_ERROR_UNMAP_FAILED: cudaError_enum = 206;
/**```text
 This indicates that the specified array is currently mapped and thus
 cannot be destroyed.
```*/
pub const CUDA_ERROR_ARRAY_IS_MAPPED: cudaError_enum = 207;
/**```text
 This indicates that the resource is already mapped.
```*/
pub const CUDA_ERROR_ALREADY_MAPPED: cudaError_enum = 208;
/**```text
 This indicates that there is no kernel image available that is suitable
 for the device. This can occur when a user specifies code generation
 options for a particular CUDA source file that do not include the
 corresponding device configuration.
```*/
pub const CUDA_ERROR_NO_BINARY_FOR_GPU: cudaError_enum = 209;
/**```text
 This indicates that a resource has already been acquired.
```*/
pub const CUDA_ERROR_ALREADY_ACQUIRED: cudaError_enum = 210;
/**```text
 This indicates that a resource is not mapped.
```*/
pub const CUDA_ERROR_NOT_MAPPED: cudaError_enum = 211;
/**```text
 This indicates that a mapped resource is not available for access as an
 array.
```*/
pub const CUDA_ERROR_NOT_MAPPED_AS_ARRAY: cudaError_enum = 212;
/**```text
 This indicates that a mapped resource is not available for access as a
 pointer.
```*/
pub const CUDA_ERROR_NOT_MAPPED_AS_POINTER: cudaError_enum = 213;
/**```text
 This indicates that an uncorrectable ECC error was detected during
 execution.
```*/
pub const CUDA_ERROR_ECC_UNCORRECTABLE: cudaError_enum = 214;
/**```text
 This indicates that the ::CUlimit passed to the API call is not
 supported by the active device.
```*/
pub const CUDA_ERROR_UNSUPPORTED_LIMIT: cudaError_enum = 215;
/**```text
 This indicates that the ::CUcontext passed to the API call can
 only be bound to a single CPU thread at a time but is already
 bound to a CPU thread.
```*/
pub const CUDA_ERROR_CONTEXT_ALREADY_IN_USE: cudaError_enum = 216;
/**```text
 This indicates that peer access is not supported across the given
 devices.
```*/
pub const CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: cudaError_enum = 217;
/**```text
 This indicates that a PTX JIT compilation failed.
```*/
pub const CUDA_ERROR_INVALID_PTX: cudaError_enum = 218;
/**```text
 This indicates an error with OpenGL or DirectX context.
```*/
pub const CUDA_ERROR_INVALID_GRAPHICS_CONTEXT: cudaError_enum = 219;
/**```text
 This indicates that an uncorrectable NVLink error was detected during the
 execution.
```*/
pub const CUDA_ERROR_NVLINK_UNCORRECTABLE: cudaError_enum = 220;
/**```text
 This indicates that the PTX JIT compiler library was not found.
```*/
pub const CUDA_ERROR_JIT_COMPILER_NOT_FOUND: cudaError_enum = 221;
/**```text
 This indicates that the provided PTX was compiled with an unsupported toolchain.
```*/
pub const CUDA_ERROR_UNSUPPORTED_PTX_VERSION: cudaError_enum = 222;
/**```text
 This indicates that the PTX JIT compilation was disabled.
```*/
pub const CUDA_ERROR_JIT_COMPILATION_DISABLED: cudaError_enum = 223;
/**```text
 This indicates that the ::CUexecAffinityType passed to the API call is not
 supported by the active device.
```*/
pub const CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY: cudaError_enum = 224;
/**```text
 This indicates that the code to be compiled by the PTX JIT contains
 unsupported call to cudaDeviceSynchronize.
```*/
pub const CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC: cudaError_enum = 225;
/**```text
 This indicates that an exception occurred on the device that is now
 contained by the GPU's error containment capability. Common causes are -
 a. Certain types of invalid accesses of peer GPU memory over nvlink
 b. Certain classes of hardware errors
 This leaves the process in an inconsistent state and any further CUDA
 work will return the same error. To continue using CUDA, the process must
 be terminated and relaunched.
```*/
pub const CUDA_ERROR_CONTAINED: cudaError_enum = 226;
/**```text
 This indicates that the device kernel source is invalid. This includes
 compilation/linker errors encountered in device code or user error.
```*/
pub const CUDA_ERROR_INVALID_SOURCE: cudaError_enum = 300;
/**```text
 This indicates that the file specified was not found.
```*/
pub const CUDA_ERROR_FILE_NOT_FOUND: cudaError_enum = 301;
/**```text
 This indicates that a link to a shared object failed to resolve.
```*/
pub const CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: cudaError_enum = 302;
/**```text
 This indicates that initialization of a shared object failed.
```*/
pub const CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: cudaError_enum = 303;
/**```text
 This indicates that an OS call failed.
```*/
pub const CUDA_ERROR_OPERATING_SYSTEM: cudaError_enum = 304;
/**```text
 This indicates that a resource handle passed to the API call was not
 valid. Resource handles are opaque types like ::CUstream and ::CUevent.
```*/
pub const CUDA_ERROR_INVALID_HANDLE: cudaError_enum = 400;
/**```text
 This indicates that a resource required by the API call is not in a
 valid state to perform the requested operation.
```*/
pub const CUDA_ERROR_ILLEGAL_STATE: cudaError_enum = 401;
/**```text
 This indicates an attempt was made to introspect an object in a way that
 would discard semantically important information. This is either due to
 the object using funtionality newer than the API version used to
 introspect it or omission of optional return arguments.
```*/
pub const CUDA_ERROR_LOSSY_QUERY: cudaError_enum = 402;
/**```text
 This indicates that a named symbol was not found. Examples of symbols
 are global/constant variable names, driver function names, texture names,
 and surface names.
```*/
pub const CUDA_ERROR_NOT_FOUND: cudaError_enum = 500;
/**```text
 This indicates that asynchronous operations issued previously have not
 completed yet. This result is not actually an error, but must be indicated
 differently than ::CUDA_SUCCESS (which indicates completion). Calls that
 may return this value include ::cuEventQuery() and ::cuStreamQuery().
```*/
pub const CUDA_ERROR_NOT_READY: cudaError_enum = 600;
/**```text
 While executing a kernel, the device encountered a
 load or store instruction on an invalid memory address.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_ILLEGAL_ADDRESS: cudaError_enum = 700;
/**```text
 This indicates that a launch did not occur because it did not have
 appropriate resources. This error usually indicates that the user has
 attempted to pass too many arguments to the device kernel, or the
 kernel launch specifies too many threads for the kernel's register
 count. Passing arguments of the wrong size (i.e. a 64-bit pointer
 when a 32-bit int is expected) is equivalent to passing too many
 arguments and can also result in this error.
```*/
pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: cudaError_enum = 701;
/**```text
 This indicates that the device kernel took too long to execute. This can
 only occur if timeouts are enabled - see the device attribute
 ::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT for more information.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_LAUNCH_TIMEOUT: cudaError_enum = 702;
/**```text
 This error indicates a kernel launch that uses an incompatible texturing
 mode.
```*/
pub const CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING: cudaError_enum = 703;
/**```text
 This error indicates that a call to ::cuCtxEnablePeerAccess() is
 trying to re-enable peer access to a context which has already
 had peer access to it enabled.
```*/
pub const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: cudaError_enum = 704;
/**```text
 This error indicates that ::cuCtxDisablePeerAccess() is
 trying to disable peer access which has not been enabled yet
 via ::cuCtxEnablePeerAccess().
```*/
pub const CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: cudaError_enum = 705;
/**```text
 This error indicates that the primary context for the specified device
 has already been initialized.
```*/
pub const CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: cudaError_enum = 708;
/**```text
 This error indicates that the context current to the calling thread
 has been destroyed using ::cuCtxDestroy, or is a primary context which
 has not yet been initialized.
```*/
pub const CUDA_ERROR_CONTEXT_IS_DESTROYED: cudaError_enum = 709;
/**```text
 A device-side assert triggered during kernel execution. The context
 cannot be used anymore, and must be destroyed. All existing device
 memory allocations from this context are invalid and must be
 reconstructed if the program is to continue using CUDA.
```*/
pub const CUDA_ERROR_ASSERT: cudaError_enum = 710;
/**```text
 This error indicates that the hardware resources required to enable
 peer access have been exhausted for one or more of the devices
 passed to ::cuCtxEnablePeerAccess().
```*/
pub const CUDA_ERROR_TOO_MANY_PEERS: cudaError_enum = 711;
/**```text
 This error indicates that the memory range passed to ::cuMemHostRegister()
 has already been registered.
```*/
pub const CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: cudaError_enum = 712;
/**```text
 This error indicates that the pointer passed to ::cuMemHostUnregister()
 does not correspond to any currently registered memory region.
```*/
pub const CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: cudaError_enum = 713;
/**```text
 While executing a kernel, the device encountered a stack error.
 This can be due to stack corruption or exceeding the stack size limit.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_HARDWARE_STACK_ERROR: cudaError_enum = 714;
/**```text
 While executing a kernel, the device encountered an illegal instruction.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_ILLEGAL_INSTRUCTION: cudaError_enum = 715;
/**```text
 While executing a kernel, the device encountered a load or store instruction
 on a memory address which is not aligned.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_MISALIGNED_ADDRESS: cudaError_enum = 716;
/**```text
 While executing a kernel, the device encountered an instruction
 which can only operate on memory locations in certain address spaces
 (global, shared, or local), but was supplied a memory address not
 belonging to an allowed address space.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_INVALID_ADDRESS_SPACE: cudaError_enum = 717;
/**```text
 While executing a kernel, the device program counter wrapped its address space.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_INVALID_PC: cudaError_enum = 718;
/**```text
 An exception occurred on the device while executing a kernel. Common
 causes include dereferencing an invalid device pointer and accessing
 out of bounds shared memory. Less common cases can be system specific - more
 information about these cases can be found in the system specific user guide.
 This leaves the process in an inconsistent state and any further CUDA work
 will return the same error. To continue using CUDA, the process must be terminated
 and relaunched.
```*/
pub const CUDA_ERROR_LAUNCH_FAILED: cudaError_enum = 719;
/**```text
 This error indicates that the number of blocks launched per grid for a kernel that was
 launched via either ::cuLaunchCooperativeKernel or ::cuLaunchCooperativeKernelMultiDevice
 exceeds the maximum number of blocks as allowed by ::cuOccupancyMaxActiveBlocksPerMultiprocessor
 or ::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags times the number of multiprocessors
 as specified by the device attribute ::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.
```*/
pub const CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: cudaError_enum = 720;
/**```text
 An exception occurred on the device while exiting a kernel using tensor memory: the
 tensor memory was not completely deallocated. This leaves the process in an inconsistent
 state and any further CUDA work will return the same error. To continue using CUDA, the
 process must be terminated and relaunched.
```*/
pub const CUDA_ERROR_TENSOR_MEMORY_LEAK: cudaError_enum = 721;
/**```text
 This error indicates that the attempted operation is not permitted.
```*/
pub const CUDA_ERROR_NOT_PERMITTED: cudaError_enum = 800;
/**```text
 This error indicates that the attempted operation is not supported
 on the current system or device.
```*/
pub const CUDA_ERROR_NOT_SUPPORTED: cudaError_enum = 801;
/**```text
 This error indicates that the system is not yet ready to start any CUDA
 work.  To continue using CUDA, verify the system configuration is in a
 valid state and all required driver daemons are actively running.
 More information about this error can be found in the system specific
 user guide.
```*/
pub const CUDA_ERROR_SYSTEM_NOT_READY: cudaError_enum = 802;
/**```text
 This error indicates that there is a mismatch between the versions of
 the display driver and the CUDA driver. Refer to the compatibility documentation
 for supported versions.
```*/
pub const CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: cudaError_enum = 803;
/**```text
 This error indicates that the system was upgraded to run with forward compatibility
 but the visible hardware detected by CUDA does not support this configuration.
 Refer to the compatibility documentation for the supported hardware matrix or ensure
 that only supported hardware is visible during initialization via the CUDA_VISIBLE_DEVICES
 environment variable.
```*/
pub const CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: cudaError_enum = 804;
/**```text
 This error indicates that the MPS client failed to connect to the MPS control daemon or the MPS server.
```*/
pub const CUDA_ERROR_MPS_CONNECTION_FAILED: cudaError_enum = 805;
/**```text
 This error indicates that the remote procedural call between the MPS server and the MPS client failed.
```*/
pub const CUDA_ERROR_MPS_RPC_FAILURE: cudaError_enum = 806;
/**```text
 This error indicates that the MPS server is not ready to accept new MPS client requests.
 This error can be returned when the MPS server is in the process of recovering from a fatal failure.
```*/
pub const CUDA_ERROR_MPS_SERVER_NOT_READY: cudaError_enum = 807;
/**```text
 This error indicates that the hardware resources required to create MPS client have been exhausted.
```*/
pub const CUDA_ERROR_MPS_MAX_CLIENTS_REACHED: cudaError_enum = 808;
/**```text
 This error indicates the the hardware resources required to support device connections have been exhausted.
```*/
pub const CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED: cudaError_enum = 809;
/**```text
 This error indicates that the MPS client has been terminated by the server. To continue using CUDA, the process must be terminated and relaunched.
```*/
pub const CUDA_ERROR_MPS_CLIENT_TERMINATED: cudaError_enum = 810;
/**```text
 This error indicates that the module is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it.
```*/
pub const CUDA_ERROR_CDP_NOT_SUPPORTED: cudaError_enum = 811;
/**```text
 This error indicates that a module contains an unsupported interaction between different versions of CUDA Dynamic Parallelism.
```*/
pub const CUDA_ERROR_CDP_VERSION_MISMATCH: cudaError_enum = 812;
/**```text
 This error indicates that the operation is not permitted when
 the stream is capturing.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: cudaError_enum = 900;
/**```text
 This error indicates that the current capture sequence on the stream
 has been invalidated due to a previous error.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: cudaError_enum = 901;
/**```text
 This error indicates that the operation would have resulted in a merge
 of two independent capture sequences.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_MERGE: cudaError_enum = 902;
/**```text
 This error indicates that the capture was not initiated in this stream.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: cudaError_enum = 903;
/**```text
 This error indicates that the capture sequence contains a fork that was
 not joined to the primary stream.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_UNJOINED: cudaError_enum = 904;
/**```text
 This error indicates that a dependency would have been created which
 crosses the capture sequence boundary. Only implicit in-stream ordering
 dependencies are allowed to cross the boundary.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_ISOLATION: cudaError_enum = 905;
/**```text
 This error indicates a disallowed implicit dependency on a current capture
 sequence from cudaStreamLegacy.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: cudaError_enum = 906;
/**```text
 This error indicates that the operation is not permitted on an event which
 was last recorded in a capturing stream.
```*/
pub const CUDA_ERROR_CAPTURED_EVENT: cudaError_enum = 907;
/**```text
 A stream capture sequence not initiated with the ::CU_STREAM_CAPTURE_MODE_RELAXED
 argument to ::cuStreamBeginCapture was passed to ::cuStreamEndCapture in a
 different thread.
```*/
pub const CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: cudaError_enum = 908;
/**```text
 This error indicates that the timeout specified for the wait operation has lapsed.
```*/
pub const CUDA_ERROR_TIMEOUT: cudaError_enum = 909;
/**```text
 This error indicates that the graph update was not performed because it included
 changes which violated constraints specific to instantiated graph update.
```*/
pub const CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: cudaError_enum = 910;
/**```text
 This indicates that an async error has occurred in a device outside of CUDA.
 If CUDA was waiting for an external device's signal before consuming shared data,
 the external device signaled an error indicating that the data is not valid for
 consumption. This leaves the process in an inconsistent state and any further CUDA
 work will return the same error. To continue using CUDA, the process must be
 terminated and relaunched.
```*/
pub const CUDA_ERROR_EXTERNAL_DEVICE: cudaError_enum = 911;
/**```text
 Indicates a kernel launch error due to cluster misconfiguration.
```*/
pub const CUDA_ERROR_INVALID_CLUSTER_SIZE: cudaError_enum = 912;
/**```text
 Indiciates a function handle is not loaded when calling an API that requires
 a loaded function.
```*/
pub const CUDA_ERROR_FUNCTION_NOT_LOADED: cudaError_enum = 913;
/**```text
 This error indicates one or more resources passed in are not valid resource
 types for the operation.
```*/
pub const CUDA_ERROR_INVALID_RESOURCE_TYPE: cudaError_enum = 914;
/**```text
 This error indicates one or more resources are insufficient or non-applicable for
 the operation.
```*/
pub const CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION: cudaError_enum = 915;
/**```text
 This error indicates that an error happened during the key rotation
 sequence.
```*/
pub const CUDA_ERROR_KEY_ROTATION: cudaError_enum = 916;
/**```text
 This indicates that an unknown internal error has occurred.
```*/
pub const CUDA_ERROR_UNKNOWN: cudaError_enum = 999;
/**```text
 Error codes
```*/
pub type cudaError_enum = ::std::os::raw::c_uint;
/**```text
 Error codes
```*/
pub use self::cudaError_enum as CUresult;
/**```text
< Does not allow any export mechanism. >
```*/
pub const CU_MEM_HANDLE_TYPE_NONE: CUmemAllocationHandleType_enum = 0;
/**```text
< Allows a file descriptor to be used for exporting. Permitted only on POSIX systems. (int)
```*/
pub const CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: CUmemAllocationHandleType_enum = 1;
/**```text
< Allows a Win32 NT handle to be used for exporting. (HANDLE)
```*/
pub const CU_MEM_HANDLE_TYPE_WIN32: CUmemAllocationHandleType_enum = 2;
/**```text
< Allows a Win32 KMT handle to be used for exporting. (D3DKMT_HANDLE)
```*/
pub const CU_MEM_HANDLE_TYPE_WIN32_KMT: CUmemAllocationHandleType_enum = 4;
/**```text
< Allows a fabric handle to be used for exporting. (CUmemFabricHandle)
```*/
pub const CU_MEM_HANDLE_TYPE_FABRIC: CUmemAllocationHandleType_enum = 8;
pub const CU_MEM_HANDLE_TYPE_MAX: CUmemAllocationHandleType_enum = 2147483647;
/**```text
 Flags for specifying particular handle types
```*/
pub type CUmemAllocationHandleType_enum = ::std::os::raw::c_uint;
/**```text
 Flags for specifying particular handle types
```*/
pub use self::CUmemAllocationHandleType_enum as CUmemAllocationHandleType;
pub const CU_MEM_LOCATION_TYPE_INVALID: CUmemLocationType_enum = 0;
/**```text
< Location is a device location, thus id is a device ordinal
```*/
pub const CU_MEM_LOCATION_TYPE_DEVICE: CUmemLocationType_enum = 1;
/**```text
< Location is host, id is ignored
```*/
pub const CU_MEM_LOCATION_TYPE_HOST: CUmemLocationType_enum = 2;
/**```text
< Location is a host NUMA node, thus id is a host NUMA node id
```*/
pub const CU_MEM_LOCATION_TYPE_HOST_NUMA: CUmemLocationType_enum = 3;
/**```text
< Location is a host NUMA node of the current thread, id is ignored
```*/
pub const CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: CUmemLocationType_enum = 4;
pub const CU_MEM_LOCATION_TYPE_MAX: CUmemLocationType_enum = 2147483647;
/**```text
 Specifies the type of location
```*/
pub type CUmemLocationType_enum = ::std::os::raw::c_uint;
/**```text
 Specifies the type of location
```*/
pub use self::CUmemLocationType_enum as CUmemLocationType;
pub const CU_MEM_ALLOCATION_TYPE_INVALID: CUmemAllocationType_enum = 0;
/**```text
 This allocation type is 'pinned', i.e. cannot migrate from its current
 location while the application is actively using it
```*/
pub const CU_MEM_ALLOCATION_TYPE_PINNED: CUmemAllocationType_enum = 1;
/**```text
 This allocation type is 'pinned', i.e. cannot migrate from its current
 location while the application is actively using it
```*/
pub const CU_MEM_ALLOCATION_TYPE_MAX: CUmemAllocationType_enum = 2147483647;
/**```text
 Defines the allocation types available
```*/
pub type CUmemAllocationType_enum = ::std::os::raw::c_uint;
/**```text
 Defines the allocation types available
```*/
pub use self::CUmemAllocationType_enum as CUmemAllocationType;
/**```text
 Specifies a memory location.
```*/
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUmemLocation_st {
    /**```text
< Specifies the location type, which modifies the meaning of id.
```*/
    pub type_: CUmemLocationType,
    /**```text
< identifier for a given this location's ::CUmemLocationType.
```*/
    pub id: ::std::os::raw::c_int,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of CUmemLocation_st"][::std::mem::size_of::<CUmemLocation_st>() - 8usize];
    [
        "Alignment of CUmemLocation_st",
    ][::std::mem::align_of::<CUmemLocation_st>() - 4usize];
    [
        "Offset of field: CUmemLocation_st::type_",
    ][::std::mem::offset_of!(CUmemLocation_st, type_) - 0usize];
    [
        "Offset of field: CUmemLocation_st::id",
    ][::std::mem::offset_of!(CUmemLocation_st, id) - 4usize];
};
impl Default for CUmemLocation_st {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
/**```text
 Specifies a memory location.
```*/
pub type CUmemLocation_v1 = CUmemLocation_st;
/**```text
 Specifies a memory location.
```*/
pub type CUmemLocation = CUmemLocation_v1;
/**```text
 (value type = int)
 Allow cuMemAllocAsync to use memory asynchronously freed
 in another streams as long as a stream ordering dependency
 of the allocating stream on the free action exists.
 Cuda events and null stream interactions can create the required
 stream ordered dependencies. (default enabled)
```*/
pub const CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: CUmemPool_attribute_enum = 1;
/**```text
 (value type = int)
 Allow reuse of already completed frees when there is no dependency
 between the free and allocation. (default enabled)
```*/
pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: CUmemPool_attribute_enum = 2;
/**```text
 (value type = int)
 Allow cuMemAllocAsync to insert new stream dependencies
 in order to establish the stream ordering required to reuse
 a piece of memory released by cuFreeAsync (default enabled).
```*/
pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: CUmemPool_attribute_enum = 3;
/**```text
 (value type = cuuint64_t)
 Amount of reserved memory in bytes to hold onto before trying
 to release memory back to the OS. When more than the release
 threshold bytes of memory are held by the memory pool, the
 allocator will try to release memory back to the OS on the
 next call to stream, event or context synchronize. (default 0)
```*/
pub const CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: CUmemPool_attribute_enum = 4;
/**```text
 (value type = cuuint64_t)
 Amount of backing memory currently allocated for the mempool.
```*/
pub const CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: CUmemPool_attribute_enum = 5;
/**```text
 (value type = cuuint64_t)
 High watermark of backing memory allocated for the mempool since the
 last time it was reset. High watermark can only be reset to zero.
```*/
pub const CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: CUmemPool_attribute_enum = 6;
/**```text
 (value type = cuuint64_t)
 Amount of memory from the pool that is currently in use by the application.
```*/
pub const CU_MEMPOOL_ATTR_USED_MEM_CURRENT: CUmemPool_attribute_enum = 7;
/**```text
 (value type = cuuint64_t)
 High watermark of the amount of memory from the pool that was in use by the application since
 the last time it was reset. High watermark can only be reset to zero.
```*/
pub const CU_MEMPOOL_ATTR_USED_MEM_HIGH: CUmemPool_attribute_enum = 8;
/**```text
 CUDA memory pool attributes
```*/
pub type CUmemPool_attribute_enum = ::std::os::raw::c_uint;
/**```text
 CUDA memory pool attributes
```*/
pub use self::CUmemPool_attribute_enum as CUmemPool_attribute;
/**```text
 Specifies the properties of allocations made from the pool.
```*/
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct CUmemPoolProps_st {
    /**```text
< Allocation type. Currently must be specified as CU_MEM_ALLOCATION_TYPE_PINNED
```*/
    pub allocType: CUmemAllocationType,
    /**```text
< Handle types that will be supported by allocations from the pool.
```*/
    pub handleTypes: CUmemAllocationHandleType,
    /**```text
< Location where allocations should reside.
```*/
    pub location: CUmemLocation,
    /**```text
 Windows-specific LPSECURITYATTRIBUTES required when
 ::CU_MEM_HANDLE_TYPE_WIN32 is specified.  This security attribute defines
 the scope of which exported allocations may be transferred to other
 processes.  In all other cases, this field is required to be zero.
```*/
    pub win32SecurityAttributes: *mut ::std::os::raw::c_void,
    /**```text
< Maximum pool size. When set to 0, defaults to a system dependent value.
```*/
    pub maxSize: usize,
    /**```text
< Bitmask indicating intended usage for the pool.
```*/
    pub usage: ::std::os::raw::c_ushort,
    /**```text
< reserved for future use, must be 0
```*/
    pub reserved: [::std::os::raw::c_uchar; 54usize],
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of CUmemPoolProps_st"][::std::mem::size_of::<CUmemPoolProps_st>() - 88usize];
    [
        "Alignment of CUmemPoolProps_st",
    ][::std::mem::align_of::<CUmemPoolProps_st>() - 8usize];
    [
        "Offset of field: CUmemPoolProps_st::allocType",
    ][::std::mem::offset_of!(CUmemPoolProps_st, allocType) - 0usize];
    [
        "Offset of field: CUmemPoolProps_st::handleTypes",
    ][::std::mem::offset_of!(CUmemPoolProps_st, handleTypes) - 4usize];
    [
        "Offset of field: CUmemPoolProps_st::location",
    ][::std::mem::offset_of!(CUmemPoolProps_st, location) - 8usize];
    [
        "Offset of field: CUmemPoolProps_st::win32SecurityAttributes",
    ][::std::mem::offset_of!(CUmemPoolProps_st, win32SecurityAttributes) - 16usize];
    [
        "Offset of field: CUmemPoolProps_st::maxSize",
    ][::std::mem::offset_of!(CUmemPoolProps_st, maxSize) - 24usize];
    [
        "Offset of field: CUmemPoolProps_st::usage",
    ][::std::mem::offset_of!(CUmemPoolProps_st, usage) - 32usize];
    [
        "Offset of field: CUmemPoolProps_st::reserved",
    ][::std::mem::offset_of!(CUmemPoolProps_st, reserved) - 34usize];
};
impl Default for CUmemPoolProps_st {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
/**```text
 Specifies the properties of allocations made from the pool.
```*/
pub type CUmemPoolProps_v1 = CUmemPoolProps_st;
/**```text
 Specifies the properties of allocations made from the pool.
```*/
pub type CUmemPoolProps = CUmemPoolProps_v1;
pub type cudaStream_t = *mut CUstream_st;
pub type cudaEvent_t = *mut CUevent_st;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclComm {
    _unused: [u8; 0],
}
pub type ncclComm_t = *mut ncclComm;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclWindow_vidmem {
    _unused: [u8; 0],
}
pub type ncclWindow_t = *mut ncclWindow_vidmem;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclUniqueId {
    pub internal: [::std::os::raw::c_char; 128usize],
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of ncclUniqueId"][::std::mem::size_of::<ncclUniqueId>() - 128usize];
    ["Alignment of ncclUniqueId"][::std::mem::align_of::<ncclUniqueId>() - 1usize];
    [
        "Offset of field: ncclUniqueId::internal",
    ][::std::mem::offset_of!(ncclUniqueId, internal) - 0usize];
};
impl Default for ncclUniqueId {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub const ncclSuccess: ncclResult_t = 0;
pub const ncclUnhandledCudaError: ncclResult_t = 1;
pub const ncclSystemError: ncclResult_t = 2;
pub const ncclInternalError: ncclResult_t = 3;
pub const ncclInvalidArgument: ncclResult_t = 4;
pub const ncclInvalidUsage: ncclResult_t = 5;
pub const ncclRemoteError: ncclResult_t = 6;
pub const ncclInProgress: ncclResult_t = 7;
pub const ncclTimeout: ncclResult_t = 8;
pub const ncclNumResults: ncclResult_t = 9;
pub type ncclResult_t = ::std::os::raw::c_uint;
pub const ncclHostCftDefault: ncclHostCftMode_t = -2147483648;
pub const ncclHostCftEnable: ncclHostCftMode_t = 1;
pub const ncclHostCftDisable: ncclHostCftMode_t = 2;
pub const ncclHostCftFallback: ncclHostCftMode_t = 3;
pub type ncclHostCftMode_t = ::std::os::raw::c_int;
pub const ncclNvlsHostModeDefault: ncclNvlsHostMode_t = -2147483648;
pub const ncclNvlsHostModeEnable: ncclNvlsHostMode_t = 0;
pub const ncclNvlsHostModeDisableTransport: ncclNvlsHostMode_t = 1;
pub const ncclNvlsHostModeDisableSymmetricMultimem: ncclNvlsHostMode_t = 2;
pub const ncclNvlsHostModeDisable: ncclNvlsHostMode_t = 2147483647;
pub type ncclNvlsHostMode_t = ::std::os::raw::c_int;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclConfig_v23100 {
    pub size: usize,
    pub magic: ::std::os::raw::c_uint,
    pub version: ::std::os::raw::c_uint,
    pub blocking: ::std::os::raw::c_int,
    pub cgaClusterSize: ::std::os::raw::c_int,
    pub minCTAs: ::std::os::raw::c_int,
    pub maxCTAs: ::std::os::raw::c_int,
    pub netName: *const ::std::os::raw::c_char,
    pub splitShare: ::std::os::raw::c_int,
    pub trafficClass: ::std::os::raw::c_int,
    pub commName: *const ::std::os::raw::c_char,
    pub collnetEnable: ::std::os::raw::c_int,
    pub CTAPolicy: ::std::os::raw::c_int,
    pub shrinkShare: ::std::os::raw::c_int,
    pub nvlsCTAs: ::std::os::raw::c_int,
    pub nChannelsPerNetPeer: ::std::os::raw::c_int,
    pub nvlinkCentricSched: ::std::os::raw::c_int,
    pub graphUsageMode: ::std::os::raw::c_int,
    pub numRmaCtx: ::std::os::raw::c_int,
    pub maxP2pPeers: ::std::os::raw::c_int,
    pub graphStreamOrdering: ::std::os::raw::c_int,
    pub launchOrderImplicit: ::std::os::raw::c_int,
    pub numRmaSig: ::std::os::raw::c_int,
    pub rmaEagerInit: ::std::os::raw::c_int,
    pub hostCftMode: ::std::os::raw::c_int,
    pub nvlsHostMode: ::std::os::raw::c_int,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of ncclConfig_v23100"][::std::mem::size_of::<ncclConfig_v23100>() - 120usize];
    [
        "Alignment of ncclConfig_v23100",
    ][::std::mem::align_of::<ncclConfig_v23100>() - 8usize];
    [
        "Offset of field: ncclConfig_v23100::size",
    ][::std::mem::offset_of!(ncclConfig_v23100, size) - 0usize];
    [
        "Offset of field: ncclConfig_v23100::magic",
    ][::std::mem::offset_of!(ncclConfig_v23100, magic) - 8usize];
    [
        "Offset of field: ncclConfig_v23100::version",
    ][::std::mem::offset_of!(ncclConfig_v23100, version) - 12usize];
    [
        "Offset of field: ncclConfig_v23100::blocking",
    ][::std::mem::offset_of!(ncclConfig_v23100, blocking) - 16usize];
    [
        "Offset of field: ncclConfig_v23100::cgaClusterSize",
    ][::std::mem::offset_of!(ncclConfig_v23100, cgaClusterSize) - 20usize];
    [
        "Offset of field: ncclConfig_v23100::minCTAs",
    ][::std::mem::offset_of!(ncclConfig_v23100, minCTAs) - 24usize];
    [
        "Offset of field: ncclConfig_v23100::maxCTAs",
    ][::std::mem::offset_of!(ncclConfig_v23100, maxCTAs) - 28usize];
    [
        "Offset of field: ncclConfig_v23100::netName",
    ][::std::mem::offset_of!(ncclConfig_v23100, netName) - 32usize];
    [
        "Offset of field: ncclConfig_v23100::splitShare",
    ][::std::mem::offset_of!(ncclConfig_v23100, splitShare) - 40usize];
    [
        "Offset of field: ncclConfig_v23100::trafficClass",
    ][::std::mem::offset_of!(ncclConfig_v23100, trafficClass) - 44usize];
    [
        "Offset of field: ncclConfig_v23100::commName",
    ][::std::mem::offset_of!(ncclConfig_v23100, commName) - 48usize];
    [
        "Offset of field: ncclConfig_v23100::collnetEnable",
    ][::std::mem::offset_of!(ncclConfig_v23100, collnetEnable) - 56usize];
    [
        "Offset of field: ncclConfig_v23100::CTAPolicy",
    ][::std::mem::offset_of!(ncclConfig_v23100, CTAPolicy) - 60usize];
    [
        "Offset of field: ncclConfig_v23100::shrinkShare",
    ][::std::mem::offset_of!(ncclConfig_v23100, shrinkShare) - 64usize];
    [
        "Offset of field: ncclConfig_v23100::nvlsCTAs",
    ][::std::mem::offset_of!(ncclConfig_v23100, nvlsCTAs) - 68usize];
    [
        "Offset of field: ncclConfig_v23100::nChannelsPerNetPeer",
    ][::std::mem::offset_of!(ncclConfig_v23100, nChannelsPerNetPeer) - 72usize];
    [
        "Offset of field: ncclConfig_v23100::nvlinkCentricSched",
    ][::std::mem::offset_of!(ncclConfig_v23100, nvlinkCentricSched) - 76usize];
    [
        "Offset of field: ncclConfig_v23100::graphUsageMode",
    ][::std::mem::offset_of!(ncclConfig_v23100, graphUsageMode) - 80usize];
    [
        "Offset of field: ncclConfig_v23100::numRmaCtx",
    ][::std::mem::offset_of!(ncclConfig_v23100, numRmaCtx) - 84usize];
    [
        "Offset of field: ncclConfig_v23100::maxP2pPeers",
    ][::std::mem::offset_of!(ncclConfig_v23100, maxP2pPeers) - 88usize];
    [
        "Offset of field: ncclConfig_v23100::graphStreamOrdering",
    ][::std::mem::offset_of!(ncclConfig_v23100, graphStreamOrdering) - 92usize];
    [
        "Offset of field: ncclConfig_v23100::launchOrderImplicit",
    ][::std::mem::offset_of!(ncclConfig_v23100, launchOrderImplicit) - 96usize];
    [
        "Offset of field: ncclConfig_v23100::numRmaSig",
    ][::std::mem::offset_of!(ncclConfig_v23100, numRmaSig) - 100usize];
    [
        "Offset of field: ncclConfig_v23100::rmaEagerInit",
    ][::std::mem::offset_of!(ncclConfig_v23100, rmaEagerInit) - 104usize];
    [
        "Offset of field: ncclConfig_v23100::hostCftMode",
    ][::std::mem::offset_of!(ncclConfig_v23100, hostCftMode) - 108usize];
    [
        "Offset of field: ncclConfig_v23100::nvlsHostMode",
    ][::std::mem::offset_of!(ncclConfig_v23100, nvlsHostMode) - 112usize];
};
impl Default for ncclConfig_v23100 {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type ncclConfig_t = ncclConfig_v23100;
#[repr(C)]
#[derive(Copy, Clone)]
pub struct ncclConfigExt {
    pub next: *mut ncclConfigExt,
    pub key: ncclConfigExt__bindgen_ty_1,
    pub val: ncclConfigExt__bindgen_ty_2,
}
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct ncclConfigExt__bindgen_ty_1 {
    pub vendorId: ::std::os::raw::c_int,
    pub optionId: ::std::os::raw::c_int,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of ncclConfigExt__bindgen_ty_1",
    ][::std::mem::size_of::<ncclConfigExt__bindgen_ty_1>() - 8usize];
    [
        "Alignment of ncclConfigExt__bindgen_ty_1",
    ][::std::mem::align_of::<ncclConfigExt__bindgen_ty_1>() - 4usize];
    [
        "Offset of field: ncclConfigExt__bindgen_ty_1::vendorId",
    ][::std::mem::offset_of!(ncclConfigExt__bindgen_ty_1, vendorId) - 0usize];
    [
        "Offset of field: ncclConfigExt__bindgen_ty_1::optionId",
    ][::std::mem::offset_of!(ncclConfigExt__bindgen_ty_1, optionId) - 4usize];
};
#[repr(C)]
#[derive(Copy, Clone)]
pub union ncclConfigExt__bindgen_ty_2 {
    pub i: ::std::os::raw::c_int,
    pub s: *const ::std::os::raw::c_char,
    pub raw: *mut ::std::os::raw::c_void,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of ncclConfigExt__bindgen_ty_2",
    ][::std::mem::size_of::<ncclConfigExt__bindgen_ty_2>() - 8usize];
    [
        "Alignment of ncclConfigExt__bindgen_ty_2",
    ][::std::mem::align_of::<ncclConfigExt__bindgen_ty_2>() - 8usize];
    [
        "Offset of field: ncclConfigExt__bindgen_ty_2::i",
    ][::std::mem::offset_of!(ncclConfigExt__bindgen_ty_2, i) - 0usize];
    [
        "Offset of field: ncclConfigExt__bindgen_ty_2::s",
    ][::std::mem::offset_of!(ncclConfigExt__bindgen_ty_2, s) - 0usize];
    [
        "Offset of field: ncclConfigExt__bindgen_ty_2::raw",
    ][::std::mem::offset_of!(ncclConfigExt__bindgen_ty_2, raw) - 0usize];
};
impl Default for ncclConfigExt__bindgen_ty_2 {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    ["Size of ncclConfigExt"][::std::mem::size_of::<ncclConfigExt>() - 24usize];
    ["Alignment of ncclConfigExt"][::std::mem::align_of::<ncclConfigExt>() - 8usize];
    [
        "Offset of field: ncclConfigExt::next",
    ][::std::mem::offset_of!(ncclConfigExt, next) - 0usize];
    [
        "Offset of field: ncclConfigExt::key",
    ][::std::mem::offset_of!(ncclConfigExt, key) - 8usize];
    [
        "Offset of field: ncclConfigExt::val",
    ][::std::mem::offset_of!(ncclConfigExt, val) - 16usize];
};
impl Default for ncclConfigExt {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type ncclConfigExt_t = ncclConfigExt;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclCollConfig_v23200 {
    pub size: usize,
    pub magic: ::std::os::raw::c_uint,
    pub version: ::std::os::raw::c_uint,
    pub ext: *mut ncclConfigExt_t,
    pub minCTAs: ::std::os::raw::c_int,
    pub maxCTAs: ::std::os::raw::c_int,
    pub nvlsCTAs: ::std::os::raw::c_int,
    pub cgaClusterSize: ::std::os::raw::c_int,
    pub algSelection: *const ::std::os::raw::c_char,
    pub forceAlgSelection: ::std::os::raw::c_int,
    pub CTAPolicy: ::std::os::raw::c_int,
    pub userProfilerTag: u64,
    pub launchCompletionEvent: cudaEvent_t,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of ncclCollConfig_v23200",
    ][::std::mem::size_of::<ncclCollConfig_v23200>() - 72usize];
    [
        "Alignment of ncclCollConfig_v23200",
    ][::std::mem::align_of::<ncclCollConfig_v23200>() - 8usize];
    [
        "Offset of field: ncclCollConfig_v23200::size",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, size) - 0usize];
    [
        "Offset of field: ncclCollConfig_v23200::magic",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, magic) - 8usize];
    [
        "Offset of field: ncclCollConfig_v23200::version",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, version) - 12usize];
    [
        "Offset of field: ncclCollConfig_v23200::ext",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, ext) - 16usize];
    [
        "Offset of field: ncclCollConfig_v23200::minCTAs",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, minCTAs) - 24usize];
    [
        "Offset of field: ncclCollConfig_v23200::maxCTAs",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, maxCTAs) - 28usize];
    [
        "Offset of field: ncclCollConfig_v23200::nvlsCTAs",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, nvlsCTAs) - 32usize];
    [
        "Offset of field: ncclCollConfig_v23200::cgaClusterSize",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, cgaClusterSize) - 36usize];
    [
        "Offset of field: ncclCollConfig_v23200::algSelection",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, algSelection) - 40usize];
    [
        "Offset of field: ncclCollConfig_v23200::forceAlgSelection",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, forceAlgSelection) - 48usize];
    [
        "Offset of field: ncclCollConfig_v23200::CTAPolicy",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, CTAPolicy) - 52usize];
    [
        "Offset of field: ncclCollConfig_v23200::userProfilerTag",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, userProfilerTag) - 56usize];
    [
        "Offset of field: ncclCollConfig_v23200::launchCompletionEvent",
    ][::std::mem::offset_of!(ncclCollConfig_v23200, launchCompletionEvent) - 64usize];
};
impl Default for ncclCollConfig_v23200 {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type ncclCollConfig_t = ncclCollConfig_v23200;
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct ncclSimInfo_v22200 {
    pub size: usize,
    pub magic: ::std::os::raw::c_uint,
    pub version: ::std::os::raw::c_uint,
    pub estimatedTime: f32,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of ncclSimInfo_v22200",
    ][::std::mem::size_of::<ncclSimInfo_v22200>() - 24usize];
    [
        "Alignment of ncclSimInfo_v22200",
    ][::std::mem::align_of::<ncclSimInfo_v22200>() - 8usize];
    [
        "Offset of field: ncclSimInfo_v22200::size",
    ][::std::mem::offset_of!(ncclSimInfo_v22200, size) - 0usize];
    [
        "Offset of field: ncclSimInfo_v22200::magic",
    ][::std::mem::offset_of!(ncclSimInfo_v22200, magic) - 8usize];
    [
        "Offset of field: ncclSimInfo_v22200::version",
    ][::std::mem::offset_of!(ncclSimInfo_v22200, version) - 12usize];
    [
        "Offset of field: ncclSimInfo_v22200::estimatedTime",
    ][::std::mem::offset_of!(ncclSimInfo_v22200, estimatedTime) - 16usize];
};
pub type ncclSimInfo_t = ncclSimInfo_v22200;
pub const ncclStatGpuMemSuspend: ncclCommMemStat_t = 0;
pub const ncclStatGpuMemSuspended: ncclCommMemStat_t = 1;
pub const ncclStatGpuMemPersist: ncclCommMemStat_t = 2;
pub const ncclStatGpuMemTotal: ncclCommMemStat_t = 3;
pub type ncclCommMemStat_t = ::std::os::raw::c_uint;
pub const ncclNumOps_dummy: ncclRedOp_dummy_t = 5;
pub type ncclRedOp_dummy_t = ::std::os::raw::c_uint;
pub const ncclSum: ncclRedOp_t = 0;
pub const ncclProd: ncclRedOp_t = 1;
pub const ncclMax: ncclRedOp_t = 2;
pub const ncclMin: ncclRedOp_t = 3;
pub const ncclAvg: ncclRedOp_t = 4;
pub const ncclNumOps: ncclRedOp_t = 5;
pub const ncclMaxRedOp: ncclRedOp_t = 2147483647;
pub type ncclRedOp_t = ::std::os::raw::c_uint;
pub const ncclInt8: ncclDataType_t = 0;
pub const ncclChar: ncclDataType_t = 0;
pub const ncclUint8: ncclDataType_t = 1;
pub const ncclInt32: ncclDataType_t = 2;
pub const ncclInt: ncclDataType_t = 2;
pub const ncclUint32: ncclDataType_t = 3;
pub const ncclInt64: ncclDataType_t = 4;
pub const ncclUint64: ncclDataType_t = 5;
pub const ncclFloat16: ncclDataType_t = 6;
pub const ncclHalf: ncclDataType_t = 6;
pub const ncclFloat32: ncclDataType_t = 7;
pub const ncclFloat: ncclDataType_t = 7;
pub const ncclFloat64: ncclDataType_t = 8;
pub const ncclDouble: ncclDataType_t = 8;
pub const ncclBfloat16: ncclDataType_t = 9;
pub const ncclFloat8e4m3: ncclDataType_t = 10;
pub const ncclFloat8e5m2: ncclDataType_t = 11;
pub const ncclNumTypes: ncclDataType_t = 12;
pub type ncclDataType_t = ::std::os::raw::c_uint;
pub const ncclScalarDevice: ncclScalarResidence_t = 0;
pub const ncclScalarHostImmediate: ncclScalarResidence_t = 1;
pub type ncclScalarResidence_t = ::std::os::raw::c_uint;
#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct ncclWaitSignalDesc_t {
    pub opCnt: ::std::os::raw::c_int,
    pub peer: ::std::os::raw::c_int,
    pub sigIdx: ::std::os::raw::c_int,
    pub ctx: ::std::os::raw::c_int,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of ncclWaitSignalDesc_t",
    ][::std::mem::size_of::<ncclWaitSignalDesc_t>() - 16usize];
    [
        "Alignment of ncclWaitSignalDesc_t",
    ][::std::mem::align_of::<ncclWaitSignalDesc_t>() - 4usize];
    [
        "Offset of field: ncclWaitSignalDesc_t::opCnt",
    ][::std::mem::offset_of!(ncclWaitSignalDesc_t, opCnt) - 0usize];
    [
        "Offset of field: ncclWaitSignalDesc_t::peer",
    ][::std::mem::offset_of!(ncclWaitSignalDesc_t, peer) - 4usize];
    [
        "Offset of field: ncclWaitSignalDesc_t::sigIdx",
    ][::std::mem::offset_of!(ncclWaitSignalDesc_t, sigIdx) - 8usize];
    [
        "Offset of field: ncclWaitSignalDesc_t::ctx",
    ][::std::mem::offset_of!(ncclWaitSignalDesc_t, ctx) - 12usize];
};
pub const NCCL_ENCRYPTION_MODE_NONE: ncclEncryptionMode_t = 0;
pub const NCCL_ENCRYPTION_MODE_PSK: ncclEncryptionMode_t = 1;
pub type ncclEncryptionMode_t = ::std::os::raw::c_uint;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclEncryptionConfig_v23200 {
    pub size: usize,
    pub magic: ::std::os::raw::c_uint,
    pub version: ::std::os::raw::c_uint,
    pub mode: ::std::os::raw::c_int,
    pub psk: *const ::std::os::raw::c_char,
}
#[allow(clippy::unnecessary_operation, clippy::identity_op)]
const _: () = {
    [
        "Size of ncclEncryptionConfig_v23200",
    ][::std::mem::size_of::<ncclEncryptionConfig_v23200>() - 32usize];
    [
        "Alignment of ncclEncryptionConfig_v23200",
    ][::std::mem::align_of::<ncclEncryptionConfig_v23200>() - 8usize];
    [
        "Offset of field: ncclEncryptionConfig_v23200::size",
    ][::std::mem::offset_of!(ncclEncryptionConfig_v23200, size) - 0usize];
    [
        "Offset of field: ncclEncryptionConfig_v23200::magic",
    ][::std::mem::offset_of!(ncclEncryptionConfig_v23200, magic) - 8usize];
    [
        "Offset of field: ncclEncryptionConfig_v23200::version",
    ][::std::mem::offset_of!(ncclEncryptionConfig_v23200, version) - 12usize];
    [
        "Offset of field: ncclEncryptionConfig_v23200::mode",
    ][::std::mem::offset_of!(ncclEncryptionConfig_v23200, mode) - 16usize];
    [
        "Offset of field: ncclEncryptionConfig_v23200::psk",
    ][::std::mem::offset_of!(ncclEncryptionConfig_v23200, psk) - 24usize];
};
impl Default for ncclEncryptionConfig_v23200 {
    fn default() -> Self {
        let mut s = ::std::mem::MaybeUninit::<Self>::uninit();
        // SAFETY: a plain C type (integers, pointers, arrays and unions of them), for
        // which all-zero bytes are a valid value, as its C users rely on.
        unsafe {
            ::std::ptr::write_bytes(s.as_mut_ptr(), 0, 1);
            s.assume_init()
        }
    }
}
pub type ncclEncryptionConfig_t = ncclEncryptionConfig_v23200;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct ncclParamHandle {
    _unused: [u8; 0],
}
pub type ncclParamHandle_t = *mut ncclParamHandle;
