//! Runnable programs for nccl-rs; see `src/bin/`. `ci/demo` runs the main one.
