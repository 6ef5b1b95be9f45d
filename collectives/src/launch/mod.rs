//! Where this process stands in its job — rank, world size, local rank, local world
//! size, node, rendezvous address, job token — read from the environment of
//! whichever launcher started it, together with where each value came from.
//!
//! [`Launch::from_env`] reads the process environment; [`Launch::from_vars`] takes
//! the environment as a function, so callers and tests can hand it any variables.
//!
//! # Conventions and their precedence
//!
//! When variables of several conventions are set, the first one in this order that
//! has any of its marker variables set wins, and must then be complete:
//!
//! 1. [`Launcher::NcclRun`]: `NCCL_RS_RANK`, `NCCL_RS_WORLD_SIZE`,
//!    `NCCL_RS_LOCAL_RANK`, `NCCL_RS_LOCAL_WORLD_SIZE`, optional `NCCL_RS_NODE_RANK`
//!    and `NCCL_RS_NNODES`. Our own launcher says exactly what it means, and nothing
//!    else sets these names.
//! 2. [`Launcher::TorchRun`]: `RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `LOCAL_WORLD_SIZE`
//!    (the markers), optional `GROUP_RANK` (node index) and `GROUP_WORLD_SIZE`
//!    (nodes). torchrun and its imitators are often started by srun or mpirun, and
//!    set these for their workers, whose own numbering differs from the outer
//!    launcher's.
//! 3. [`Launcher::OpenMpi`]: `OMPI_COMM_WORLD_RANK`, `OMPI_COMM_WORLD_SIZE`,
//!    `OMPI_COMM_WORLD_LOCAL_RANK`, `OMPI_COMM_WORLD_LOCAL_SIZE`.
//! 4. [`Launcher::Hydra`] (MPICH, Intel MPI): `PMI_RANK`, `PMI_SIZE`,
//!    `MPI_LOCALRANKID`, `MPI_LOCALNRANKS`; marked by the two `MPI_LOCAL*` names.
//! 5. [`Launcher::Pals`] (Cray PALS): `PMI_RANK`, `PMI_SIZE`, `PMI_LOCAL_RANK`,
//!    `PMI_LOCAL_SIZE`, optional `PALS_NODEID`; marked by the two `PMI_LOCAL_*` names.
//! 6. [`Launcher::Pmi`]: `PMI_RANK` and `PMI_SIZE` with neither local pair above (as
//!    srun's PMI-2 plugin or an older MPICH sets them). The local rank and size must
//!    then be given explicitly — except when Slurm's own variables agree on the rank
//!    and size, in which case Slurm is used (srun started the process).
//! 7. [`Launcher::Slurm`]: `SLURM_PROCID`, `SLURM_NTASKS` (or `SLURM_NPROCS`),
//!    `SLURM_LOCALID`, `SLURM_NODEID`, `SLURM_STEP_TASKS_PER_NODE` (or
//!    `SLURM_TASKS_PER_NODE`), optional `SLURM_STEP_NODELIST` (or
//!    `SLURM_JOB_NODELIST`, `SLURM_NODELIST`); marked by the per-task
//!    `SLURM_PROCID` or `SLURM_LOCALID`. Last, because every launcher started
//!    inside a Slurm allocation inherits the allocation's `SLURM_*` variables, which
//!    then describe srun's tasks, not this process. The local world size is this
//!    node's entry (`SLURM_NODEID`) of the tasks-per-node list, because
//!    `SLURM_NTASKS_PER_NODE` is only set under `--ntasks-per-node`.
//!
//! Open MPI's `OMPI_COMM_WORLD_NODE_RANK` is not read: despite its name it is this
//! process's rank among the processes on its node (across all jobs there), not the
//! index of the node.
//!
//! When no convention is present, [`Overrides`] must give at least the rank and the
//! world size ([`Launcher::Explicit`]); the local rank then defaults to the rank and
//! the local world size to the world size, i.e. one node.
//!
//! # Node index
//!
//! Taken from the convention when it has one (`NCCL_RS_NODE_RANK`, `GROUP_RANK`,
//! `PALS_NODEID`, `SLURM_NODEID`); otherwise derived as node 0 of 1 when the local
//! world size equals the world size, and for torchrun-style launchers as
//! `rank / local world size` (they number ranks node by node with equal local world
//! sizes); otherwise unknown.
//!
//! # Rendezvous and token
//!
//! The rendezvous address is, in this order: [`Overrides::rendezvous`];
//! `NCCL_RS_STORE` (`tcp://host:port`, `torch+tcp://host:port`, `file:///path` or
//! `pmix:`); `MASTER_ADDR` with `MASTER_PORT` (PyTorch's store there when
//! `TORCHELASTIC_USE_AGENT_STORE=True`: torchrun's agent serves it); under Slurm, task
//! 0's host (the first of the node list, or under `-m arbitrary` the first line of
//! `SLURM_HOSTFILE`) with the port [`slurm::rendezvous_port`] derives from
//! `SLURM_JOB_ID` and `SLURM_STEP_ID`; last, the launcher's PMIx server when
//! `PMIX_NAMESPACE` is set. The job token is [`Overrides::token`] or
//! `NCCL_RS_STORE_TOKEN`; it is never printed.
//!
//! The job's name ([`Launch::job`]) is `NCCL_RS_JOB`, else the launcher's job id and
//! the world size: Slurm's job and step id, torchrun's run id and restart count, Open
//! MPI's PMIx namespace. The store rank 0 hosts refuses clients of another job, and
//! torchrun's keys of this library are kept under it.
//!
//! Slurm's variables as a batch script sees them (a job id and several tasks but no
//! step id) are refused ([`LaunchError::SlurmBatchStep`]): the script is not one of
//! the tasks they describe.
//!
//! # From a launch to a group
//!
//! [`Launch::device`] maps the local rank to a device (`device.rs`);
//! [`ProcessGroup::from_env`](crate::ProcessGroup::from_env) meets the other ranks in
//! the store, exchanges the unique id and creates the group (`group.rs`), and links it
//! to the store so that one rank's failure aborts every rank's group within a second
//! (`link.rs`: [`FAILED_KEY`], [`JobFailure`]).

