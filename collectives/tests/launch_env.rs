//! `Launch::from_vars` over hand-written environments: every launcher convention,
//! incomplete and contradictory environments, precedence between conventions,
//! explicit overrides, arbitrary values. Incomplete, malformed and contradictory
//! environments are in `launch_env/refusals.rs`; Slurm's hostlist and tasks-per-node
//! notations in `launch_env/slurm_syntax.rs`.

use collectives::launch::Var;
use collectives::launch::slurm::{
    compress_hostlist, expand_hostlist, expand_tasks_per_node, rendezvous_port,
};
use collectives::{Launch, LaunchError, Launcher, Overrides, Rendezvous, Source};
use proptest::prelude::*;

#[path = "launch_env/refusals.rs"]
mod refusals;
#[path = "launch_env/slurm_syntax.rs"]
mod slurm_syntax;

/// An environment: `(name, value)` pairs, the first of a name winning.
type Env = Vec<(String, String)>;

/// `"A=1 B=2"` as an environment (values without spaces).
fn env(spec: &str) -> Env {
    let pair = |kv: &str| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k.to_owned(), v.to_owned())
    };
    spec.split_whitespace().map(pair).collect()
}

/// `base` with the variables of `spec` set (replacing those of the same name).
fn plus(base: &Env, spec: &str) -> Env {
    env(spec).into_iter().chain(base.iter().cloned()).collect()
}

/// `base` with one variable set to any value (spaces, empty).
fn set(base: &Env, name: &str, value: &str) -> Env {
    let mut out = vec![(name.to_owned(), value.to_owned())];
    out.extend(base.iter().cloned());
    out
}

fn with(vars: &Env, overrides: &Overrides) -> Result<Launch, LaunchError> {
    let lookup = |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    Launch::from_vars(&lookup, overrides)
}

fn read(vars: &Env) -> Result<Launch, LaunchError> {
    with(vars, &Overrides::default())
}

fn ok(vars: &Env) -> Launch {
    read(vars).unwrap_or_else(|e| panic!("{vars:?}: {e}"))
}

fn err(vars: &Env) -> LaunchError {
    match read(vars) {
        Ok(launch) => panic!("{vars:?} was accepted: {launch}"),
        Err(e) => e,
    }
}

fn var(name: &'static str, value: &str) -> Source {
    let value = value.to_owned();
    Source::Var(Var { name, value })
}

/// rank, world size, local rank, local world size, node, nodes.
type Numbers = (usize, usize, usize, usize, Option<usize>, Option<usize>);

fn numbers(l: &Launch) -> Numbers {
    let (r, w) = (l.rank(), l.world_size());
    (
        r,
        w,
        l.local_rank(),
        l.local_world_size(),
        l.node(),
        l.nodes(),
    )
}

/// `text` mentions every one of `parts`.
fn says(text: impl ToString, parts: &[&str]) {
    let text = text.to_string();
    for part in parts {
        assert!(text.contains(part), "{text:?} does not mention {part:?}");
    }
}

fn tcp(host: &str, port: u16) -> Option<Rendezvous> {
    let host = host.to_owned();
    Some(Rendezvous::Tcp { host, port })
}

fn torch() -> Env {
    env("RANK=5 WORLD_SIZE=8 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 MASTER_ADDR=head MASTER_PORT=29500")
}

fn slurm() -> Env {
    env(
        "SLURM_PROCID=6 SLURM_NTASKS=7 SLURM_LOCALID=0 SLURM_NODEID=3 \
         SLURM_STEP_NODELIST=gpu[001-003,010] SLURM_STEP_TASKS_PER_NODE=2(x3),1 \
         SLURM_JOB_ID=123456 SLURM_STEP_ID=2 SLURM_JOB_NODELIST=gpu[001-003,010],login",
    )
}

const OMPI: &str = "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 \
                    OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=2";

