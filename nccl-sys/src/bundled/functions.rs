// Generated with bindgen by nccl-sys's build script (feature `buildtime-bindgen`)
// from nccl.h with NCCL_VERSION_CODE 23203 and cuda.h with CUDA_VERSION 12090.
// Do not edit: `ci/regen-bindings` rewrites the bundled copy in src/bundled/ from the
// pinned headers, and `ci/regen-bindings --check` (run by ci/test) fails on any drift.

/// Entry points of libnccl, each `None` when the library lacks it.
#[derive(Clone, Copy)]
#[allow(non_snake_case, clippy::type_complexity)]
pub(crate) struct NcclFunctions {
    pub(crate) ncclMemAlloc: Option<unsafe extern "C" fn(* mut * mut :: std :: os :: raw :: c_void, usize) -> ncclResult_t>,
    pub(crate) ncclMemFree: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void) -> ncclResult_t>,
    pub(crate) ncclGetVersion: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclGetUniqueId: Option<unsafe extern "C" fn(* mut ncclUniqueId) -> ncclResult_t>,
    pub(crate) ncclCommInitRankConfig: Option<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, ncclUniqueId, :: std :: os :: raw :: c_int, * mut ncclConfig_t) -> ncclResult_t>,
    pub(crate) ncclCommInitRank: Option<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, ncclUniqueId, :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommInitAll: Option<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, * const :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommFinalize: Option<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>,
    pub(crate) ncclCommDestroy: Option<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>,
    pub(crate) ncclCommAbort: Option<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>,
    pub(crate) ncclCommRevoke: Option<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommSplit: Option<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, * mut ncclComm_t, * mut ncclConfig_t) -> ncclResult_t>,
    pub(crate) ncclCommShrink: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, * mut ncclComm_t, * mut ncclConfig_t, :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommGetUniqueId: Option<unsafe extern "C" fn(ncclComm_t, * mut ncclUniqueId) -> ncclResult_t>,
    pub(crate) ncclCommGrow: Option<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int, * const ncclUniqueId, :: std :: os :: raw :: c_int, * mut ncclComm_t, * mut ncclConfig_t) -> ncclResult_t>,
    pub(crate) ncclCommInitRankScalable: Option<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, * mut ncclUniqueId, * mut ncclConfig_t) -> ncclResult_t>,
    pub(crate) ncclGetErrorString: Option<unsafe extern "C" fn(ncclResult_t) -> * const :: std :: os :: raw :: c_char>,
    pub(crate) ncclGetLastError: Option<unsafe extern "C" fn(ncclComm_t) -> * const :: std :: os :: raw :: c_char>,
    pub(crate) ncclCommGetAsyncError: Option<unsafe extern "C" fn(ncclComm_t, * mut ncclResult_t) -> ncclResult_t>,
    pub(crate) ncclCommCount: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommCuDevice: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommUserRank: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommRegister: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_void, usize, * mut * mut :: std :: os :: raw :: c_void) -> ncclResult_t>,
    pub(crate) ncclCommDeregister: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_void) -> ncclResult_t>,
    pub(crate) ncclCommSuspend: Option<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommResume: Option<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>,
    pub(crate) ncclCommMemStats: Option<unsafe extern "C" fn(ncclComm_t, ncclCommMemStat_t, * mut u64) -> ncclResult_t>,
    pub(crate) ncclCommWindowRegister: Option<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_void, usize, * mut ncclWindow_t, :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclCommWindowDeregister: Option<unsafe extern "C" fn(ncclComm_t, ncclWindow_t) -> ncclResult_t>,
    pub(crate) ncclWinGetUserPtr: Option<unsafe extern "C" fn(ncclComm_t, ncclWindow_t, * mut * mut :: std :: os :: raw :: c_void) -> ncclResult_t>,
    pub(crate) ncclRedOpCreatePreMulSum: Option<unsafe extern "C" fn(* mut ncclRedOp_t, * mut :: std :: os :: raw :: c_void, ncclDataType_t, ncclScalarResidence_t, ncclComm_t) -> ncclResult_t>,
    pub(crate) ncclRedOpDestroy: Option<unsafe extern "C" fn(ncclRedOp_t, ncclComm_t) -> ncclResult_t>,
    pub(crate) ncclReduce: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclBcast: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclBroadcast: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclAllReduce: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclReduceScatter: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclAllGather: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclAlltoAll: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclGather: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclScatter: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclAllReduceConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclBroadcastConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclReduceConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclAllGatherConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclReduceScatterConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclAlltoAllConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclGatherConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclScatterConfig: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>,
    pub(crate) ncclSend: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclRecv: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclPutSignal: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclWindow_t, usize, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_uint, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclSignal: Option<unsafe extern "C" fn(:: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_uint, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclWaitSignal: Option<unsafe extern "C" fn(:: std :: os :: raw :: c_int, * mut ncclWaitSignalDesc_t, ncclComm_t, cudaStream_t) -> ncclResult_t>,
    pub(crate) ncclGroupStart: Option<unsafe extern "C" fn() -> ncclResult_t>,
    pub(crate) ncclGroupEnd: Option<unsafe extern "C" fn() -> ncclResult_t>,
    pub(crate) ncclGroupSimulateEnd: Option<unsafe extern "C" fn(* mut ncclSimInfo_t) -> ncclResult_t>,
    pub(crate) ncclSetEncryption: Option<unsafe extern "C" fn(* const ncclEncryptionConfig_t) -> ncclResult_t>,
    pub(crate) ncclParamBind: Option<unsafe extern "C" fn(* mut ncclParamHandle_t, * const :: std :: os :: raw :: c_char) -> ncclResult_t>,
    pub(crate) ncclParamGetI8: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut i8) -> ncclResult_t>,
    pub(crate) ncclParamGetI16: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut i16) -> ncclResult_t>,
    pub(crate) ncclParamGetI32: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut i32) -> ncclResult_t>,
    pub(crate) ncclParamGetI64: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut i64) -> ncclResult_t>,
    pub(crate) ncclParamGetU8: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut u8) -> ncclResult_t>,
    pub(crate) ncclParamGetU16: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut u16) -> ncclResult_t>,
    pub(crate) ncclParamGetU32: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut u32) -> ncclResult_t>,
    pub(crate) ncclParamGetU64: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut u64) -> ncclResult_t>,
    pub(crate) ncclParamGetStr: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut * const :: std :: os :: raw :: c_char) -> ncclResult_t>,
    pub(crate) ncclParamGet: Option<unsafe extern "C" fn(ncclParamHandle_t, * mut :: std :: os :: raw :: c_void, :: std :: os :: raw :: c_int, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclParamGetParameter: Option<unsafe extern "C" fn(* const :: std :: os :: raw :: c_char, * mut * const :: std :: os :: raw :: c_char, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclParamGetAllParameterKeys: Option<unsafe extern "C" fn(* mut * mut * const :: std :: os :: raw :: c_char, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>,
    pub(crate) ncclParamDumpAll: Option<unsafe extern "C" fn()>,
}

impl NcclFunctions {
    /// Names of every function in this table, in header order.
    pub(crate) const NAMES: &'static [&'static str] = &[
        "ncclMemAlloc",
        "ncclMemFree",
        "ncclGetVersion",
        "ncclGetUniqueId",
        "ncclCommInitRankConfig",
        "ncclCommInitRank",
        "ncclCommInitAll",
        "ncclCommFinalize",
        "ncclCommDestroy",
        "ncclCommAbort",
        "ncclCommRevoke",
        "ncclCommSplit",
        "ncclCommShrink",
        "ncclCommGetUniqueId",
        "ncclCommGrow",
        "ncclCommInitRankScalable",
        "ncclGetErrorString",
        "ncclGetLastError",
        "ncclCommGetAsyncError",
        "ncclCommCount",
        "ncclCommCuDevice",
        "ncclCommUserRank",
        "ncclCommRegister",
        "ncclCommDeregister",
        "ncclCommSuspend",
        "ncclCommResume",
        "ncclCommMemStats",
        "ncclCommWindowRegister",
        "ncclCommWindowDeregister",
        "ncclWinGetUserPtr",
        "ncclRedOpCreatePreMulSum",
        "ncclRedOpDestroy",
        "ncclReduce",
        "ncclBcast",
        "ncclBroadcast",
        "ncclAllReduce",
        "ncclReduceScatter",
        "ncclAllGather",
        "ncclAlltoAll",
        "ncclGather",
        "ncclScatter",
        "ncclAllReduceConfig",
        "ncclBroadcastConfig",
        "ncclReduceConfig",
        "ncclAllGatherConfig",
        "ncclReduceScatterConfig",
        "ncclAlltoAllConfig",
        "ncclGatherConfig",
        "ncclScatterConfig",
        "ncclSend",
        "ncclRecv",
        "ncclPutSignal",
        "ncclSignal",
        "ncclWaitSignal",
        "ncclGroupStart",
        "ncclGroupEnd",
        "ncclGroupSimulateEnd",
        "ncclSetEncryption",
        "ncclParamBind",
        "ncclParamGetI8",
        "ncclParamGetI16",
        "ncclParamGetI32",
        "ncclParamGetI64",
        "ncclParamGetU8",
        "ncclParamGetU16",
        "ncclParamGetU32",
        "ncclParamGetU64",
        "ncclParamGetStr",
        "ncclParamGet",
        "ncclParamGetParameter",
        "ncclParamGetAllParameterKeys",
        "ncclParamDumpAll",
    ];

    /// Looks every function up in `lib`.
    pub(crate) fn resolve(lib: &::libloading::Library) -> Self {
        Self {
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclMemAlloc: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut * mut :: std :: os :: raw :: c_void, usize) -> ncclResult_t>(lib, b"ncclMemAlloc\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclMemFree: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void) -> ncclResult_t>(lib, b"ncclMemFree\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGetVersion: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclGetVersion\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGetUniqueId: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclUniqueId) -> ncclResult_t>(lib, b"ncclGetUniqueId\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommInitRankConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, ncclUniqueId, :: std :: os :: raw :: c_int, * mut ncclConfig_t) -> ncclResult_t>(lib, b"ncclCommInitRankConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommInitRank: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, ncclUniqueId, :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommInitRank\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommInitAll: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, * const :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommInitAll\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommFinalize: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>(lib, b"ncclCommFinalize\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommDestroy: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>(lib, b"ncclCommDestroy\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommAbort: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>(lib, b"ncclCommAbort\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommRevoke: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommRevoke\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommSplit: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, * mut ncclComm_t, * mut ncclConfig_t) -> ncclResult_t>(lib, b"ncclCommSplit\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommShrink: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, * mut ncclComm_t, * mut ncclConfig_t, :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommShrink\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommGetUniqueId: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut ncclUniqueId) -> ncclResult_t>(lib, b"ncclCommGetUniqueId\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommGrow: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int, * const ncclUniqueId, :: std :: os :: raw :: c_int, * mut ncclComm_t, * mut ncclConfig_t) -> ncclResult_t>(lib, b"ncclCommGrow\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommInitRankScalable: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclComm_t, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, * mut ncclUniqueId, * mut ncclConfig_t) -> ncclResult_t>(lib, b"ncclCommInitRankScalable\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGetErrorString: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclResult_t) -> * const :: std :: os :: raw :: c_char>(lib, b"ncclGetErrorString\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGetLastError: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t) -> * const :: std :: os :: raw :: c_char>(lib, b"ncclGetLastError\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommGetAsyncError: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut ncclResult_t) -> ncclResult_t>(lib, b"ncclCommGetAsyncError\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommCount: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommCount\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommCuDevice: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommCuDevice\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommUserRank: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommUserRank\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommRegister: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_void, usize, * mut * mut :: std :: os :: raw :: c_void) -> ncclResult_t>(lib, b"ncclCommRegister\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommDeregister: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_void) -> ncclResult_t>(lib, b"ncclCommDeregister\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommSuspend: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommSuspend\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommResume: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t) -> ncclResult_t>(lib, b"ncclCommResume\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommMemStats: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, ncclCommMemStat_t, * mut u64) -> ncclResult_t>(lib, b"ncclCommMemStats\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommWindowRegister: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, * mut :: std :: os :: raw :: c_void, usize, * mut ncclWindow_t, :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclCommWindowRegister\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclCommWindowDeregister: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, ncclWindow_t) -> ncclResult_t>(lib, b"ncclCommWindowDeregister\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclWinGetUserPtr: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclComm_t, ncclWindow_t, * mut * mut :: std :: os :: raw :: c_void) -> ncclResult_t>(lib, b"ncclWinGetUserPtr\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclRedOpCreatePreMulSum: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclRedOp_t, * mut :: std :: os :: raw :: c_void, ncclDataType_t, ncclScalarResidence_t, ncclComm_t) -> ncclResult_t>(lib, b"ncclRedOpCreatePreMulSum\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclRedOpDestroy: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclRedOp_t, ncclComm_t) -> ncclResult_t>(lib, b"ncclRedOpDestroy\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclReduce: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclReduce\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclBcast: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclBcast\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclBroadcast: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclBroadcast\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclAllReduce: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclAllReduce\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclReduceScatter: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclReduceScatter\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclAllGather: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclAllGather\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclAlltoAll: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclAlltoAll\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGather: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclGather\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclScatter: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclScatter\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclAllReduceConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclAllReduceConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclBroadcastConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclBroadcastConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclReduceConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclReduceConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclAllGatherConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclAllGatherConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclReduceScatterConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclReduceScatterConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclAlltoAllConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclAlltoAllConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGatherConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclGatherConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclScatterConfig: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, * mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t, * const ncclCollConfig_t) -> ncclResult_t>(lib, b"ncclScatterConfig\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclSend: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclSend\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclRecv: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclRecv\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclPutSignal: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_void, usize, ncclDataType_t, :: std :: os :: raw :: c_int, ncclWindow_t, usize, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_uint, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclPutSignal\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclSignal: unsafe { crate::loader::symbol::<unsafe extern "C" fn(:: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_int, :: std :: os :: raw :: c_uint, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclSignal\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclWaitSignal: unsafe { crate::loader::symbol::<unsafe extern "C" fn(:: std :: os :: raw :: c_int, * mut ncclWaitSignalDesc_t, ncclComm_t, cudaStream_t) -> ncclResult_t>(lib, b"ncclWaitSignal\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGroupStart: unsafe { crate::loader::symbol::<unsafe extern "C" fn() -> ncclResult_t>(lib, b"ncclGroupStart\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGroupEnd: unsafe { crate::loader::symbol::<unsafe extern "C" fn() -> ncclResult_t>(lib, b"ncclGroupEnd\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclGroupSimulateEnd: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclSimInfo_t) -> ncclResult_t>(lib, b"ncclGroupSimulateEnd\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclSetEncryption: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const ncclEncryptionConfig_t) -> ncclResult_t>(lib, b"ncclSetEncryption\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamBind: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut ncclParamHandle_t, * const :: std :: os :: raw :: c_char) -> ncclResult_t>(lib, b"ncclParamBind\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetI8: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut i8) -> ncclResult_t>(lib, b"ncclParamGetI8\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetI16: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut i16) -> ncclResult_t>(lib, b"ncclParamGetI16\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetI32: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut i32) -> ncclResult_t>(lib, b"ncclParamGetI32\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetI64: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut i64) -> ncclResult_t>(lib, b"ncclParamGetI64\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetU8: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut u8) -> ncclResult_t>(lib, b"ncclParamGetU8\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetU16: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut u16) -> ncclResult_t>(lib, b"ncclParamGetU16\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetU32: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut u32) -> ncclResult_t>(lib, b"ncclParamGetU32\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetU64: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut u64) -> ncclResult_t>(lib, b"ncclParamGetU64\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetStr: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut * const :: std :: os :: raw :: c_char) -> ncclResult_t>(lib, b"ncclParamGetStr\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGet: unsafe { crate::loader::symbol::<unsafe extern "C" fn(ncclParamHandle_t, * mut :: std :: os :: raw :: c_void, :: std :: os :: raw :: c_int, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclParamGet\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetParameter: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* const :: std :: os :: raw :: c_char, * mut * const :: std :: os :: raw :: c_char, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclParamGetParameter\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamGetAllParameterKeys: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut * mut * const :: std :: os :: raw :: c_char, * mut :: std :: os :: raw :: c_int) -> ncclResult_t>(lib, b"ncclParamGetAllParameterKeys\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            ncclParamDumpAll: unsafe { crate::loader::symbol::<unsafe extern "C" fn()>(lib, b"ncclParamDumpAll\0") },
        }
    }

    /// Whether the function named `name` was found.
    pub(crate) fn has(&self, name: &str) -> Option<bool> {
        match name {
            "ncclMemAlloc" => Some(self.ncclMemAlloc.is_some()),
            "ncclMemFree" => Some(self.ncclMemFree.is_some()),
            "ncclGetVersion" => Some(self.ncclGetVersion.is_some()),
            "ncclGetUniqueId" => Some(self.ncclGetUniqueId.is_some()),
            "ncclCommInitRankConfig" => Some(self.ncclCommInitRankConfig.is_some()),
            "ncclCommInitRank" => Some(self.ncclCommInitRank.is_some()),
            "ncclCommInitAll" => Some(self.ncclCommInitAll.is_some()),
            "ncclCommFinalize" => Some(self.ncclCommFinalize.is_some()),
            "ncclCommDestroy" => Some(self.ncclCommDestroy.is_some()),
            "ncclCommAbort" => Some(self.ncclCommAbort.is_some()),
            "ncclCommRevoke" => Some(self.ncclCommRevoke.is_some()),
            "ncclCommSplit" => Some(self.ncclCommSplit.is_some()),
            "ncclCommShrink" => Some(self.ncclCommShrink.is_some()),
            "ncclCommGetUniqueId" => Some(self.ncclCommGetUniqueId.is_some()),
            "ncclCommGrow" => Some(self.ncclCommGrow.is_some()),
            "ncclCommInitRankScalable" => Some(self.ncclCommInitRankScalable.is_some()),
            "ncclGetErrorString" => Some(self.ncclGetErrorString.is_some()),
            "ncclGetLastError" => Some(self.ncclGetLastError.is_some()),
            "ncclCommGetAsyncError" => Some(self.ncclCommGetAsyncError.is_some()),
            "ncclCommCount" => Some(self.ncclCommCount.is_some()),
            "ncclCommCuDevice" => Some(self.ncclCommCuDevice.is_some()),
            "ncclCommUserRank" => Some(self.ncclCommUserRank.is_some()),
            "ncclCommRegister" => Some(self.ncclCommRegister.is_some()),
            "ncclCommDeregister" => Some(self.ncclCommDeregister.is_some()),
            "ncclCommSuspend" => Some(self.ncclCommSuspend.is_some()),
            "ncclCommResume" => Some(self.ncclCommResume.is_some()),
            "ncclCommMemStats" => Some(self.ncclCommMemStats.is_some()),
            "ncclCommWindowRegister" => Some(self.ncclCommWindowRegister.is_some()),
            "ncclCommWindowDeregister" => Some(self.ncclCommWindowDeregister.is_some()),
            "ncclWinGetUserPtr" => Some(self.ncclWinGetUserPtr.is_some()),
            "ncclRedOpCreatePreMulSum" => Some(self.ncclRedOpCreatePreMulSum.is_some()),
            "ncclRedOpDestroy" => Some(self.ncclRedOpDestroy.is_some()),
            "ncclReduce" => Some(self.ncclReduce.is_some()),
            "ncclBcast" => Some(self.ncclBcast.is_some()),
            "ncclBroadcast" => Some(self.ncclBroadcast.is_some()),
            "ncclAllReduce" => Some(self.ncclAllReduce.is_some()),
            "ncclReduceScatter" => Some(self.ncclReduceScatter.is_some()),
            "ncclAllGather" => Some(self.ncclAllGather.is_some()),
            "ncclAlltoAll" => Some(self.ncclAlltoAll.is_some()),
            "ncclGather" => Some(self.ncclGather.is_some()),
            "ncclScatter" => Some(self.ncclScatter.is_some()),
            "ncclAllReduceConfig" => Some(self.ncclAllReduceConfig.is_some()),
            "ncclBroadcastConfig" => Some(self.ncclBroadcastConfig.is_some()),
            "ncclReduceConfig" => Some(self.ncclReduceConfig.is_some()),
            "ncclAllGatherConfig" => Some(self.ncclAllGatherConfig.is_some()),
            "ncclReduceScatterConfig" => Some(self.ncclReduceScatterConfig.is_some()),
            "ncclAlltoAllConfig" => Some(self.ncclAlltoAllConfig.is_some()),
            "ncclGatherConfig" => Some(self.ncclGatherConfig.is_some()),
            "ncclScatterConfig" => Some(self.ncclScatterConfig.is_some()),
            "ncclSend" => Some(self.ncclSend.is_some()),
            "ncclRecv" => Some(self.ncclRecv.is_some()),
            "ncclPutSignal" => Some(self.ncclPutSignal.is_some()),
            "ncclSignal" => Some(self.ncclSignal.is_some()),
            "ncclWaitSignal" => Some(self.ncclWaitSignal.is_some()),
            "ncclGroupStart" => Some(self.ncclGroupStart.is_some()),
            "ncclGroupEnd" => Some(self.ncclGroupEnd.is_some()),
            "ncclGroupSimulateEnd" => Some(self.ncclGroupSimulateEnd.is_some()),
            "ncclSetEncryption" => Some(self.ncclSetEncryption.is_some()),
            "ncclParamBind" => Some(self.ncclParamBind.is_some()),
            "ncclParamGetI8" => Some(self.ncclParamGetI8.is_some()),
            "ncclParamGetI16" => Some(self.ncclParamGetI16.is_some()),
            "ncclParamGetI32" => Some(self.ncclParamGetI32.is_some()),
            "ncclParamGetI64" => Some(self.ncclParamGetI64.is_some()),
            "ncclParamGetU8" => Some(self.ncclParamGetU8.is_some()),
            "ncclParamGetU16" => Some(self.ncclParamGetU16.is_some()),
            "ncclParamGetU32" => Some(self.ncclParamGetU32.is_some()),
            "ncclParamGetU64" => Some(self.ncclParamGetU64.is_some()),
            "ncclParamGetStr" => Some(self.ncclParamGetStr.is_some()),
            "ncclParamGet" => Some(self.ncclParamGet.is_some()),
            "ncclParamGetParameter" => Some(self.ncclParamGetParameter.is_some()),
            "ncclParamGetAllParameterKeys" => Some(self.ncclParamGetAllParameterKeys.is_some()),
            "ncclParamDumpAll" => Some(self.ncclParamDumpAll.is_some()),
            _ => None,
        }
    }
}

#[allow(non_snake_case, clippy::too_many_arguments)]
impl crate::Nccl {
    /// Calls `ncclMemAlloc` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclMemAlloc`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclMemAlloc` documents them in libnccl.
    pub unsafe fn ncclMemAlloc(&self, ptr: * mut * mut :: std :: os :: raw :: c_void, size: usize) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclMemAlloc {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(ptr, size) })
            }
            None => Err(self.missing("ncclMemAlloc")),
        }
    }

    /// Calls `ncclMemFree` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclMemFree`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclMemFree` documents them in libnccl.
    pub unsafe fn ncclMemFree(&self, ptr: * mut :: std :: os :: raw :: c_void) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclMemFree {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(ptr) })
            }
            None => Err(self.missing("ncclMemFree")),
        }
    }

    /// Calls `ncclGetVersion` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGetVersion`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGetVersion` documents them in libnccl.
    pub unsafe fn ncclGetVersion(&self, version: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGetVersion {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(version) })
            }
            None => Err(self.missing("ncclGetVersion")),
        }
    }

    /// Calls `ncclGetUniqueId` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGetUniqueId`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGetUniqueId` documents them in libnccl.
    pub unsafe fn ncclGetUniqueId(&self, uniqueId: * mut ncclUniqueId) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGetUniqueId {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(uniqueId) })
            }
            None => Err(self.missing("ncclGetUniqueId")),
        }
    }

    /// Calls `ncclCommInitRankConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommInitRankConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommInitRankConfig` documents them in libnccl.
    pub unsafe fn ncclCommInitRankConfig(&self, comm: * mut ncclComm_t, nranks: :: std :: os :: raw :: c_int, commId: ncclUniqueId, rank: :: std :: os :: raw :: c_int, config: * mut ncclConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommInitRankConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, nranks, commId, rank, config) })
            }
            None => Err(self.missing("ncclCommInitRankConfig")),
        }
    }

    /// Calls `ncclCommInitRank` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommInitRank`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommInitRank` documents them in libnccl.
    pub unsafe fn ncclCommInitRank(&self, comm: * mut ncclComm_t, nranks: :: std :: os :: raw :: c_int, commId: ncclUniqueId, rank: :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommInitRank {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, nranks, commId, rank) })
            }
            None => Err(self.missing("ncclCommInitRank")),
        }
    }

    /// Calls `ncclCommInitAll` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommInitAll`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommInitAll` documents them in libnccl.
    pub unsafe fn ncclCommInitAll(&self, comm: * mut ncclComm_t, ndev: :: std :: os :: raw :: c_int, devlist: * const :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommInitAll {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, ndev, devlist) })
            }
            None => Err(self.missing("ncclCommInitAll")),
        }
    }

    /// Calls `ncclCommFinalize` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommFinalize`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommFinalize` documents them in libnccl.
    pub unsafe fn ncclCommFinalize(&self, comm: ncclComm_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommFinalize {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm) })
            }
            None => Err(self.missing("ncclCommFinalize")),
        }
    }

    /// Calls `ncclCommDestroy` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommDestroy`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommDestroy` documents them in libnccl.
    pub unsafe fn ncclCommDestroy(&self, comm: ncclComm_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommDestroy {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm) })
            }
            None => Err(self.missing("ncclCommDestroy")),
        }
    }

    /// Calls `ncclCommAbort` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommAbort`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommAbort` documents them in libnccl.
    pub unsafe fn ncclCommAbort(&self, comm: ncclComm_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommAbort {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm) })
            }
            None => Err(self.missing("ncclCommAbort")),
        }
    }

    /// Calls `ncclCommRevoke` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommRevoke`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommRevoke` documents them in libnccl.
    pub unsafe fn ncclCommRevoke(&self, comm: ncclComm_t, revokeFlags: :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommRevoke {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, revokeFlags) })
            }
            None => Err(self.missing("ncclCommRevoke")),
        }
    }

    /// Calls `ncclCommSplit` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommSplit`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommSplit` documents them in libnccl.
    pub unsafe fn ncclCommSplit(&self, comm: ncclComm_t, color: :: std :: os :: raw :: c_int, key: :: std :: os :: raw :: c_int, newcomm: * mut ncclComm_t, config: * mut ncclConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommSplit {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, color, key, newcomm, config) })
            }
            None => Err(self.missing("ncclCommSplit")),
        }
    }

    /// Calls `ncclCommShrink` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommShrink`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommShrink` documents them in libnccl.
    pub unsafe fn ncclCommShrink(&self, comm: ncclComm_t, excludeRanksList: * mut :: std :: os :: raw :: c_int, excludeRanksCount: :: std :: os :: raw :: c_int, newcomm: * mut ncclComm_t, config: * mut ncclConfig_t, shrinkFlags: :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommShrink {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags) })
            }
            None => Err(self.missing("ncclCommShrink")),
        }
    }

    /// Calls `ncclCommGetUniqueId` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommGetUniqueId`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommGetUniqueId` documents them in libnccl.
    pub unsafe fn ncclCommGetUniqueId(&self, comm: ncclComm_t, uniqueId: * mut ncclUniqueId) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommGetUniqueId {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, uniqueId) })
            }
            None => Err(self.missing("ncclCommGetUniqueId")),
        }
    }

    /// Calls `ncclCommGrow` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommGrow`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommGrow` documents them in libnccl.
    pub unsafe fn ncclCommGrow(&self, comm: ncclComm_t, nRanks: :: std :: os :: raw :: c_int, uniqueId: * const ncclUniqueId, rank: :: std :: os :: raw :: c_int, newcomm: * mut ncclComm_t, config: * mut ncclConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommGrow {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, nRanks, uniqueId, rank, newcomm, config) })
            }
            None => Err(self.missing("ncclCommGrow")),
        }
    }

    /// Calls `ncclCommInitRankScalable` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommInitRankScalable`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommInitRankScalable` documents them in libnccl.
    pub unsafe fn ncclCommInitRankScalable(&self, newcomm: * mut ncclComm_t, nranks: :: std :: os :: raw :: c_int, myrank: :: std :: os :: raw :: c_int, nId: :: std :: os :: raw :: c_int, commIds: * mut ncclUniqueId, config: * mut ncclConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommInitRankScalable {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(newcomm, nranks, myrank, nId, commIds, config) })
            }
            None => Err(self.missing("ncclCommInitRankScalable")),
        }
    }

    /// Calls `ncclGetErrorString` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGetErrorString`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGetErrorString` documents them in libnccl.
    pub unsafe fn ncclGetErrorString(&self, result: ncclResult_t) -> Result<* const :: std :: os :: raw :: c_char, crate::LoadError> {
        match self.functions.ncclGetErrorString {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(result) })
            }
            None => Err(self.missing("ncclGetErrorString")),
        }
    }

    /// Calls `ncclGetLastError` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGetLastError`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGetLastError` documents them in libnccl.
    pub unsafe fn ncclGetLastError(&self, comm: ncclComm_t) -> Result<* const :: std :: os :: raw :: c_char, crate::LoadError> {
        match self.functions.ncclGetLastError {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm) })
            }
            None => Err(self.missing("ncclGetLastError")),
        }
    }

    /// Calls `ncclCommGetAsyncError` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommGetAsyncError`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommGetAsyncError` documents them in libnccl.
    pub unsafe fn ncclCommGetAsyncError(&self, comm: ncclComm_t, asyncError: * mut ncclResult_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommGetAsyncError {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, asyncError) })
            }
            None => Err(self.missing("ncclCommGetAsyncError")),
        }
    }

    /// Calls `ncclCommCount` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommCount`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommCount` documents them in libnccl.
    pub unsafe fn ncclCommCount(&self, comm: ncclComm_t, count: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommCount {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, count) })
            }
            None => Err(self.missing("ncclCommCount")),
        }
    }

    /// Calls `ncclCommCuDevice` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommCuDevice`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommCuDevice` documents them in libnccl.
    pub unsafe fn ncclCommCuDevice(&self, comm: ncclComm_t, device: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommCuDevice {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, device) })
            }
            None => Err(self.missing("ncclCommCuDevice")),
        }
    }

    /// Calls `ncclCommUserRank` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommUserRank`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommUserRank` documents them in libnccl.
    pub unsafe fn ncclCommUserRank(&self, comm: ncclComm_t, rank: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommUserRank {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, rank) })
            }
            None => Err(self.missing("ncclCommUserRank")),
        }
    }

    /// Calls `ncclCommRegister` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommRegister`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommRegister` documents them in libnccl.
    pub unsafe fn ncclCommRegister(&self, comm: ncclComm_t, buff: * mut :: std :: os :: raw :: c_void, size: usize, handle: * mut * mut :: std :: os :: raw :: c_void) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommRegister {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, buff, size, handle) })
            }
            None => Err(self.missing("ncclCommRegister")),
        }
    }

    /// Calls `ncclCommDeregister` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommDeregister`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommDeregister` documents them in libnccl.
    pub unsafe fn ncclCommDeregister(&self, comm: ncclComm_t, handle: * mut :: std :: os :: raw :: c_void) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommDeregister {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, handle) })
            }
            None => Err(self.missing("ncclCommDeregister")),
        }
    }

    /// Calls `ncclCommSuspend` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommSuspend`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommSuspend` documents them in libnccl.
    pub unsafe fn ncclCommSuspend(&self, comm: ncclComm_t, flags: :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommSuspend {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, flags) })
            }
            None => Err(self.missing("ncclCommSuspend")),
        }
    }

    /// Calls `ncclCommResume` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommResume`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommResume` documents them in libnccl.
    pub unsafe fn ncclCommResume(&self, comm: ncclComm_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommResume {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm) })
            }
            None => Err(self.missing("ncclCommResume")),
        }
    }

    /// Calls `ncclCommMemStats` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommMemStats`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommMemStats` documents them in libnccl.
    pub unsafe fn ncclCommMemStats(&self, comm: ncclComm_t, stat: ncclCommMemStat_t, value: * mut u64) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommMemStats {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, stat, value) })
            }
            None => Err(self.missing("ncclCommMemStats")),
        }
    }

    /// Calls `ncclCommWindowRegister` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommWindowRegister`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommWindowRegister` documents them in libnccl.
    pub unsafe fn ncclCommWindowRegister(&self, comm: ncclComm_t, buff: * mut :: std :: os :: raw :: c_void, size: usize, win: * mut ncclWindow_t, winFlags: :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommWindowRegister {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, buff, size, win, winFlags) })
            }
            None => Err(self.missing("ncclCommWindowRegister")),
        }
    }

    /// Calls `ncclCommWindowDeregister` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclCommWindowDeregister`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclCommWindowDeregister` documents them in libnccl.
    pub unsafe fn ncclCommWindowDeregister(&self, comm: ncclComm_t, win: ncclWindow_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclCommWindowDeregister {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, win) })
            }
            None => Err(self.missing("ncclCommWindowDeregister")),
        }
    }

    /// Calls `ncclWinGetUserPtr` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclWinGetUserPtr`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclWinGetUserPtr` documents them in libnccl.
    pub unsafe fn ncclWinGetUserPtr(&self, comm: ncclComm_t, win: ncclWindow_t, outUserPtr: * mut * mut :: std :: os :: raw :: c_void) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclWinGetUserPtr {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(comm, win, outUserPtr) })
            }
            None => Err(self.missing("ncclWinGetUserPtr")),
        }
    }

    /// Calls `ncclRedOpCreatePreMulSum` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclRedOpCreatePreMulSum`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclRedOpCreatePreMulSum` documents them in libnccl.
    pub unsafe fn ncclRedOpCreatePreMulSum(&self, op: * mut ncclRedOp_t, scalar: * mut :: std :: os :: raw :: c_void, datatype: ncclDataType_t, residence: ncclScalarResidence_t, comm: ncclComm_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclRedOpCreatePreMulSum {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(op, scalar, datatype, residence, comm) })
            }
            None => Err(self.missing("ncclRedOpCreatePreMulSum")),
        }
    }

    /// Calls `ncclRedOpDestroy` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclRedOpDestroy`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclRedOpDestroy` documents them in libnccl.
    pub unsafe fn ncclRedOpDestroy(&self, op: ncclRedOp_t, comm: ncclComm_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclRedOpDestroy {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(op, comm) })
            }
            None => Err(self.missing("ncclRedOpDestroy")),
        }
    }

    /// Calls `ncclReduce` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclReduce`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclReduce` documents them in libnccl.
    pub unsafe fn ncclReduce(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclReduce {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, op, root, comm, stream) })
            }
            None => Err(self.missing("ncclReduce")),
        }
    }

    /// Calls `ncclBcast` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclBcast`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclBcast` documents them in libnccl.
    pub unsafe fn ncclBcast(&self, buff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclBcast {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(buff, count, datatype, root, comm, stream) })
            }
            None => Err(self.missing("ncclBcast")),
        }
    }

    /// Calls `ncclBroadcast` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclBroadcast`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclBroadcast` documents them in libnccl.
    pub unsafe fn ncclBroadcast(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclBroadcast {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, root, comm, stream) })
            }
            None => Err(self.missing("ncclBroadcast")),
        }
    }

    /// Calls `ncclAllReduce` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclAllReduce`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclAllReduce` documents them in libnccl.
    pub unsafe fn ncclAllReduce(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclAllReduce {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, op, comm, stream) })
            }
            None => Err(self.missing("ncclAllReduce")),
        }
    }

    /// Calls `ncclReduceScatter` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclReduceScatter`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclReduceScatter` documents them in libnccl.
    pub unsafe fn ncclReduceScatter(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, recvcount: usize, datatype: ncclDataType_t, op: ncclRedOp_t, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclReduceScatter {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, recvcount, datatype, op, comm, stream) })
            }
            None => Err(self.missing("ncclReduceScatter")),
        }
    }

    /// Calls `ncclAllGather` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclAllGather`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclAllGather` documents them in libnccl.
    pub unsafe fn ncclAllGather(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, sendcount: usize, datatype: ncclDataType_t, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclAllGather {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, sendcount, datatype, comm, stream) })
            }
            None => Err(self.missing("ncclAllGather")),
        }
    }

    /// Calls `ncclAlltoAll` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclAlltoAll`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclAlltoAll` documents them in libnccl.
    pub unsafe fn ncclAlltoAll(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclAlltoAll {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, comm, stream) })
            }
            None => Err(self.missing("ncclAlltoAll")),
        }
    }

    /// Calls `ncclGather` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGather`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGather` documents them in libnccl.
    pub unsafe fn ncclGather(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGather {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, root, comm, stream) })
            }
            None => Err(self.missing("ncclGather")),
        }
    }

    /// Calls `ncclScatter` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclScatter`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclScatter` documents them in libnccl.
    pub unsafe fn ncclScatter(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclScatter {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, root, comm, stream) })
            }
            None => Err(self.missing("ncclScatter")),
        }
    }

    /// Calls `ncclAllReduceConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclAllReduceConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclAllReduceConfig` documents them in libnccl.
    pub unsafe fn ncclAllReduceConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclAllReduceConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, op, comm, stream, config) })
            }
            None => Err(self.missing("ncclAllReduceConfig")),
        }
    }

    /// Calls `ncclBroadcastConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclBroadcastConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclBroadcastConfig` documents them in libnccl.
    pub unsafe fn ncclBroadcastConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclBroadcastConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, root, comm, stream, config) })
            }
            None => Err(self.missing("ncclBroadcastConfig")),
        }
    }

    /// Calls `ncclReduceConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclReduceConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclReduceConfig` documents them in libnccl.
    pub unsafe fn ncclReduceConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclReduceConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, op, root, comm, stream, config) })
            }
            None => Err(self.missing("ncclReduceConfig")),
        }
    }

    /// Calls `ncclAllGatherConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclAllGatherConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclAllGatherConfig` documents them in libnccl.
    pub unsafe fn ncclAllGatherConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, sendcount: usize, datatype: ncclDataType_t, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclAllGatherConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, sendcount, datatype, comm, stream, config) })
            }
            None => Err(self.missing("ncclAllGatherConfig")),
        }
    }

    /// Calls `ncclReduceScatterConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclReduceScatterConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclReduceScatterConfig` documents them in libnccl.
    pub unsafe fn ncclReduceScatterConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, recvcount: usize, datatype: ncclDataType_t, op: ncclRedOp_t, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclReduceScatterConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, recvcount, datatype, op, comm, stream, config) })
            }
            None => Err(self.missing("ncclReduceScatterConfig")),
        }
    }

    /// Calls `ncclAlltoAllConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclAlltoAllConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclAlltoAllConfig` documents them in libnccl.
    pub unsafe fn ncclAlltoAllConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclAlltoAllConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, comm, stream, config) })
            }
            None => Err(self.missing("ncclAlltoAllConfig")),
        }
    }

    /// Calls `ncclGatherConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGatherConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGatherConfig` documents them in libnccl.
    pub unsafe fn ncclGatherConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGatherConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, root, comm, stream, config) })
            }
            None => Err(self.missing("ncclGatherConfig")),
        }
    }

    /// Calls `ncclScatterConfig` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclScatterConfig`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclScatterConfig` documents them in libnccl.
    pub unsafe fn ncclScatterConfig(&self, sendbuff: * const :: std :: os :: raw :: c_void, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, root: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t, config: * const ncclCollConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclScatterConfig {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, recvbuff, count, datatype, root, comm, stream, config) })
            }
            None => Err(self.missing("ncclScatterConfig")),
        }
    }

    /// Calls `ncclSend` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclSend`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclSend` documents them in libnccl.
    pub unsafe fn ncclSend(&self, sendbuff: * const :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, peer: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclSend {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(sendbuff, count, datatype, peer, comm, stream) })
            }
            None => Err(self.missing("ncclSend")),
        }
    }

    /// Calls `ncclRecv` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclRecv`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclRecv` documents them in libnccl.
    pub unsafe fn ncclRecv(&self, recvbuff: * mut :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, peer: :: std :: os :: raw :: c_int, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclRecv {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(recvbuff, count, datatype, peer, comm, stream) })
            }
            None => Err(self.missing("ncclRecv")),
        }
    }

    /// Calls `ncclPutSignal` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclPutSignal`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclPutSignal` documents them in libnccl.
    pub unsafe fn ncclPutSignal(&self, localbuff: * const :: std :: os :: raw :: c_void, count: usize, datatype: ncclDataType_t, peer: :: std :: os :: raw :: c_int, peerWin: ncclWindow_t, peerWinOffset: usize, sigIdx: :: std :: os :: raw :: c_int, ctx: :: std :: os :: raw :: c_int, flags: :: std :: os :: raw :: c_uint, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclPutSignal {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(localbuff, count, datatype, peer, peerWin, peerWinOffset, sigIdx, ctx, flags, comm, stream) })
            }
            None => Err(self.missing("ncclPutSignal")),
        }
    }

    /// Calls `ncclSignal` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclSignal`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclSignal` documents them in libnccl.
    pub unsafe fn ncclSignal(&self, peer: :: std :: os :: raw :: c_int, sigIdx: :: std :: os :: raw :: c_int, ctx: :: std :: os :: raw :: c_int, flags: :: std :: os :: raw :: c_uint, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclSignal {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(peer, sigIdx, ctx, flags, comm, stream) })
            }
            None => Err(self.missing("ncclSignal")),
        }
    }

    /// Calls `ncclWaitSignal` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclWaitSignal`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclWaitSignal` documents them in libnccl.
    pub unsafe fn ncclWaitSignal(&self, nDesc: :: std :: os :: raw :: c_int, signalDescs: * mut ncclWaitSignalDesc_t, comm: ncclComm_t, stream: cudaStream_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclWaitSignal {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(nDesc, signalDescs, comm, stream) })
            }
            None => Err(self.missing("ncclWaitSignal")),
        }
    }

    /// Calls `ncclGroupStart` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGroupStart`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGroupStart` documents them in libnccl.
    pub unsafe fn ncclGroupStart(&self, ) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGroupStart {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__() })
            }
            None => Err(self.missing("ncclGroupStart")),
        }
    }

    /// Calls `ncclGroupEnd` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGroupEnd`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGroupEnd` documents them in libnccl.
    pub unsafe fn ncclGroupEnd(&self, ) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGroupEnd {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__() })
            }
            None => Err(self.missing("ncclGroupEnd")),
        }
    }

    /// Calls `ncclGroupSimulateEnd` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclGroupSimulateEnd`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclGroupSimulateEnd` documents them in libnccl.
    pub unsafe fn ncclGroupSimulateEnd(&self, simInfo: * mut ncclSimInfo_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclGroupSimulateEnd {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(simInfo) })
            }
            None => Err(self.missing("ncclGroupSimulateEnd")),
        }
    }

    /// Calls `ncclSetEncryption` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclSetEncryption`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclSetEncryption` documents them in libnccl.
    pub unsafe fn ncclSetEncryption(&self, config: * const ncclEncryptionConfig_t) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclSetEncryption {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(config) })
            }
            None => Err(self.missing("ncclSetEncryption")),
        }
    }

    /// Calls `ncclParamBind` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamBind`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamBind` documents them in libnccl.
    pub unsafe fn ncclParamBind(&self, out: * mut ncclParamHandle_t, key: * const :: std :: os :: raw :: c_char) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamBind {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(out, key) })
            }
            None => Err(self.missing("ncclParamBind")),
        }
    }

    /// Calls `ncclParamGetI8` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetI8`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetI8` documents them in libnccl.
    pub unsafe fn ncclParamGetI8(&self, h: ncclParamHandle_t, out: * mut i8) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetI8 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetI8")),
        }
    }

    /// Calls `ncclParamGetI16` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetI16`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetI16` documents them in libnccl.
    pub unsafe fn ncclParamGetI16(&self, h: ncclParamHandle_t, out: * mut i16) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetI16 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetI16")),
        }
    }

    /// Calls `ncclParamGetI32` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetI32`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetI32` documents them in libnccl.
    pub unsafe fn ncclParamGetI32(&self, h: ncclParamHandle_t, out: * mut i32) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetI32 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetI32")),
        }
    }

    /// Calls `ncclParamGetI64` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetI64`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetI64` documents them in libnccl.
    pub unsafe fn ncclParamGetI64(&self, h: ncclParamHandle_t, out: * mut i64) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetI64 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetI64")),
        }
    }

    /// Calls `ncclParamGetU8` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetU8`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetU8` documents them in libnccl.
    pub unsafe fn ncclParamGetU8(&self, h: ncclParamHandle_t, out: * mut u8) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetU8 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetU8")),
        }
    }

    /// Calls `ncclParamGetU16` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetU16`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetU16` documents them in libnccl.
    pub unsafe fn ncclParamGetU16(&self, h: ncclParamHandle_t, out: * mut u16) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetU16 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetU16")),
        }
    }

    /// Calls `ncclParamGetU32` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetU32`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetU32` documents them in libnccl.
    pub unsafe fn ncclParamGetU32(&self, h: ncclParamHandle_t, out: * mut u32) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetU32 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetU32")),
        }
    }

    /// Calls `ncclParamGetU64` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetU64`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetU64` documents them in libnccl.
    pub unsafe fn ncclParamGetU64(&self, h: ncclParamHandle_t, out: * mut u64) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetU64 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetU64")),
        }
    }

    /// Calls `ncclParamGetStr` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetStr`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetStr` documents them in libnccl.
    pub unsafe fn ncclParamGetStr(&self, h: ncclParamHandle_t, out: * mut * const :: std :: os :: raw :: c_char) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetStr {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out) })
            }
            None => Err(self.missing("ncclParamGetStr")),
        }
    }

    /// Calls `ncclParamGet` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGet`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGet` documents them in libnccl.
    pub unsafe fn ncclParamGet(&self, h: ncclParamHandle_t, out: * mut :: std :: os :: raw :: c_void, maxLen: :: std :: os :: raw :: c_int, len: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGet {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(h, out, maxLen, len) })
            }
            None => Err(self.missing("ncclParamGet")),
        }
    }

    /// Calls `ncclParamGetParameter` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetParameter`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetParameter` documents them in libnccl.
    pub unsafe fn ncclParamGetParameter(&self, key: * const :: std :: os :: raw :: c_char, value: * mut * const :: std :: os :: raw :: c_char, valueLen: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetParameter {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(key, value, valueLen) })
            }
            None => Err(self.missing("ncclParamGetParameter")),
        }
    }

    /// Calls `ncclParamGetAllParameterKeys` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamGetAllParameterKeys`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamGetAllParameterKeys` documents them in libnccl.
    pub unsafe fn ncclParamGetAllParameterKeys(&self, table: * mut * mut * const :: std :: os :: raw :: c_char, tableLen: * mut :: std :: os :: raw :: c_int) -> Result<ncclResult_t, crate::LoadError> {
        match self.functions.ncclParamGetAllParameterKeys {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(table, tableLen) })
            }
            None => Err(self.missing("ncclParamGetAllParameterKeys")),
        }
    }

    /// Calls `ncclParamDumpAll` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `ncclParamDumpAll`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `ncclParamDumpAll` documents them in libnccl.
    pub unsafe fn ncclParamDumpAll(&self, ) -> Result<(), crate::LoadError> {
        match self.functions.ncclParamDumpAll {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                unsafe { callee__() };
                Ok(())
            }
            None => Err(self.missing("ncclParamDumpAll")),
        }
    }

}

