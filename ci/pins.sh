# The pinned pip wheels whose headers the bundled bindings of nccl-sys are generated
# from (ci/regen-bindings) and which ci/setup installs; sourced by both. Override to
# try another release (the drift check then fails, as it should).
NCCL_WHEEL="${NCCL_RS_NCCL_WHEEL:-nvidia-nccl-cu12==2.32.3}"
CUDA_WHEEL="${NCCL_RS_CUDA_WHEEL:-nvidia-cuda-runtime-cu12==12.9.79}"
