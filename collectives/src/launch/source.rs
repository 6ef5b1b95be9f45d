//! The values a [`Launch`](super::Launch) is made of besides the numbers: where a
//! value came from ([`Source`], [`Var`]), rendezvous addresses ([`Rendezvous`]), and
//! the caller's explicit values ([`Overrides`]).

use std::fmt;
use std::path::PathBuf;

/// An environment variable (or, in errors, an explicit value under a label such as
/// `explicit rank`) and its raw value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// The variable's name.
    pub name: &'static str,
    /// Its value, as found.
    pub value: String,
}

impl fmt::Display for Var {
    /// `NAME=value`, the value quoted when it is empty or holds anything but
    /// letters, digits and `_ . : / @ + -`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = !self.value.is_empty()
            && self
                .value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.:/@+-".contains(c));
        if plain {
            write!(f, "{}={}", self.name, self.value)
        } else {
            write!(f, "{}={:?}", self.name, self.value)
        }
    }
}

/// Where a value of a [`Launch`](super::Launch) came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// One environment variable.
    Var(Var),
    /// Several variables together (`MASTER_ADDR` and `MASTER_PORT`).
    Vars(Vec<Var>),
    /// [`Overrides`].
    Explicit,
    /// Computed from other values, for the reason given.
    Derived {
        /// How it was computed.
        reason: String,
        /// The variables (or explicit values) it was computed from.
        from: Vec<Var>,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Var(var) => write!(f, "{var}"),
            Source::Vars(vars) => {
                let each: Vec<String> = vars.iter().map(Var::to_string).collect();
                f.write_str(&each.join(", "))
            }
            Source::Explicit => f.write_str("explicit"),
            Source::Derived { reason, .. } => write!(f, "derived: {reason}"),
        }
    }
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T> Sourced<T> {
    pub(super) fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }
}

impl Sourced<usize> {
    /// The variables behind this value, for an error; `label` names an explicit one.
    pub(super) fn involved(&self, label: &'static str) -> Vec<Var> {
        match &self.source {
            Source::Var(var) => vec![var.clone()],
            Source::Vars(vars) | Source::Derived { from: vars, .. } => vars.clone(),
            Source::Explicit => vec![Var {
                name: label,
                value: self.value.to_string(),
            }],
        }
    }
}

/// Where the ranks of a job meet to exchange the NCCL unique id.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rendezvous {
    /// A TCP store at `host:port` (an IPv6 host without brackets).
    Tcp {
        /// Host name or address.
        host: String,
        /// Port.
        port: u16,
    },
    /// A file store at this path on a shared file system.
    File(PathBuf),
    /// The launcher's PMIx server exchanges the unique id; no store (see
    /// `launch::pmix`).
    Pmix,
    /// PyTorch's c10d `TCPStore` at `host:port`, served by someone else: torchrun's
    /// agent (`TORCHELASTIC_USE_AGENT_STORE=True`), or a program of the user's. Used
    /// through [`TorchStore`](crate::store::TorchStore).
    Torch {
        /// Host name or address.
        host: String,
        /// Port.
        port: u16,
    },
}

impl fmt::Display for Rendezvous {
    /// `tcp://host:port` (`tcp://[v6]:port`), `torch+tcp://host:port` or
    /// `file:///path`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hostport = |host: &str, port: u16| {
            if host.contains(':') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            }
        };
        match self {
            Rendezvous::Tcp { host, port } => write!(f, "tcp://{}", hostport(host, *port)),
            Rendezvous::Torch { host, port } => {
                write!(f, "torch+tcp://{}", hostport(host, *port))
            }
            Rendezvous::File(path) => write!(f, "file://{}", path.display()),
            Rendezvous::Pmix => f.write_str("pmix:"),
        }
    }
}

