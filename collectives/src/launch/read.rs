//! Turns the chosen convention's variables into checked values: which variables are
//! present or missing, integer parsing, Slurm's tasks-per-node and node list, the
//! defaults and derivations of node values, the consistency checks, and the
//! rendezvous address and token.

use super::slurm::{self, PORT_BASE};
use super::source::parse_port;
use super::{
    AGENT_STORE, JOB, Launch, LaunchError, Launcher, Overrides, RESTART, Rendezvous, SLURM_JOB_ID,
    SLURM_NODELIST, SLURM_STEP_ID, SLURM_TASKS_PER_NODE, STORE, Source, Sourced, TOKEN, Var,
};

type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Under Slurm, the first host of the node list and the variable it came from.
pub(super) type FirstHost = Option<(String, Var)>;

/// Decimal digits only (no sign, no spaces), fitting `usize`.
pub(super) fn parse_count(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn invalid(var: Var, reason: impl Into<String>) -> LaunchError {
    LaunchError::Invalid {
        var,
        reason: reason.into(),
    }
}

fn number(var: Var) -> Result<Sourced<usize>, LaunchError> {
    match parse_count(&var.value) {
        Some(value) => Ok(Sourced::new(value, Source::Var(var))),
        None => Err(invalid(var, "not a non-negative integer")),
    }
}

/// The explicit value if given, else the variable's, parsed.
fn value(explicit: Option<usize>, var: Option<Var>) -> Result<Option<Sourced<usize>>, LaunchError> {
    match (explicit, var) {
        (Some(value), _) => Ok(Some(Sourced::new(value, Source::Explicit))),
        (None, Some(var)) => number(var).map(Some),
        (None, None) => Ok(None),
    }
}

/// Reads variables, remembering which were present and which required ones were not.
struct Reader<'a> {
    env: Env<'a>,
    present: Vec<Var>,
    missing: Vec<String>,
}

impl Reader<'_> {
    /// The first of `names` that is set. When none is, and the value is `required`
    /// and not given explicitly, records the names as missing.
    fn take(&mut self, names: &[&'static str], explicit: bool, required: bool) -> Option<Var> {
        let found = names
            .iter()
            .find_map(|&name| (self.env)(name).map(|value| Var { name, value }));
        match &found {
            Some(var) => self.present.push(var.clone()),
            None if required && !explicit && !names.is_empty() => {
                self.missing.push(names.join(" or "));
            }
            None => {}
        }
        found
    }

    fn partial(self, convention: Launcher) -> LaunchError {
        LaunchError::Partial {
            convention,
            present: self.present,
            missing: self.missing,
        }
    }
}