mod device;
mod error;
mod group;
mod link;
#[cfg(feature = "mpi")]
mod mpi;
mod pmix;
mod read;
pub mod slurm;
mod source;

pub use error::LaunchError;
pub use link::{
    FAILED_KEY, HEALS_KEY, HOST_GRACE, JobFailure, JobReport, REPORT_WAIT, dump_key,
    epoch_failed_key,
};
pub(crate) use link::{Link, Place, eprint_all, gone_key};
#[cfg(feature = "mpi")]
pub use mpi::launch_of as mpi_launch;
pub use pmix::launch_of as pmix_launch;
pub use source::{Overrides, Rendezvous, Source, Sourced, Var};

use std::fmt;

/// The conventions [`Launch::from_vars`] understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Launcher {
    /// This project's `nccl-run` (`NCCL_RS_*`).
    NcclRun,
    /// torchrun and launchers that copy its variables (`RANK`, `WORLD_SIZE`, ...).
    TorchRun,
    /// Open MPI's mpirun (`OMPI_COMM_WORLD_*`).
    OpenMpi,
    /// MPICH's or Intel MPI's Hydra (`PMI_RANK`, `MPI_LOCALRANKID`, ...).
    Hydra,
    /// Cray PALS (`PMI_RANK`, `PMI_LOCAL_RANK`, ...).
    Pals,
    /// A PMI launcher that sets only `PMI_RANK` and `PMI_SIZE`.
    Pmi,
    /// Slurm's srun (`SLURM_PROCID`, ...).
    Slurm,
    /// No launcher: everything came from [`Overrides`].
    Explicit,
}

