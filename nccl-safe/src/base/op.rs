//! What one rank issued, as the drivers see it: the kind of operation, its count,
//! type, root or peer and reduction (compared across ranks by the sim), and the device
//! addresses it reads and writes. A leaf: the drivers depend on it, it depends on no
//! driver.

use std::fmt;
use std::sync::Arc;

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

/// The label of the operations a closure issues (see
/// [`with_call_label`](crate::with_call_label)): text shared between the operations it
/// is attached to, cheap to clone. Made from a string (`&str`, `String`, `&String`,
/// `Arc<str>`, `Box<str>`, `Cow<str>`), or with [`CallLabel::numbered`], which keeps its
/// number beside the shared text: a label per operation without formatting or
/// allocating one (the sim writes the digits into its record of the operation, and
/// into a message that names it). Reads as `""` when empty.
///
/// ```
/// use nccl_safe::CallLabel;
/// use std::sync::Arc;
///
/// let head: Arc<str> = "all_reduce #".into();
/// let tail: Arc<str> = " at train.rs:57".into();
/// let label = CallLabel::numbered(head, 7, tail);
/// assert_eq!(label.to_string(), "all_reduce #7 at train.rs:57");
/// assert_eq!(CallLabel::from("step").to_string(), "step");
/// assert_eq!(CallLabel::from(&String::from("step 2")).to_string(), "step 2");
/// assert!(CallLabel::from("").is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CallLabel(Label);

#[derive(Clone, Debug, Default)]
enum Label {
    #[default]
    None,
    Text(Arc<str>),
    Numbered(Arc<str>, u64, Arc<str>),
}

impl CallLabel {
    /// No label.
    pub const NONE: CallLabel = CallLabel(Label::None);

    /// The label `head`, `n` in decimal, `tail`: such as `all_reduce #` `7`
    /// ` at train.rs:57`. A caller that numbers its operations keeps `head` and
    /// `tail` and makes a label per operation without formatting or allocating.
    pub fn numbered(head: Arc<str>, n: u64, tail: Arc<str>) -> CallLabel {
        CallLabel(Label::Numbered(head, n, tail))
    }

    /// Whether the label is empty (none was set, or its text is empty).
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Label::None => true,
            Label::Text(t) => t.is_empty(),
            Label::Numbered(..) => false,
        }
    }

    /// Writes the label's bytes into `out`, as many as fit, cut at a character's
    /// boundary; the number of bytes written.
    pub(crate) fn write_into(&self, out: &mut [u8]) -> usize {
        fn put(out: &mut [u8], at: &mut usize, s: &str) -> bool {
            let room = out.len() - *at;
            let mut n = s.len().min(room);
            while !s.is_char_boundary(n) {
                n -= 1;
            }
            out[*at..*at + n].copy_from_slice(&s.as_bytes()[..n]);
            *at += n;
            n == s.len()
        }
        let mut at = 0;
        match &self.0 {
            Label::None => {}
            Label::Text(t) => {
                put(out, &mut at, t);
            }
            Label::Numbered(head, n, tail) => {
                let mut digits = [0u8; 20];
                let d = decimal(*n, &mut digits);
                let _ = put(out, &mut at, head) && put(out, &mut at, d) && put(out, &mut at, tail);
            }
        }
        at
    }
}

/// `n` in decimal, written at the end of `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[at..]).unwrap_or("")
}

impl fmt::Display for CallLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Label::None => Ok(()),
            Label::Text(t) => f.write_str(t),
            Label::Numbered(head, n, tail) => write!(f, "{head}{n}{tail}"),
        }
    }
}

impl From<Arc<str>> for CallLabel {
    fn from(text: Arc<str>) -> CallLabel {
        CallLabel(Label::Text(text))
    }
}

impl From<&str> for CallLabel {
    fn from(text: &str) -> CallLabel {
        CallLabel(Label::Text(text.into()))
    }
}

impl From<String> for CallLabel {
    fn from(text: String) -> CallLabel {
        CallLabel(Label::Text(text.into()))
    }
}

impl From<&String> for CallLabel {
    fn from(text: &String) -> CallLabel {
        CallLabel(Label::Text(text.as_str().into()))
    }
}

impl From<Box<str>> for CallLabel {
    fn from(text: Box<str>) -> CallLabel {
        CallLabel(Label::Text(text.into()))
    }
}

impl From<std::borrow::Cow<'_, str>> for CallLabel {
    fn from(text: std::borrow::Cow<'_, str>) -> CallLabel {
        CallLabel(Label::Text(text.into()))
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