/// The variables behind several values, each once.
fn involved(values: &[(&Sourced<usize>, &'static str)]) -> Vec<Var> {
    let mut vars: Vec<Var> = Vec::new();
    for (value, label) in values {
        for var in value.involved(label) {
            if !vars.contains(&var) {
                vars.push(var);
            }
        }
    }
    vars
}

/// A contradiction between `vars` unless `holds`.
fn check(holds: bool, vars: Vec<Var>, reason: impl FnOnce() -> String) -> Result<(), LaunchError> {
    if holds {
        return Ok(());
    }
    Err(LaunchError::Contradiction {
        vars,
        reason: reason(),
    })
}

fn derived(value: usize, reason: impl Into<String>, from: Vec<Var>) -> Sourced<usize> {
    Sourced::new(
        value,
        Source::Derived {
            reason: reason.into(),
            from,
        },
    )
}

const RANK: &str = "explicit rank";
const WORLD: &str = "explicit world size";
const LOCAL_RANK: &str = "explicit local rank";
const LOCAL_WORLD: &str = "explicit local world size";
const NODE: &str = "explicit node";
const NODES: &str = "explicit nodes";

/// Reads `launcher`'s variables (overridden by `o`) into a checked [`Launch`] without
/// rendezvous and token, plus, under Slurm, the first host of the node list and the
/// variable it came from.
pub(super) fn values(
    env: Env<'_>,
    launcher: Launcher,
    o: &Overrides,
) -> Result<(Launch, FirstHost), LaunchError> {
    let f = launcher.fields();
    let slurm = launcher == Launcher::Slurm;
    let lws_given = o.local_world_size.is_some();
    let mut r = Reader {
        env,
        present: Vec::new(),
        missing: Vec::new(),
    };
    let rank = r.take(f.rank, o.rank.is_some(), true);
    let world_size = r.take(f.world_size, o.world_size.is_some(), true);
    let local_rank = r.take(f.local_rank, o.local_rank.is_some(), true);
    let local_world_size = r.take(f.local_world_size, lws_given, true);
    let node = r.take(f.node, o.node.is_some(), slurm);
    let nodes = r.take(f.nodes, o.nodes.is_some(), false);
    let tasks = if slurm {
        r.take(SLURM_TASKS_PER_NODE, lws_given, true)
    } else {
        None
    };
    let list = if slurm {
        r.take(SLURM_NODELIST, false, false)
    } else {
        None
    };
    if !r.missing.is_empty() {
        return Err(r.partial(launcher));
    }
    if slurm && o.rank.is_none() && o.world_size.is_none() {
        batch_step(env, world_size.as_ref(), rank.as_ref())?;
    }

    let (Some(rank), Some(world_size)) = (value(o.rank, rank)?, value(o.world_size, world_size)?)
    else {
        return Err(r.partial(launcher));
    };
    let explicit = launcher == Launcher::Explicit;
    let local_rank = match value(o.local_rank, local_rank)? {
        Some(v) => v,
        None if explicit => derived(
            rank.value,
            "no launcher sets it, so the rank (one node)",
            rank.involved(RANK),
        ),
        None => return Err(r.partial(launcher)),
    };
    let mut local_world_size = match value(o.local_world_size, local_world_size)? {
        None if explicit => Some(derived(
            world_size.value,
            "no launcher sets it, so the world size (one node)",
            world_size.involved(WORLD),
        )),
        v => v,
    };
    let mut node = value(o.node, node)?;
    let mut nodes = value(o.nodes, nodes)?;

    let first_host = if slurm {
        let lists = (tasks, list);
        slurm_lists(
            lists,
            &world_size,
            node.as_ref(),
            &mut local_world_size,
            &mut nodes,
        )?
    } else {
        None
    };
    let Some(local_world_size) = local_world_size else {
        r.missing.push(SLURM_TASKS_PER_NODE.join(" or "));
        return Err(r.partial(launcher));
    };

    let (ws, lws, lr) = (&world_size, &local_world_size, &local_rank);
    check(
        rank.value < ws.value,
        involved(&[(&rank, RANK), (ws, WORLD)]),
        || {
            format!(
                "rank {} is not below the world size {}",
                rank.value, ws.value
            )
        },
    )?;
    check(
        lr.value < lws.value,
        involved(&[(lr, LOCAL_RANK), (lws, LOCAL_WORLD)]),
        || {
            format!(
                "local rank {} is not below the local world size {}",
                lr.value, lws.value
            )
        },
    )?;
    check(
        lws.value <= ws.value,
        involved(&[(lws, LOCAL_WORLD), (ws, WORLD)]),
        || {
            format!(
                "local world size {} exceeds the world size {}",
                lws.value, ws.value
            )
        },
    )?;

    // Node values the convention did not give (lws > 0 after the checks above).
    let torch = launcher == Launcher::TorchRun;
    let from = || involved(&[(&rank, RANK), (ws, WORLD), (lws, LOCAL_WORLD)]);
    if lws.value == ws.value {
        let reason = format!("local world size = world size = {}: one node", ws.value);
        node = node.or_else(|| Some(derived(0, reason.clone(), from())));
        nodes = nodes.or_else(|| Some(derived(1, reason, from())));
    } else if torch && ws.value % lws.value == 0 {
        let (r, w, l) = (rank.value, ws.value, lws.value);
        let reason =
            format!("rank / local world size = {r} / {l}: torchrun numbers ranks node by node");
        node = node.or_else(|| Some(derived(r / l, reason, from())));
        let reason = format!(
            "world size / local world size = {w} / {l}: torchrun gives every node as many ranks"
        );
        nodes = nodes.or_else(|| Some(derived(w / l, reason, from())));
    }
    if let (Some(n), Some(count)) = (&node, &nodes) {
        check(
            n.value < count.value,
            involved(&[(n, NODE), (count, NODES)]),
            || {
                format!(
                    "node index {} is not below the number of nodes {}",
                    n.value, count.value
                )
            },
        )?;
    }

    let launch = Launch {
        launcher,
        rank,
        world_size,
        local_rank,
        local_world_size,
        node,
        nodes,
        rendezvous: None,
        token: None,
        job: None,
        restart: None,
    };
    Ok((launch, first_host))
}

/// Slurm's tasks-per-node list and node list (either may be absent): checks them
/// against the world size, the node index and each other, fills in the local world
/// size (this node's entry) and the number of nodes where not given, and returns the
/// first host.
fn slurm_lists(
    (tasks, list): (Option<Var>, Option<Var>),
    world_size: &Sourced<usize>,
    node: Option<&Sourced<usize>>,
    local_world_size: &mut Option<Sourced<usize>>,
    nodes: &mut Option<Sourced<usize>>,
) -> Result<FirstHost, LaunchError> {
    let syntax = |var: &Var| {
        let var = var.clone();
        move |error| LaunchError::Syntax { var, error }
    };
    let mut counts = None;
    if let Some(var) = &tasks {
        let per_node = slurm::expand_tasks_per_node(&var.value).map_err(syntax(var))?;
        let with = |value: &Sourced<usize>, label| {
            let mut vars = vec![var.clone()];
            vars.extend(value.involved(label));
            vars
        };
        let sum = per_node
            .iter()
            .try_fold(0usize, |sum, &c| sum.checked_add(c));
        check(
            sum == Some(world_size.value),
            with(world_size, WORLD),
            || {
                let sum = sum.map_or("more than fits".to_owned(), |s| s.to_string());
                format!(
                    "the tasks per node add up to {sum}, not the number of tasks {}",
                    world_size.value
                )
            },
        )?;
        if let Some(n) = node {
            check(n.value < per_node.len(), with(n, NODE), || {
                format!(
                    "node index {} is out of range of the {} entries of the tasks-per-node list",
                    n.value,
                    per_node.len()
                )
            })?;
            if local_world_size.is_none() {
                let reason = format!("entry {} of {var} ({})", n.value, n.source);
                let count = per_node.get(n.value).copied().unwrap_or(0);
                *local_world_size = Some(derived(count, reason, with(n, NODE)));
            }
        }
        if nodes.is_none() {
            let reason = format!("number of entries of {var}");
            *nodes = Some(derived(per_node.len(), reason, vec![var.clone()]));
        }
        counts = Some(per_node.len());
    }
    let Some(list) = list else {
        return Ok(None);
    };
    let hosts = slurm::expand_hostlist(&list.value).map_err(syntax(&list))?;
    if let (Some(tasks), Some(counts)) = (&tasks, counts) {
        let same_level = list.name.contains("STEP") == tasks.name.contains("STEP");
        let vars = vec![list.clone(), tasks.clone()];
        check(!same_level || hosts.len() == counts, vars, || {
            format!(
                "the node list has {} hosts but the tasks-per-node list {counts} entries",
                hosts.len()
            )
        })?;
    }
    Ok(hosts.into_iter().next().map(|host| (host, list)))
}

/// Refuses Slurm's variables as a batch script sees them (a job id, no step id)
/// when they speak of several tasks: the script is not one of them.
fn batch_step(env: Env<'_>, ntasks: Option<&Var>, procid: Option<&Var>) -> Result<(), LaunchError> {
    let var = |name: &'static str| env(name).map(|value| Var { name, value });
    if SLURM_STEP_ID.iter().any(|&n| env(n).is_some()) {
        return Ok(());
    }
    let Some(job) = SLURM_JOB_ID.iter().find_map(|&n| var(n)) else {
        return Ok(());
    };
    let Some(n) = ntasks.and_then(|v| parse_count(&v.value)) else {
        return Ok(());
    };
    // The script is task 0 of the allocation; with one task, it is the whole job.
    if n <= 1 || procid.is_some_and(|p| p.value != "0") {
        return Ok(());
    }
    let mut vars = vec![job.clone()];
    vars.extend(procid.cloned());
    vars.extend(ntasks.cloned());
    Err(LaunchError::SlurmBatchStep {
        job: job.value,
        ntasks: n,
        vars,
    })
}

/// The rendezvous address, in the order the module docs give.
pub(super) fn rendezvous(
    env: Env<'_>,
    o: &Overrides,
    launcher: Launcher,
    first_host: FirstHost,
) -> Result<Option<Sourced<Rendezvous>>, LaunchError> {
    let var = |name: &'static str| env(name).map(|value| Var { name, value });
    if let Some(r) = &o.rendezvous {
        return Ok(Some(Sourced::new(r.clone(), Source::Explicit)));
    }
    if let Some(store) = var(STORE) {
        return match Rendezvous::parse(&store.value) {
            Ok(r) => Ok(Some(Sourced::new(r, Source::Var(store)))),
            Err(reason) => Err(invalid(store, reason)),
        };
    }
    match (var("MASTER_ADDR"), var("MASTER_PORT")) {
        (Some(addr), Some(port)) => {
            if addr.value.is_empty() || addr.value.contains(char::is_whitespace) {
                return Err(invalid(addr, "not a host name or address"));
            }
            let number = parse_port(&port.value).map_err(|reason| invalid(port.clone(), reason))?;
            // torchrun's agent serves PyTorch's TCPStore there and says so; without
            // it, the port is free for rank 0's store.
            if let Some(agent) = var(AGENT_STORE).filter(|v| v.value == "True") {
                let torch = Rendezvous::Torch {
                    host: addr.value.clone(),
                    port: number,
                };
                return Ok(Some(Sourced::new(
                    torch,
                    Source::Vars(vec![addr, port, agent]),
                )));
            }
            let tcp = Rendezvous::Tcp {
                host: addr.value.clone(),
                port: number,
            };
            return Ok(Some(Sourced::new(tcp, Source::Vars(vec![addr, port]))));
        }
        (Some(present), None) | (None, Some(present)) => {
            let missing = if present.name == "MASTER_ADDR" {
                "MASTER_PORT"
            } else {
                "MASTER_ADDR"
            };
            return Err(LaunchError::PartialRendezvous {
                present: vec![present],
                missing: vec![missing.to_owned()],
            });
        }
        (None, None) => {}
    }
    // Last, the launcher's PMIx server, when there is one (mpirun, srun --mpi=pmix).
    let pmix = || match var("PMIX_NAMESPACE") {
        Some(ns) => Ok(Some(Sourced::new(Rendezvous::Pmix, Source::Var(ns)))),
        None => Ok(None),
    };
    let (Launcher::Slurm, Some((host, list))) = (launcher, first_host) else {
        return pmix();
    };
    let Some(job) = SLURM_JOB_ID.iter().find_map(|&name| var(name)) else {
        return pmix();
    };
    let id = |var: &Var| {
        parse_count(&var.value)
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| invalid(var.clone(), "not a non-negative integer"))
    };
    let job_id = id(&job)?;
    let step = SLURM_STEP_ID.iter().find_map(|&name| var(name));
    let step_id = step.as_ref().map(id).transpose()?.unwrap_or(0);
    let port = slurm::rendezvous_port(job_id, step_id);
    // Task 0 runs on the first host of the sorted node list, except under an
    // arbitrary distribution (`-m arbitrary`, `SLURM_HOSTFILE`): there the host file's
    // first line is task 0's host.
    let (host, list, where_) = match var("SLURM_DISTRIBUTION") {
        Some(d) if d.value.starts_with("arbitrary") => {
            let Some(file) = var("SLURM_HOSTFILE") else {
                return Err(invalid(
                    d,
                    "under an arbitrary distribution task 0's host is not in the \
                     environment (no SLURM_HOSTFILE): set MASTER_ADDR and MASTER_PORT",
                ));
            };
            let text = std::fs::read_to_string(&file.value)
                .map_err(|e| invalid(file.clone(), format!("cannot be read: {e}")))?;
            // The first host named: comments skipped, a host list expanded.
            let word = text
                .lines()
                .map(|l| l.split('#').next().unwrap_or("").trim())
                .find(|l| !l.is_empty())
                .and_then(|l| l.split_whitespace().next())
                .map(str::to_owned);
            let first = match word {
                Some(w) => slurm::expand_hostlist(&w)
                    .map_err(|error| LaunchError::Syntax {
                        var: file.clone(),
                        error,
                    })?
                    .into_iter()
                    .next(),
                None => None,
            };
            let Some(first) = first else {
                return Err(invalid(file, "the host file names no host"));
            };
            (first, file, "first host of the host file")
        }
        _ => (host, list, "first host of"),
    };
    let reason = format!(
        "{where_} {list}; port {PORT_BASE} + 10 * ({job_id} % 1000) + ({step_id} % 10) \
         from {job}{}",
        step.as_ref()
            .map_or(" (no step id: 0)".to_owned(), |s| format!(", {s}"))
    );
    let mut from = vec![list, job];
    from.extend(step);
    let tcp = Rendezvous::Tcp { host, port };
    Ok(Some(Sourced::new(tcp, Source::Derived { reason, from })))
}

/// The job's name, which keeps two jobs from joining each other's store:
/// `NCCL_RS_JOB` when set, else the launcher's own job id (Slurm's job and step id,
/// torchrun's run id and restart count, Open MPI's namespace), with the world size.
pub(super) fn job(
    env: Env<'_>,
    launcher: Launcher,
    world_size: usize,
) -> Result<Option<Sourced<String>>, LaunchError> {
    let var = |name: &'static str| env(name).map(|value| Var { name, value });
    if let Some(job) = var(JOB) {
        if job.value.is_empty() || job.value.len() > 4096 {
            return Err(invalid(job, "must be 1 to 4096 bytes"));
        }
        let name = job.value.clone();
        return Ok(Some(Sourced::new(name, Source::Var(job))));
    }
    let from: Vec<Var> = match launcher {
        Launcher::TorchRun => ["TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT"]
            .into_iter()
            .filter_map(var)
            .collect(),
        Launcher::OpenMpi => ["PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"]
            .into_iter()
            .filter_map(var)
            .take(1)
            .collect(),
        Launcher::Slurm | Launcher::Pmi => {
            let job = SLURM_JOB_ID.iter().find_map(|&n| var(n));
            let step = SLURM_STEP_ID.iter().find_map(|&n| var(n));
            job.into_iter().chain(step).collect()
        }
        _ => Vec::new(),
    };
    if from.is_empty() {
        return Ok(None);
    }
    let ids: Vec<&str> = from.iter().map(|v| v.value.as_str()).collect();
    let name = format!("{launcher:?} {} of {world_size} ranks", ids.join("."));
    let reason = "the launcher's job id and the world size".to_owned();
    Ok(Some(Sourced::new(name, Source::Derived { reason, from })))
}

/// How many times the launcher restarted this rank's process: `nccl-run`'s
/// `NCCL_RS_RESTART_COUNT` (other launchers restart whole jobs, not one rank).
pub(super) fn restart(
    env: Env<'_>,
    launcher: Launcher,
) -> Result<Option<Sourced<usize>>, LaunchError> {
    if launcher != Launcher::NcclRun {
        return Ok(None);
    }
    let var = env(RESTART).map(|value| Var {
        name: RESTART,
        value,
    });
    value(None, var)
}

/// The job token: explicit, else `NCCL_RS_STORE_TOKEN` (not empty). Its source
/// names the variable but not the value.
pub(super) fn token(env: Env<'_>, o: &Overrides) -> Result<Option<Sourced<String>>, LaunchError> {
    match (&o.token, env(TOKEN)) {
        (Some(token), _) => Ok(Some(Sourced::new(token.clone(), Source::Explicit))),
        (None, Some(token)) if token.is_empty() => Err(invalid(
            Var {
                name: TOKEN,
                value: token,
            },
            "the job token is empty",
        )),
        (None, Some(token)) => {
            let redacted = Var {
                name: TOKEN,
                value: "<redacted>".to_owned(),
            };
            Ok(Some(Sourced::new(token, Source::Var(redacted))))
        }
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_plain_decimal() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("0012"), Some(12));
        for bad in ["", "-1", "+1", " 1", "1 ", "1e3", "18446744073709551616"] {
            assert_eq!(parse_count(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn reader_takes_the_first_set_name_and_records_what_is_missing() {
        let env = |name: &str| (name == "B").then(|| "2".to_owned());
        let mut r = Reader {
            env: &env,
            present: Vec::new(),
            missing: Vec::new(),
        };
        assert_eq!(r.take(&["A", "B"], false, true).map(|v| v.name), Some("B"));
        assert_eq!(r.take(&["C", "D"], false, true), None);
        assert_eq!(r.take(&["E"], true, true), None);
        assert_eq!(r.take(&["F"], false, false), None);
        assert_eq!(r.take(&[], false, true), None);
        assert_eq!(
            r.present,
            vec![Var {
                name: "B",
                value: "2".into()
            }]
        );
        assert_eq!(r.missing, vec!["C or D".to_owned()]);
    }

    #[test]
    fn involved_lists_each_variable_once() {
        let a = Sourced::new(
            1,
            Source::Var(Var {
                name: "A",
                value: "1".into(),
            }),
        );
        let from = vec![
            Var {
                name: "A",
                value: "1".into(),
            },
            Var {
                name: "B",
                value: "2".into(),
            },
        ];
        let b = derived(2, "r", from.clone());
        assert_eq!(involved(&[(&a, RANK), (&b, WORLD)]), from);
    }
}
