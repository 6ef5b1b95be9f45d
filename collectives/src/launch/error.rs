//! [`LaunchError`]: why a launch environment could not be read, naming every
//! variable involved and its value.

use super::slurm::SyntaxError;
use super::{Launcher, Var};

/// Why [`Launch::from_vars`](super::Launch::from_vars) found no usable rank and world
/// size. Every variant names the variables involved with their values (a token's
/// value is never shown).
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// No convention's variables are set, and no explicit rank and world size were
    /// given.
    #[error(
        "no launcher environment found{}; looked for {}",
        explicit_note(.explicit),
        looked_for(.conventions)
    )]
    NoLauncher {
        /// Every convention looked for, in precedence order.
        conventions: Vec<Launcher>,
        /// The explicit values that were given (not enough on their own).
        explicit: Vec<Var>,
    },
    /// Some of a convention's variables are set but others it needs are not.
    #[error(
        "{convention} launch environment is incomplete: {} set, but {} missing",
        list(.present),
        .missing.join(", ")
    )]
    Partial {
        /// The convention whose variables were found.
        convention: Launcher,
        /// Its variables that are set, with their values.
        present: Vec<Var>,
        /// The variables it needs that are not set (alternatives joined by `or`).
        missing: Vec<String>,
    },
    /// One of `MASTER_ADDR` and `MASTER_PORT` is set without the other.
    #[error(
        "rendezvous address is incomplete: {} set, but {} missing",
        list(.present),
        .missing.join(", ")
    )]
    PartialRendezvous {
        /// The variable that is set, with its value.
        present: Vec<Var>,
        /// The one that is not.
        missing: Vec<String>,
    },
    /// A value that cannot mean what its variable says (not a non-negative integer,
    /// a port out of range, a store address that is neither `tcp://` nor `file://`).
    #[error("{var}: {reason}")]
    Invalid {
        /// The variable and its value.
        var: Var,
        /// What is wrong with the value.
        reason: String,
    },
    /// A Slurm hostlist or tasks-per-node list that does not parse.
    #[error("{}: {error}", .var.name)]
    Syntax {
        /// The variable and its value.
        var: Var,
        /// What is wrong with it.
        error: SyntaxError,
    },
    /// Slurm's variables of a batch script, read outside any job step: `SLURM_PROCID`
    /// and `SLURM_NTASKS` there describe the allocation, not a task of a step, so
    /// every process started from the script would take itself for rank 0.
    #[error(
        "this process runs in the batch script of Slurm job {job}, outside any job step \
         (no SLURM_STEP_ID): {} describe the allocation, not this process. Start the ranks \
         with srun inside the script (`srun -n {ntasks} program`), or give the rank and \
         world size explicitly",
        list(.vars)
    )]
    SlurmBatchStep {
        /// The job id.
        job: String,
        /// The number of tasks of the allocation.
        ntasks: usize,
        /// The variables read, with their values.
        vars: Vec<Var>,
    },
    /// Values that are well-formed one by one but cannot all hold: a rank not below
    /// the world size, a local rank not below the local world size, a local world
    /// size above the world size, a node index out of range, tasks per node that do
    /// not add up to the number of tasks.
    #[error("contradictory launch settings: {reason} ({})", list(.vars))]
    Contradiction {
        /// Every variable (or explicit value) involved, with its value.
        vars: Vec<Var>,
        /// Which rule they break.
        reason: String,
    },
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variant = match self {
            LaunchError::NoLauncher { .. } => "NoLauncher",
            LaunchError::Partial { .. } => "Partial",
            LaunchError::PartialRendezvous { .. } => "PartialRendezvous",
            LaunchError::Invalid { .. } => "Invalid",
            LaunchError::Syntax { .. } => "Syntax",
            LaunchError::Contradiction { .. } => "Contradiction",
            LaunchError::SlurmBatchStep { .. } => "SlurmBatchStep",
        };
        write!(f, "LaunchError::{variant}: {self}")
    }
}

fn list(vars: &[Var]) -> String {
    let names: Vec<String> = vars.iter().map(Var::to_string).collect();
    names.join(", ")
}

fn explicit_note(explicit: &[Var]) -> String {
    if explicit.is_empty() {
        " and no explicit rank and world size were given".to_owned()
    } else {
        format!(
            " and the explicit values ({}) do not include both rank and world size",
            list(explicit)
        )
    }
}

fn looked_for(conventions: &[Launcher]) -> String {
    let each: Vec<String> = conventions
        .iter()
        .map(|c| format!("{c} ({})", c.variables().join(", ")))
        .collect();
    each.join("; ")
}