/// The variables one convention reads for each value.
struct Fields {
    markers: &'static [&'static str],
    rank: &'static [&'static str],
    world_size: &'static [&'static str],
    local_rank: &'static [&'static str],
    local_world_size: &'static [&'static str],
    node: &'static [&'static str],
    nodes: &'static [&'static str],
}

const SLURM_TASKS_PER_NODE: &[&str] = &["SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"];
const SLURM_NODELIST: &[&str] = &[
    "SLURM_STEP_NODELIST",
    "SLURM_JOB_NODELIST",
    "SLURM_NODELIST",
];
const SLURM_JOB_ID: &[&str] = &["SLURM_JOB_ID", "SLURM_JOBID"];
const SLURM_STEP_ID: &[&str] = &["SLURM_STEP_ID", "SLURM_STEPID"];
const STORE: &str = "NCCL_RS_STORE";
const JOB: &str = "NCCL_RS_JOB";
const AGENT_STORE: &str = "TORCHELASTIC_USE_AGENT_STORE";
const TOKEN: &str = "NCCL_RS_STORE_TOKEN";
/// How many times `nccl-run` restarted this rank's process.
pub const RESTART: &str = "NCCL_RS_RESTART_COUNT";

impl Launcher {
    /// The conventions read from the environment, in precedence order.
    pub const DETECTED: [Launcher; 7] = [
        Launcher::NcclRun,
        Launcher::TorchRun,
        Launcher::OpenMpi,
        Launcher::Hydra,
        Launcher::Pals,
        Launcher::Pmi,
        Launcher::Slurm,
    ];

    /// Every variable this convention reads for rank, sizes and node (fallbacks
    /// included).
    pub fn variables(self) -> Vec<&'static str> {
        let f = self.fields();
        if self == Launcher::Pmi {
            // Its local "variables" are the other conventions' ones, reported missing.
            return f.markers.to_vec();
        }
        let mut all: Vec<&'static str> = [f.rank, f.world_size, f.local_rank]
            .into_iter()
            .chain([f.local_world_size, f.node, f.nodes])
            .flatten()
            .copied()
            .collect();
        if self == Launcher::Slurm {
            all.extend(SLURM_TASKS_PER_NODE.iter().chain(SLURM_NODELIST));
        }
        all
    }

    fn fields(self) -> Fields {
        const NONE: &[&str] = &[];
        match self {
            Launcher::NcclRun => Fields {
                markers: &[
                    "NCCL_RS_RANK",
                    "NCCL_RS_WORLD_SIZE",
                    "NCCL_RS_LOCAL_RANK",
                    "NCCL_RS_LOCAL_WORLD_SIZE",
                    "NCCL_RS_NODE_RANK",
                    "NCCL_RS_NNODES",
                ],
                rank: &["NCCL_RS_RANK"],
                world_size: &["NCCL_RS_WORLD_SIZE"],
                local_rank: &["NCCL_RS_LOCAL_RANK"],
                local_world_size: &["NCCL_RS_LOCAL_WORLD_SIZE"],
                node: &["NCCL_RS_NODE_RANK"],
                nodes: &["NCCL_RS_NNODES"],
            },
            Launcher::TorchRun => Fields {
                markers: &["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"],
                rank: &["RANK"],
                world_size: &["WORLD_SIZE"],
                local_rank: &["LOCAL_RANK"],
                local_world_size: &["LOCAL_WORLD_SIZE"],
                node: &["GROUP_RANK"],
                nodes: &["GROUP_WORLD_SIZE"],
            },
            Launcher::OpenMpi => Fields {
                markers: &[
                    "OMPI_COMM_WORLD_RANK",
                    "OMPI_COMM_WORLD_SIZE",
                    "OMPI_COMM_WORLD_LOCAL_RANK",
                    "OMPI_COMM_WORLD_LOCAL_SIZE",
                ],
                rank: &["OMPI_COMM_WORLD_RANK"],
                world_size: &["OMPI_COMM_WORLD_SIZE"],
                local_rank: &["OMPI_COMM_WORLD_LOCAL_RANK"],
                local_world_size: &["OMPI_COMM_WORLD_LOCAL_SIZE"],
                node: NONE,
                nodes: NONE,
            },
            Launcher::Hydra => Fields {
                markers: &["MPI_LOCALRANKID", "MPI_LOCALNRANKS"],
                rank: &["PMI_RANK"],
                world_size: &["PMI_SIZE"],
                local_rank: &["MPI_LOCALRANKID"],
                local_world_size: &["MPI_LOCALNRANKS"],
                node: NONE,
                nodes: NONE,
            },
            Launcher::Pals => Fields {
                markers: &["PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"],
                rank: &["PMI_RANK"],
                world_size: &["PMI_SIZE"],
                local_rank: &["PMI_LOCAL_RANK"],
                local_world_size: &["PMI_LOCAL_SIZE"],
                node: &["PALS_NODEID"],
                nodes: NONE,
            },
            // Neither local pair is set when this convention is chosen, so both are
            // reported missing unless given explicitly.
            Launcher::Pmi => Fields {
                markers: &["PMI_RANK", "PMI_SIZE"],
                rank: &["PMI_RANK"],
                world_size: &["PMI_SIZE"],
                local_rank: &["MPI_LOCALRANKID", "PMI_LOCAL_RANK"],
                local_world_size: &["MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"],
                node: NONE,
                nodes: NONE,
            },
            // The local world size comes from the tasks-per-node list.
            Launcher::Slurm => Fields {
                markers: &["SLURM_PROCID", "SLURM_LOCALID"],
                rank: &["SLURM_PROCID"],
                world_size: &["SLURM_NTASKS", "SLURM_NPROCS"],
                local_rank: &["SLURM_LOCALID"],
                local_world_size: NONE,
                node: &["SLURM_NODEID"],
                nodes: NONE,
            },
            Launcher::Explicit => Fields {
                markers: NONE,
                rank: NONE,
                world_size: NONE,
                local_rank: NONE,
                local_world_size: NONE,
                node: NONE,
                nodes: NONE,
            },
        }
    }
}