#[test]
fn nccl_run_reads_all_six_variables_and_the_store() {
    let l = ok(&env(
        "NCCL_RS_RANK=3 NCCL_RS_WORLD_SIZE=8 NCCL_RS_LOCAL_RANK=3 \
                     NCCL_RS_LOCAL_WORLD_SIZE=4 NCCL_RS_NODE_RANK=0 NCCL_RS_NNODES=2 \
                     NCCL_RS_STORE=tcp://10.0.0.1:4000 NCCL_RS_STORE_TOKEN=s3cret",
    ));
    assert_eq!(l.launcher, Launcher::NcclRun);
    assert_eq!(numbers(&l), (3, 8, 3, 4, Some(0), Some(2)));
    assert_eq!(l.rank.source, var("NCCL_RS_RANK", "3"));
    let nodes = l.nodes.as_ref().map(|n| &n.source);
    assert_eq!(nodes, Some(&var("NCCL_RS_NNODES", "2")));
    assert_eq!(l.rendezvous(), tcp("10.0.0.1", 4000).as_ref());
    assert_eq!(l.token(), Some("s3cret"));
    let shown = format!("{l} {l:?}");
    says(
        &shown,
        &[
            "NCCL_RS_RANK=3",
            "NCCL_RS_STORE_TOKEN",
            "tcp://10.0.0.1:4000",
        ],
    );
    assert!(!shown.contains("s3cret"), "{shown}");
}

#[test]
fn nccl_run_file_store_and_no_node_variables() {
    let l = ok(&env(
        "NCCL_RS_RANK=1 NCCL_RS_WORLD_SIZE=2 NCCL_RS_LOCAL_RANK=1 \
                     NCCL_RS_LOCAL_WORLD_SIZE=2 NCCL_RS_STORE=file:///shared/job7",
    ));
    assert_eq!(numbers(&l), (1, 2, 1, 2, Some(0), Some(1)));
    let node = l.node.as_ref().map(|n| &n.source);
    assert!(matches!(node, Some(Source::Derived { .. })), "{node:?}");
    let file = Rendezvous::File("/shared/job7".into());
    assert_eq!(l.rendezvous(), Some(&file));
    assert_eq!(file.to_string(), "file:///shared/job7");
}

#[test]
fn torchrun_with_and_without_group_rank() {
    let l = ok(&torch());
    assert_eq!(l.launcher, Launcher::TorchRun);
    assert_eq!(numbers(&l), (5, 8, 1, 4, Some(1), Some(2)));
    let node = l.node.as_ref().map(|n| n.source.to_string());
    says(
        node.unwrap_or_default(),
        &["derived: rank / local world size"],
    );
    let r = l.rendezvous.as_ref().unwrap();
    assert_eq!(Some(&r.value), tcp("head", 29500).as_ref());
    assert_eq!(r.source.to_string(), "MASTER_ADDR=head, MASTER_PORT=29500");

    let l = ok(&plus(&torch(), "GROUP_RANK=1 GROUP_WORLD_SIZE=2"));
    assert_eq!(l.node.unwrap().source, var("GROUP_RANK", "1"));
    assert_eq!(l.nodes.unwrap().source, var("GROUP_WORLD_SIZE", "2"));

    // Nodes of unequal size: no node index is derived.
    let l = ok(&env("RANK=4 WORLD_SIZE=7 LOCAL_RANK=0 LOCAL_WORLD_SIZE=3"));
    assert_eq!((l.node(), l.nodes(), l.rendezvous()), (None, None, None));
}

#[test]
fn open_mpi_does_not_take_its_node_rank_for_the_node_index() {
    let l = ok(&env("OMPI_COMM_WORLD_RANK=9 OMPI_COMM_WORLD_SIZE=16 \
                     OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=8 \
                     OMPI_COMM_WORLD_NODE_RANK=1"));
    assert_eq!(l.launcher, Launcher::OpenMpi);
    assert_eq!(numbers(&l), (9, 16, 1, 8, None, None));
    assert_eq!(
        l.local_world_size.source,
        var("OMPI_COMM_WORLD_LOCAL_SIZE", "8")
    );
}

