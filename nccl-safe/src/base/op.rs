//! What one rank issued, as the drivers see it: the kind of operation, its count,
//! type, root or peer and reduction (compared across ranks by the sim), and the device
//! addresses it reads and writes. A leaf: the drivers depend on it, it depends on no
//! driver.

use std::fmt;

use crate::DType;

/// What kind of operation; the sim compares these across ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Gather,
    Scatter,
    Send,
    Recv,
}

impl Kind {
    /// Every kind, in a fixed order (the sim packs kinds by position).
    pub(crate) const ALL: [Kind; 10] = [
        Kind::AllReduce,
        Kind::Broadcast,
        Kind::Reduce,
        Kind::AllGather,
        Kind::ReduceScatter,
        Kind::AllToAll,
        Kind::Gather,
        Kind::Scatter,
        Kind::Send,
        Kind::Recv,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::AllReduce => "all_reduce",
            Kind::Broadcast => "broadcast",
            Kind::Reduce => "reduce",
            Kind::AllGather => "all_gather",
            Kind::ReduceScatter => "reduce_scatter",
            Kind::AllToAll => "all_to_all",
            Kind::Gather => "gather",
            Kind::Scatter => "scatter",
            Kind::Send => "send",
            Kind::Recv => "recv",
        }
    }
}

/// A reduction as the backends see it.
#[derive(Clone, Debug)]
pub(crate) enum RedOp {
    None,
    Sum,
    Prod,
    Max,
    Min,
    Avg,
    PreMulSumHost(Vec<u8>),
    PreMulSumDevice,
}

impl RedOp {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            RedOp::None => "",
            RedOp::Sum => "sum",
            RedOp::Prod => "prod",
            RedOp::Max => "max",
            RedOp::Min => "min",
            RedOp::Avg => "avg",
            RedOp::PreMulSumHost(_) | RedOp::PreMulSumDevice => "premulsum",
        }
    }
}

/// What one rank issued; equal descriptions on every rank are NCCL's contract.
#[derive(Clone, Debug)]
pub(crate) struct OpDesc {
    pub kind: Kind,
    pub count: usize,
    pub dtype: DType,
    /// Root of rooted collectives, peer of send/recv.
    pub root: Option<usize>,
    pub op: RedOp,
}

impl PartialEq for OpDesc {
    fn eq(&self, o: &OpDesc) -> bool {
        // Scalars of PreMulSum are each rank's own; the kind of op must agree.
        self.kind == o.kind
            && self.count == o.count
            && self.dtype == o.dtype
            && self.root == o.root
            && self.op.name() == o.op.name()
    }
}

impl fmt::Display for OpDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}(count {}, {}",
            self.kind.name(),
            self.count,
            self.dtype
        )?;
        if !matches!(self.op, RedOp::None) {
            write!(f, ", {}", self.op.name())?;
        }
        match (self.kind, self.root) {
            (Kind::Send | Kind::Recv, Some(p)) => write!(f, ", peer {p}")?,
            (_, Some(r)) => write!(f, ", root {r}")?,
            _ => {}
        }
        f.write_str(")")
    }
}

/// The label of an operation (see [`with_call_label`](crate::with_call_label)),
/// shared between the operations it is attached to; reads as `""` when none was set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CallLabel(Option<std::sync::Arc<str>>);

impl CallLabel {
    /// No label.
    pub const NONE: CallLabel = CallLabel(None);

    /// `text` as a label (empty text is none).
    pub fn new(text: std::sync::Arc<str>) -> CallLabel {
        CallLabel((!text.is_empty()).then_some(text))
    }
}

impl std::ops::Deref for CallLabel {
    type Target = str;

    fn deref(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }
}

impl From<&str> for CallLabel {
    fn from(text: &str) -> CallLabel {
        CallLabel::new(text.into())
    }
}

/// One operation of a launch (a launch is one operation, or a group of them).
#[derive(Clone, Debug)]
pub(crate) struct LaunchOp {
    pub desc: OpDesc,
    /// Bytes read from `send`.
    pub send_len: usize,
    pub send: Option<u64>,
    pub recv: Option<u64>,
    /// Device address of a PreMulSum scalar that lives on the device.
    pub scalar: Option<u64>,
    /// The caller's label (e.g. `all_reduce #7 at train.rs:57`), for messages that
    /// name both sides of a mismatch; empty when none was set.
    pub label: CallLabel,
    /// The checked call site's number (0: unchecked), see
    /// [`with_checked_call_label`](crate::with_checked_call_label).
    pub site: u32,
    /// The per-call config attached by [`with_coll_config`](crate::with_coll_config).
    pub config: Option<std::sync::Arc<super::coll_config::CollConfig>>,
    /// This operation carries its launch's launch-completion event (see
    /// `comm::launch_event`): the first collective of a launch made under
    /// [`with_launch_event`](crate::with_launch_event); the event itself travels
    /// beside the operations, to the driver.
    pub launch_event: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_name_the_operation() {
        let d = OpDesc {
            kind: Kind::Reduce,
            count: 4,
            dtype: DType::F32,
            root: Some(0),
            op: RedOp::Sum,
        };
        assert_eq!(d.to_string(), "reduce(count 4, f32, sum, root 0)");
        let s = OpDesc {
            kind: Kind::Send,
            count: 2,
            dtype: DType::U8,
            root: Some(3),
            op: RedOp::None,
        };
        assert_eq!(s.to_string(), "send(count 2, u8, peer 3)");
    }
}