/// Entry points of the CUDA driver (libcuda), each `None` when the library lacks it.
#[derive(Clone, Copy)]
#[allow(non_snake_case, clippy::type_complexity)]
pub(crate) struct CudaFunctions {
    pub(crate) cuGetErrorString: Option<unsafe extern "C" fn(CUresult, * mut * const :: std :: os :: raw :: c_char) -> CUresult>,
    pub(crate) cuGetErrorName: Option<unsafe extern "C" fn(CUresult, * mut * const :: std :: os :: raw :: c_char) -> CUresult>,
    pub(crate) cuInit: Option<unsafe extern "C" fn(:: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuDriverGetVersion: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuDeviceGet: Option<unsafe extern "C" fn(* mut CUdevice, :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuDeviceGetCount: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuDeviceGetName: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_char, :: std :: os :: raw :: c_int, CUdevice) -> CUresult>,
    pub(crate) cuDeviceGetUuid: Option<unsafe extern "C" fn(* mut CUuuid, CUdevice) -> CUresult>,
    pub(crate) cuDeviceGetUuid_v2: Option<unsafe extern "C" fn(* mut CUuuid, CUdevice) -> CUresult>,
    pub(crate) cuDeviceTotalMem_v2: Option<unsafe extern "C" fn(* mut usize, CUdevice) -> CUresult>,
    pub(crate) cuDeviceGetAttribute: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, CUdevice_attribute, CUdevice) -> CUresult>,
    pub(crate) cuDeviceSetMemPool: Option<unsafe extern "C" fn(CUdevice, CUmemoryPool) -> CUresult>,
    pub(crate) cuDeviceGetMemPool: Option<unsafe extern "C" fn(* mut CUmemoryPool, CUdevice) -> CUresult>,
    pub(crate) cuDeviceGetDefaultMemPool: Option<unsafe extern "C" fn(* mut CUmemoryPool, CUdevice) -> CUresult>,
    pub(crate) cuDevicePrimaryCtxRetain: Option<unsafe extern "C" fn(* mut CUcontext, CUdevice) -> CUresult>,
    pub(crate) cuDevicePrimaryCtxRelease_v2: Option<unsafe extern "C" fn(CUdevice) -> CUresult>,
    pub(crate) cuDevicePrimaryCtxSetFlags_v2: Option<unsafe extern "C" fn(CUdevice, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuDevicePrimaryCtxGetState: Option<unsafe extern "C" fn(CUdevice, * mut :: std :: os :: raw :: c_uint, * mut :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuCtxSetCurrent: Option<unsafe extern "C" fn(CUcontext) -> CUresult>,
    pub(crate) cuCtxGetCurrent: Option<unsafe extern "C" fn(* mut CUcontext) -> CUresult>,
    pub(crate) cuCtxGetDevice: Option<unsafe extern "C" fn(* mut CUdevice) -> CUresult>,
    pub(crate) cuCtxSynchronize: Option<unsafe extern "C" fn() -> CUresult>,
    pub(crate) cuCtxGetStreamPriorityRange: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, * mut :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuModuleLoadData: Option<unsafe extern "C" fn(* mut CUmodule, * const :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuModuleLoadDataEx: Option<unsafe extern "C" fn(* mut CUmodule, * const :: std :: os :: raw :: c_void, :: std :: os :: raw :: c_uint, * mut CUjit_option, * mut * mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuModuleUnload: Option<unsafe extern "C" fn(CUmodule) -> CUresult>,
    pub(crate) cuModuleGetFunction: Option<unsafe extern "C" fn(* mut CUfunction, CUmodule, * const :: std :: os :: raw :: c_char) -> CUresult>,
    pub(crate) cuMemGetInfo_v2: Option<unsafe extern "C" fn(* mut usize, * mut usize) -> CUresult>,
    pub(crate) cuMemGetAddressRange_v2: Option<unsafe extern "C" fn(* mut CUdeviceptr, * mut usize, CUdeviceptr) -> CUresult>,
    pub(crate) cuMemFreeHost: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuMemHostAlloc: Option<unsafe extern "C" fn(* mut * mut :: std :: os :: raw :: c_void, usize, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuMemHostGetDevicePointer_v2: Option<unsafe extern "C" fn(* mut CUdeviceptr, * mut :: std :: os :: raw :: c_void, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuDeviceGetPCIBusId: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_char, :: std :: os :: raw :: c_int, CUdevice) -> CUresult>,
    pub(crate) cuMemHostRegister_v2: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, usize, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuMemHostUnregister: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuMemcpyAsync: Option<unsafe extern "C" fn(CUdeviceptr, CUdeviceptr, usize, CUstream) -> CUresult>,
    pub(crate) cuMemcpyHtoDAsync_v2: Option<unsafe extern "C" fn(CUdeviceptr, * const :: std :: os :: raw :: c_void, usize, CUstream) -> CUresult>,
    pub(crate) cuMemcpyDtoHAsync_v2: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, CUdeviceptr, usize, CUstream) -> CUresult>,
    pub(crate) cuMemcpyDtoDAsync_v2: Option<unsafe extern "C" fn(CUdeviceptr, CUdeviceptr, usize, CUstream) -> CUresult>,
    pub(crate) cuMemsetD8Async: Option<unsafe extern "C" fn(CUdeviceptr, :: std :: os :: raw :: c_uchar, usize, CUstream) -> CUresult>,
    pub(crate) cuMemsetD16Async: Option<unsafe extern "C" fn(CUdeviceptr, :: std :: os :: raw :: c_ushort, usize, CUstream) -> CUresult>,
    pub(crate) cuMemsetD32Async: Option<unsafe extern "C" fn(CUdeviceptr, :: std :: os :: raw :: c_uint, usize, CUstream) -> CUresult>,
    pub(crate) cuMemFreeAsync: Option<unsafe extern "C" fn(CUdeviceptr, CUstream) -> CUresult>,
    pub(crate) cuMemAllocAsync: Option<unsafe extern "C" fn(* mut CUdeviceptr, usize, CUstream) -> CUresult>,
    pub(crate) cuMemPoolTrimTo: Option<unsafe extern "C" fn(CUmemoryPool, usize) -> CUresult>,
    pub(crate) cuMemPoolSetAttribute: Option<unsafe extern "C" fn(CUmemoryPool, CUmemPool_attribute, * mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuMemPoolGetAttribute: Option<unsafe extern "C" fn(CUmemoryPool, CUmemPool_attribute, * mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuMemPoolCreate: Option<unsafe extern "C" fn(* mut CUmemoryPool, * const CUmemPoolProps) -> CUresult>,
    pub(crate) cuMemPoolDestroy: Option<unsafe extern "C" fn(CUmemoryPool) -> CUresult>,
    pub(crate) cuMemAllocFromPoolAsync: Option<unsafe extern "C" fn(* mut CUdeviceptr, usize, CUmemoryPool, CUstream) -> CUresult>,
    pub(crate) cuPointerGetAttribute: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, CUpointer_attribute, CUdeviceptr) -> CUresult>,
    pub(crate) cuStreamCreate: Option<unsafe extern "C" fn(* mut CUstream, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuStreamCreateWithPriority: Option<unsafe extern "C" fn(* mut CUstream, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuStreamGetPriority: Option<unsafe extern "C" fn(CUstream, * mut :: std :: os :: raw :: c_int) -> CUresult>,
    pub(crate) cuStreamGetFlags: Option<unsafe extern "C" fn(CUstream, * mut :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuStreamWaitEvent: Option<unsafe extern "C" fn(CUstream, CUevent, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuStreamBeginCapture_v2: Option<unsafe extern "C" fn(CUstream, CUstreamCaptureMode) -> CUresult>,
    pub(crate) cuStreamEndCapture: Option<unsafe extern "C" fn(CUstream, * mut CUgraph) -> CUresult>,
    pub(crate) cuStreamQuery: Option<unsafe extern "C" fn(CUstream) -> CUresult>,
    pub(crate) cuStreamSynchronize: Option<unsafe extern "C" fn(CUstream) -> CUresult>,
    pub(crate) cuStreamDestroy_v2: Option<unsafe extern "C" fn(CUstream) -> CUresult>,
    pub(crate) cuEventCreate: Option<unsafe extern "C" fn(* mut CUevent, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuEventRecord: Option<unsafe extern "C" fn(CUevent, CUstream) -> CUresult>,
    pub(crate) cuEventQuery: Option<unsafe extern "C" fn(CUevent) -> CUresult>,
    pub(crate) cuEventSynchronize: Option<unsafe extern "C" fn(CUevent) -> CUresult>,
    pub(crate) cuEventDestroy_v2: Option<unsafe extern "C" fn(CUevent) -> CUresult>,
    pub(crate) cuEventElapsedTime: Option<unsafe extern "C" fn(* mut f32, CUevent, CUevent) -> CUresult>,
    pub(crate) cuEventElapsedTime_v2: Option<unsafe extern "C" fn(* mut f32, CUevent, CUevent) -> CUresult>,
    pub(crate) cuStreamWaitValue32_v2: Option<unsafe extern "C" fn(CUstream, CUdeviceptr, cuuint32_t, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuStreamWriteValue32_v2: Option<unsafe extern "C" fn(CUstream, CUdeviceptr, cuuint32_t, :: std :: os :: raw :: c_uint) -> CUresult>,
    pub(crate) cuFuncGetAttribute: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, CUfunction_attribute, CUfunction) -> CUresult>,
    pub(crate) cuLaunchKernel: Option<unsafe extern "C" fn(CUfunction, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, CUstream, * mut * mut :: std :: os :: raw :: c_void, * mut * mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuLaunchHostFunc: Option<unsafe extern "C" fn(CUstream, CUhostFn, * mut :: std :: os :: raw :: c_void) -> CUresult>,
    pub(crate) cuGraphInstantiateWithFlags: Option<unsafe extern "C" fn(* mut CUgraphExec, CUgraph, :: std :: os :: raw :: c_ulonglong) -> CUresult>,
    pub(crate) cuGraphLaunch: Option<unsafe extern "C" fn(CUgraphExec, CUstream) -> CUresult>,
    pub(crate) cuGraphExecDestroy: Option<unsafe extern "C" fn(CUgraphExec) -> CUresult>,
    pub(crate) cuGraphDestroy: Option<unsafe extern "C" fn(CUgraph) -> CUresult>,
    pub(crate) cuDeviceCanAccessPeer: Option<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, CUdevice, CUdevice) -> CUresult>,
}

impl CudaFunctions {
    /// Names of every function in this table, in header order.
    pub(crate) const NAMES: &'static [&'static str] = &[
        "cuGetErrorString",
        "cuGetErrorName",
        "cuInit",
        "cuDriverGetVersion",
        "cuDeviceGet",
        "cuDeviceGetCount",
        "cuDeviceGetName",
        "cuDeviceGetUuid",
        "cuDeviceGetUuid_v2",
        "cuDeviceTotalMem_v2",
        "cuDeviceGetAttribute",
        "cuDeviceSetMemPool",
        "cuDeviceGetMemPool",
        "cuDeviceGetDefaultMemPool",
        "cuDevicePrimaryCtxRetain",
        "cuDevicePrimaryCtxRelease_v2",
        "cuDevicePrimaryCtxSetFlags_v2",
        "cuDevicePrimaryCtxGetState",
        "cuCtxSetCurrent",
        "cuCtxGetCurrent",
        "cuCtxGetDevice",
        "cuCtxSynchronize",
        "cuCtxGetStreamPriorityRange",
        "cuModuleLoadData",
        "cuModuleLoadDataEx",
        "cuModuleUnload",
        "cuModuleGetFunction",
        "cuMemGetInfo_v2",
        "cuMemGetAddressRange_v2",
        "cuMemFreeHost",
        "cuMemHostAlloc",
        "cuMemHostGetDevicePointer_v2",
        "cuDeviceGetPCIBusId",
        "cuMemHostRegister_v2",
        "cuMemHostUnregister",
        "cuMemcpyAsync",
        "cuMemcpyHtoDAsync_v2",
        "cuMemcpyDtoHAsync_v2",
        "cuMemcpyDtoDAsync_v2",
        "cuMemsetD8Async",
        "cuMemsetD16Async",
        "cuMemsetD32Async",
        "cuMemFreeAsync",
        "cuMemAllocAsync",
        "cuMemPoolTrimTo",
        "cuMemPoolSetAttribute",
        "cuMemPoolGetAttribute",
        "cuMemPoolCreate",
        "cuMemPoolDestroy",
        "cuMemAllocFromPoolAsync",
        "cuPointerGetAttribute",
        "cuStreamCreate",
        "cuStreamCreateWithPriority",
        "cuStreamGetPriority",
        "cuStreamGetFlags",
        "cuStreamWaitEvent",
        "cuStreamBeginCapture_v2",
        "cuStreamEndCapture",
        "cuStreamQuery",
        "cuStreamSynchronize",
        "cuStreamDestroy_v2",
        "cuEventCreate",
        "cuEventRecord",
        "cuEventQuery",
        "cuEventSynchronize",
        "cuEventDestroy_v2",
        "cuEventElapsedTime",
        "cuEventElapsedTime_v2",
        "cuStreamWaitValue32_v2",
        "cuStreamWriteValue32_v2",
        "cuFuncGetAttribute",
        "cuLaunchKernel",
        "cuLaunchHostFunc",
        "cuGraphInstantiateWithFlags",
        "cuGraphLaunch",
        "cuGraphExecDestroy",
        "cuGraphDestroy",
        "cuDeviceCanAccessPeer",
    ];

    /// Looks every function up in `lib`.
    pub(crate) fn resolve(lib: &::libloading::Library) -> Self {
        Self {
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuGetErrorString: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUresult, * mut * const :: std :: os :: raw :: c_char) -> CUresult>(lib, b"cuGetErrorString\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuGetErrorName: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUresult, * mut * const :: std :: os :: raw :: c_char) -> CUresult>(lib, b"cuGetErrorName\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuInit: unsafe { crate::loader::symbol::<unsafe extern "C" fn(:: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuInit\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDriverGetVersion: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuDriverGetVersion\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGet: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUdevice, :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuDeviceGet\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetCount: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuDeviceGetCount\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetName: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_char, :: std :: os :: raw :: c_int, CUdevice) -> CUresult>(lib, b"cuDeviceGetName\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetUuid: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUuuid, CUdevice) -> CUresult>(lib, b"cuDeviceGetUuid\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetUuid_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUuuid, CUdevice) -> CUresult>(lib, b"cuDeviceGetUuid_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceTotalMem_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut usize, CUdevice) -> CUresult>(lib, b"cuDeviceTotalMem_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetAttribute: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, CUdevice_attribute, CUdevice) -> CUresult>(lib, b"cuDeviceGetAttribute\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceSetMemPool: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdevice, CUmemoryPool) -> CUresult>(lib, b"cuDeviceSetMemPool\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetMemPool: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUmemoryPool, CUdevice) -> CUresult>(lib, b"cuDeviceGetMemPool\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetDefaultMemPool: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUmemoryPool, CUdevice) -> CUresult>(lib, b"cuDeviceGetDefaultMemPool\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDevicePrimaryCtxRetain: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUcontext, CUdevice) -> CUresult>(lib, b"cuDevicePrimaryCtxRetain\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDevicePrimaryCtxRelease_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdevice) -> CUresult>(lib, b"cuDevicePrimaryCtxRelease_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDevicePrimaryCtxSetFlags_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdevice, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuDevicePrimaryCtxSetFlags_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDevicePrimaryCtxGetState: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdevice, * mut :: std :: os :: raw :: c_uint, * mut :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuDevicePrimaryCtxGetState\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuCtxSetCurrent: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUcontext) -> CUresult>(lib, b"cuCtxSetCurrent\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuCtxGetCurrent: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUcontext) -> CUresult>(lib, b"cuCtxGetCurrent\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuCtxGetDevice: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUdevice) -> CUresult>(lib, b"cuCtxGetDevice\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuCtxSynchronize: unsafe { crate::loader::symbol::<unsafe extern "C" fn() -> CUresult>(lib, b"cuCtxSynchronize\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuCtxGetStreamPriorityRange: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, * mut :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuCtxGetStreamPriorityRange\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuModuleLoadData: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUmodule, * const :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuModuleLoadData\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuModuleLoadDataEx: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUmodule, * const :: std :: os :: raw :: c_void, :: std :: os :: raw :: c_uint, * mut CUjit_option, * mut * mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuModuleLoadDataEx\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuModuleUnload: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUmodule) -> CUresult>(lib, b"cuModuleUnload\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuModuleGetFunction: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUfunction, CUmodule, * const :: std :: os :: raw :: c_char) -> CUresult>(lib, b"cuModuleGetFunction\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemGetInfo_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut usize, * mut usize) -> CUresult>(lib, b"cuMemGetInfo_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemGetAddressRange_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUdeviceptr, * mut usize, CUdeviceptr) -> CUresult>(lib, b"cuMemGetAddressRange_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemFreeHost: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuMemFreeHost\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemHostAlloc: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut * mut :: std :: os :: raw :: c_void, usize, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuMemHostAlloc\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemHostGetDevicePointer_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUdeviceptr, * mut :: std :: os :: raw :: c_void, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuMemHostGetDevicePointer_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceGetPCIBusId: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_char, :: std :: os :: raw :: c_int, CUdevice) -> CUresult>(lib, b"cuDeviceGetPCIBusId\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemHostRegister_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, usize, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuMemHostRegister_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemHostUnregister: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuMemHostUnregister\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemcpyAsync: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, CUdeviceptr, usize, CUstream) -> CUresult>(lib, b"cuMemcpyAsync\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemcpyHtoDAsync_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, * const :: std :: os :: raw :: c_void, usize, CUstream) -> CUresult>(lib, b"cuMemcpyHtoDAsync_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemcpyDtoHAsync_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, CUdeviceptr, usize, CUstream) -> CUresult>(lib, b"cuMemcpyDtoHAsync_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemcpyDtoDAsync_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, CUdeviceptr, usize, CUstream) -> CUresult>(lib, b"cuMemcpyDtoDAsync_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemsetD8Async: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, :: std :: os :: raw :: c_uchar, usize, CUstream) -> CUresult>(lib, b"cuMemsetD8Async\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemsetD16Async: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, :: std :: os :: raw :: c_ushort, usize, CUstream) -> CUresult>(lib, b"cuMemsetD16Async\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemsetD32Async: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, :: std :: os :: raw :: c_uint, usize, CUstream) -> CUresult>(lib, b"cuMemsetD32Async\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemFreeAsync: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUdeviceptr, CUstream) -> CUresult>(lib, b"cuMemFreeAsync\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemAllocAsync: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUdeviceptr, usize, CUstream) -> CUresult>(lib, b"cuMemAllocAsync\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemPoolTrimTo: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUmemoryPool, usize) -> CUresult>(lib, b"cuMemPoolTrimTo\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemPoolSetAttribute: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUmemoryPool, CUmemPool_attribute, * mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuMemPoolSetAttribute\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemPoolGetAttribute: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUmemoryPool, CUmemPool_attribute, * mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuMemPoolGetAttribute\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemPoolCreate: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUmemoryPool, * const CUmemPoolProps) -> CUresult>(lib, b"cuMemPoolCreate\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemPoolDestroy: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUmemoryPool) -> CUresult>(lib, b"cuMemPoolDestroy\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuMemAllocFromPoolAsync: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUdeviceptr, usize, CUmemoryPool, CUstream) -> CUresult>(lib, b"cuMemAllocFromPoolAsync\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuPointerGetAttribute: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_void, CUpointer_attribute, CUdeviceptr) -> CUresult>(lib, b"cuPointerGetAttribute\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamCreate: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUstream, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuStreamCreate\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamCreateWithPriority: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUstream, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuStreamCreateWithPriority\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamGetPriority: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, * mut :: std :: os :: raw :: c_int) -> CUresult>(lib, b"cuStreamGetPriority\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamGetFlags: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, * mut :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuStreamGetFlags\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamWaitEvent: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, CUevent, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuStreamWaitEvent\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamBeginCapture_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, CUstreamCaptureMode) -> CUresult>(lib, b"cuStreamBeginCapture_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamEndCapture: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, * mut CUgraph) -> CUresult>(lib, b"cuStreamEndCapture\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamQuery: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream) -> CUresult>(lib, b"cuStreamQuery\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamSynchronize: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream) -> CUresult>(lib, b"cuStreamSynchronize\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamDestroy_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream) -> CUresult>(lib, b"cuStreamDestroy_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventCreate: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUevent, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuEventCreate\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventRecord: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUevent, CUstream) -> CUresult>(lib, b"cuEventRecord\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventQuery: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUevent) -> CUresult>(lib, b"cuEventQuery\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventSynchronize: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUevent) -> CUresult>(lib, b"cuEventSynchronize\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventDestroy_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUevent) -> CUresult>(lib, b"cuEventDestroy_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventElapsedTime: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut f32, CUevent, CUevent) -> CUresult>(lib, b"cuEventElapsedTime\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuEventElapsedTime_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut f32, CUevent, CUevent) -> CUresult>(lib, b"cuEventElapsedTime_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamWaitValue32_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, CUdeviceptr, cuuint32_t, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuStreamWaitValue32_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuStreamWriteValue32_v2: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, CUdeviceptr, cuuint32_t, :: std :: os :: raw :: c_uint) -> CUresult>(lib, b"cuStreamWriteValue32_v2\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuFuncGetAttribute: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, CUfunction_attribute, CUfunction) -> CUresult>(lib, b"cuFuncGetAttribute\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuLaunchKernel: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUfunction, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, :: std :: os :: raw :: c_uint, CUstream, * mut * mut :: std :: os :: raw :: c_void, * mut * mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuLaunchKernel\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuLaunchHostFunc: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUstream, CUhostFn, * mut :: std :: os :: raw :: c_void) -> CUresult>(lib, b"cuLaunchHostFunc\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuGraphInstantiateWithFlags: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut CUgraphExec, CUgraph, :: std :: os :: raw :: c_ulonglong) -> CUresult>(lib, b"cuGraphInstantiateWithFlags\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuGraphLaunch: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUgraphExec, CUstream) -> CUresult>(lib, b"cuGraphLaunch\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuGraphExecDestroy: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUgraphExec) -> CUresult>(lib, b"cuGraphExecDestroy\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuGraphDestroy: unsafe { crate::loader::symbol::<unsafe extern "C" fn(CUgraph) -> CUresult>(lib, b"cuGraphDestroy\0") },
            // SAFETY: the pointer type is the prototype bindgen generated from
            // the header that declares this symbol.
            cuDeviceCanAccessPeer: unsafe { crate::loader::symbol::<unsafe extern "C" fn(* mut :: std :: os :: raw :: c_int, CUdevice, CUdevice) -> CUresult>(lib, b"cuDeviceCanAccessPeer\0") },
        }
    }

    /// Whether the function named `name` was found.
    pub(crate) fn has(&self, name: &str) -> Option<bool> {
        match name {
            "cuGetErrorString" => Some(self.cuGetErrorString.is_some()),
            "cuGetErrorName" => Some(self.cuGetErrorName.is_some()),
            "cuInit" => Some(self.cuInit.is_some()),
            "cuDriverGetVersion" => Some(self.cuDriverGetVersion.is_some()),
            "cuDeviceGet" => Some(self.cuDeviceGet.is_some()),
            "cuDeviceGetCount" => Some(self.cuDeviceGetCount.is_some()),
            "cuDeviceGetName" => Some(self.cuDeviceGetName.is_some()),
            "cuDeviceGetUuid" => Some(self.cuDeviceGetUuid.is_some()),
            "cuDeviceGetUuid_v2" => Some(self.cuDeviceGetUuid_v2.is_some()),
            "cuDeviceTotalMem_v2" => Some(self.cuDeviceTotalMem_v2.is_some()),
            "cuDeviceGetAttribute" => Some(self.cuDeviceGetAttribute.is_some()),
            "cuDeviceSetMemPool" => Some(self.cuDeviceSetMemPool.is_some()),
            "cuDeviceGetMemPool" => Some(self.cuDeviceGetMemPool.is_some()),
            "cuDeviceGetDefaultMemPool" => Some(self.cuDeviceGetDefaultMemPool.is_some()),
            "cuDevicePrimaryCtxRetain" => Some(self.cuDevicePrimaryCtxRetain.is_some()),
            "cuDevicePrimaryCtxRelease_v2" => Some(self.cuDevicePrimaryCtxRelease_v2.is_some()),
            "cuDevicePrimaryCtxSetFlags_v2" => Some(self.cuDevicePrimaryCtxSetFlags_v2.is_some()),
            "cuDevicePrimaryCtxGetState" => Some(self.cuDevicePrimaryCtxGetState.is_some()),
            "cuCtxSetCurrent" => Some(self.cuCtxSetCurrent.is_some()),
            "cuCtxGetCurrent" => Some(self.cuCtxGetCurrent.is_some()),
            "cuCtxGetDevice" => Some(self.cuCtxGetDevice.is_some()),
            "cuCtxSynchronize" => Some(self.cuCtxSynchronize.is_some()),
            "cuCtxGetStreamPriorityRange" => Some(self.cuCtxGetStreamPriorityRange.is_some()),
            "cuModuleLoadData" => Some(self.cuModuleLoadData.is_some()),
            "cuModuleLoadDataEx" => Some(self.cuModuleLoadDataEx.is_some()),
            "cuModuleUnload" => Some(self.cuModuleUnload.is_some()),
            "cuModuleGetFunction" => Some(self.cuModuleGetFunction.is_some()),
            "cuMemGetInfo_v2" => Some(self.cuMemGetInfo_v2.is_some()),
            "cuMemGetAddressRange_v2" => Some(self.cuMemGetAddressRange_v2.is_some()),
            "cuMemFreeHost" => Some(self.cuMemFreeHost.is_some()),
            "cuMemHostAlloc" => Some(self.cuMemHostAlloc.is_some()),
            "cuMemHostGetDevicePointer_v2" => Some(self.cuMemHostGetDevicePointer_v2.is_some()),
            "cuDeviceGetPCIBusId" => Some(self.cuDeviceGetPCIBusId.is_some()),
            "cuMemHostRegister_v2" => Some(self.cuMemHostRegister_v2.is_some()),
            "cuMemHostUnregister" => Some(self.cuMemHostUnregister.is_some()),
            "cuMemcpyAsync" => Some(self.cuMemcpyAsync.is_some()),
            "cuMemcpyHtoDAsync_v2" => Some(self.cuMemcpyHtoDAsync_v2.is_some()),
            "cuMemcpyDtoHAsync_v2" => Some(self.cuMemcpyDtoHAsync_v2.is_some()),
            "cuMemcpyDtoDAsync_v2" => Some(self.cuMemcpyDtoDAsync_v2.is_some()),
            "cuMemsetD8Async" => Some(self.cuMemsetD8Async.is_some()),
            "cuMemsetD16Async" => Some(self.cuMemsetD16Async.is_some()),
            "cuMemsetD32Async" => Some(self.cuMemsetD32Async.is_some()),
            "cuMemFreeAsync" => Some(self.cuMemFreeAsync.is_some()),
            "cuMemAllocAsync" => Some(self.cuMemAllocAsync.is_some()),
            "cuMemPoolTrimTo" => Some(self.cuMemPoolTrimTo.is_some()),
            "cuMemPoolSetAttribute" => Some(self.cuMemPoolSetAttribute.is_some()),
            "cuMemPoolGetAttribute" => Some(self.cuMemPoolGetAttribute.is_some()),
            "cuMemPoolCreate" => Some(self.cuMemPoolCreate.is_some()),
            "cuMemPoolDestroy" => Some(self.cuMemPoolDestroy.is_some()),
            "cuMemAllocFromPoolAsync" => Some(self.cuMemAllocFromPoolAsync.is_some()),
            "cuPointerGetAttribute" => Some(self.cuPointerGetAttribute.is_some()),
            "cuStreamCreate" => Some(self.cuStreamCreate.is_some()),
            "cuStreamCreateWithPriority" => Some(self.cuStreamCreateWithPriority.is_some()),
            "cuStreamGetPriority" => Some(self.cuStreamGetPriority.is_some()),
            "cuStreamGetFlags" => Some(self.cuStreamGetFlags.is_some()),
            "cuStreamWaitEvent" => Some(self.cuStreamWaitEvent.is_some()),
            "cuStreamBeginCapture_v2" => Some(self.cuStreamBeginCapture_v2.is_some()),
            "cuStreamEndCapture" => Some(self.cuStreamEndCapture.is_some()),
            "cuStreamQuery" => Some(self.cuStreamQuery.is_some()),
            "cuStreamSynchronize" => Some(self.cuStreamSynchronize.is_some()),
            "cuStreamDestroy_v2" => Some(self.cuStreamDestroy_v2.is_some()),
            "cuEventCreate" => Some(self.cuEventCreate.is_some()),
            "cuEventRecord" => Some(self.cuEventRecord.is_some()),
            "cuEventQuery" => Some(self.cuEventQuery.is_some()),
            "cuEventSynchronize" => Some(self.cuEventSynchronize.is_some()),
            "cuEventDestroy_v2" => Some(self.cuEventDestroy_v2.is_some()),
            "cuEventElapsedTime" => Some(self.cuEventElapsedTime.is_some()),
            "cuEventElapsedTime_v2" => Some(self.cuEventElapsedTime_v2.is_some()),
            "cuStreamWaitValue32_v2" => Some(self.cuStreamWaitValue32_v2.is_some()),
            "cuStreamWriteValue32_v2" => Some(self.cuStreamWriteValue32_v2.is_some()),
            "cuFuncGetAttribute" => Some(self.cuFuncGetAttribute.is_some()),
            "cuLaunchKernel" => Some(self.cuLaunchKernel.is_some()),
            "cuLaunchHostFunc" => Some(self.cuLaunchHostFunc.is_some()),
            "cuGraphInstantiateWithFlags" => Some(self.cuGraphInstantiateWithFlags.is_some()),
            "cuGraphLaunch" => Some(self.cuGraphLaunch.is_some()),
            "cuGraphExecDestroy" => Some(self.cuGraphExecDestroy.is_some()),
            "cuGraphDestroy" => Some(self.cuGraphDestroy.is_some()),
            "cuDeviceCanAccessPeer" => Some(self.cuDeviceCanAccessPeer.is_some()),
            _ => None,
        }
    }
}

#[allow(non_snake_case, clippy::too_many_arguments)]
impl crate::Cuda {
    # [doc = "```text\n \\brief Gets the string description of an error code\n\n Sets \\p *pStr to the address of a NULL-terminated string description\n of the error code \\p error.\n If the error code is not recognized, ::CUDA_ERROR_INVALID_VALUE\n will be returned and \\p *pStr will be set to the NULL address.\n\n \\param error - Error code to convert to string\n \\param pStr - Address of the string pointer.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa\n ::CUresult,\n ::cudaGetErrorString\n```"]
    ///
    /// Calls `cuGetErrorString` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuGetErrorString`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuGetErrorString` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuGetErrorString(&self, error: CUresult, pStr: * mut * const :: std :: os :: raw :: c_char) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuGetErrorString {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(error, pStr) })
            }
            None => Err(self.missing("cuGetErrorString")),
        }
    }

    # [doc = "```text\n \\brief Gets the string representation of an error code enum name\n\n Sets \\p *pStr to the address of a NULL-terminated string representation\n of the name of the enum error code \\p error.\n If the error code is not recognized, ::CUDA_ERROR_INVALID_VALUE\n will be returned and \\p *pStr will be set to the NULL address.\n\n \\param error - Error code to convert to string\n \\param pStr - Address of the string pointer.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa\n ::CUresult,\n ::cudaGetErrorName\n```"]
    ///
    /// Calls `cuGetErrorName` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuGetErrorName`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuGetErrorName` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuGetErrorName(&self, error: CUresult, pStr: * mut * const :: std :: os :: raw :: c_char) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuGetErrorName {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(error, pStr) })
            }
            None => Err(self.missing("cuGetErrorName")),
        }
    }

    # [doc = "```text\n \\brief Initialize the CUDA driver API\n Initializes the driver API and must be called before any other function from\n the driver API in the current process. Currently, the \\p Flags parameter must be 0. If ::cuInit()\n has not been called, any function from the driver API will return\n ::CUDA_ERROR_NOT_INITIALIZED.\n\n \\param Flags - Initialization flag for CUDA.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE,\n ::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,\n ::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE\n \\notefnerr\n```"]
    ///
    /// Calls `cuInit` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuInit`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuInit` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuInit(&self, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuInit {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(Flags) })
            }
            None => Err(self.missing("cuInit")),
        }
    }

    # [doc = "```text\n \\brief Returns the latest CUDA version supported by driver\n\n Returns in \\p *driverVersion the version of CUDA supported by\n the driver.  The version is returned as\n (1000 * major + 10 * minor). For example, CUDA 9.2\n would be represented by 9020.\n\n This function automatically returns ::CUDA_ERROR_INVALID_VALUE if\n \\p driverVersion is NULL.\n\n \\param driverVersion - Returns the CUDA driver version\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n \\notefnerr\n\n \\sa\n ::cudaDriverGetVersion,\n ::cudaRuntimeGetVersion\n```"]
    ///
    /// Calls `cuDriverGetVersion` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDriverGetVersion`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDriverGetVersion` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDriverGetVersion(&self, driverVersion: * mut :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDriverGetVersion {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(driverVersion) })
            }
            None => Err(self.missing("cuDriverGetVersion")),
        }
    }

    # [doc = "```text\n \\brief Returns a handle to a compute device\n\n Returns in \\p *device a device handle given an ordinal in the range <b>[0,\n ::cuDeviceGetCount()-1]</b>.\n\n \\param device  - Returned device handle\n \\param ordinal - Device number to get handle for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuDeviceGetAttribute,\n ::cuDeviceGetCount,\n ::cuDeviceGetName,\n ::cuDeviceGetUuid,\n ::cuDeviceGetLuid,\n ::cuDeviceTotalMem,\n ::cuDeviceGetExecAffinitySupport\n```"]
    ///
    /// Calls `cuDeviceGet` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGet`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGet` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGet(&self, device: * mut CUdevice, ordinal: :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGet {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(device, ordinal) })
            }
            None => Err(self.missing("cuDeviceGet")),
        }
    }

    # [doc = "```text\n \\brief Returns the number of compute-capable devices\n\n Returns in \\p *count the number of devices with compute capability greater\n than or equal to 2.0 that are available for execution. If there is no such\n device, ::cuDeviceGetCount() returns 0.\n\n \\param count - Returned number of compute-capable devices\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE\n \\notefnerr\n\n \\sa\n ::cuDeviceGetAttribute,\n ::cuDeviceGetName,\n ::cuDeviceGetUuid,\n ::cuDeviceGetLuid,\n ::cuDeviceGet,\n ::cuDeviceTotalMem,\n ::cuDeviceGetExecAffinitySupport,\n ::cudaGetDeviceCount\n```"]
    ///
    /// Calls `cuDeviceGetCount` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetCount`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetCount` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetCount(&self, count: * mut :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetCount {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(count) })
            }
            None => Err(self.missing("cuDeviceGetCount")),
        }
    }

    # [doc = "```text\n \\brief Returns an identifier string for the device\n\n Returns an ASCII string identifying the device \\p dev in the NULL-terminated\n string pointed to by \\p name. \\p len specifies the maximum length of the\n string that may be returned. \\p name is shortened to the specified \\p len, if \\p len is less than the device name\n\n \\param name - Returned identifier string for the device\n \\param len  - Maximum length of string to store in \\p name\n \\param dev  - Device to get identifier string for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuDeviceGetAttribute,\n ::cuDeviceGetUuid,\n ::cuDeviceGetLuid,\n ::cuDeviceGetCount,\n ::cuDeviceGet,\n ::cuDeviceTotalMem,\n ::cuDeviceGetExecAffinitySupport,\n ::cudaGetDeviceProperties\n```"]
    ///
    /// Calls `cuDeviceGetName` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetName`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetName` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetName(&self, name: * mut :: std :: os :: raw :: c_char, len: :: std :: os :: raw :: c_int, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetName {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(name, len, dev) })
            }
            None => Err(self.missing("cuDeviceGetName")),
        }
    }

    # [doc = "```text\n \\brief Return an UUID for the device\n\n Note there is a later version of this API, ::cuDeviceGetUuid_v2. It will\n supplant this version in 12.0, which is retained for minor version compatibility.\n\n Returns 16-octets identifying the device \\p dev in the structure\n pointed by the \\p uuid.\n\n \\param uuid - Returned UUID\n \\param dev  - Device to get identifier string for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuDeviceGetUuid_v2\n ::cuDeviceGetAttribute,\n ::cuDeviceGetCount,\n ::cuDeviceGetName,\n ::cuDeviceGetLuid,\n ::cuDeviceGet,\n ::cuDeviceTotalMem,\n ::cuDeviceGetExecAffinitySupport,\n ::cudaGetDeviceProperties\n```"]
    ///
    /// Calls `cuDeviceGetUuid` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetUuid`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetUuid` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetUuid(&self, uuid: * mut CUuuid, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetUuid {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(uuid, dev) })
            }
            None => Err(self.missing("cuDeviceGetUuid")),
        }
    }

    /// Calls `cuDeviceGetUuid_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetUuid_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetUuid_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetUuid_v2(&self, uuid: * mut CUuuid, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetUuid_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(uuid, dev) })
            }
            None => Err(self.missing("cuDeviceGetUuid_v2")),
        }
    }

    /// Calls `cuDeviceTotalMem_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceTotalMem_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceTotalMem_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceTotalMem_v2(&self, bytes: * mut usize, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceTotalMem_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(bytes, dev) })
            }
            None => Err(self.missing("cuDeviceTotalMem_v2")),
        }
    }

    # [doc = "```text\n \\brief Returns information about the device\n\n Returns in \\p *pi the integer value of the attribute \\p attrib on device\n \\p dev. The supported attributes are:\n - ::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: Maximum number of threads per\n   block;\n - ::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: Maximum x-dimension of a block\n - ::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: Maximum y-dimension of a block\n - ::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: Maximum z-dimension of a block\n - ::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: Maximum x-dimension of a grid\n - ::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: Maximum y-dimension of a grid\n - ::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: Maximum z-dimension of a grid\n - ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: Maximum amount of\n   shared memory available to a thread block in bytes\n - ::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: Memory available on device for\n   __constant__ variables in a CUDA C kernel in bytes\n - ::CU_DEVICE_ATTRIBUTE_WARP_SIZE: Warp size in threads\n - ::CU_DEVICE_ATTRIBUTE_MAX_PITCH: Maximum pitch in bytes allowed by the\n   memory copy functions that involve memory regions allocated through\n   ::cuMemAllocPitch()\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: Maximum 1D\n  texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: Maximum width\n  for a 1D texture bound to linear memory\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: Maximum\n  mipmapped 1D texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: Maximum 2D\n  texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: Maximum 2D\n  texture height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: Maximum width\n  for a 2D texture bound to linear memory\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: Maximum height\n  for a 2D texture bound to linear memory\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: Maximum pitch\n  in bytes for a 2D texture bound to linear memory\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: Maximum\n  mipmapped 2D texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: Maximum\n  mipmapped 2D texture height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: Maximum 3D\n  texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: Maximum 3D\n  texture height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: Maximum 3D\n  texture depth\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE:\n  Alternate maximum 3D texture width, 0 if no alternate\n  maximum 3D texture size is supported\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE:\n  Alternate maximum 3D texture height, 0 if no alternate\n  maximum 3D texture size is supported\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE:\n  Alternate maximum 3D texture depth, 0 if no alternate\n  maximum 3D texture size is supported\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH:\n  Maximum cubemap texture width or height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH:\n  Maximum 1D layered texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS:\n   Maximum layers in a 1D layered texture\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH:\n  Maximum 2D layered texture width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT:\n   Maximum 2D layered texture height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:\n   Maximum layers in a 2D layered texture\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH:\n   Maximum cubemap layered texture width or height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS:\n   Maximum layers in a cubemap layered texture\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH:\n   Maximum 1D surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH:\n   Maximum 2D surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT:\n   Maximum 2D surface height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH:\n   Maximum 3D surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT:\n   Maximum 3D surface height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH:\n   Maximum 3D surface depth\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH:\n   Maximum 1D layered surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS:\n   Maximum layers in a 1D layered surface\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH:\n   Maximum 2D layered surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT:\n   Maximum 2D layered surface height\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS:\n   Maximum layers in a 2D layered surface\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH:\n   Maximum cubemap surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH:\n   Maximum cubemap layered surface width\n - ::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS:\n   Maximum layers in a cubemap layered surface\n - ::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: Maximum number of 32-bit\n   registers available to a thread block\n - ::CU_DEVICE_ATTRIBUTE_CLOCK_RATE: The typical clock frequency in kilohertz\n - ::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: Alignment requirement; texture\n   base addresses aligned to ::textureAlign bytes do not need an offset\n   applied to texture fetches\n - ::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: Pitch alignment requirement\n   for 2D texture references bound to pitched memory\n - ::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: 1 if the device can concurrently copy\n   memory between host and device while executing a kernel, or 0 if not\n - ::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: Number of multiprocessors on\n   the device\n - ::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: 1 if there is a run time limit\n   for kernels executed on the device, or 0 if not\n - ::CU_DEVICE_ATTRIBUTE_INTEGRATED: 1 if the device is integrated with the\n   memory subsystem, or 0 if not\n - ::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: 1 if the device can map host\n   memory into the CUDA address space, or 0 if not\n - ::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: Compute mode that device is currently\n   in. Available modes are as follows:\n   - ::CU_COMPUTEMODE_DEFAULT: Default mode - Device is not restricted and\n     can have multiple CUDA contexts present at a single time.\n   - ::CU_COMPUTEMODE_PROHIBITED: Compute-prohibited mode - Device is\n     prohibited from creating new CUDA contexts.\n   - ::CU_COMPUTEMODE_EXCLUSIVE_PROCESS:  Compute-exclusive-process mode - Device\n     can have only one context used by a single process at a time.\n - ::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: 1 if the device supports\n   executing multiple kernels within the same context simultaneously, or 0 if\n   not. It is not guaranteed that multiple kernels will be resident\n   on the device concurrently so this feature should not be relied upon for\n   correctness.\n - ::CU_DEVICE_ATTRIBUTE_ECC_ENABLED: 1 if error correction is enabled on the\n    device, 0 if error correction is disabled or not supported by the device\n - ::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: PCI bus identifier of the device\n - ::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: PCI device (also known as slot) identifier\n   of the device\n - ::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: PCI domain identifier of the device\n - ::CU_DEVICE_ATTRIBUTE_TCC_DRIVER: 1 if the device is using a TCC driver. TCC\n    is only available on Tesla hardware running Windows Vista or later\n - ::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: Peak memory clock frequency in kilohertz\n - ::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: Global memory bus width in bits\n - ::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: Size of L2 cache in bytes. 0 if the device doesn't have L2 cache\n - ::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: Maximum resident threads per multiprocessor\n - ::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: 1 if the device shares a unified address space with\n   the host, or 0 if not\n - ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: Major compute capability version number\n - ::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: Minor compute capability version number\n - ::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: 1 if device supports caching globals\n    in L1 cache, 0 if caching globals in L1 cache is not supported by the device\n - ::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: 1 if device supports caching locals\n    in L1 cache, 0 if caching locals in L1 cache is not supported by the device\n - ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: Maximum amount of\n   shared memory available to a multiprocessor in bytes; this amount is shared\n   by all thread blocks simultaneously resident on a multiprocessor\n - ::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: Maximum number of 32-bit\n   registers available to a multiprocessor; this number is shared by all thread\n   blocks simultaneously resident on a multiprocessor\n - ::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: 1 if device supports allocating managed memory\n   on this system, 0 if allocating managed memory is not supported by the device on this system.\n - ::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: 1 if device is on a multi-GPU board, 0 if not.\n - ::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: Unique identifier for a group of devices\n   associated with the same board. Devices on the same multi-GPU board will share the same identifier.\n - ::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: 1 if Link between the device and the host\n   supports native atomic operations.\n - ::CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: Ratio of single precision performance\n   (in floating-point operations per second) to double precision performance.\n - ::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: Device supports coherently accessing\n   pageable memory without calling cudaHostRegister on it.\n - ::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: Device can coherently access managed memory\n   concurrently with the CPU.\n - ::CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: Device supports Compute Preemption.\n - ::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: Device can access host registered\n   memory at the same virtual address as the CPU.\n -  ::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: The maximum per block shared memory size\n    supported on this device. This is the maximum value that can be opted into when using the cuFuncSetAttribute() or cuKernelSetAttribute() call.\n    For more details see ::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES\n - ::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: Device accesses pageable memory via the host's\n   page tables.\n - ::CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: The host can directly access managed memory on the device without migration.\n - ::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:  Device supports virtual memory management APIs like ::cuMemAddressReserve, ::cuMemCreate, ::cuMemMap and related APIs\n - ::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: Device supports exporting memory to a posix file descriptor with ::cuMemExportToShareableHandle, if requested via ::cuMemCreate\n - ::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:  Device supports exporting memory to a Win32 NT handle with ::cuMemExportToShareableHandle, if requested via ::cuMemCreate\n - ::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: Device supports exporting memory to a Win32 KMT handle with ::cuMemExportToShareableHandle, if requested via ::cuMemCreate\n - ::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: Maximum number of thread blocks that can reside on a multiprocessor\n - ::CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: Device supports compressible memory allocation via ::cuMemCreate\n - ::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: Maximum L2 persisting lines capacity setting in bytes\n - ::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: Maximum value of CUaccessPolicyWindow::num_bytes\n - ::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: Device supports specifying the GPUDirect RDMA flag with ::cuMemCreate.\n - ::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: Amount of shared memory per block reserved by CUDA driver in bytes\n - ::CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: Device supports sparse CUDA arrays and sparse CUDA mipmapped arrays.\n - ::CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: Device supports using the ::cuMemHostRegister flag ::CU_MEMHOSTERGISTER_READ_ONLY to register memory that must be mapped as read-only to the GPU\n - ::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: Device supports using the ::cuMemAllocAsync and ::cuMemPool family of APIs\n - ::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: Device supports GPUDirect RDMA APIs, like nvidia_p2p_get_pages (see https://docs.nvidia.com/cuda/gpudirect-rdma for more information)\n - ::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: The returned attribute shall be interpreted as a bitmask, where the individual bits are described by the ::CUflushGPUDirectRDMAWritesOptions enum\n - ::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: GPUDirect RDMA writes to the device do not need to be flushed for consumers within the scope indicated by the returned attribute. See ::CUGPUDirectRDMAWritesOrdering for the numerical values returned here.\n - ::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: Bitmask of handle types supported with mempool based IPC\n - ::CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: Device supports deferred mapping CUDA arrays and CUDA mipmapped arrays.\n - ::CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: NUMA configuration of a device: value is of type ::CUdeviceNumaConfig enum\n - ::CU_DEVICE_ATTRIBUTE_NUMA_ID: NUMA node ID of the GPU memory\n - ::CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: Device supports switch multicast and reduction operations.\n - ::CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: The combined 16-bit PCI device ID and 16-bit PCI vendor ID.\n - ::CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: The combined 16-bit PCI subsystem ID and 16-bit PCI subsystem vendor ID.\nID.\n - ::CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: Device supports HOST_NUMA location with the virtual memory management APIs like ::cuMemCreate, ::cuMemMap and related APIs\n - ::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: Device supports HOST_NUMA location with the ::cuMemAllocAsync and ::cuMemPool family of APIs\n\n \\param pi     - Returned device attribute value\n \\param attrib - Device attribute to query\n \\param dev    - Device handle\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuDeviceGetCount,\n ::cuDeviceGetName,\n ::cuDeviceGetUuid,\n ::cuDeviceGet,\n ::cuDeviceTotalMem,\n ::cuDeviceGetExecAffinitySupport,\n ::cudaDeviceGetAttribute,\n ::cudaGetDeviceProperties\n```"]
    ///
    /// Calls `cuDeviceGetAttribute` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetAttribute`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetAttribute` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetAttribute(&self, pi: * mut :: std :: os :: raw :: c_int, attrib: CUdevice_attribute, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetAttribute {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pi, attrib, dev) })
            }
            None => Err(self.missing("cuDeviceGetAttribute")),
        }
    }

    # [doc = "```text\n \\brief Sets the current memory pool of a device\n\n The memory pool must be local to the specified device.\n ::cuMemAllocAsync allocates from the current mempool of the provided stream's device.\n By default, a device's current memory pool is its default memory pool.\n\n \\note Use ::cuMemAllocFromPoolAsync to specify asynchronous allocations from a device different\n than the one the stream runs on.\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa ::cuDeviceGetDefaultMemPool, ::cuDeviceGetMemPool, ::cuMemPoolCreate, ::cuMemPoolDestroy, ::cuMemAllocFromPoolAsync\n```"]
    ///
    /// Calls `cuDeviceSetMemPool` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceSetMemPool`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceSetMemPool` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceSetMemPool(&self, dev: CUdevice, pool: CUmemoryPool) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceSetMemPool {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dev, pool) })
            }
            None => Err(self.missing("cuDeviceSetMemPool")),
        }
    }

    # [doc = "```text\n \\brief Gets the current mempool for a device\n\n Returns the last pool provided to ::cuDeviceSetMemPool for this device\n or the device's default memory pool if ::cuDeviceSetMemPool has never been called.\n By default the current mempool is the default mempool for a device.\n Otherwise the returned pool must have been set with ::cuDeviceSetMemPool.\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa ::cuDeviceGetDefaultMemPool, ::cuMemPoolCreate, ::cuDeviceSetMemPool\n```"]
    ///
    /// Calls `cuDeviceGetMemPool` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetMemPool`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetMemPool` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetMemPool(&self, pool: * mut CUmemoryPool, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetMemPool {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool, dev) })
            }
            None => Err(self.missing("cuDeviceGetMemPool")),
        }
    }

    # [doc = "```text\n \\brief Returns the default mempool of a device\n\n The default mempool of a device contains device memory from that device.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE,\n ::CUDA_ERROR_NOT_SUPPORTED\n \\notefnerr\n\n \\sa ::cuMemAllocAsync, ::cuMemPoolTrimTo, ::cuMemPoolGetAttribute, ::cuMemPoolSetAttribute, cuMemPoolSetAccess, ::cuDeviceGetMemPool, ::cuMemPoolCreate\n```"]
    ///
    /// Calls `cuDeviceGetDefaultMemPool` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetDefaultMemPool`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetDefaultMemPool` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetDefaultMemPool(&self, pool_out: * mut CUmemoryPool, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetDefaultMemPool {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool_out, dev) })
            }
            None => Err(self.missing("cuDeviceGetDefaultMemPool")),
        }
    }

    # [doc = "```text\n \\brief Retain the primary context on the GPU\n\n Retains the primary context on the device.\n Once the user successfully retains the primary context, the primary context\n will be active and available to the user until the user releases it\n with ::cuDevicePrimaryCtxRelease() or resets it with ::cuDevicePrimaryCtxReset().\n Unlike ::cuCtxCreate() the newly retained context is not pushed onto the stack.\n\n Retaining the primary context for the first time will fail with ::CUDA_ERROR_UNKNOWN\n if the compute mode of the device is ::CU_COMPUTEMODE_PROHIBITED. The function\n ::cuDeviceGetAttribute() can be used with ::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE to\n determine the compute mode  of the device.\n The <i>nvidia-smi</i> tool can be used to set the compute mode for\n devices. Documentation for <i>nvidia-smi</i> can be obtained by passing a\n -h option to it.\n\n Please note that the primary context always supports pinned allocations. Other\n flags can be specified by ::cuDevicePrimaryCtxSetFlags().\n\n \\param pctx  - Returned context handle of the new context\n \\param dev   - Device for which primary context is requested\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_DEVICE,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY,\n ::CUDA_ERROR_UNKNOWN\n \\notefnerr\n\n \\sa ::cuDevicePrimaryCtxRelease,\n ::cuDevicePrimaryCtxSetFlags,\n ::cuCtxCreate,\n ::cuCtxGetApiVersion,\n ::cuCtxGetCacheConfig,\n ::cuCtxGetDevice,\n ::cuCtxGetFlags,\n ::cuCtxGetLimit,\n ::cuCtxPopCurrent,\n ::cuCtxPushCurrent,\n ::cuCtxSetCacheConfig,\n ::cuCtxSetLimit,\n ::cuCtxSynchronize\n```"]
    ///
    /// Calls `cuDevicePrimaryCtxRetain` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDevicePrimaryCtxRetain`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDevicePrimaryCtxRetain` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDevicePrimaryCtxRetain(&self, pctx: * mut CUcontext, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDevicePrimaryCtxRetain {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pctx, dev) })
            }
            None => Err(self.missing("cuDevicePrimaryCtxRetain")),
        }
    }

    /// Calls `cuDevicePrimaryCtxRelease_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDevicePrimaryCtxRelease_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDevicePrimaryCtxRelease_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDevicePrimaryCtxRelease_v2(&self, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDevicePrimaryCtxRelease_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dev) })
            }
            None => Err(self.missing("cuDevicePrimaryCtxRelease_v2")),
        }
    }

    /// Calls `cuDevicePrimaryCtxSetFlags_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDevicePrimaryCtxSetFlags_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDevicePrimaryCtxSetFlags_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDevicePrimaryCtxSetFlags_v2(&self, dev: CUdevice, flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDevicePrimaryCtxSetFlags_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dev, flags) })
            }
            None => Err(self.missing("cuDevicePrimaryCtxSetFlags_v2")),
        }
    }

    # [doc = "```text\n \\brief Get the state of the primary context\n\n Returns in \\p *flags the flags for the primary context of \\p dev, and in\n \\p *active whether it is active.  See ::cuDevicePrimaryCtxSetFlags for flag\n values.\n\n \\param dev    - Device to get primary context flags for\n \\param flags  - Pointer to store flags\n \\param active - Pointer to store context state; 0 = inactive, 1 = active\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_DEVICE,\n ::CUDA_ERROR_INVALID_VALUE,\n \\notefnerr\n\n \\sa\n ::cuDevicePrimaryCtxSetFlags,\n ::cuCtxGetFlags,\n ::cuCtxSetFlags,\n ::cudaGetDeviceFlags\n```"]
    ///
    /// Calls `cuDevicePrimaryCtxGetState` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDevicePrimaryCtxGetState`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDevicePrimaryCtxGetState` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDevicePrimaryCtxGetState(&self, dev: CUdevice, flags: * mut :: std :: os :: raw :: c_uint, active: * mut :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDevicePrimaryCtxGetState {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dev, flags, active) })
            }
            None => Err(self.missing("cuDevicePrimaryCtxGetState")),
        }
    }

    # [doc = "```text\n \\brief Binds the specified CUDA context to the calling CPU thread\n\n Binds the specified CUDA context to the calling CPU thread.\n If \\p ctx is NULL then the CUDA context previously bound to the\n calling CPU thread is unbound and ::CUDA_SUCCESS is returned.\n\n If there exists a CUDA context stack on the calling CPU thread, this\n will replace the top of that stack with \\p ctx.\n If \\p ctx is NULL then this will be equivalent to popping the top\n of the calling CPU thread's CUDA context stack (or a no-op if the\n calling CPU thread's CUDA context stack is empty).\n\n \\param ctx - Context to bind to the calling CPU thread\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT\n \\notefnerr\n\n \\sa\n ::cuCtxGetCurrent,\n ::cuCtxCreate,\n ::cuCtxDestroy,\n ::cudaSetDevice\n```"]
    ///
    /// Calls `cuCtxSetCurrent` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuCtxSetCurrent`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuCtxSetCurrent` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuCtxSetCurrent(&self, ctx: CUcontext) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuCtxSetCurrent {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(ctx) })
            }
            None => Err(self.missing("cuCtxSetCurrent")),
        }
    }

    # [doc = "```text\n \\brief Returns the CUDA context bound to the calling CPU thread.\n\n Returns in \\p *pctx the CUDA context bound to the calling CPU thread.\n If no context is bound to the calling CPU thread then \\p *pctx is\n set to NULL and ::CUDA_SUCCESS is returned.\n\n \\param pctx - Returned context handle\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n \\notefnerr\n\n \\sa\n ::cuCtxSetCurrent,\n ::cuCtxCreate,\n ::cuCtxDestroy,\n ::cudaGetDevice\n```"]
    ///
    /// Calls `cuCtxGetCurrent` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuCtxGetCurrent`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuCtxGetCurrent` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuCtxGetCurrent(&self, pctx: * mut CUcontext) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuCtxGetCurrent {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pctx) })
            }
            None => Err(self.missing("cuCtxGetCurrent")),
        }
    }

    # [doc = "```text\n \\brief Returns the device handle for the current context\n\n Returns in \\p *device the handle of the current context's device.\n\n \\param device - Returned device handle for the current context\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n \\notefnerr\n\n \\sa ::cuCtxCreate,\n ::cuCtxDestroy,\n ::cuCtxGetApiVersion,\n ::cuCtxGetCacheConfig,\n ::cuCtxGetFlags,\n ::cuCtxGetLimit,\n ::cuCtxPopCurrent,\n ::cuCtxPushCurrent,\n ::cuCtxSetCacheConfig,\n ::cuCtxSetLimit,\n ::cuCtxSynchronize,\n ::cudaGetDevice\n```"]
    ///
    /// Calls `cuCtxGetDevice` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuCtxGetDevice`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuCtxGetDevice` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuCtxGetDevice(&self, device: * mut CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuCtxGetDevice {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(device) })
            }
            None => Err(self.missing("cuCtxGetDevice")),
        }
    }

    # [doc = "```text\n \\brief Block for the current context's tasks to complete\n\n Blocks until the current context has completed all preceding requested tasks.\n If the current context is the primary context, green contexts that have been\n created will also be synchronized.\n ::cuCtxSynchronize() returns an error if one of the preceding tasks failed.\n If the context was created with the ::CU_CTX_SCHED_BLOCKING_SYNC flag, the\n CPU thread will block until the GPU context has finished its work.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT\n \\notefnerr\n\n \\sa ::cuCtxCreate,\n ::cuCtxDestroy,\n ::cuCtxGetApiVersion,\n ::cuCtxGetCacheConfig,\n ::cuCtxGetDevice,\n ::cuCtxGetFlags,\n ::cuCtxGetLimit,\n ::cuCtxPopCurrent,\n ::cuCtxPushCurrent,\n ::cuCtxSetCacheConfig,\n ::cuCtxSetLimit,\n ::cudaDeviceSynchronize\n```"]
    ///
    /// Calls `cuCtxSynchronize` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuCtxSynchronize`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuCtxSynchronize` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuCtxSynchronize(&self, ) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuCtxSynchronize {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__() })
            }
            None => Err(self.missing("cuCtxSynchronize")),
        }
    }

    # [doc = "```text\n \\brief Returns numerical values that correspond to the least and\n greatest stream priorities.\n\n Returns in \\p *leastPriority and \\p *greatestPriority the numerical values that correspond\n to the least and greatest stream priorities respectively. Stream priorities\n follow a convention where lower numbers imply greater priorities. The range of\n meaningful stream priorities is given by [\\p *greatestPriority, \\p *leastPriority].\n If the user attempts to create a stream with a priority value that is\n outside the meaningful range as specified by this API, the priority is\n automatically clamped down or up to either \\p *leastPriority or \\p *greatestPriority\n respectively. See ::cuStreamCreateWithPriority for details on creating a\n priority stream.\n A NULL may be passed in for \\p *leastPriority or \\p *greatestPriority if the value\n is not desired.\n\n This function will return '0' in both \\p *leastPriority and \\p *greatestPriority if\n the current context's device does not support stream priorities\n (see ::cuDeviceGetAttribute).\n\n \\param leastPriority    - Pointer to an int in which the numerical value for least\n                           stream priority is returned\n \\param greatestPriority - Pointer to an int in which the numerical value for greatest\n                           stream priority is returned\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE,\n \\notefnerr\n\n \\sa ::cuStreamCreateWithPriority,\n ::cuStreamGetPriority,\n ::cuCtxGetDevice,\n ::cuCtxGetFlags,\n ::cuCtxSetLimit,\n ::cuCtxSynchronize,\n ::cudaDeviceGetStreamPriorityRange\n```"]
    ///
    /// Calls `cuCtxGetStreamPriorityRange` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuCtxGetStreamPriorityRange`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuCtxGetStreamPriorityRange` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuCtxGetStreamPriorityRange(&self, leastPriority: * mut :: std :: os :: raw :: c_int, greatestPriority: * mut :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuCtxGetStreamPriorityRange {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(leastPriority, greatestPriority) })
            }
            None => Err(self.missing("cuCtxGetStreamPriorityRange")),
        }
    }

    # [doc = "```text\n \\brief Load a module's data\n\n Takes a pointer \\p image and loads the corresponding module \\p module into\n the current context. The \\p image may be a \\e cubin or \\e fatbin\n as output by \\b nvcc, or a NULL-terminated \\e PTX, either as output by \\b nvcc\n or hand-written.\n\n \\param module - Returned module\n \\param image  - Module data to load\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_PTX,\n ::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,\n ::CUDA_ERROR_OUT_OF_MEMORY,\n ::CUDA_ERROR_NO_BINARY_FOR_GPU,\n ::CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,\n ::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,\n ::CUDA_ERROR_JIT_COMPILER_NOT_FOUND\n \\notefnerr\n\n \\sa ::cuModuleGetFunction,\n ::cuModuleGetGlobal,\n ::cuModuleGetTexRef,\n ::cuModuleLoad,\n ::cuModuleLoadDataEx,\n ::cuModuleLoadFatBinary,\n ::cuModuleUnload\n```"]
    ///
    /// Calls `cuModuleLoadData` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuModuleLoadData`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuModuleLoadData` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuModuleLoadData(&self, module: * mut CUmodule, image: * const :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuModuleLoadData {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(module, image) })
            }
            None => Err(self.missing("cuModuleLoadData")),
        }
    }

    # [doc = "```text\n \\brief Load a module's data with options\n\n Takes a pointer \\p image and loads the corresponding module \\p module into\n the current context. The \\p image may be a \\e cubin or \\e fatbin\n as output by \\b nvcc, or a NULL-terminated \\e PTX, either as output by \\b nvcc\n or hand-written.\n\n \\param module       - Returned module\n \\param image        - Module data to load\n \\param numOptions   - Number of options\n \\param options      - Options for JIT\n \\param optionValues - Option values for JIT\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_PTX,\n ::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,\n ::CUDA_ERROR_OUT_OF_MEMORY,\n ::CUDA_ERROR_NO_BINARY_FOR_GPU,\n ::CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND,\n ::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,\n ::CUDA_ERROR_JIT_COMPILER_NOT_FOUND\n \\notefnerr\n\n \\sa ::cuModuleGetFunction,\n ::cuModuleGetGlobal,\n ::cuModuleGetTexRef,\n ::cuModuleLoad,\n ::cuModuleLoadData,\n ::cuModuleLoadFatBinary,\n ::cuModuleUnload\n```"]
    ///
    /// Calls `cuModuleLoadDataEx` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuModuleLoadDataEx`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuModuleLoadDataEx` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuModuleLoadDataEx(&self, module: * mut CUmodule, image: * const :: std :: os :: raw :: c_void, numOptions: :: std :: os :: raw :: c_uint, options: * mut CUjit_option, optionValues: * mut * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuModuleLoadDataEx {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(module, image, numOptions, options, optionValues) })
            }
            None => Err(self.missing("cuModuleLoadDataEx")),
        }
    }

    # [doc = "```text\n \\brief Unloads a module\n\n Unloads a module \\p hmod from the current context. Attempting to unload\n a module which was obtained from the Library Management API such as\n ::cuLibraryGetModule will return ::CUDA_ERROR_NOT_PERMITTED.\n\n \\param hmod - Module to unload\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_NOT_PERMITTED\n \\notefnerr\n \\note_destroy_ub\n\n \\sa ::cuModuleGetFunction,\n ::cuModuleGetGlobal,\n ::cuModuleGetTexRef,\n ::cuModuleLoad,\n ::cuModuleLoadData,\n ::cuModuleLoadDataEx,\n ::cuModuleLoadFatBinary\n```"]
    ///
    /// Calls `cuModuleUnload` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuModuleUnload`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuModuleUnload` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuModuleUnload(&self, hmod: CUmodule) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuModuleUnload {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hmod) })
            }
            None => Err(self.missing("cuModuleUnload")),
        }
    }

    # [doc = "```text\n \\brief Returns a function handle\n\n Returns in \\p *hfunc the handle of the function of name \\p name located in\n module \\p hmod. If no function of that name exists, ::cuModuleGetFunction()\n returns ::CUDA_ERROR_NOT_FOUND.\n\n \\param hfunc - Returned function handle\n \\param hmod  - Module to retrieve function from\n \\param name  - Name of function to retrieve\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_NOT_FOUND\n \\notefnerr\n\n \\sa ::cuModuleGetGlobal,\n ::cuModuleGetTexRef,\n ::cuModuleLoad,\n ::cuModuleLoadData,\n ::cuModuleLoadDataEx,\n ::cuModuleLoadFatBinary,\n ::cuModuleUnload\n```"]
    ///
    /// Calls `cuModuleGetFunction` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuModuleGetFunction`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuModuleGetFunction` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuModuleGetFunction(&self, hfunc: * mut CUfunction, hmod: CUmodule, name: * const :: std :: os :: raw :: c_char) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuModuleGetFunction {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hfunc, hmod, name) })
            }
            None => Err(self.missing("cuModuleGetFunction")),
        }
    }

    /// Calls `cuMemGetInfo_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemGetInfo_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemGetInfo_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemGetInfo_v2(&self, free: * mut usize, total: * mut usize) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemGetInfo_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(free, total) })
            }
            None => Err(self.missing("cuMemGetInfo_v2")),
        }
    }

    /// Calls `cuMemGetAddressRange_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemGetAddressRange_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemGetAddressRange_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemGetAddressRange_v2(&self, pbase: * mut CUdeviceptr, psize: * mut usize, dptr: CUdeviceptr) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemGetAddressRange_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pbase, psize, dptr) })
            }
            None => Err(self.missing("cuMemGetAddressRange_v2")),
        }
    }

    # [doc = "```text\n \\brief Frees page-locked host memory\n\n Frees the memory space pointed to by \\p p, which must have been returned by\n a previous call to ::cuMemAllocHost().\n\n \\param p - Pointer to memory to free\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE\n \\notefnerr\n\n \\sa ::cuArray3DCreate, ::cuArray3DGetDescriptor, ::cuArrayCreate,\n ::cuArrayDestroy, ::cuArrayGetDescriptor, ::cuMemAlloc, ::cuMemAllocHost,\n ::cuMemAllocPitch, ::cuMemcpy2D, ::cuMemcpy2DAsync, ::cuMemcpy2DUnaligned,\n ::cuMemcpy3D, ::cuMemcpy3DAsync, ::cuMemcpyAtoA, ::cuMemcpyAtoD,\n ::cuMemcpyAtoH, ::cuMemcpyAtoHAsync, ::cuMemcpyDtoA, ::cuMemcpyDtoD, ::cuMemcpyDtoDAsync,\n ::cuMemcpyDtoH, ::cuMemcpyDtoHAsync, ::cuMemcpyHtoA, ::cuMemcpyHtoAAsync,\n ::cuMemcpyHtoD, ::cuMemcpyHtoDAsync, ::cuMemFree,\n ::cuMemGetAddressRange, ::cuMemGetInfo, ::cuMemHostAlloc,\n ::cuMemHostGetDevicePointer, ::cuMemsetD2D8, ::cuMemsetD2D16,\n ::cuMemsetD2D32, ::cuMemsetD8, ::cuMemsetD16, ::cuMemsetD32,\n ::cudaFreeHost\n```"]
    ///
    /// Calls `cuMemFreeHost` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemFreeHost`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemFreeHost` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemFreeHost(&self, p: * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemFreeHost {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(p) })
            }
            None => Err(self.missing("cuMemFreeHost")),
        }
    }

    # [doc = "```text\n \\brief Allocates page-locked host memory\n\n Allocates \\p bytesize bytes of host memory that is page-locked and accessible\n to the device. The driver tracks the virtual memory ranges allocated with\n this function and automatically accelerates calls to functions such as\n ::cuMemcpyHtoD(). Since the memory can be accessed directly by the device,\n it can be read or written with much higher bandwidth than pageable memory\n obtained with functions such as ::malloc().\n\n On systems where ::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES\n is true, ::cuMemHostAlloc may not page-lock the allocated memory.\n\n Page-locking excessive amounts of memory may degrade system performance,\n since it reduces the amount of memory available to the system for paging.\n As a result, this function is best used sparingly to allocate staging areas\n for data exchange between host and device.\n\n The \\p Flags parameter enables different options to be specified that\n affect the allocation, as follows.\n\n - ::CU_MEMHOSTALLOC_PORTABLE: The memory returned by this call will be\n   considered as pinned memory by all CUDA contexts, not just the one that\n   performed the allocation.\n\n - ::CU_MEMHOSTALLOC_DEVICEMAP: Maps the allocation into the CUDA address\n   space. The device pointer to the memory may be obtained by calling\n   ::cuMemHostGetDevicePointer().\n\n - ::CU_MEMHOSTALLOC_WRITECOMBINED: Allocates the memory as write-combined\n   (WC). WC memory can be transferred across the PCI Express bus more\n   quickly on some system configurations, but cannot be read efficiently by\n   most CPUs. WC memory is a good option for buffers that will be written by\n   the CPU and read by the GPU via mapped pinned memory or host->device\n   transfers.\n\n All of these flags are orthogonal to one another: a developer may allocate\n memory that is portable, mapped and/or write-combined with no restrictions.\n\n The ::CU_MEMHOSTALLOC_DEVICEMAP flag may be specified on CUDA contexts for\n devices that do not support mapped pinned memory. The failure is deferred\n to ::cuMemHostGetDevicePointer() because the memory may be mapped into\n other CUDA contexts via the ::CU_MEMHOSTALLOC_PORTABLE flag.\n\n The memory allocated by this function must be freed with ::cuMemFreeHost().\n\n Note all host memory allocated using ::cuMemHostAlloc() will automatically\n be immediately accessible to all contexts on all devices which support unified\n addressing (as may be queried using ::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING).\n Unless the flag ::CU_MEMHOSTALLOC_WRITECOMBINED is specified, the device pointer\n that may be used to access this host memory from those contexts is always equal\n to the returned host pointer \\p *pp.  If the flag ::CU_MEMHOSTALLOC_WRITECOMBINED\n is specified, then the function ::cuMemHostGetDevicePointer() must be used\n to query the device pointer, even if the context supports unified addressing.\n See \\ref CUDA_UNIFIED for additional details.\n\n \\param pp       - Returned pointer to host memory\n \\param bytesize - Requested allocation size in bytes\n \\param Flags    - Flags for allocation request\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY\n \\notefnerr\n\n \\sa ::cuArray3DCreate, ::cuArray3DGetDescriptor, ::cuArrayCreate,\n ::cuArrayDestroy, ::cuArrayGetDescriptor, ::cuMemAlloc, ::cuMemAllocHost,\n ::cuMemAllocPitch, ::cuMemcpy2D, ::cuMemcpy2DAsync, ::cuMemcpy2DUnaligned,\n ::cuMemcpy3D, ::cuMemcpy3DAsync, ::cuMemcpyAtoA, ::cuMemcpyAtoD,\n ::cuMemcpyAtoH, ::cuMemcpyAtoHAsync, ::cuMemcpyDtoA, ::cuMemcpyDtoD, ::cuMemcpyDtoDAsync,\n ::cuMemcpyDtoH, ::cuMemcpyDtoHAsync, ::cuMemcpyHtoA, ::cuMemcpyHtoAAsync,\n ::cuMemcpyHtoD, ::cuMemcpyHtoDAsync, ::cuMemFree, ::cuMemFreeHost,\n ::cuMemGetAddressRange, ::cuMemGetInfo,\n ::cuMemHostGetDevicePointer, ::cuMemsetD2D8, ::cuMemsetD2D16,\n ::cuMemsetD2D32, ::cuMemsetD8, ::cuMemsetD16, ::cuMemsetD32,\n ::cudaHostAlloc\n```"]
    ///
    /// Calls `cuMemHostAlloc` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemHostAlloc`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemHostAlloc` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemHostAlloc(&self, pp: * mut * mut :: std :: os :: raw :: c_void, bytesize: usize, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemHostAlloc {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pp, bytesize, Flags) })
            }
            None => Err(self.missing("cuMemHostAlloc")),
        }
    }

    /// Calls `cuMemHostGetDevicePointer_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemHostGetDevicePointer_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemHostGetDevicePointer_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemHostGetDevicePointer_v2(&self, pdptr: * mut CUdeviceptr, p: * mut :: std :: os :: raw :: c_void, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemHostGetDevicePointer_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pdptr, p, Flags) })
            }
            None => Err(self.missing("cuMemHostGetDevicePointer_v2")),
        }
    }

    # [doc = "```text\n \\brief Returns a PCI Bus Id string for the device\n\n Returns an ASCII string identifying the device \\p dev in the NULL-terminated\n string pointed to by \\p pciBusId. \\p len specifies the maximum length of the\n string that may be returned.\n\n \\param pciBusId - Returned identifier string for the device in the following format\n [domain]:[bus]:[device].[function]\n where \\p domain, \\p bus, \\p device, and \\p function are all hexadecimal values.\n pciBusId should be large enough to store 13 characters including the NULL-terminator.\n\n \\param len      - Maximum length of string to store in \\p name\n\n \\param dev      - Device to get identifier string for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuDeviceGet,\n ::cuDeviceGetAttribute,\n ::cuDeviceGetByPCIBusId,\n ::cudaDeviceGetPCIBusId\n```"]
    ///
    /// Calls `cuDeviceGetPCIBusId` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceGetPCIBusId`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceGetPCIBusId` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceGetPCIBusId(&self, pciBusId: * mut :: std :: os :: raw :: c_char, len: :: std :: os :: raw :: c_int, dev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceGetPCIBusId {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pciBusId, len, dev) })
            }
            None => Err(self.missing("cuDeviceGetPCIBusId")),
        }
    }

    /// Calls `cuMemHostRegister_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemHostRegister_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemHostRegister_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemHostRegister_v2(&self, p: * mut :: std :: os :: raw :: c_void, bytesize: usize, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemHostRegister_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(p, bytesize, Flags) })
            }
            None => Err(self.missing("cuMemHostRegister_v2")),
        }
    }

    # [doc = "```text\n \\brief Unregisters a memory range that was registered with cuMemHostRegister.\n\n Unmaps the memory range whose base address is specified by \\p p, and makes\n it pageable again.\n\n The base address must be the same one specified to ::cuMemHostRegister().\n\n \\param p - Host pointer to memory to unregister\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY,\n ::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,\n \\notefnerr\n\n \\sa\n ::cuMemHostRegister,\n ::cudaHostUnregister\n```"]
    ///
    /// Calls `cuMemHostUnregister` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemHostUnregister`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemHostUnregister` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemHostUnregister(&self, p: * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemHostUnregister {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(p) })
            }
            None => Err(self.missing("cuMemHostUnregister")),
        }
    }

    # [doc = "```text\n \\brief Copies memory asynchronously\n\n Copies data between two pointers.\n \\p dst and \\p src are base pointers of the destination and source, respectively.\n \\p ByteCount specifies the number of bytes to copy.\n Note that this function infers the type of the transfer (host to host, host to\n   device, device to device, or device to host) from the pointer values.  This\n   function is only allowed in contexts which support unified addressing.\n\n \\param dst       - Destination unified virtual address space pointer\n \\param src       - Source unified virtual address space pointer\n \\param ByteCount - Size of memory copy in bytes\n \\param hStream   - Stream identifier\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_HANDLE\n \\notefnerr\n \\note_async\n \\note_null_stream\n \\note_memcpy\n\n \\sa ::cuArray3DCreate, ::cuArray3DGetDescriptor, ::cuArrayCreate,\n ::cuArrayDestroy, ::cuArrayGetDescriptor, ::cuMemAlloc, ::cuMemAllocHost,\n ::cuMemAllocPitch, ::cuMemcpy2D, ::cuMemcpy2DAsync, ::cuMemcpy2DUnaligned,\n ::cuMemcpy3D, ::cuMemcpy3DAsync, ::cuMemcpyAtoA, ::cuMemcpyAtoD,\n ::cuMemcpyAtoH, ::cuMemcpyAtoHAsync, ::cuMemcpyDtoA, ::cuMemcpyDtoD,\n ::cuMemcpyDtoH, ::cuMemcpyDtoHAsync, ::cuMemcpyHtoA, ::cuMemcpyHtoAAsync,\n ::cuMemcpyHtoD, ::cuMemcpyHtoDAsync, ::cuMemFree, ::cuMemFreeHost,\n ::cuMemGetAddressRange, ::cuMemGetInfo, ::cuMemHostAlloc,\n ::cuMemHostGetDevicePointer, ::cuMemsetD2D8, ::cuMemsetD2D8Async,\n ::cuMemsetD2D16, ::cuMemsetD2D16Async, ::cuMemsetD2D32, ::cuMemsetD2D32Async,\n ::cuMemsetD8, ::cuMemsetD8Async, ::cuMemsetD16, ::cuMemsetD16Async,\n ::cuMemsetD32, ::cuMemsetD32Async,\n ::cudaMemcpyAsync,\n ::cudaMemcpyToSymbolAsync,\n ::cudaMemcpyFromSymbolAsync\n```"]
    ///
    /// Calls `cuMemcpyAsync` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemcpyAsync`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemcpyAsync` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemcpyAsync(&self, dst: CUdeviceptr, src: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemcpyAsync {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dst, src, ByteCount, hStream) })
            }
            None => Err(self.missing("cuMemcpyAsync")),
        }
    }

    /// Calls `cuMemcpyHtoDAsync_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemcpyHtoDAsync_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemcpyHtoDAsync_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemcpyHtoDAsync_v2(&self, dstDevice: CUdeviceptr, srcHost: * const :: std :: os :: raw :: c_void, ByteCount: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemcpyHtoDAsync_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dstDevice, srcHost, ByteCount, hStream) })
            }
            None => Err(self.missing("cuMemcpyHtoDAsync_v2")),
        }
    }

    /// Calls `cuMemcpyDtoHAsync_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemcpyDtoHAsync_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemcpyDtoHAsync_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemcpyDtoHAsync_v2(&self, dstHost: * mut :: std :: os :: raw :: c_void, srcDevice: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemcpyDtoHAsync_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dstHost, srcDevice, ByteCount, hStream) })
            }
            None => Err(self.missing("cuMemcpyDtoHAsync_v2")),
        }
    }

    /// Calls `cuMemcpyDtoDAsync_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemcpyDtoDAsync_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemcpyDtoDAsync_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemcpyDtoDAsync_v2(&self, dstDevice: CUdeviceptr, srcDevice: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemcpyDtoDAsync_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dstDevice, srcDevice, ByteCount, hStream) })
            }
            None => Err(self.missing("cuMemcpyDtoDAsync_v2")),
        }
    }

    # [doc = "```text\n \\brief Sets device memory\n\n Sets the memory range of \\p N 8-bit values to the specified value\n \\p uc.\n\n \\param dstDevice - Destination device pointer\n \\param uc        - Value to set\n \\param N         - Number of elements\n \\param hStream   - Stream identifier\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE\n \\notefnerr\n \\note_memset\n \\note_null_stream\n\n \\sa ::cuArray3DCreate, ::cuArray3DGetDescriptor, ::cuArrayCreate,\n ::cuArrayDestroy, ::cuArrayGetDescriptor, ::cuMemAlloc, ::cuMemAllocHost,\n ::cuMemAllocPitch, ::cuMemcpy2D, ::cuMemcpy2DAsync, ::cuMemcpy2DUnaligned,\n ::cuMemcpy3D, ::cuMemcpy3DAsync, ::cuMemcpyAtoA, ::cuMemcpyAtoD,\n ::cuMemcpyAtoH, ::cuMemcpyAtoHAsync, ::cuMemcpyDtoA, ::cuMemcpyDtoD, ::cuMemcpyDtoDAsync,\n ::cuMemcpyDtoH, ::cuMemcpyDtoHAsync, ::cuMemcpyHtoA, ::cuMemcpyHtoAAsync,\n ::cuMemcpyHtoD, ::cuMemcpyHtoDAsync, ::cuMemFree, ::cuMemFreeHost,\n ::cuMemGetAddressRange, ::cuMemGetInfo, ::cuMemHostAlloc,\n ::cuMemHostGetDevicePointer, ::cuMemsetD2D8, ::cuMemsetD2D8Async,\n ::cuMemsetD2D16, ::cuMemsetD2D16Async, ::cuMemsetD2D32, ::cuMemsetD2D32Async,\n ::cuMemsetD8, ::cuMemsetD16, ::cuMemsetD16Async,\n ::cuMemsetD32, ::cuMemsetD32Async,\n ::cudaMemsetAsync\n```"]
    ///
    /// Calls `cuMemsetD8Async` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemsetD8Async`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemsetD8Async` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemsetD8Async(&self, dstDevice: CUdeviceptr, uc: :: std :: os :: raw :: c_uchar, N: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemsetD8Async {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dstDevice, uc, N, hStream) })
            }
            None => Err(self.missing("cuMemsetD8Async")),
        }
    }

    # [doc = "```text\n \\brief Sets device memory\n\n Sets the memory range of \\p N 16-bit values to the specified value\n \\p us. The \\p dstDevice pointer must be two byte aligned.\n\n \\param dstDevice - Destination device pointer\n \\param us        - Value to set\n \\param N         - Number of elements\n \\param hStream   - Stream identifier\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE\n \\notefnerr\n \\note_memset\n \\note_null_stream\n\n \\sa ::cuArray3DCreate, ::cuArray3DGetDescriptor, ::cuArrayCreate,\n ::cuArrayDestroy, ::cuArrayGetDescriptor, ::cuMemAlloc, ::cuMemAllocHost,\n ::cuMemAllocPitch, ::cuMemcpy2D, ::cuMemcpy2DAsync, ::cuMemcpy2DUnaligned,\n ::cuMemcpy3D, ::cuMemcpy3DAsync, ::cuMemcpyAtoA, ::cuMemcpyAtoD,\n ::cuMemcpyAtoH, ::cuMemcpyAtoHAsync, ::cuMemcpyDtoA, ::cuMemcpyDtoD, ::cuMemcpyDtoDAsync,\n ::cuMemcpyDtoH, ::cuMemcpyDtoHAsync, ::cuMemcpyHtoA, ::cuMemcpyHtoAAsync,\n ::cuMemcpyHtoD, ::cuMemcpyHtoDAsync, ::cuMemFree, ::cuMemFreeHost,\n ::cuMemGetAddressRange, ::cuMemGetInfo, ::cuMemHostAlloc,\n ::cuMemHostGetDevicePointer, ::cuMemsetD2D8, ::cuMemsetD2D8Async,\n ::cuMemsetD2D16, ::cuMemsetD2D16Async, ::cuMemsetD2D32, ::cuMemsetD2D32Async,\n ::cuMemsetD8, ::cuMemsetD8Async, ::cuMemsetD16,\n ::cuMemsetD32, ::cuMemsetD32Async,\n ::cudaMemsetAsync\n```"]
    ///
    /// Calls `cuMemsetD16Async` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemsetD16Async`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemsetD16Async` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemsetD16Async(&self, dstDevice: CUdeviceptr, us: :: std :: os :: raw :: c_ushort, N: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemsetD16Async {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dstDevice, us, N, hStream) })
            }
            None => Err(self.missing("cuMemsetD16Async")),
        }
    }

    # [doc = "```text\n \\brief Sets device memory\n\n Sets the memory range of \\p N 32-bit values to the specified value\n \\p ui. The \\p dstDevice pointer must be four byte aligned.\n\n \\param dstDevice - Destination device pointer\n \\param ui        - Value to set\n \\param N         - Number of elements\n \\param hStream   - Stream identifier\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE\n \\notefnerr\n \\note_memset\n \\note_null_stream\n\n \\sa ::cuArray3DCreate, ::cuArray3DGetDescriptor, ::cuArrayCreate,\n ::cuArrayDestroy, ::cuArrayGetDescriptor, ::cuMemAlloc, ::cuMemAllocHost,\n ::cuMemAllocPitch, ::cuMemcpy2D, ::cuMemcpy2DAsync, ::cuMemcpy2DUnaligned,\n ::cuMemcpy3D, ::cuMemcpy3DAsync, ::cuMemcpyAtoA, ::cuMemcpyAtoD,\n ::cuMemcpyAtoH, ::cuMemcpyAtoHAsync, ::cuMemcpyDtoA, ::cuMemcpyDtoD, ::cuMemcpyDtoDAsync,\n ::cuMemcpyDtoH, ::cuMemcpyDtoHAsync, ::cuMemcpyHtoA, ::cuMemcpyHtoAAsync,\n ::cuMemcpyHtoD, ::cuMemcpyHtoDAsync, ::cuMemFree, ::cuMemFreeHost,\n ::cuMemGetAddressRange, ::cuMemGetInfo, ::cuMemHostAlloc,\n ::cuMemHostGetDevicePointer, ::cuMemsetD2D8, ::cuMemsetD2D8Async,\n ::cuMemsetD2D16, ::cuMemsetD2D16Async, ::cuMemsetD2D32, ::cuMemsetD2D32Async,\n ::cuMemsetD8, ::cuMemsetD8Async, ::cuMemsetD16, ::cuMemsetD16Async, ::cuMemsetD32,\n ::cudaMemsetAsync\n```"]
    ///
    /// Calls `cuMemsetD32Async` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemsetD32Async`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemsetD32Async` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemsetD32Async(&self, dstDevice: CUdeviceptr, ui: :: std :: os :: raw :: c_uint, N: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemsetD32Async {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dstDevice, ui, N, hStream) })
            }
            None => Err(self.missing("cuMemsetD32Async")),
        }
    }

    # [doc = "```text\n \\brief Frees memory with stream ordered semantics\n\n Inserts a free operation into \\p hStream.\n The allocation must not be accessed after stream execution reaches the free.\n After this API returns, accessing the memory from any subsequent work launched on the GPU\n or querying its pointer attributes results in undefined behavior.\n\n \\note During stream capture, this function results in the creation of a free node and\n       must therefore be passed the address of a graph allocation.\n\n \\param dptr - memory to free\n \\param hStream - The stream establishing the stream ordering contract.\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT (default stream specified with no current context),\n ::CUDA_ERROR_NOT_SUPPORTED\n```"]
    ///
    /// Calls `cuMemFreeAsync` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemFreeAsync`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemFreeAsync` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemFreeAsync(&self, dptr: CUdeviceptr, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemFreeAsync {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dptr, hStream) })
            }
            None => Err(self.missing("cuMemFreeAsync")),
        }
    }

    # [doc = "```text\n \\brief Allocates memory with stream ordered semantics\n\n Inserts an allocation operation into \\p hStream.\n A pointer to the allocated memory is returned immediately in *dptr.\n The allocation must not be accessed until the the allocation operation completes.\n The allocation comes from the memory pool current to the stream's device.\n\n \\note The default memory pool of a device contains device memory from that device.\n \\note Basic stream ordering allows future work submitted into the same stream to use the allocation.\n       Stream query, stream synchronize, and CUDA events can be used to guarantee that the allocation\n       operation completes before work submitted in a separate stream runs.\n \\note During stream capture, this function results in the creation of an allocation node.  In this case,\n       the allocation is owned by the graph instead of the memory pool. The memory pool's properties\n       are used to set the node's creation parameters.\n\n \\param[out] dptr    - Returned device pointer\n \\param[in] bytesize - Number of bytes to allocate\n \\param[in] hStream  - The stream establishing the stream ordering contract and the memory pool to allocate from\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT (default stream specified with no current context),\n ::CUDA_ERROR_NOT_SUPPORTED,\n ::CUDA_ERROR_OUT_OF_MEMORY\n\n \\sa ::cuMemAllocFromPoolAsync, ::cuMemFreeAsync, ::cuDeviceSetMemPool,\n     ::cuDeviceGetDefaultMemPool, ::cuDeviceGetMemPool, ::cuMemPoolCreate,\n     ::cuMemPoolSetAccess, ::cuMemPoolSetAttribute\n```"]
    ///
    /// Calls `cuMemAllocAsync` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemAllocAsync`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemAllocAsync` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemAllocAsync(&self, dptr: * mut CUdeviceptr, bytesize: usize, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemAllocAsync {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dptr, bytesize, hStream) })
            }
            None => Err(self.missing("cuMemAllocAsync")),
        }
    }

    # [doc = "```text\n \\brief Tries to release memory back to the OS\n\n Releases memory back to the OS until the pool contains fewer than minBytesToKeep\n reserved bytes, or there is no more memory that the allocator can safely release.\n The allocator cannot release OS allocations that back outstanding asynchronous allocations.\n The OS allocations may happen at different granularity from the user allocations.\n\n \\note: Allocations that have not been freed count as outstanding.\n \\note: Allocations that have been asynchronously freed but whose completion has\n        not been observed on the host (eg. by a synchronize) can count as outstanding.\n\n \\param[in] pool           - The memory pool to trim\n \\param[in] minBytesToKeep - If the pool has less than minBytesToKeep reserved,\n the TrimTo operation is a no-op.  Otherwise the pool will be guaranteed to have\n at least minBytesToKeep bytes reserved after the operation.\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa ::cuMemAllocAsync, ::cuMemFreeAsync, ::cuDeviceGetDefaultMemPool,\n     ::cuDeviceGetMemPool, ::cuMemPoolCreate\n```"]
    ///
    /// Calls `cuMemPoolTrimTo` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemPoolTrimTo`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemPoolTrimTo` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemPoolTrimTo(&self, pool: CUmemoryPool, minBytesToKeep: usize) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemPoolTrimTo {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool, minBytesToKeep) })
            }
            None => Err(self.missing("cuMemPoolTrimTo")),
        }
    }

    # [doc = "```text\n \\brief Sets attributes of a memory pool\n\n Supported attributes are:\n - ::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: (value type = cuuint64_t)\n                    Amount of reserved memory in bytes to hold onto before trying\n                    to release memory back to the OS. When more than the release\n                    threshold bytes of memory are held by the memory pool, the\n                    allocator will try to release memory back to the OS on the\n                    next call to stream, event or context synchronize. (default 0)\n - ::CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: (value type = int)\n                    Allow ::cuMemAllocAsync to use memory asynchronously freed\n                    in another stream as long as a stream ordering dependency\n                    of the allocating stream on the free action exists.\n                    Cuda events and null stream interactions can create the required\n                    stream ordered dependencies. (default enabled)\n - ::CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: (value type = int)\n                    Allow reuse of already completed frees when there is no dependency\n                    between the free and allocation. (default enabled)\n - ::CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: (value type = int)\n                    Allow ::cuMemAllocAsync to insert new stream dependencies\n                    in order to establish the stream ordering required to reuse\n                    a piece of memory released by ::cuMemFreeAsync (default enabled).\n - ::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: (value type = cuuint64_t)\n                    Reset the high watermark that tracks the amount of backing memory that was\n                    allocated for the memory pool. It is illegal to set this attribute to a non-zero value.\n - ::CU_MEMPOOL_ATTR_USED_MEM_HIGH: (value type = cuuint64_t)\n                    Reset the high watermark that tracks the amount of used memory that was\n                    allocated for the memory pool.\n\n \\param[in] pool  - The memory pool to modify\n \\param[in] attr  - The attribute to modify\n \\param[in] value - Pointer to the value to assign\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa ::cuMemAllocAsync, ::cuMemFreeAsync, ::cuDeviceGetDefaultMemPool,\n     ::cuDeviceGetMemPool, ::cuMemPoolCreate\n```"]
    ///
    /// Calls `cuMemPoolSetAttribute` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemPoolSetAttribute`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemPoolSetAttribute` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemPoolSetAttribute(&self, pool: CUmemoryPool, attr: CUmemPool_attribute, value: * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemPoolSetAttribute {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool, attr, value) })
            }
            None => Err(self.missing("cuMemPoolSetAttribute")),
        }
    }

    # [doc = "```text\n \\brief Gets attributes of a memory pool\n\n Supported attributes are:\n - ::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: (value type = cuuint64_t)\n                    Amount of reserved memory in bytes to hold onto before trying\n                    to release memory back to the OS. When more than the release\n                    threshold bytes of memory are held by the memory pool, the\n                    allocator will try to release memory back to the OS on the\n                    next call to stream, event or context synchronize. (default 0)\n - ::CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: (value type = int)\n                    Allow ::cuMemAllocAsync to use memory asynchronously freed\n                    in another stream as long as a stream ordering dependency\n                    of the allocating stream on the free action exists.\n                    Cuda events and null stream interactions can create the required\n                    stream ordered dependencies. (default enabled)\n - ::CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: (value type = int)\n                    Allow reuse of already completed frees when there is no dependency\n                    between the free and allocation. (default enabled)\n - ::CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: (value type = int)\n                    Allow ::cuMemAllocAsync to insert new stream dependencies\n                    in order to establish the stream ordering required to reuse\n                    a piece of memory released by ::cuMemFreeAsync (default enabled).\n - ::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: (value type = cuuint64_t)\n                    Amount of backing memory currently allocated for the mempool\n - ::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: (value type = cuuint64_t)\n                    High watermark of backing memory allocated for the mempool since the\n                    last time it was reset.\n - ::CU_MEMPOOL_ATTR_USED_MEM_CURRENT: (value type = cuuint64_t)\n                    Amount of memory from the pool that is currently in use by the application.\n - ::CU_MEMPOOL_ATTR_USED_MEM_HIGH: (value type = cuuint64_t)\n                    High watermark of the amount of memory from the pool that was in use by the application.\n\n \\param[in] pool   - The memory pool to get attributes of\n \\param[in] attr   - The attribute to get\n \\param[out] value - Retrieved value\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa ::cuMemAllocAsync, ::cuMemFreeAsync, ::cuDeviceGetDefaultMemPool,\n     ::cuDeviceGetMemPool, ::cuMemPoolCreate\n```"]
    ///
    /// Calls `cuMemPoolGetAttribute` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemPoolGetAttribute`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemPoolGetAttribute` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemPoolGetAttribute(&self, pool: CUmemoryPool, attr: CUmemPool_attribute, value: * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemPoolGetAttribute {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool, attr, value) })
            }
            None => Err(self.missing("cuMemPoolGetAttribute")),
        }
    }

    # [doc = "```text\n \\brief Creates a memory pool\n\n Creates a CUDA memory pool and returns the handle in \\p pool.  The \\p poolProps determines\n the properties of the pool such as the backing device and IPC capabilities.\n\n To create a memory pool targeting a specific host NUMA node, applications must\n set ::CUmemPoolProps::CUmemLocation::type to ::CU_MEM_LOCATION_TYPE_HOST_NUMA and\n ::CUmemPoolProps::CUmemLocation::id must specify the NUMA ID of the host memory node.\n Specifying ::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT or ::CU_MEM_LOCATION_TYPE_HOST as the\n ::CUmemPoolProps::CUmemLocation::type will result in ::CUDA_ERROR_INVALID_VALUE.\n By default, the pool's memory will be accessible from the device it is allocated on.\n In the case of pools created with ::CU_MEM_LOCATION_TYPE_HOST_NUMA, their default accessibility\n will be from the host CPU.\n Applications can control the maximum size of the pool by specifying a non-zero value for ::CUmemPoolProps::maxSize.\n If set to 0, the maximum size of the pool will default to a system dependent value.\n\n Applications that intend to use ::CU_MEM_HANDLE_TYPE_FABRIC based memory sharing must ensure:\n (1) `nvidia-caps-imex-channels` character device is created by the driver and is listed under /proc/devices\n (2) have at least one IMEX channel file accessible by the user launching the application.\n\n When exporter and importer CUDA processes have been granted access to the same IMEX channel, they can securely\n share memory.\n\n The IMEX channel security model works on a per user basis. Which means all processes under a user can share\n memory if the user has access to a valid IMEX channel. When multi-user isolation is desired, a separate IMEX\n channel is required for each user.\n\n These channel files exist in /dev/nvidia-caps-imex-channels/channel* and can be created using standard OS\n native calls like mknod on Linux. For example: To create channel0 with the major number from /proc/devices\n users can execute the following command: `mknod /dev/nvidia-caps-imex-channels/channel0 c <major number> 0`\n\n \\note Specifying CU_MEM_HANDLE_TYPE_NONE creates a memory pool that will not support IPC.\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY,\n ::CUDA_ERROR_NOT_PERMITTED,\n ::CUDA_ERROR_NOT_SUPPORTED\n\n \\sa ::cuDeviceSetMemPool, ::cuDeviceGetMemPool, ::cuDeviceGetDefaultMemPool,\n     ::cuMemAllocFromPoolAsync, ::cuMemPoolExportToShareableHandle\n```"]
    ///
    /// Calls `cuMemPoolCreate` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemPoolCreate`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemPoolCreate` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemPoolCreate(&self, pool: * mut CUmemoryPool, poolProps: * const CUmemPoolProps) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemPoolCreate {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool, poolProps) })
            }
            None => Err(self.missing("cuMemPoolCreate")),
        }
    }

    # [doc = "```text\n \\brief Destroys the specified memory pool\n\n If any pointers obtained from this pool haven't been freed or\n the pool has free operations that haven't completed\n when ::cuMemPoolDestroy is invoked, the function will return immediately and the\n resources associated with the pool will be released automatically\n once there are no more outstanding allocations.\n\n Destroying the current mempool of a device sets the default mempool of\n that device as the current mempool for that device.\n\n \\note A device's default memory pool cannot be destroyed.\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE\n\n \\sa ::cuMemFreeAsync, ::cuDeviceSetMemPool, ::cuDeviceGetMemPool,\n     ::cuDeviceGetDefaultMemPool, ::cuMemPoolCreate\n```"]
    ///
    /// Calls `cuMemPoolDestroy` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemPoolDestroy`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemPoolDestroy` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemPoolDestroy(&self, pool: CUmemoryPool) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemPoolDestroy {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pool) })
            }
            None => Err(self.missing("cuMemPoolDestroy")),
        }
    }

    # [doc = "```text\n \\brief Allocates memory from a specified pool with stream ordered semantics.\n\n Inserts an allocation operation into \\p hStream.\n A pointer to the allocated memory is returned immediately in *dptr.\n The allocation must not be accessed until the the allocation operation completes.\n The allocation comes from the specified memory pool.\n\n \\note\n    -  The specified memory pool may be from a device different than that of the specified \\p hStream.\n\n    -  Basic stream ordering allows future work submitted into the same stream to use the allocation.\n       Stream query, stream synchronize, and CUDA events can be used to guarantee that the allocation\n       operation completes before work submitted in a separate stream runs.\n\n \\note During stream capture, this function results in the creation of an allocation node.  In this case,\n       the allocation is owned by the graph instead of the memory pool. The memory pool's properties\n       are used to set the node's creation parameters.\n\n \\param[out] dptr    - Returned device pointer\n \\param[in] bytesize - Number of bytes to allocate\n \\param[in] pool     - The pool to allocate from\n \\param[in] hStream  - The stream establishing the stream ordering semantic\n\n \\returns\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT (default stream specified with no current context),\n ::CUDA_ERROR_NOT_SUPPORTED,\n ::CUDA_ERROR_OUT_OF_MEMORY\n\n \\sa ::cuMemAllocAsync, ::cuMemFreeAsync, ::cuDeviceGetDefaultMemPool,\n     ::cuDeviceGetMemPool, ::cuMemPoolCreate, ::cuMemPoolSetAccess,\n     ::cuMemPoolSetAttribute\n```"]
    ///
    /// Calls `cuMemAllocFromPoolAsync` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuMemAllocFromPoolAsync`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuMemAllocFromPoolAsync` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuMemAllocFromPoolAsync(&self, dptr: * mut CUdeviceptr, bytesize: usize, pool: CUmemoryPool, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuMemAllocFromPoolAsync {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(dptr, bytesize, pool, hStream) })
            }
            None => Err(self.missing("cuMemAllocFromPoolAsync")),
        }
    }

    # [doc = "```text\n \\brief Returns information about a pointer\n\n The supported attributes are:\n\n - ::CU_POINTER_ATTRIBUTE_CONTEXT:\n\n      Returns in \\p *data the ::CUcontext in which \\p ptr was allocated or\n      registered.\n      The type of \\p data must be ::CUcontext *.\n\n      If \\p ptr was not allocated by, mapped by, or registered with\n      a ::CUcontext which uses unified virtual addressing then\n      ::CUDA_ERROR_INVALID_VALUE is returned.\n\n - ::CU_POINTER_ATTRIBUTE_MEMORY_TYPE:\n\n      Returns in \\p *data the physical memory type of the memory that\n      \\p ptr addresses as a ::CUmemorytype enumerated value.\n      The type of \\p data must be unsigned int.\n\n      If \\p ptr addresses device memory then \\p *data is set to\n      ::CU_MEMORYTYPE_DEVICE.  The particular ::CUdevice on which the\n      memory resides is the ::CUdevice of the ::CUcontext returned by the\n      ::CU_POINTER_ATTRIBUTE_CONTEXT attribute of \\p ptr.\n\n      If \\p ptr addresses host memory then \\p *data is set to\n      ::CU_MEMORYTYPE_HOST.\n\n      If \\p ptr was not allocated by, mapped by, or registered with\n      a ::CUcontext which uses unified virtual addressing then\n      ::CUDA_ERROR_INVALID_VALUE is returned.\n\n      If the current ::CUcontext does not support unified virtual\n      addressing then ::CUDA_ERROR_INVALID_CONTEXT is returned.\n\n - ::CU_POINTER_ATTRIBUTE_DEVICE_POINTER:\n\n      Returns in \\p *data the device pointer value through which\n      \\p ptr may be accessed by kernels running in the current\n      ::CUcontext.\n      The type of \\p data must be CUdeviceptr *.\n\n      If there exists no device pointer value through which\n      kernels running in the current ::CUcontext may access\n      \\p ptr then ::CUDA_ERROR_INVALID_VALUE is returned.\n\n      If there is no current ::CUcontext then\n      ::CUDA_ERROR_INVALID_CONTEXT is returned.\n\n      Except in the exceptional disjoint addressing cases discussed\n      below, the value returned in \\p *data will equal the input\n      value \\p ptr.\n\n - ::CU_POINTER_ATTRIBUTE_HOST_POINTER:\n\n      Returns in \\p *data the host pointer value through which\n      \\p ptr may be accessed by by the host program.\n      The type of \\p data must be void **.\n      If there exists no host pointer value through which\n      the host program may directly access \\p ptr then\n      ::CUDA_ERROR_INVALID_VALUE is returned.\n\n      Except in the exceptional disjoint addressing cases discussed\n      below, the value returned in \\p *data will equal the input\n      value \\p ptr.\n\n - ::CU_POINTER_ATTRIBUTE_P2P_TOKENS:\n\n      Returns in \\p *data two tokens for use with the nv-p2p.h Linux\n      kernel interface. \\p data must be a struct of type\n      CUDA_POINTER_ATTRIBUTE_P2P_TOKENS.\n\n      \\p ptr must be a pointer to memory obtained from :cuMemAlloc().\n      Note that p2pToken and vaSpaceToken are only valid for the\n      lifetime of the source allocation. A subsequent allocation at\n      the same address may return completely different tokens.\n      Querying this attribute has a side effect of setting the attribute\n      ::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS for the region of memory that\n      \\p ptr points to.\n\n - ::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:\n\n      A boolean attribute which when set, ensures that synchronous memory operations\n      initiated on the region of memory that \\p ptr points to will always synchronize.\n      See further documentation in the section titled \"API synchronization behavior\"\n      to learn more about cases when synchronous memory operations can\n      exhibit asynchronous behavior.\n\n - ::CU_POINTER_ATTRIBUTE_BUFFER_ID:\n\n      Returns in \\p *data a buffer ID which is guaranteed to be unique within the process.\n      \\p data must point to an unsigned long long.\n\n      \\p ptr must be a pointer to memory obtained from a CUDA memory allocation API.\n      Every memory allocation from any of the CUDA memory allocation APIs will\n      have a unique ID over a process lifetime. Subsequent allocations do not reuse IDs\n      from previous freed allocations. IDs are only unique within a single process.\n\n\n - ::CU_POINTER_ATTRIBUTE_IS_MANAGED:\n\n      Returns in \\p *data a boolean that indicates whether the pointer points to\n      managed memory or not.\n\n      If \\p ptr is not a valid CUDA pointer then ::CUDA_ERROR_INVALID_VALUE is returned.\n\n - ::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:\n\n      Returns in \\p *data an integer representing a device ordinal of a device against\n      which the memory was allocated or registered.\n\n - ::CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:\n\n      Returns in \\p *data a boolean that indicates if this pointer maps to\n      an allocation that is suitable for ::cudaIpcGetMemHandle.\n\n - ::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:\n\n      Returns in \\p *data the starting address for the allocation referenced\n      by the device pointer \\p ptr.  Note that this is not necessarily the\n      address of the mapped region, but the address of the mappable address\n      range \\p ptr references (e.g. from ::cuMemAddressReserve).\n\n - ::CU_POINTER_ATTRIBUTE_RANGE_SIZE:\n\n      Returns in \\p *data the size for the allocation referenced by the device\n      pointer \\p ptr.  Note that this is not necessarily the size of the mapped\n      region, but the size of the mappable address range \\p ptr references\n      (e.g. from ::cuMemAddressReserve).  To retrieve the size of the mapped\n      region, see ::cuMemGetAddressRange\n\n - ::CU_POINTER_ATTRIBUTE_MAPPED:\n\n      Returns in \\p *data a boolean that indicates if this pointer is in a\n      valid address range that is mapped to a backing allocation.\n\n - ::CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:\n\n      Returns a bitmask of the allowed handle types for an allocation that may\n      be passed to ::cuMemExportToShareableHandle.\n\n - ::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:\n\n      Returns in \\p *data the handle to the mempool that the allocation was obtained from.\n\n - ::CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:\n\n      Returns in \\p *data a boolean that indicates whether the pointer points\n      to memory that is capable to be used for hardware accelerated\n      decompression.\n\n \\par\n\n Note that for most allocations in the unified virtual address space\n the host and device pointer for accessing the allocation will be the\n same.  The exceptions to this are\n  - user memory registered using ::cuMemHostRegister\n  - host memory allocated using ::cuMemHostAlloc with the\n    ::CU_MEMHOSTALLOC_WRITECOMBINED flag\n For these types of allocation there will exist separate, disjoint host\n and device addresses for accessing the allocation.  In particular\n  - The host address will correspond to an invalid unmapped device address\n    (which will result in an exception if accessed from the device)\n  - The device address will correspond to an invalid unmapped host address\n    (which will result in an exception if accessed from the host).\n For these types of allocations, querying ::CU_POINTER_ATTRIBUTE_HOST_POINTER\n and ::CU_POINTER_ATTRIBUTE_DEVICE_POINTER may be used to retrieve the host\n and device addresses from either address.\n\n \\param data      - Returned pointer attribute value\n \\param attribute - Pointer attribute to query\n \\param ptr       - Pointer\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuPointerSetAttribute,\n ::cuMemAlloc,\n ::cuMemFree,\n ::cuMemAllocHost,\n ::cuMemFreeHost,\n ::cuMemHostAlloc,\n ::cuMemHostRegister,\n ::cuMemHostUnregister,\n ::cudaPointerGetAttributes\n```"]
    ///
    /// Calls `cuPointerGetAttribute` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuPointerGetAttribute`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuPointerGetAttribute` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuPointerGetAttribute(&self, data: * mut :: std :: os :: raw :: c_void, attribute: CUpointer_attribute, ptr: CUdeviceptr) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuPointerGetAttribute {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(data, attribute, ptr) })
            }
            None => Err(self.missing("cuPointerGetAttribute")),
        }
    }

    # [doc = "```text\n \\brief Create a stream\n\n Creates a stream and returns a handle in \\p phStream.  The \\p Flags argument\n determines behaviors of the stream.\n\n Valid values for \\p Flags are:\n - ::CU_STREAM_DEFAULT: Default stream creation flag.\n - ::CU_STREAM_NON_BLOCKING: Specifies that work running in the created\n   stream may run concurrently with work in stream 0 (the NULL stream), and that\n   the created stream should perform no implicit synchronization with stream 0.\n\n \\param phStream - Returned newly created stream\n \\param Flags    - Parameters for stream creation\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY\n \\notefnerr\n\n \\sa ::cuStreamDestroy,\n ::cuStreamCreateWithPriority,\n ::cuGreenCtxStreamCreate,\n ::cuStreamGetPriority,\n ::cuStreamGetFlags,\n ::cuStreamGetDevice\n ::cuStreamWaitEvent,\n ::cuStreamQuery,\n ::cuStreamSynchronize,\n ::cuStreamAddCallback,\n ::cudaStreamCreate,\n ::cudaStreamCreateWithFlags\n```"]
    ///
    /// Calls `cuStreamCreate` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamCreate`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamCreate` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamCreate(&self, phStream: * mut CUstream, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamCreate {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(phStream, Flags) })
            }
            None => Err(self.missing("cuStreamCreate")),
        }
    }

    # [doc = "```text\n \\brief Create a stream with the given priority\n\n Creates a stream with the specified priority and returns a handle in \\p phStream.\n This affects the scheduling priority of work in the stream. Priorities provide a\n hint to preferentially run work with higher priority when possible, but do\n not preempt already-running work or provide any other functional guarantee on\n execution order.\n\n \\p priority follows a convention where lower numbers represent higher priorities.\n '0' represents default priority. The range of meaningful numerical priorities can\n be queried using ::cuCtxGetStreamPriorityRange. If the specified priority is\n outside the numerical range returned by ::cuCtxGetStreamPriorityRange,\n it will automatically be clamped to the lowest or the highest number in the range.\n\n \\param phStream    - Returned newly created stream\n \\param flags       - Flags for stream creation. See ::cuStreamCreate for a list of\n                      valid flags\n \\param priority    - Stream priority. Lower numbers represent higher priorities.\n                      See ::cuCtxGetStreamPriorityRange for more information about\n                      meaningful stream priorities that can be passed.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY\n \\notefnerr\n\n \\note Stream priorities are supported only on GPUs\n with compute capability 3.5 or higher.\n\n \\note In the current implementation, only compute kernels launched in\n priority streams are affected by the stream's priority. Stream priorities have\n no effect on host-to-device and device-to-host memory operations.\n\n \\sa ::cuStreamDestroy,\n ::cuStreamCreate,\n ::cuGreenCtxStreamCreate,\n ::cuStreamGetPriority,\n ::cuCtxGetStreamPriorityRange,\n ::cuStreamGetFlags,\n ::cuStreamGetDevice,\n ::cuStreamWaitEvent,\n ::cuStreamQuery,\n ::cuStreamSynchronize,\n ::cuStreamAddCallback,\n ::cudaStreamCreateWithPriority\n```"]
    ///
    /// Calls `cuStreamCreateWithPriority` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamCreateWithPriority`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamCreateWithPriority` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamCreateWithPriority(&self, phStream: * mut CUstream, flags: :: std :: os :: raw :: c_uint, priority: :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamCreateWithPriority {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(phStream, flags, priority) })
            }
            None => Err(self.missing("cuStreamCreateWithPriority")),
        }
    }

    # [doc = "```text\n \\brief Query the priority of a given stream\n\n Query the priority of a stream created using ::cuStreamCreate, ::cuStreamCreateWithPriority or ::cuGreenCtxStreamCreate\n and return the priority in \\p priority. Note that if the stream was created with a\n priority outside the numerical range returned by ::cuCtxGetStreamPriorityRange,\n this function returns the clamped priority.\n See ::cuStreamCreateWithPriority for details about priority clamping.\n\n \\param hStream    - Handle to the stream to be queried\n \\param priority   - Pointer to a signed integer in which the stream's priority is returned\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_OUT_OF_MEMORY\n \\notefnerr\n\n \\sa ::cuStreamDestroy,\n ::cuStreamCreate,\n ::cuStreamCreateWithPriority,\n ::cuGreenCtxStreamCreate,\n ::cuCtxGetStreamPriorityRange,\n ::cuStreamGetFlags,\n ::cuStreamGetDevice,\n ::cudaStreamGetPriority\n```"]
    ///
    /// Calls `cuStreamGetPriority` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamGetPriority`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamGetPriority` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamGetPriority(&self, hStream: CUstream, priority: * mut :: std :: os :: raw :: c_int) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamGetPriority {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream, priority) })
            }
            None => Err(self.missing("cuStreamGetPriority")),
        }
    }

    # [doc = "```text\n \\brief Query the flags of a given stream\n\n Query the flags of a stream created using ::cuStreamCreate, ::cuStreamCreateWithPriority or ::cuGreenCtxStreamCreate\n and return the flags in \\p flags.\n\n \\param hStream    - Handle to the stream to be queried\n \\param flags      - Pointer to an unsigned integer in which the stream's flags are returned\n                     The value returned in \\p flags is a logical 'OR' of all flags that\n                     were used while creating this stream. See ::cuStreamCreate for the list\n                     of valid flags\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_OUT_OF_MEMORY\n \\notefnerr\n\n \\sa ::cuStreamDestroy,\n ::cuStreamCreate,\n ::cuGreenCtxStreamCreate,\n ::cuStreamGetPriority,\n ::cudaStreamGetFlags,\n ::cuStreamGetDevice\n```"]
    ///
    /// Calls `cuStreamGetFlags` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamGetFlags`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamGetFlags` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamGetFlags(&self, hStream: CUstream, flags: * mut :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamGetFlags {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream, flags) })
            }
            None => Err(self.missing("cuStreamGetFlags")),
        }
    }

    # [doc = "```text\n \\brief Make a compute stream wait on an event\n\n Makes all future work submitted to \\p hStream wait for all work captured in\n \\p hEvent.  See ::cuEventRecord() for details on what is captured by an event.\n The synchronization will be performed efficiently on the device when applicable.\n \\p hEvent may be from a different context or device than \\p hStream.\n\n flags include:\n - ::CU_EVENT_WAIT_DEFAULT: Default event creation flag.\n - ::CU_EVENT_WAIT_EXTERNAL: Event is captured in the graph as an external\n   event node when performing stream capture. This flag is invalid outside\n   of stream capture.\n\n \\param hStream - Stream to wait\n \\param hEvent  - Event to wait on (may not be NULL)\n \\param Flags   - See ::CUevent_capture_flags\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n \\note_null_stream\n \\notefnerr\n\n \\sa ::cuStreamCreate,\n ::cuEventRecord,\n ::cuStreamQuery,\n ::cuStreamSynchronize,\n ::cuStreamAddCallback,\n ::cuStreamDestroy,\n ::cudaStreamWaitEvent\n```"]
    ///
    /// Calls `cuStreamWaitEvent` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamWaitEvent`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamWaitEvent` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamWaitEvent(&self, hStream: CUstream, hEvent: CUevent, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamWaitEvent {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream, hEvent, Flags) })
            }
            None => Err(self.missing("cuStreamWaitEvent")),
        }
    }

    /// Calls `cuStreamBeginCapture_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamBeginCapture_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamBeginCapture_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamBeginCapture_v2(&self, hStream: CUstream, mode: CUstreamCaptureMode) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamBeginCapture_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream, mode) })
            }
            None => Err(self.missing("cuStreamBeginCapture_v2")),
        }
    }

    # [doc = "```text\n \\brief Ends capture on a stream, returning the captured graph\n\n End capture on \\p hStream, returning the captured graph via \\p phGraph.\n Capture must have been initiated on \\p hStream via a call to ::cuStreamBeginCapture.\n If capture was invalidated, due to a violation of the rules of stream capture, then\n a NULL graph will be returned.\n\n If the \\p mode argument to ::cuStreamBeginCapture was not\n ::CU_STREAM_CAPTURE_MODE_RELAXED, this call must be from the same thread as\n ::cuStreamBeginCapture.\n\n \\param hStream - Stream to query\n \\param phGraph - The captured graph\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD\n \\notefnerr\n\n \\sa\n ::cuStreamCreate,\n ::cuStreamBeginCapture,\n ::cuStreamIsCapturing,\n ::cuGraphDestroy\n```"]
    ///
    /// Calls `cuStreamEndCapture` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamEndCapture`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamEndCapture` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamEndCapture(&self, hStream: CUstream, phGraph: * mut CUgraph) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamEndCapture {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream, phGraph) })
            }
            None => Err(self.missing("cuStreamEndCapture")),
        }
    }

    # [doc = "```text\n \\brief Determine status of a compute stream\n\n Returns ::CUDA_SUCCESS if all operations in the stream specified by\n \\p hStream have completed, or ::CUDA_ERROR_NOT_READY if not.\n\n For the purposes of Unified Memory, a return value of ::CUDA_SUCCESS\n is equivalent to having called ::cuStreamSynchronize().\n\n \\param hStream - Stream to query status of\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_NOT_READY\n \\note_null_stream\n \\notefnerr\n\n \\sa ::cuStreamCreate,\n ::cuStreamWaitEvent,\n ::cuStreamDestroy,\n ::cuStreamSynchronize,\n ::cuStreamAddCallback,\n ::cudaStreamQuery\n```"]
    ///
    /// Calls `cuStreamQuery` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamQuery`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamQuery` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamQuery(&self, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamQuery {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream) })
            }
            None => Err(self.missing("cuStreamQuery")),
        }
    }

    # [doc = "```text\n \\brief Wait until a stream's tasks are completed\n\n Waits until the device has completed all operations in the stream specified\n by \\p hStream. If the context was created with the\n ::CU_CTX_SCHED_BLOCKING_SYNC flag, the CPU thread will block until the\n stream is finished with all of its tasks.\n\n \\param hStream - Stream to wait for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE\n\n \\note_null_stream\n \\notefnerr\n\n \\sa ::cuStreamCreate,\n ::cuStreamDestroy,\n ::cuStreamWaitEvent,\n ::cuStreamQuery,\n ::cuStreamAddCallback,\n ::cudaStreamSynchronize\n```"]
    ///
    /// Calls `cuStreamSynchronize` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamSynchronize`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamSynchronize` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamSynchronize(&self, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamSynchronize {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream) })
            }
            None => Err(self.missing("cuStreamSynchronize")),
        }
    }

    /// Calls `cuStreamDestroy_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamDestroy_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamDestroy_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamDestroy_v2(&self, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamDestroy_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream) })
            }
            None => Err(self.missing("cuStreamDestroy_v2")),
        }
    }

    # [doc = "```text\n \\brief Creates an event\n\n Creates an event *phEvent for the current context with the flags specified via\n \\p Flags. Valid flags include:\n - ::CU_EVENT_DEFAULT: Default event creation flag.\n - ::CU_EVENT_BLOCKING_SYNC: Specifies that the created event should use blocking\n   synchronization.  A CPU thread that uses ::cuEventSynchronize() to wait on\n   an event created with this flag will block until the event has actually\n   been recorded.\n - ::CU_EVENT_DISABLE_TIMING: Specifies that the created event does not need\n   to record timing data.  Events created with this flag specified and\n   the ::CU_EVENT_BLOCKING_SYNC flag not specified will provide the best\n   performance when used with ::cuStreamWaitEvent() and ::cuEventQuery().\n - ::CU_EVENT_INTERPROCESS: Specifies that the created event may be used as an\n   interprocess event by ::cuIpcGetEventHandle(). ::CU_EVENT_INTERPROCESS must\n   be specified along with ::CU_EVENT_DISABLE_TIMING.\n\n \\param phEvent - Returns newly created event\n \\param Flags   - Event creation flags\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_OUT_OF_MEMORY\n \\notefnerr\n\n \\sa\n ::cuEventRecord,\n ::cuEventQuery,\n ::cuEventSynchronize,\n ::cuEventDestroy,\n ::cuEventElapsedTime,\n ::cudaEventCreate,\n ::cudaEventCreateWithFlags\n```"]
    ///
    /// Calls `cuEventCreate` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventCreate`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventCreate` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventCreate(&self, phEvent: * mut CUevent, Flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventCreate {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(phEvent, Flags) })
            }
            None => Err(self.missing("cuEventCreate")),
        }
    }

    # [doc = "```text\n \\brief Records an event\n\n Captures in \\p hEvent the contents of \\p hStream at the time of this call.\n \\p hEvent and \\p hStream must be from the same context otherwise\n ::CUDA_ERROR_INVALID_HANDLE is returned.\n Calls such as ::cuEventQuery() or ::cuStreamWaitEvent() will then\n examine or wait for completion of the work that was captured. Uses of\n \\p hStream after this call do not modify \\p hEvent. See note on default\n stream behavior for what is captured in the default case.\n\n ::cuEventRecord() can be called multiple times on the same event and\n will overwrite the previously captured state. Other APIs such as\n ::cuStreamWaitEvent() use the most recently captured state at the time\n of the API call, and are not affected by later calls to\n ::cuEventRecord(). Before the first call to ::cuEventRecord(), an\n event represents an empty set of work, so for example ::cuEventQuery()\n would return ::CUDA_SUCCESS.\n\n \\param hEvent  - Event to record\n \\param hStream - Stream to record event for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_INVALID_VALUE\n \\note_null_stream\n \\notefnerr\n\n \\sa ::cuEventCreate,\n ::cuEventQuery,\n ::cuEventSynchronize,\n ::cuStreamWaitEvent,\n ::cuEventDestroy,\n ::cuEventElapsedTime,\n ::cudaEventRecord,\n ::cuEventRecordWithFlags\n```"]
    ///
    /// Calls `cuEventRecord` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventRecord`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventRecord` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventRecord(&self, hEvent: CUevent, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventRecord {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hEvent, hStream) })
            }
            None => Err(self.missing("cuEventRecord")),
        }
    }

    # [doc = "```text\n \\brief Queries an event's status\n\n Queries the status of all work currently captured by \\p hEvent. See\n ::cuEventRecord() for details on what is captured by an event.\n\n Returns ::CUDA_SUCCESS if all captured work has been completed, or\n ::CUDA_ERROR_NOT_READY if any captured work is incomplete.\n\n For the purposes of Unified Memory, a return value of ::CUDA_SUCCESS\n is equivalent to having called ::cuEventSynchronize().\n\n \\param hEvent - Event to query\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_NOT_READY\n \\notefnerr\n\n \\sa ::cuEventCreate,\n ::cuEventRecord,\n ::cuEventSynchronize,\n ::cuEventDestroy,\n ::cuEventElapsedTime,\n ::cudaEventQuery\n```"]
    ///
    /// Calls `cuEventQuery` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventQuery`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventQuery` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventQuery(&self, hEvent: CUevent) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventQuery {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hEvent) })
            }
            None => Err(self.missing("cuEventQuery")),
        }
    }

    # [doc = "```text\n \\brief Waits for an event to complete\n\n Waits until the completion of all work currently captured in \\p hEvent.\n See ::cuEventRecord() for details on what is captured by an event.\n\n Waiting for an event that was created with the ::CU_EVENT_BLOCKING_SYNC\n flag will cause the calling CPU thread to block until the event has\n been completed by the device.  If the ::CU_EVENT_BLOCKING_SYNC flag has\n not been set, then the CPU thread will busy-wait until the event has\n been completed by the device.\n\n \\param hEvent - Event to wait for\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE\n \\notefnerr\n\n \\sa ::cuEventCreate,\n ::cuEventRecord,\n ::cuEventQuery,\n ::cuEventDestroy,\n ::cuEventElapsedTime,\n ::cudaEventSynchronize\n```"]
    ///
    /// Calls `cuEventSynchronize` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventSynchronize`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventSynchronize` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventSynchronize(&self, hEvent: CUevent) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventSynchronize {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hEvent) })
            }
            None => Err(self.missing("cuEventSynchronize")),
        }
    }

    /// Calls `cuEventDestroy_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventDestroy_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventDestroy_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventDestroy_v2(&self, hEvent: CUevent) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventDestroy_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hEvent) })
            }
            None => Err(self.missing("cuEventDestroy_v2")),
        }
    }

    # [doc = "```text\n \\brief Computes the elapsed time between two events\n\n Computes the elapsed time between two events (in milliseconds with a\n resolution of around 0.5 microseconds).\n\n If either event was last recorded in a non-NULL stream, the resulting time\n may be greater than expected (even if both used the same stream handle). This\n happens because the ::cuEventRecord() operation takes place asynchronously\n and there is no guarantee that the measured latency is actually just between\n the two events. Any number of other different stream operations could execute\n in between the two measured events, thus altering the timing in a significant\n way.\n\n If ::cuEventRecord() has not been called on either event then\n ::CUDA_ERROR_INVALID_HANDLE is returned. If ::cuEventRecord() has been called\n on both events but one or both of them has not yet been completed (that is,\n ::cuEventQuery() would return ::CUDA_ERROR_NOT_READY on at least one of the\n events), ::CUDA_ERROR_NOT_READY is returned. If either event was created with\n the ::CU_EVENT_DISABLE_TIMING flag, then this function will return\n ::CUDA_ERROR_INVALID_HANDLE.\n\n Note there is a later version of this API, ::cuEventElapsedTime_v2. It will\n supplant this version in CUDA 13.0, which is retained for minor version compatibility.\n\n \\param pMilliseconds - Time between \\p hStart and \\p hEnd in ms\n \\param hStart        - Starting event\n \\param hEnd          - Ending event\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_NOT_READY,\n ::CUDA_ERROR_UNKNOWN\n \\notefnerr\n\n \\sa ::cuEventCreate,\n ::cuEventRecord,\n ::cuEventQuery,\n ::cuEventSynchronize,\n ::cuEventDestroy,\n ::cudaEventElapsedTime\n```"]
    ///
    /// Calls `cuEventElapsedTime` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventElapsedTime`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventElapsedTime` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventElapsedTime(&self, pMilliseconds: * mut f32, hStart: CUevent, hEnd: CUevent) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventElapsedTime {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pMilliseconds, hStart, hEnd) })
            }
            None => Err(self.missing("cuEventElapsedTime")),
        }
    }

    # [doc = "```text\n \\brief Computes the elapsed time between two events\n\n Computes the elapsed time between two events (in milliseconds with a\n resolution of around 0.5 microseconds). Note this API is not guaranteed\n to return the latest errors for pending work. As such this API is intended to\n serve as an elapsed time calculation only and any polling for completion on the\n events to be compared should be done with ::cuEventQuery instead.\n\n If either event was last recorded in a non-NULL stream, the resulting time\n may be greater than expected (even if both used the same stream handle). This\n happens because the ::cuEventRecord() operation takes place asynchronously\n and there is no guarantee that the measured latency is actually just between\n the two events. Any number of other different stream operations could execute\n in between the two measured events, thus altering the timing in a significant\n way.\n\n If ::cuEventRecord() has not been called on either event then\n ::CUDA_ERROR_INVALID_HANDLE is returned. If ::cuEventRecord() has been called\n on both events but one or both of them has not yet been completed (that is,\n ::cuEventQuery() would return ::CUDA_ERROR_NOT_READY on at least one of the\n events), ::CUDA_ERROR_NOT_READY is returned. If either event was created with\n the ::CU_EVENT_DISABLE_TIMING flag, then this function will return\n ::CUDA_ERROR_INVALID_HANDLE.\n\n \\param pMilliseconds - Time between \\p hStart and \\p hEnd in ms\n \\param hStart        - Starting event\n \\param hEnd          - Ending event\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_NOT_READY,\n ::CUDA_ERROR_UNKNOWN\n \\notefnerr\n\n \\sa ::cuEventCreate,\n ::cuEventRecord,\n ::cuEventQuery,\n ::cuEventSynchronize,\n ::cuEventDestroy,\n ::cudaEventElapsedTime\n```"]
    ///
    /// Calls `cuEventElapsedTime_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuEventElapsedTime_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuEventElapsedTime_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuEventElapsedTime_v2(&self, pMilliseconds: * mut f32, hStart: CUevent, hEnd: CUevent) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuEventElapsedTime_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pMilliseconds, hStart, hEnd) })
            }
            None => Err(self.missing("cuEventElapsedTime_v2")),
        }
    }

    /// Calls `cuStreamWaitValue32_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamWaitValue32_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamWaitValue32_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamWaitValue32_v2(&self, stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamWaitValue32_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(stream, addr, value, flags) })
            }
            None => Err(self.missing("cuStreamWaitValue32_v2")),
        }
    }

    /// Calls `cuStreamWriteValue32_v2` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuStreamWriteValue32_v2`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuStreamWriteValue32_v2` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuStreamWriteValue32_v2(&self, stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: :: std :: os :: raw :: c_uint) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuStreamWriteValue32_v2 {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(stream, addr, value, flags) })
            }
            None => Err(self.missing("cuStreamWriteValue32_v2")),
        }
    }

    # [doc = "```text\n \\brief Returns information about a function\n\n Returns in \\p *pi the integer value of the attribute \\p attrib on the kernel\n given by \\p hfunc. The supported attributes are:\n - ::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: The maximum number of threads\n   per block, beyond which a launch of the function would fail. This number\n   depends on both the function and the device on which the function is\n   currently loaded.\n - ::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: The size in bytes of\n   statically-allocated shared memory per block required by this function.\n   This does not include dynamically-allocated shared memory requested by\n   the user at runtime.\n - ::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: The size in bytes of user-allocated\n   constant memory required by this function.\n - ::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: The size in bytes of local memory\n   used by each thread of this function.\n - ::CU_FUNC_ATTRIBUTE_NUM_REGS: The number of registers used by each thread\n   of this function.\n - ::CU_FUNC_ATTRIBUTE_PTX_VERSION: The PTX virtual architecture version for\n   which the function was compiled. This value is the major PTX version * 10\n   + the minor PTX version, so a PTX version 1.3 function would return the\n   value 13. Note that this may return the undefined value of 0 for cubins\n   compiled prior to CUDA 3.0.\n - ::CU_FUNC_ATTRIBUTE_BINARY_VERSION: The binary architecture version for\n   which the function was compiled. This value is the major binary\n   version * 10 + the minor binary version, so a binary version 1.3 function\n   would return the value 13. Note that this will return a value of 10 for\n   legacy cubins that do not have a properly-encoded binary architecture\n   version.\n - ::CU_FUNC_CACHE_MODE_CA: The attribute to indicate whether the function has\n   been compiled with user specified option \"-Xptxas --dlcm=ca\" set .\n - ::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: The maximum size in bytes of\n   dynamically-allocated shared memory.\n - ::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: Preferred shared memory-L1\n   cache split ratio in percent of total shared memory.\n - ::CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: If this attribute is set, the\n   kernel must launch with a valid cluster size specified.\n - ::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: The required cluster width in\n   blocks.\n - ::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: The required cluster height in\n   blocks.\n - ::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: The required cluster depth in\n   blocks.\n - ::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: Indicates whether\n   the function can be launched with non-portable cluster size. 1 is allowed,\n   0 is disallowed. A non-portable cluster size may only function on the\n   specific SKUs the program is tested on. The launch might fail if the\n   program is run on a different hardware platform. CUDA API provides\n   cudaOccupancyMaxActiveClusters to assist with checking whether the desired\n   size can be launched on the current device. A portable cluster size is\n   guaranteed to be functional on all compute capabilities higher than the\n   target compute capability. The portable cluster size for sm_90 is 8 blocks\n   per cluster. This value may increase for future compute capabilities. The\n   specific hardware unit may support higher cluster sizes that’s not\n   guaranteed to be portable.\n - ::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: The block\n   scheduling policy of a function. The value type is CUclusterSchedulingPolicy.\n\n With a few execeptions, function attributes may also be queried on unloaded\n function handles returned from ::cuModuleEnumerateFunctions.\n ::CUDA_ERROR_FUNCTION_NOT_LOADED is returned if the attribute requires a fully\n loaded function but the function is not loaded. The loading state of a function\n may be queried using ::cuFuncIsloaded. ::cuFuncLoad may be called to explicitly\n load a function before querying the following attributes that require the function\n to be loaded:\n - ::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK\n - ::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES\n - ::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES\n\n \\param pi     - Returned attribute value\n \\param attrib - Attribute requested\n \\param hfunc  - Function to query attribute of\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_FUNCTION_NOT_LOADED\n \\notefnerr\n\n \\sa ::cuCtxGetCacheConfig,\n ::cuCtxSetCacheConfig,\n ::cuFuncSetCacheConfig,\n ::cuLaunchKernel,\n ::cudaFuncGetAttributes,\n ::cudaFuncSetAttribute,\n ::cuFuncIsLoaded,\n ::cuFuncLoad,\n ::cuKernelGetAttribute\n```"]
    ///
    /// Calls `cuFuncGetAttribute` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuFuncGetAttribute`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuFuncGetAttribute` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuFuncGetAttribute(&self, pi: * mut :: std :: os :: raw :: c_int, attrib: CUfunction_attribute, hfunc: CUfunction) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuFuncGetAttribute {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(pi, attrib, hfunc) })
            }
            None => Err(self.missing("cuFuncGetAttribute")),
        }
    }

    # [doc = "```text\n \\brief Launches a CUDA function ::CUfunction or a CUDA kernel ::CUkernel\n\n Invokes the function ::CUfunction or the kernel ::CUkernel \\p f\n on a \\p gridDimX x \\p gridDimY x \\p gridDimZ grid of blocks.\n Each block contains \\p blockDimX x \\p blockDimY x\n \\p blockDimZ threads.\n\n \\p sharedMemBytes sets the amount of dynamic shared memory that will be\n available to each thread block.\n\n Kernel parameters to \\p f can be specified in one of two ways:\n\n 1) Kernel parameters can be specified via \\p kernelParams.  If \\p f\n has N parameters, then \\p kernelParams needs to be an array of N\n pointers.  Each of \\p kernelParams[0] through \\p kernelParams[N-1]\n must point to a region of memory from which the actual kernel\n parameter will be copied.  The number of kernel parameters and their\n offsets and sizes do not need to be specified as that information is\n retrieved directly from the kernel's image.\n\n 2) Kernel parameters can also be packaged by the application into\n a single buffer that is passed in via the \\p extra parameter.\n This places the burden on the application of knowing each kernel\n parameter's size and alignment/padding within the buffer.  Here is\n an example of using the \\p extra parameter in this manner:\n \\code\nsize_t argBufferSize;\nchar argBuffer[256];\n\n// populate argBuffer and argBufferSize\n\nvoid *config[] = {\nCU_LAUNCH_PARAM_BUFFER_POINTER, argBuffer,\nCU_LAUNCH_PARAM_BUFFER_SIZE,    &argBufferSize,\nCU_LAUNCH_PARAM_END\n};\nstatus = cuLaunchKernel(f, gx, gy, gz, bx, by, bz, sh, s, NULL, config);\n \\endcode\n\n The \\p extra parameter exists to allow ::cuLaunchKernel to take\n additional less commonly used arguments.  \\p extra specifies a list of\n names of extra settings and their corresponding values.  Each extra\n setting name is immediately followed by the corresponding value.  The\n list must be terminated with either NULL or ::CU_LAUNCH_PARAM_END.\n\n - ::CU_LAUNCH_PARAM_END, which indicates the end of the \\p extra\n   array;\n - ::CU_LAUNCH_PARAM_BUFFER_POINTER, which specifies that the next\n   value in \\p extra will be a pointer to a buffer containing all\n   the kernel parameters for launching kernel \\p f;\n - ::CU_LAUNCH_PARAM_BUFFER_SIZE, which specifies that the next\n   value in \\p extra will be a pointer to a size_t containing the\n   size of the buffer specified with ::CU_LAUNCH_PARAM_BUFFER_POINTER;\n\n The error ::CUDA_ERROR_INVALID_VALUE will be returned if kernel\n parameters are specified with both \\p kernelParams and \\p extra\n (i.e. both \\p kernelParams and \\p extra are non-NULL).\n\n Calling ::cuLaunchKernel() invalidates the persistent function state\n set through the following deprecated APIs:\n  ::cuFuncSetBlockShape(),\n  ::cuFuncSetSharedSize(),\n  ::cuParamSetSize(),\n  ::cuParamSeti(),\n  ::cuParamSetf(),\n  ::cuParamSetv().\n\n Note that to use ::cuLaunchKernel(), the kernel \\p f must either have\n been compiled with toolchain version 3.2 or later so that it will\n contain kernel parameter information, or have no kernel parameters.\n If either of these conditions is not met, then ::cuLaunchKernel() will\n return ::CUDA_ERROR_INVALID_IMAGE.\n\n Note that the API can also be used to launch context-less kernel ::CUkernel\n by querying the handle using ::cuLibraryGetKernel() and then passing it\n to the API by casting to ::CUfunction. Here, the context to launch\n the kernel on will either be taken from the specified stream \\p hStream\n or the current context in case of NULL stream.\n\n \\param f              - Function ::CUfunction or Kernel ::CUkernel to launch\n \\param gridDimX       - Width of grid in blocks\n \\param gridDimY       - Height of grid in blocks\n \\param gridDimZ       - Depth of grid in blocks\n \\param blockDimX      - X dimension of each thread block\n \\param blockDimY      - Y dimension of each thread block\n \\param blockDimZ      - Z dimension of each thread block\n \\param sharedMemBytes - Dynamic shared-memory size per thread block in bytes\n \\param hStream        - Stream identifier\n \\param kernelParams   - Array of pointers to kernel parameters\n \\param extra          - Extra options\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_INVALID_IMAGE,\n ::CUDA_ERROR_INVALID_VALUE,\n ::CUDA_ERROR_LAUNCH_FAILED,\n ::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,\n ::CUDA_ERROR_LAUNCH_TIMEOUT,\n ::CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,\n ::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,\n ::CUDA_ERROR_NOT_FOUND\n \\note_null_stream\n \\notefnerr\n\n \\sa ::cuCtxGetCacheConfig,\n ::cuCtxSetCacheConfig,\n ::cuFuncSetCacheConfig,\n ::cuFuncGetAttribute,\n ::cudaLaunchKernel,\n ::cuLibraryGetKernel,\n ::cuKernelSetCacheConfig,\n ::cuKernelGetAttribute,\n ::cuKernelSetAttribute\n```"]
    ///
    /// Calls `cuLaunchKernel` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuLaunchKernel`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuLaunchKernel` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuLaunchKernel(&self, f: CUfunction, gridDimX: :: std :: os :: raw :: c_uint, gridDimY: :: std :: os :: raw :: c_uint, gridDimZ: :: std :: os :: raw :: c_uint, blockDimX: :: std :: os :: raw :: c_uint, blockDimY: :: std :: os :: raw :: c_uint, blockDimZ: :: std :: os :: raw :: c_uint, sharedMemBytes: :: std :: os :: raw :: c_uint, hStream: CUstream, kernelParams: * mut * mut :: std :: os :: raw :: c_void, extra: * mut * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuLaunchKernel {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra) })
            }
            None => Err(self.missing("cuLaunchKernel")),
        }
    }

    # [doc = "```text\n \\brief Enqueues a host function call in a stream\n\n Enqueues a host function to run in a stream.  The function will be called\n after currently enqueued work and will block work added after it.\n\n The host function must not make any CUDA API calls.  Attempting to use a\n CUDA API may result in ::CUDA_ERROR_NOT_PERMITTED, but this is not required.\n The host function must not perform any synchronization that may depend on\n outstanding CUDA work not mandated to run earlier.  Host functions without a\n mandated order (such as in independent streams) execute in undefined order\n and may be serialized.\n\n For the purposes of Unified Memory, execution makes a number of guarantees:\n <ul>\n   <li>The stream is considered idle for the duration of the function's\n   execution.  Thus, for example, the function may always use memory attached\n   to the stream it was enqueued in.</li>\n   <li>The start of execution of the function has the same effect as\n   synchronizing an event recorded in the same stream immediately prior to\n   the function.  It thus synchronizes streams which have been \"joined\"\n   prior to the function.</li>\n   <li>Adding device work to any stream does not have the effect of making\n   the stream active until all preceding host functions and stream callbacks\n   have executed.  Thus, for\n   example, a function might use global attached memory even if work has\n   been added to another stream, if the work has been ordered behind the\n   function call with an event.</li>\n   <li>Completion of the function does not cause a stream to become\n   active except as described above.  The stream will remain idle\n   if no device work follows the function, and will remain idle across\n   consecutive host functions or stream callbacks without device work in\n   between.  Thus, for example,\n   stream synchronization can be done by signaling from a host function at the\n   end of the stream.</li>\n </ul>\n\n Note that, in contrast to ::cuStreamAddCallback, the function will not be\n called in the event of an error in the CUDA context.\n\n \\param hStream  - Stream to enqueue function call in\n \\param fn       - The function to call once preceding stream operations are complete\n \\param userData - User-specified data to be passed to the function\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_CONTEXT,\n ::CUDA_ERROR_INVALID_HANDLE,\n ::CUDA_ERROR_NOT_SUPPORTED\n \\note_null_stream\n \\notefnerr\n\n \\sa ::cuStreamCreate,\n ::cuStreamQuery,\n ::cuStreamSynchronize,\n ::cuStreamWaitEvent,\n ::cuStreamDestroy,\n ::cuMemAllocManaged,\n ::cuStreamAttachMemAsync,\n ::cuStreamAddCallback\n```"]
    ///
    /// Calls `cuLaunchHostFunc` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuLaunchHostFunc`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuLaunchHostFunc` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuLaunchHostFunc(&self, hStream: CUstream, fn_: CUhostFn, userData: * mut :: std :: os :: raw :: c_void) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuLaunchHostFunc {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hStream, fn_, userData) })
            }
            None => Err(self.missing("cuLaunchHostFunc")),
        }
    }

    /// Calls `cuGraphInstantiateWithFlags` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuGraphInstantiateWithFlags`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuGraphInstantiateWithFlags` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuGraphInstantiateWithFlags(&self, phGraphExec: * mut CUgraphExec, hGraph: CUgraph, flags: :: std :: os :: raw :: c_ulonglong) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuGraphInstantiateWithFlags {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(phGraphExec, hGraph, flags) })
            }
            None => Err(self.missing("cuGraphInstantiateWithFlags")),
        }
    }

    # [doc = "```text\n \\brief Launches an executable graph in a stream\n\n Executes \\p hGraphExec in \\p hStream. Only one instance of \\p hGraphExec may be executing\n at a time. Each launch is ordered behind both any previous work in \\p hStream\n and any previous launches of \\p hGraphExec. To execute a graph concurrently, it must be\n instantiated multiple times into multiple executable graphs.\n\n If any allocations created by \\p hGraphExec remain unfreed (from a previous launch) and\n \\p hGraphExec was not instantiated with ::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,\n the launch will fail with ::CUDA_ERROR_INVALID_VALUE.\n\n \\param hGraphExec - Executable graph to launch\n \\param hStream    - Stream in which to launch the graph\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE\n \\note_graph_thread_safety\n \\notefnerr\n\n \\sa\n ::cuGraphInstantiate,\n ::cuGraphUpload,\n ::cuGraphExecDestroy\n```"]
    ///
    /// Calls `cuGraphLaunch` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuGraphLaunch`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuGraphLaunch` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuGraphLaunch(&self, hGraphExec: CUgraphExec, hStream: CUstream) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuGraphLaunch {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hGraphExec, hStream) })
            }
            None => Err(self.missing("cuGraphLaunch")),
        }
    }

    # [doc = "```text\n \\brief Destroys an executable graph\n\n Destroys the executable graph specified by \\p hGraphExec, as well\n as all of its executable nodes. If the executable graph is\n in-flight, it will not be terminated, but rather freed\n asynchronously on completion.\n\n \\param hGraphExec - Executable graph to destroy\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE\n \\note_graph_thread_safety\n \\notefnerr\n\n \\sa\n ::cuGraphInstantiate,\n ::cuGraphUpload,\n ::cuGraphLaunch\n```"]
    ///
    /// Calls `cuGraphExecDestroy` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuGraphExecDestroy`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuGraphExecDestroy` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuGraphExecDestroy(&self, hGraphExec: CUgraphExec) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuGraphExecDestroy {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hGraphExec) })
            }
            None => Err(self.missing("cuGraphExecDestroy")),
        }
    }

    # [doc = "```text\n \\brief Destroys a graph\n\n Destroys the graph specified by \\p hGraph, as well as all of its nodes.\n\n \\param hGraph - Graph to destroy\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_VALUE\n \\note_graph_thread_safety\n \\notefnerr\n\n \\sa\n ::cuGraphCreate\n```"]
    ///
    /// Calls `cuGraphDestroy` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuGraphDestroy`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuGraphDestroy` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuGraphDestroy(&self, hGraph: CUgraph) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuGraphDestroy {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(hGraph) })
            }
            None => Err(self.missing("cuGraphDestroy")),
        }
    }

    # [doc = "```text\n \\brief Queries if a device may directly access a peer device's memory.\n\n Returns in \\p *canAccessPeer a value of 1 if contexts on \\p dev are capable of\n directly accessing memory from contexts on \\p peerDev and 0 otherwise.\n If direct access of \\p peerDev from \\p dev is possible, then access may be\n enabled on two specific contexts by calling ::cuCtxEnablePeerAccess().\n\n \\param canAccessPeer - Returned access capability\n \\param dev           - Device from which allocations on \\p peerDev are to\n                        be directly accessed.\n \\param peerDev       - Device on which the allocations to be directly accessed\n                        by \\p dev reside.\n\n \\return\n ::CUDA_SUCCESS,\n ::CUDA_ERROR_DEINITIALIZED,\n ::CUDA_ERROR_NOT_INITIALIZED,\n ::CUDA_ERROR_INVALID_DEVICE\n \\notefnerr\n\n \\sa\n ::cuCtxEnablePeerAccess,\n ::cuCtxDisablePeerAccess,\n ::cudaDeviceCanAccessPeer\n```"]
    ///
    /// Calls `cuDeviceCanAccessPeer` in the loaded library.
    ///
    /// # Errors
    ///
    /// [`LoadError::MissingSymbol`](crate::LoadError::MissingSymbol) when the loaded library does not export `cuDeviceCanAccessPeer`; the function is not called then.
    ///
    /// # Safety
    ///
    /// The C function's own contract: valid pointers and handles as `cuDeviceCanAccessPeer` documents them in the CUDA driver (libcuda).
    pub unsafe fn cuDeviceCanAccessPeer(&self, canAccessPeer: * mut :: std :: os :: raw :: c_int, dev: CUdevice, peerDev: CUdevice) -> Result<CUresult, crate::LoadError> {
        match self.functions.cuDeviceCanAccessPeer {
            Some(callee__) => {
                // SAFETY: the caller upholds the C function's contract.
                Ok(unsafe { callee__(canAccessPeer, dev, peerDev) })
            }
            None => Err(self.missing("cuDeviceCanAccessPeer")),
        }
    }

}