#[test]
fn hydra_and_pals_are_told_apart_by_their_local_variables() {
    let pmi = env("PMI_RANK=2 PMI_SIZE=4");
    let l = ok(&plus(&pmi, "MPI_LOCALRANKID=0 MPI_LOCALNRANKS=2"));
    assert_eq!(l.launcher, Launcher::Hydra);
    assert_eq!(numbers(&l), (2, 4, 0, 2, None, None));
    assert_eq!(l.local_rank.source, var("MPI_LOCALRANKID", "0"));

    let pals = plus(&pmi, "PMI_LOCAL_RANK=0 PMI_LOCAL_SIZE=2 PALS_NODEID=1");
    let l = ok(&pals);
    assert_eq!(l.launcher, Launcher::Pals);
    assert_eq!(numbers(&l), (2, 4, 0, 2, Some(1), None));
    assert_eq!(l.local_world_size.source, var("PMI_LOCAL_SIZE", "2"));

    // Both pairs set: Hydra comes first.
    let both = plus(&pals, "MPI_LOCALRANKID=1 MPI_LOCALNRANKS=2");
    assert_eq!(ok(&both).launcher, Launcher::Hydra);
}

#[test]
fn slurm_takes_the_local_world_size_from_this_nodes_entry() {
    let l = ok(&slurm());
    assert_eq!(l.launcher, Launcher::Slurm);
    assert_eq!(numbers(&l), (6, 7, 0, 1, Some(3), Some(4)));
    assert_eq!(l.world_size.source, var("SLURM_NTASKS", "7"));
    let Source::Derived { reason, from } = &l.local_world_size.source else {
        panic!("{:?}", l.local_world_size)
    };
    says(
        reason,
        &["entry 3 of SLURM_STEP_TASKS_PER_NODE", "SLURM_NODEID=3"],
    );
    assert!(from.iter().any(|v| v.name == "SLURM_NODEID"));
    // The step's first host; port 20000 + 10 * (123456 % 1000) + 2 % 10.
    assert_eq!(l.rendezvous(), tcp("gpu001", 24562).as_ref());
    assert_eq!(rendezvous_port(123456, 2), 24562);
    let parts = [
        "Slurm",
        "SLURM_PROCID=6",
        "entry 3",
        "tcp://gpu001:24562",
        "SLURM_JOB_ID",
    ];
    says(&l, &parts);
}

#[test]
fn slurm_fallback_variables() {
    let l = ok(&env(
        "SLURM_PROCID=1 SLURM_NPROCS=4 SLURM_LOCALID=1 SLURM_NODEID=0 \
                     SLURM_TASKS_PER_NODE=2(x2) SLURM_NODELIST=n[7-8] SLURM_JOBID=1000",
    ));
    assert_eq!(numbers(&l), (1, 4, 1, 2, Some(0), Some(2)));
    assert_eq!(l.world_size.source, var("SLURM_NPROCS", "4"));
    assert_eq!(l.rendezvous(), tcp("n7", 20000).as_ref());
    // Without a node list, or without a job id, no rendezvous is derived.
    let without = |cut: &str| -> Env {
        slurm()
            .into_iter()
            .filter(|(k, _)| !k.contains(cut))
            .collect()
    };
    assert_eq!(ok(&without("NODELIST")).rendezvous(), None);
    assert_eq!(ok(&without("JOB_ID")).rendezvous(), None);
}