impl fmt::Display for Launcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Launcher::NcclRun => "nccl-run",
            Launcher::TorchRun => "torchrun-style",
            Launcher::OpenMpi => "Open MPI",
            Launcher::Hydra => "MPICH/Intel MPI Hydra",
            Launcher::Pals => "Cray PALS",
            Launcher::Pmi => "PMI (rank and size only)",
            Launcher::Slurm => "Slurm",
            Launcher::Explicit => "explicit",
        })
    }
}

/// Where this process stands in its job, and where each value came from.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Launch {
    /// The convention the values were read from.
    pub launcher: Launcher,
    /// This process's rank, below `world_size`.
    pub rank: Sourced<usize>,
    /// Number of processes.
    pub world_size: Sourced<usize>,
    /// Rank among the processes on this node, below `local_world_size`.
    pub local_rank: Sourced<usize>,
    /// Number of processes on this node, at most `world_size`.
    pub local_world_size: Sourced<usize>,
    /// Index of this node, when known (see the module docs).
    pub node: Option<Sourced<usize>>,
    /// Number of nodes, when known.
    pub nodes: Option<Sourced<usize>>,
    /// Where the ranks meet, when known.
    pub rendezvous: Option<Sourced<Rendezvous>>,
    /// The job's shared secret, when set; its source shows the variable name only.
    pub token: Option<Sourced<String>>,
    /// The job's name, when known (see the module docs): the store rank 0 serves
    /// refuses clients of another job.
    pub job: Option<Sourced<String>>,
    /// How many times the launcher restarted this rank's process, when it says
    /// (`nccl-run`'s `NCCL_RS_RESTART_COUNT`). Above 0, the process replaces one that
    /// died: [`ProcessGroup::from_env`](crate::ProcessGroup::from_env) then joins the
    /// running group through a grow instead of starting one.
    pub restart: Option<Sourced<usize>>,
}

