//! Environments `Launch::from_vars` refuses, per convention: incomplete ones (naming
//! the convention, what is set and what is missing), values that are not what their
//! variable needs, contradictions (naming every variable involved), malformed Slurm
//! lists.

use super::{Env, OMPI, env, err, plus, says, set, slurm, torch};
use collectives::{LaunchError, Launcher};

#[test]
fn partial_environments_name_convention_present_and_missing() {
    let cases: &[(&str, Launcher, &[&str])] = &[
        (
            "NCCL_RS_RANK=0",
            Launcher::NcclRun,
            &["NCCL_RS_WORLD_SIZE", "NCCL_RS_LOCAL_RANK"],
        ),
        (
            "RANK=0",
            Launcher::TorchRun,
            &["WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"],
        ),
        (
            "LOCAL_RANK=2",
            Launcher::TorchRun,
            &["RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"],
        ),
        (
            "OMPI_COMM_WORLD_SIZE=4",
            Launcher::OpenMpi,
            &["OMPI_COMM_WORLD_RANK"],
        ),
        (
            "MPI_LOCALRANKID=0 PMI_RANK=1",
            Launcher::Hydra,
            &["PMI_SIZE", "MPI_LOCALNRANKS"],
        ),
        (
            "PMI_LOCAL_RANK=0",
            Launcher::Pals,
            &["PMI_RANK", "PMI_SIZE", "PMI_LOCAL_SIZE"],
        ),
        (
            "SLURM_PROCID=0 SLURM_JOB_NODELIST=a1",
            Launcher::Slurm,
            &[
                "SLURM_NTASKS or SLURM_NPROCS",
                "SLURM_LOCALID",
                "SLURM_NODEID",
                "SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE",
            ],
        ),
    ];
    for (spec, launcher, missing) in cases {
        let e = err(&env(spec));
        let LaunchError::Partial {
            convention,
            present,
            missing: got,
        } = &e
        else {
            panic!("{spec}: {e:?}")
        };
        assert_eq!(convention, launcher, "{e}");
        assert_eq!(present.len(), env(spec).len(), "{e}");
        for m in *missing {
            assert!(got.iter().any(|g| g == m), "{e}: {m} not listed as missing");
        }
        let first = spec.split_whitespace().next().unwrap_or_default();
        says(&e, &[&launcher.to_string(), first, missing[0]]);
    }
    let no_port: Env = torch()
        .into_iter()
        .filter(|(k, _)| k != "MASTER_PORT")
        .collect();
    let e = err(&no_port);
    assert!(matches!(e, LaunchError::PartialRendezvous { .. }));
    says(&e, &["MASTER_ADDR=head", "MASTER_PORT"]);
}

#[test]
fn values_that_are_not_counts_are_refused_by_name() {
    for bad in [
        "abc",
        "-1",
        "+1",
        " 1",
        "1.0",
        "",
        "99999999999999999999999",
    ] {
        let e = err(&set(&torch(), "WORLD_SIZE", bad));
        let LaunchError::Invalid { var, .. } = &e else {
            panic!("{bad:?}: {e:?}")
        };
        assert_eq!((var.name, var.value.as_str()), ("WORLD_SIZE", bad));
        says(&e, &["WORLD_SIZE=", "not a non-negative integer"]);
    }
    let cases = [
        ("MASTER_PORT", "0"),
        ("MASTER_PORT", "70000"),
        ("MASTER_PORT", "http"),
        ("MASTER_ADDR", ""),
        ("NCCL_RS_STORE", "redis://x:1"),
        ("NCCL_RS_STORE", "tcp://host"),
        ("NCCL_RS_STORE", "tcp://:80"),
        ("NCCL_RS_STORE", "file://relative/path"),
        ("NCCL_RS_STORE_TOKEN", ""),
        ("SLURM_JOB_ID", "12x"),
        ("SLURM_STEP_ID", "-"),
    ];
    for (name, value) in cases {
        let base = if name.starts_with("SLURM") {
            slurm()
        } else {
            torch()
        };
        let e = err(&set(&base, name, value));
        let LaunchError::Invalid { var, .. } = &e else {
            panic!("{name}={value}: {e:?}")
        };
        assert_eq!((var.name, var.value.as_str()), (name, value), "{e}");
    }
}

#[test]
fn contradictions_name_every_variable_involved() {
    let cases: &[(Env, &[&str])] = &[
        (
            env(
                "NCCL_RS_RANK=8 NCCL_RS_WORLD_SIZE=8 NCCL_RS_LOCAL_RANK=0 NCCL_RS_LOCAL_WORLD_SIZE=4",
            ),
            &[
                "NCCL_RS_RANK=8",
                "NCCL_RS_WORLD_SIZE=8",
                "rank 8 is not below",
            ],
        ),
        (
            plus(&torch(), "LOCAL_RANK=4"),
            &["LOCAL_RANK=4", "LOCAL_WORLD_SIZE=4", "local rank 4"],
        ),
        (
            plus(&torch(), "GROUP_RANK=2 GROUP_WORLD_SIZE=2"),
            &["GROUP_RANK=2", "GROUP_WORLD_SIZE=2"],
        ),
        (
            env("PMI_RANK=0 PMI_SIZE=2 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=4"),
            &["MPI_LOCALNRANKS=4", "PMI_SIZE=2", "exceeds"],
        ),
        (
            env("PMI_RANK=3 PMI_SIZE=2 PMI_LOCAL_RANK=0 PMI_LOCAL_SIZE=1"),
            &["PMI_RANK=3", "PMI_SIZE=2"],
        ),
        (
            plus(&env(OMPI), "OMPI_COMM_WORLD_SIZE=0"),
            &["OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=0"],
        ),
        (
            plus(&slurm(), "SLURM_NTASKS=8"),
            &[
                "SLURM_STEP_TASKS_PER_NODE=\"2(x3),1\"",
                "SLURM_NTASKS=8",
                "add up to 7",
            ],
        ),
        (
            plus(&slurm(), "SLURM_NODEID=4"),
            &[
                "SLURM_NODEID=4",
                "SLURM_STEP_TASKS_PER_NODE",
                "out of range",
            ],
        ),
        (
            plus(&slurm(), "SLURM_STEP_NODELIST=gpu[1-3]"),
            &["SLURM_STEP_NODELIST=\"gpu[1-3]\"", "3 hosts", "4 entries"],
        ),
        (
            plus(&slurm(), "SLURM_LOCALID=1"),
            &[
                "SLURM_LOCALID=1",
                "SLURM_NODEID=3",
                "SLURM_STEP_TASKS_PER_NODE",
            ],
        ),
    ];
    for (vars, parts) in cases {
        let e = err(vars);
        assert!(
            matches!(e, LaunchError::Contradiction { .. }),
            "{vars:?}: {e:?}"
        );
        says(&e, parts);
    }
}

#[test]
fn malformed_slurm_lists_are_syntax_errors_naming_the_variable() {
    let cases = [
        ("SLURM_STEP_NODELIST", "gpu[3-1]"),
        ("SLURM_STEP_NODELIST", "gpu["),
        ("SLURM_STEP_TASKS_PER_NODE", "2(x3"),
        ("SLURM_STEP_TASKS_PER_NODE", ""),
    ];
    for (name, value) in cases {
        let e = err(&set(&slurm(), name, value));
        let LaunchError::Syntax { var, .. } = &e else {
            panic!("{name}={value}: {e:?}")
        };
        assert_eq!((var.name, var.value.as_str()), (name, value));
        says(&e, &[name]);
    }
}