#[test]
fn pmi_rank_and_size_alone() {
    let pmi = "PMI_RANK=6 PMI_SIZE=7";
    // srun with a PMI plugin: Slurm agrees on rank and size, so Slurm is read.
    assert_eq!(ok(&plus(&slurm(), pmi)).launcher, Launcher::Slurm);
    // Without Slurm the local values are missing...
    let e = err(&env(pmi));
    assert!(
        matches!(
            &e,
            LaunchError::Partial {
                convention: Launcher::Pmi,
                ..
            }
        ),
        "{e:?}"
    );
    let missing = [
        "MPI_LOCALRANKID or PMI_LOCAL_RANK",
        "MPI_LOCALNRANKS or PMI_LOCAL_SIZE",
    ];
    says(&e, &["PMI_RANK=6", missing[0], missing[1]]);
    // ...unless given explicitly.
    let given = Overrides {
        local_rank: Some(0),
        local_world_size: Some(7),
        ..Overrides::default()
    };
    let l = with(&env(pmi), &given).unwrap();
    assert_eq!(
        (l.launcher, l.rank(), l.local_world_size()),
        (Launcher::Pmi, 6, 7)
    );
    // A Slurm that disagrees is not used.
    let other = plus(&slurm(), "PMI_RANK=0 PMI_SIZE=7");
    let e = err(&other);
    assert!(matches!(
        e,
        LaunchError::Partial {
            convention: Launcher::Pmi,
            ..
        }
    ));
}

#[test]
fn precedence_between_conventions() {
    // torchrun (or Open MPI) inside a Slurm allocation: the inner launcher wins, and
    // the rendezvous comes from it, not from the Slurm node list.
    let inside = plus(
        &slurm(),
        &torch()
            .iter()
            .map(|(k, v)| format!("{k}={v} "))
            .collect::<String>(),
    );
    let l = ok(&inside);
    assert_eq!((l.launcher, l.rank()), (Launcher::TorchRun, 5));
    assert_eq!(l.rendezvous(), tcp("head", 29500).as_ref());
    let l = ok(&plus(&slurm(), OMPI));
    assert_eq!(
        (l.launcher, l.rank(), l.rendezvous()),
        (Launcher::OpenMpi, 1, None)
    );
    // nccl-run beats torchrun, torchrun beats Open MPI.
    let nccl =
        "NCCL_RS_RANK=0 NCCL_RS_WORLD_SIZE=1 NCCL_RS_LOCAL_RANK=0 NCCL_RS_LOCAL_WORLD_SIZE=1";
    assert_eq!(ok(&plus(&torch(), nccl)).launcher, Launcher::NcclRun);
    assert_eq!(ok(&plus(&torch(), OMPI)).launcher, Launcher::TorchRun);
    // A partial higher convention is an error, not a fall-through.
    let e = err(&plus(&slurm(), "RANK=0"));
    assert!(matches!(
        e,
        LaunchError::Partial {
            convention: Launcher::TorchRun,
            ..
        }
    ));
    // Rendezvous: NCCL_RS_STORE before MASTER_*, MASTER_* before Slurm's own.
    let l = ok(&plus(&torch(), "NCCL_RS_STORE=tcp://[fe80::1]:7"));
    assert_eq!(l.rendezvous(), tcp("fe80::1", 7).as_ref());
    assert_eq!(
        l.rendezvous().map(|r| r.to_string()).as_deref(),
        Some("tcp://[fe80::1]:7")
    );
    let l = ok(&plus(&slurm(), "MASTER_ADDR=m MASTER_PORT=1"));
    assert_eq!(
        (l.launcher, l.rendezvous()),
        (Launcher::Slurm, tcp("m", 1).as_ref())
    );
}