impl Launch {
    /// Reads the process environment ([`Launch::from_vars`] over `std::env`, no
    /// overrides). A value that is not valid UTF-8 is read lossily (bad bytes become
    /// U+FFFD), so it is not mistaken for an unset variable.
    pub fn from_env() -> Result<Launch, LaunchError> {
        Launch::from_env_with(&Overrides::default())
    }

    /// [`Launch::from_env`] with explicit values that win over the environment.
    pub fn from_env_with(overrides: &Overrides) -> Result<Launch, LaunchError> {
        let env = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        Launch::from_vars(&env, overrides)
    }

    /// Reads the environment `env` (a variable's value by name, `None` when unset),
    /// detecting the convention as the module docs describe, then applies
    /// `overrides` and checks that the values fit together.
    ///
    /// ```
    /// use collectives::{Launch, Launcher, Overrides};
    ///
    /// let vars = [("RANK", "3"), ("WORLD_SIZE", "8"), ("LOCAL_RANK", "3"), ("LOCAL_WORLD_SIZE", "4")];
    /// let env = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
    /// let launch = Launch::from_vars(&env, &Overrides::default())?;
    /// assert_eq!(launch.launcher, Launcher::TorchRun);
    /// assert_eq!((launch.rank(), launch.node(), launch.nodes()), (3, Some(0), Some(2)));
    /// assert!(launch.to_string().contains("rank 3 (RANK=3) of 8 (WORLD_SIZE=8)"));
    /// # Ok::<(), collectives::LaunchError>(())
    /// ```
    pub fn from_vars(
        env: &dyn Fn(&str) -> Option<String>,
        overrides: &Overrides,
    ) -> Result<Launch, LaunchError> {
        let launcher = detect(env, overrides)?;
        let (mut launch, first_host) = read::values(env, launcher, overrides)?;
        launch.rendezvous = read::rendezvous(env, overrides, launcher, first_host)?;
        launch.token = read::token(env, overrides)?;
        launch.job = read::job(env, launcher, launch.world_size())?;
        launch.restart = read::restart(env, launcher)?;
        Ok(launch)
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank.value
    }

    /// Number of processes.
    pub fn world_size(&self) -> usize {
        self.world_size.value
    }

    /// Rank among the processes on this node.
    pub fn local_rank(&self) -> usize {
        self.local_rank.value
    }

    /// Number of processes on this node.
    pub fn local_world_size(&self) -> usize {
        self.local_world_size.value
    }

    /// Index of this node, when known.
    pub fn node(&self) -> Option<usize> {
        self.node.as_ref().map(|n| n.value)
    }

    /// Number of nodes, when known.
    pub fn nodes(&self) -> Option<usize> {
        self.nodes.as_ref().map(|n| n.value)
    }

    /// Where the ranks meet, when known.
    pub fn rendezvous(&self) -> Option<&Rendezvous> {
        self.rendezvous.as_ref().map(|r| &r.value)
    }

    /// The job token, when set.
    pub fn token(&self) -> Option<&str> {
        self.token.as_ref().map(|t| t.value.as_str())
    }

    /// The job's name, when known.
    pub fn job(&self) -> Option<&str> {
        self.job.as_ref().map(|j| j.value.as_str())
    }

    /// How many times the launcher restarted this rank's process (0 when it does not
    /// say): above 0, this process replaces one that died.
    pub fn restart_count(&self) -> usize {
        self.restart.as_ref().map_or(0, |r| r.value)
    }
}

impl fmt::Debug for Launch {
    /// As derived, except that the token's value is not shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("launcher", &self.launcher)
            .field("rank", &self.rank)
            .field("world_size", &self.world_size)
            .field("local_rank", &self.local_rank)
            .field("local_world_size", &self.local_world_size)
            .field("node", &self.node)
            .field("nodes", &self.nodes)
            .field("rendezvous", &self.rendezvous)
            .field("token", &self.token.as_ref().map(|t| &t.source))
            .field("job", &self.job)
            .finish()
    }
}

