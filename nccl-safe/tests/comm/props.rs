//! Random world sizes and element counts against the host reference (proptest).

use crate::common::reference::check_all;
use nccl_safe::{Config, DriverKind};
use proptest::prelude::*;

use super::on_ranks;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_sizes_and_counts(n in 1usize..=5, count in 0usize..40) {
        on_ranks(DriverKind::Sim, n, Config::new(), move |rank, dev, comm| {
            check_all::<i32>(rank, &dev, &comm, count);
            check_all::<f32>(rank, &dev, &comm, count);
        });
    }
}