#[test]
fn no_launcher_lists_every_convention() {
    let e = err(&env("PATH=/bin MASTER_ADDR=x"));
    let LaunchError::NoLauncher {
        conventions,
        explicit,
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(conventions.as_slice(), Launcher::DETECTED.as_slice());
    assert!(explicit.is_empty());
    for launcher in Launcher::DETECTED {
        says(&e, &[&launcher.to_string()]);
        says(&e, &launcher.variables());
    }
    let only_rank = Overrides {
        rank: Some(1),
        ..Overrides::default()
    };
    says(
        with(&env(""), &only_rank).unwrap_err(),
        &["explicit rank=1", "do not include both"],
    );
}

#[test]
fn explicit_values_alone_mean_one_node() {
    let given = Overrides {
        rank: Some(2),
        world_size: Some(4),
        token: Some("t".into()),
        rendezvous: tcp("h", 9),
        ..Overrides::default()
    };
    let l = with(&env(""), &given).unwrap();
    assert_eq!(l.launcher, Launcher::Explicit);
    assert_eq!(numbers(&l), (2, 4, 2, 4, Some(0), Some(1)));
    assert_eq!(l.rank.source, Source::Explicit);
    assert!(matches!(l.local_rank.source, Source::Derived { .. }));
    assert_eq!(
        (l.token(), l.rendezvous()),
        (Some("t"), tcp("h", 9).as_ref())
    );
    says(
        &l,
        &[
            "explicit launch",
            "rank 2 (explicit)",
            "token given explicitly",
        ],
    );
    // A local world size below the world size leaves the node unknown.
    let split = Overrides {
        local_rank: Some(0),
        local_world_size: Some(2),
        ..given
    };
    assert_eq!(
        numbers(&with(&env(""), &split).unwrap()),
        (2, 4, 0, 2, None, None)
    );
}

#[test]
fn explicit_values_win_over_and_stand_in_for_the_environment() {
    let given = Overrides {
        rank: Some(7),
        ..Overrides::default()
    };
    let l = with(&torch(), &given).unwrap();
    assert_eq!((l.rank(), &l.rank.source), (7, &Source::Explicit));
    assert_eq!(l.world_size.source, var("WORLD_SIZE", "8"));
    // An overridden variable is not parsed, and need not be set.
    assert_eq!(
        with(&plus(&torch(), "RANK=oops"), &given).unwrap().rank(),
        7
    );
    let locals = Overrides {
        local_rank: Some(0),
        local_world_size: Some(1),
        ..Overrides::default()
    };
    let l = with(&env("RANK=0 WORLD_SIZE=2"), &locals).unwrap();
    assert_eq!(numbers(&l), (0, 2, 0, 1, Some(0), Some(2)));
    // Explicit values are checked too, and named in the error.
    let too_big = Overrides {
        rank: Some(8),
        ..Overrides::default()
    };
    says(
        with(&torch(), &too_big).unwrap_err(),
        &["explicit rank=8", "WORLD_SIZE=8"],
    );
    let store = Overrides {
        rendezvous: Some(Rendezvous::File("/s".into())),
        ..Overrides::default()
    };
    let l = with(&torch(), &store).unwrap();
    assert_eq!(l.rendezvous.map(|r| r.source), Some(Source::Explicit));
}

#[test]
fn from_env_reads_the_process_environment_without_panicking() {
    // Whatever this process's environment holds, the answer is a value.
    let _ = Launch::from_env()
        .map(|l| l.to_string())
        .map_err(|e| e.to_string());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn no_value_panics(value in "\\PC{0,12}", which in 0usize..9) {
        let name = slurm()[which].0.clone();
        let _ = read(&set(&slurm(), &name, &value));
        let _ = read(&set(&torch(), &name.replace("SLURM_", ""), &value));
        let _ = expand_hostlist(&value);
        let _ = expand_tasks_per_node(&value);
        let _ = compress_hostlist(&[value.as_str(), "é1", "é2"]);
    }
}

/// Issue 18 item 14: the `Debug` form (what `fn main() -> Result<(), Error>` prints)
/// carries what `Display` says, for the layer's errors and those below it.
#[test]
fn debug_forms_of_errors_say_what_display_says() {
    let e = err(&env("PATH=/bin"));
    let wrapped = collectives::Error::Launch(e.clone());
    for debug in [format!("{e:?}"), format!("{wrapped:?}")] {
        assert!(debug.contains("NoLauncher"), "{debug}");
        assert!(debug.contains(&e.to_string()), "{debug}");
        for launcher in Launcher::DETECTED {
            assert!(debug.contains(launcher.variables()[0]), "{debug}");
        }
    }
    let safe = nccl_safe::Error::InvalidArgument {
        op: "all_reduce",
        reason: "count 3 is odd".into(),
    };
    assert_eq!(
        format!("{safe:?}"),
        format!("Error::InvalidArgument: {safe}")
    );
    assert!(safe.to_string().contains("count 3 is odd"));
    let store = collectives::store::StoreError::Closed {
        addr: "tcp://h:1".into(),
        reason: "closed by the client".into(),
    };
    assert!(format!("{store:?}").contains(&store.to_string()));
}

#[test]
fn slurm_batch_script_variables_outside_a_step_are_refused_naming_srun() {
    // What a batch script of `sbatch -n 4` sees (no step id): the allocation's.
    let batch = [
        ("SLURM_JOB_ID", "12"),
        ("SLURM_PROCID", "0"),
        ("SLURM_NTASKS", "4"),
        ("SLURM_LOCALID", "0"),
        ("SLURM_NODEID", "0"),
        ("SLURM_TASKS_PER_NODE", "4"),
        ("SLURM_JOB_NODELIST", "vm"),
    ];
    let env = |name: &str| {
        batch
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    };
    let e = Launch::from_vars(&env, &Overrides::default()).unwrap_err();
    assert!(
        matches!(e, LaunchError::SlurmBatchStep { ntasks: 4, .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains("job 12") && text.contains("srun -n 4") && text.contains("SLURM_NTASKS=4"),
        "{text}"
    );
    // The same inside a step (srun sets the step id) is task 0 of 4.
    let step = |name: &str| match name {
        "SLURM_STEP_ID" => Some("0".to_string()),
        other => env(other),
    };
    let launch = Launch::from_vars(&step, &Overrides::default()).unwrap();
    assert_eq!((launch.rank(), launch.world_size()), (0, 4));
    // A batch script of a one-task job is that task.
    let one = |name: &str| match name {
        "SLURM_NTASKS" | "SLURM_TASKS_PER_NODE" => Some("1".to_string()),
        other => env(other),
    };
    let launch = Launch::from_vars(&one, &Overrides::default()).unwrap();
    assert_eq!((launch.rank(), launch.world_size()), (0, 1));
}

#[test]
fn under_an_arbitrary_distribution_the_store_is_on_task_zeros_host() {
    let dir = tempfile::tempdir().unwrap();
    let hostfile = dir.path().join("hosts");
    std::fs::write(
        &hostfile,
        "# task 0 first\n\nnode[8-9] # a host list\nnode3\n",
    )
    .unwrap();
    let hostfile = hostfile.display().to_string();
    let vars = vec![
        ("SLURM_JOB_ID", "77".to_string()),
        ("SLURM_STEP_ID", "0".to_string()),
        ("SLURM_PROCID", "1".to_string()),
        ("SLURM_NTASKS", "3".to_string()),
        ("SLURM_LOCALID", "0".to_string()),
        ("SLURM_NODEID", "0".to_string()),
        ("SLURM_STEP_TASKS_PER_NODE", "1(x3)".to_string()),
        ("SLURM_STEP_NODELIST", "node[3,8-9]".to_string()),
        ("SLURM_DISTRIBUTION", "arbitrary".to_string()),
        ("SLURM_HOSTFILE", hostfile.clone()),
    ];
    let read = |vars: &[(&str, String)]| {
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        };
        Launch::from_vars(&env, &Overrides::default())
    };
    let launch = read(&vars).unwrap();
    // Not node3, the first of the sorted list: task 0 runs on node8.
    assert_eq!(tcp("node8", 20770), launch.rendezvous().cloned());
    let source = launch.rendezvous.as_ref().unwrap().source.to_string();
    assert!(
        source.contains("host file") && source.contains(&hostfile),
        "{source}"
    );
    // Without the host file, task 0's host is unknown: say so.
    let mut no_file = vars.clone();
    no_file.retain(|(k, _)| *k != "SLURM_HOSTFILE");
    let e = read(&no_file).unwrap_err().to_string();
    assert!(
        e.contains("SLURM_DISTRIBUTION=arbitrary") && e.contains("MASTER_ADDR"),
        "{e}"
    );
    // A block distribution keeps the first host of the list.
    let mut block = vars.clone();
    block.retain(|(k, _)| *k != "SLURM_DISTRIBUTION");
    assert_eq!(
        tcp("node3", 20770),
        read(&block).unwrap().rendezvous().cloned()
    );
}