impl Rendezvous {
    /// Parses `tcp://host:port` (an IPv6 host may be bracketed), `torch+tcp://host:port`
    /// or `file:///path` (absolute); the error says what is wrong.
    pub(super) fn parse(url: &str) -> Result<Rendezvous, String> {
        if url == "pmix:" {
            return Ok(Rendezvous::Pmix);
        }
        if let Some(rest) = url.strip_prefix("torch+tcp://") {
            return match Rendezvous::parse(&format!("tcp://{rest}"))? {
                Rendezvous::Tcp { host, port } => Ok(Rendezvous::Torch { host, port }),
                other => Err(format!("unexpected {other}")),
            };
        }
        if let Some(rest) = url.strip_prefix("tcp://") {
            let Some((host, port)) = rest.rsplit_once(':') else {
                return Err("a tcp:// address needs a `:port`".to_owned());
            };
            let host = host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(host);
            if host.is_empty()
                || host.contains(['/', '[', ']'])
                || host.contains(char::is_whitespace)
            {
                return Err(format!("`{host}` is not a host name or address"));
            }
            let port = parse_port(port)?;
            Ok(Rendezvous::Tcp {
                host: host.to_owned(),
                port,
            })
        } else if let Some(path) = url.strip_prefix("file://") {
            if !path.starts_with('/') {
                return Err("a file:// address needs an absolute path (file:///path)".to_owned());
            }
            Ok(Rendezvous::File(PathBuf::from(path)))
        } else {
            Err("not tcp://host:port, torch+tcp://host:port, file:///path or pmix:".to_owned())
        }
    }
}

/// A TCP port to connect to: decimal digits, 1 to 65535.
pub(super) fn parse_port(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(port) if port > 0 && text.bytes().all(|b| b.is_ascii_digit()) => Ok(port),
        _ => Err(format!("`{text}` is not a port (1 to 65535)")),
    }
}

/// Values given by the caller, which win over the environment. All default to
/// `None`.
///
/// A field given here makes the matching variable of the detected convention
/// optional (and unread). With no launcher variables at all, `rank` and
/// `world_size` are required; the local rank then defaults to the rank and the local
/// world size to the world size (one node).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// This process's rank.
    pub rank: Option<usize>,
    /// Number of processes.
    pub world_size: Option<usize>,
    /// Rank among the processes on this node.
    pub local_rank: Option<usize>,
    /// Number of processes on this node.
    pub local_world_size: Option<usize>,
    /// Index of this node.
    pub node: Option<usize>,
    /// Number of nodes.
    pub nodes: Option<usize>,
    /// Where the ranks meet.
    pub rendezvous: Option<Rendezvous>,
    /// The job's shared secret.
    pub token: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_addresses_parse_and_print_back() {
        for url in [
            "tcp://head:29500",
            "tcp://[fe80::1]:7",
            "file:///shared/run",
        ] {
            let parsed = Rendezvous::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(parsed.to_string(), url);
        }
        let v6 = Rendezvous::parse("tcp://::1:80");
        assert_eq!(
            v6,
            Ok(Rendezvous::Tcp {
                host: "::1".into(),
                port: 80
            })
        );
        for bad in [
            "tcp://h",
            "tcp://:1",
            "tcp://h:0",
            "tcp://h:x",
            "tcp://a/b:1",
            "file://x",
            "h:1",
            "",
        ] {
            assert!(Rendezvous::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ports_are_decimal_and_nonzero() {
        assert_eq!(parse_port("65535"), Ok(65535));
        for bad in ["0", "65536", "+1", "", " 1", "0x10"] {
            assert!(parse_port(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn vars_quote_only_unusual_values() {
        let show = |value: &str| {
            Var {
                name: "X",
                value: value.into(),
            }
            .to_string()
        };
        assert_eq!(show("node-1.a:2/b@c+d_e"), "X=node-1.a:2/b@c+d_e");
        assert_eq!(show(""), "X=\"\"");
        assert_eq!(show("a b"), "X=\"a b\"");
        assert_eq!(show("n[1-2]"), "X=\"n[1-2]\"");
    }

    #[test]
    fn involved_names_explicit_values_by_label() {
        let explicit = Sourced::new(3, Source::Explicit);
        let vars = explicit.involved("explicit rank");
        assert_eq!(
            vars,
            vec![Var {
                name: "explicit rank",
                value: "3".into()
            }]
        );
        let from = vec![Var {
            name: "A",
            value: "1".into(),
        }];
        let derived = Sourced::new(
            1,
            Source::Derived {
                reason: "r".into(),
                from: from.clone(),
            },
        );
        assert_eq!(derived.involved("unused"), from);
    }
}
