//! Operations across processes: every collective and point-to-point operation on 2, 3
//! and 4 processes, and a thousand async all-reduces that leak no descriptor or
//! mapping.

use super::{one, run};

#[test]
fn every_collective_and_point_to_point_operation_on_2_3_and_4_processes() {
    for n in 2..=4 {
        let out = run("every-collective", n);
        assert!(
            out.values().all(|l| l.contains(&"ok".to_string())),
            "{out:?}"
        );
    }
}

#[test]
fn a_thousand_async_all_reduces_on_four_processes_leak_no_descriptor_or_mapping() {
    let out = run("many", 4);
    for (rank, lines) in out {
        let l = one(&lines);
        let nums: Vec<usize> = l
            .split(|c: char| !c.is_ascii_digit())
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(nums.len(), 4, "{l}");
        assert_eq!(nums[0], nums[1], "rank {rank}: descriptors grew: {l}");
        assert_eq!(nums[2], nums[3], "rank {rank}: mappings grew: {l}");
    }
}
