//! Runnable programs for nccl-rs; see `src/bin/`. `ci/demo` runs the main one.
//!
//! The library target holds no code: it compiles and runs the Rust examples of the
//! README and of `docs/` as doc tests (`cargo test -p nccl-examples --doc`), so that
//! every example a reader copies is one that ran. `ci/docs-check` checks that every
//! page with a Rust example is listed here.

#[cfg(doctest)]
mod docs {
    #[doc = include_str!("../../README.md")]
    struct Readme;
    #[doc = include_str!("../../docs/diagnosis.md")]
    struct Diagnosis;
    #[doc = include_str!("../../docs/guide.md")]
    struct Guide;
    #[doc = include_str!("../../docs/healing.md")]
    struct Healing;
    #[doc = include_str!("../../docs/launching.md")]
    struct Launching;
    #[doc = include_str!("../../docs/troubleshooting-hangs.md")]
    struct TroubleshootingHangs;
}