impl fmt::Display for Launch {
    /// One line: each value followed by its source in parentheses; the token by its
    /// source only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (r, w, lr, lw) = (
            &self.rank,
            &self.world_size,
            &self.local_rank,
            &self.local_world_size,
        );
        write!(
            f,
            "{} launch: rank {} ({}) of {} ({}), local rank {} ({}) of {} ({})",
            self.launcher,
            r.value,
            r.source,
            w.value,
            w.source,
            lr.value,
            lr.source,
            lw.value,
            lw.source
        )?;
        match &self.node {
            Some(n) => write!(f, ", node {} ({})", n.value, n.source)?,
            None => f.write_str(", node unknown")?,
        }
        if let Some(n) = &self.nodes {
            write!(f, " of {} ({})", n.value, n.source)?;
        }
        match &self.rendezvous {
            Some(r) => write!(f, ", rendezvous {} ({})", r.value, r.source)?,
            None => f.write_str(", no rendezvous address")?,
        }
        match &self.token {
            Some(Sourced {
                source: Source::Var(var),
                ..
            }) => write!(f, ", token from {}", var.name),
            Some(_) => f.write_str(", token given explicitly"),
            None => f.write_str(", no token"),
        }
    }
}

/// Picks the convention (see the module docs for the order).
fn detect(
    env: &dyn Fn(&str) -> Option<String>,
    overrides: &Overrides,
) -> Result<Launcher, LaunchError> {
    let marked = |l: Launcher| l.fields().markers.iter().any(|name| env(name).is_some());
    for launcher in Launcher::DETECTED {
        if !marked(launcher) {
            continue;
        }
        if launcher == Launcher::Pmi && marked(Launcher::Slurm) {
            let number = |names: &[&str]| {
                let value = names.iter().find_map(|name| env(name))?;
                read::parse_count(&value)
            };
            let agree = |a: &[&str], b: &[&str]| number(a).is_some() && number(a) == number(b);
            if agree(&["PMI_RANK"], &["SLURM_PROCID"])
                && agree(&["PMI_SIZE"], &["SLURM_NTASKS", "SLURM_NPROCS"])
            {
                return Ok(Launcher::Slurm);
            }
        }
        return Ok(launcher);
    }
    if overrides.rank.is_some() && overrides.world_size.is_some() {
        return Ok(Launcher::Explicit);
    }
    let o = overrides;
    let explicit = [
        ("explicit rank", o.rank),
        ("explicit world size", o.world_size),
        ("explicit local rank", o.local_rank),
        ("explicit local world size", o.local_world_size),
        ("explicit node", o.node),
        ("explicit nodes", o.nodes),
    ]
    .into_iter()
    .filter_map(|(name, v)| {
        v.map(|v| Var {
            name,
            value: v.to_string(),
        })
    })
    .collect();
    Err(LaunchError::NoLauncher {
        conventions: Launcher::DETECTED.to_vec(),
        explicit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_among_the_variables_read() {
        for launcher in Launcher::DETECTED {
            let f = launcher.fields();
            assert!(!f.markers.is_empty(), "{launcher}");
            for marker in f.markers {
                assert!(
                    launcher.variables().contains(marker),
                    "{launcher}: {marker}"
                );
            }
        }
        assert!(Launcher::Explicit.variables().is_empty());
    }

    #[test]
    fn pmi_defers_to_a_slurm_that_agrees() {
        let pairs = [("PMI_RANK", "1"), ("PMI_SIZE", "2"), ("SLURM_PROCID", "1")];
        let with_ntasks = |ntasks: &'static str| {
            move |name: &str| {
                let extra = [("SLURM_NPROCS", ntasks)];
                pairs
                    .iter()
                    .chain(&extra)
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let o = Overrides::default();
        assert_eq!(detect(&with_ntasks("2"), &o), Ok(Launcher::Slurm));
        assert_eq!(detect(&with_ntasks("3"), &o), Ok(Launcher::Pmi));
        assert_eq!(detect(&with_ntasks("x"), &o), Ok(Launcher::Pmi));
    }
}
