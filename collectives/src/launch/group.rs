//! [`ProcessGroup::from_env`] and [`ProcessGroup::from_launch`]: a group from the
//! launcher's environment in one call — read the [`Launch`], pick the device, meet in
//! the rendezvous store, exchange the unique id, create the group (blocking there,
//! never in the first collective), and link it to the store for failures
//! (`link.rs`).
//!
//! # The rendezvous
//!
//! - The store is [`Launch::rendezvous`]. For `tcp://host:port` from `MASTER_ADDR`/
//!   `MASTER_PORT`, Slurm's derived address or an explicit value, rank 0 hosts the
//!   TCP store on that port, listening on the address's interface (loopback stays
//!   loopback; a host name of a job whose ranks are all on this host is served and
//!   reached on loopback; a name that resolves to loopback here is served on every
//!   interface when the job spans several hosts), and every rank connects to it. A store other
//!   hosts can reach needs the job token unless `NCCL_RS_STORE_INSECURE=1`; the
//!   store's connection limit is twice the world size plus 64, and it serves only
//!   clients of this job ([`Launch::job`]). An address from `NCCL_RS_STORE` names a
//!   store that already runs (`nccl-run`'s), so nobody hosts one. `torch+tcp://`
//!   (torchrun's agent store, `TORCHELASTIC_USE_AGENT_STORE=True`) is PyTorch's
//!   `TCPStore`, used through [`TorchStore`] with this job's keys under
//!   `nccl-rs/{job}/`. `file:///path` is a [`FileStore`](crate::store::FileStore) on
//!   a shared file system: use a fresh directory per job (old keys would be read as
//!   this job's). `pmix:` exchanges the id through the launcher's PMIx server
//!   (`launch::pmix`), with no store at all.
//! - The job token (`NCCL_RS_STORE_TOKEN`), when set, is required by the hosted store
//!   and presented by every client.
//! - The `n`-th group named `name` made by this process meets under the prefix
//!   `nccl-rs/{name}/{n}` through [`store::rendezvous`], rank 0's value being the hex
//!   of a new [`UniqueId`]: a constant number of requests per rank whatever the job's
//!   size, and no polling. The error names the store's address and the ranks missing
//!   (rank 0 tells the ranks still waiting whom it missed when it gives up).
//! - On cuda, when `NCCL_COMM_ID` is set, NCCL's own path is used instead: every rank
//!   asks NCCL for the id, which then names the bootstrap root at that address (rank
//!   0 hosts it); the store, if any, still carries failures.
//! - A job of one rank without a rendezvous address needs no store.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use nccl_safe::{Device, DriverKind, UniqueId};

use super::link::{Link, Place};
use super::{Launch, Rendezvous, Source};
use crate::state::lock;
use crate::store::{self, RendezvousError, TcpStoreServer};
use crate::store::{
    ClientOptions, FileStore, ServerOptions, Store, StoreError, TcpStore, TorchStore,
};
use crate::{Error, Options, ProcessGroup, Result};

/// The variable that lets rank 0 serve the store to other hosts without a token.
const INSECURE: &str = "NCCL_RS_STORE_INSECURE";

/// The store connection of one rank, and the server when this rank hosts it.
struct Rendezvoused {
    store: Arc<dyn Store>,
    tcp: Option<Arc<TcpStore>>,
    server: Option<TcpStoreServer>,
    addr: String,
}

impl ProcessGroup {
    /// Reads the launcher's environment ([`Launch::from_env`]) and creates the group
    /// as [`ProcessGroup::from_launch`] does.
    ///
    /// ```
    /// use collectives::{Launch, Options, Overrides, ProcessGroup};
    ///
    /// // One rank, no rendezvous needed; under a launcher, `ProcessGroup::from_env(opts)`.
    /// let launch = Launch::from_env_with(&Overrides { rank: Some(0), world_size: Some(1), ..Default::default() })?;
    /// let pg = ProcessGroup::from_launch(&launch, Options::new())?;
    /// assert_eq!((pg.rank(), pg.size()), (0, 1));
    /// # Ok::<(), collectives::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Launch`] for a missing, partial or contradictory environment; the
    /// errors of [`ProcessGroup::from_launch`].
    pub fn from_env(options: Options) -> Result<ProcessGroup> {
        let launch = Launch::from_env()?;
        ProcessGroup::from_launch(&launch, options)
    }

    /// Creates the group `launch` describes on this process's device
    /// ([`Launch::device`]): see the module documentation of `launch::group` for the
    /// rendezvous. Returns once every rank has joined (within `options`' timeout).
    ///
    /// # Errors
    ///
    /// [`Error::TooFewDevices`]; [`Error::NoRendezvous`] for several ranks without an
    /// address; [`Error::Store`] when the store cannot be hosted or reached;
    /// [`Error::Rendezvous`] naming the missing ranks; the group's own.
    pub fn from_launch(launch: &Launch, options: Options) -> Result<ProcessGroup> {
        let device = launch.device()?;
        ProcessGroup::from_launch_on(launch, &device, options)
    }

    /// Why the group refuses new work, if it does: its own abort (a timeout, an
    /// error, [`ProcessGroup::abort`]) or, for a group made by
    /// [`ProcessGroup::from_env`], another rank's failure seen through the store
    /// (`"rank 2 (pid 4711) failed: ..."`). Never blocks.
    pub fn aborted(&self) -> Option<String> {
        lock(&self.inner.refused).as_ref().map(|r| r.reason.clone())
    }

    /// [`ProcessGroup::from_launch`] on a device of the caller's choice.
    ///
    /// # Errors
    ///
    /// As [`ProcessGroup::from_launch`].
    pub fn from_launch_on(
        launch: &Launch,
        device: &Device,
        options: Options,
    ) -> Result<ProcessGroup> {
        options.validate()?;
        let (rank, size) = (launch.rank(), launch.world_size());
        if launch.rendezvous() == Some(&Rendezvous::Pmix) {
            let prefix = format!("nccl-rs/{}/{}", options.name, generation(&options.name));
            let id = super::pmix::exchange_id(launch, &prefix, device, &options)?;
            return ProcessGroup::new(device, rank, size, &id, options);
        }
        let comm_id =
            device.driver() == DriverKind::Cuda && std::env::var_os("NCCL_COMM_ID").is_some();
        let rdv = match &launch.rendezvous {
            Some(r) => Some(connect(launch, &r.value, &r.source, options.timeout)?),
            None if size == 1 || comm_id => None,
            None => {
                return Err(Error::NoRendezvous {
                    launch: launch.to_string(),
                });
            }
        };
        let prefix = format!("nccl-rs/{}/{}", options.name, generation(&options.name));
        if launch.restart_count() > 0 {
            // A restarted process: it joins the running group through a grow.
            let Some(r) = rdv else {
                return Err(Error::NoRendezvous {
                    launch: launch.to_string(),
                });
            };
            let js = crate::state::JobStore {
                store: r.store,
                tcp: r.tcp,
                addr: r.addr,
                base: prefix,
                report: launch.launcher != crate::launch::Launcher::NcclRun,
            };
            return crate::heal::join_as_replacement(device, js, r.server, options);
        }
        let ids = match &rdv {
            _ if comm_id => vec![UniqueId::nccl()?],
            None => vec![UniqueId::for_driver(device.driver())?],
            Some(r) => exchange_ids(r, &prefix, rank, size, device, &options)?,
        };
        let propagate = options.propagate_failures;
        let pg = ProcessGroup::new_scalable(device, rank, size, &ids, options)?;
        if let (Some(r), true) = (rdv, propagate) {
            // Under nccl-run the launcher prints the job's hang report; else rank 0.
            let report = launch.launcher != crate::launch::Launcher::NcclRun;
            let place = Place {
                addr: r.addr,
                base: prefix,
                epoch: 0,
            };
            Link::attach(&pg.inner, r.store, r.tcp, r.server, place, report)?;
        }
        Ok(pg)
    }
}

/// The `n` of this process's `n`-th group named `name` (every rank counts alike).
fn generation(name: &str) -> u64 {
    static COUNTS: OnceLock<Mutex<HashMap<String, u64>>> = OnceLock::new();
    let mut counts = lock(COUNTS.get_or_init(Default::default));
    let n = counts.entry(name.to_string()).or_insert(0);
    *n += 1;
    *n
}

/// Opens (and for rank 0, hosts when it should) the store at `rdv`.
fn connect(
    launch: &Launch,
    rdv: &Rendezvous,
    source: &Source,
    timeout: Duration,
) -> Result<Rendezvoused> {
    let addr = rdv.to_string();
    let store_err = |error: StoreError| Error::Store {
        addr: addr.clone(),
        error,
    };
    match rdv {
        Rendezvous::File(path) => {
            let store = FileStore::open(path).map_err(store_err)?;
            Ok(Rendezvoused {
                store: Arc::new(store),
                tcp: None,
                server: None,
                addr,
            })
        }
        // (from_launch_on takes the PMIx path before it connects to any store)
        Rendezvous::Pmix => Err(Error::Pmix {
            op: format!("connecting to {addr}"),
            what: "PMIx is no store".into(),
        }),
        Rendezvous::Torch { host, port } => {
            // The agent's store outlives restarted workers and holds PyTorch's keys:
            // this job's attempt gets a namespace of its own.
            let job = launch.job().unwrap_or("default");
            let namespace = format!("nccl-rs/{job}/");
            let opts = ClientOptions::new().connect_timeout(timeout);
            let store = TorchStore::connect(&hostport(host, *port), &namespace, &opts)
                .map_err(store_err)?;
            Ok(Rendezvoused {
                store: Arc::new(store),
                tcp: None,
                server: None,
                addr,
            })
        }
        Rendezvous::Tcp { host, port } => {
            let external = matches!(source, Source::Var(v) if v.name == "NCCL_RS_STORE");
            let job = launch.job.as_ref().map(|j| j.value.as_str());
            let server = if launch.rank() == 0 && !external {
                let bind = listen_addr(launch, host, *port).map_err(store_err)?;
                let size = launch.world_size();
                // Every rank may connect at once: room for all of them before hello.
                let mut opts = ServerOptions::for_job(size);
                if let Some(token) = launch.token() {
                    opts = opts.token(token);
                }
                if let Some(job) = job {
                    opts = opts.job(job);
                }
                if insecure_allowed() {
                    opts = opts.allow_no_token();
                }
                Some(TcpStoreServer::bind(&bind, opts).map_err(store_err)?)
            } else {
                None
            };
            let mut opts = ClientOptions::new().connect_timeout(timeout);
            if let Some(token) = launch.token() {
                opts = opts.token(token);
            }
            if let Some(job) = job {
                opts = opts.job(job);
            }
            let reach =
                loopback_for_name(launch, host, *port).unwrap_or_else(|| hostport(host, *port));
            let tcp = Arc::new(TcpStore::connect(&reach, opts).map_err(store_err)?);
            Ok(Rendezvoused {
                store: tcp.clone(),
                tcp: Some(tcp),
                server,
                addr,
            })
        }
    }
}

/// `host:port`, the host bracketed when it is an IPv6 address.
fn hostport(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Whether `NCCL_RS_STORE_INSECURE=1` lets rank 0 serve the store to other hosts
/// without a token.
fn insecure_allowed() -> bool {
    std::env::var(INSECURE).is_ok_and(|v| v == "1")
}

/// Whether every rank of `launch` runs on this host, as far as the launcher says
/// (explicit values alone do not say so).
fn on_one_host(launch: &Launch) -> bool {
    launch.launcher != super::Launcher::Explicit && launch.local_world_size() == launch.world_size()
}

/// Where the ranks of a job on one host reach a store named by a host *name*: the
/// loopback address, so that it needs no token and no other host reaches it.
fn loopback_for_name(launch: &Launch, host: &str, port: u16) -> Option<String> {
    (host.parse::<IpAddr>().is_err() && on_one_host(launch)).then(|| format!("127.0.0.1:{port}"))
}

/// Where rank 0 listens for the rendezvous address `host:port`: on that address's
/// interface, so that a loopback address stays loopback. A literal address is bound
/// as it is. A name, for a job on this host alone, is served on loopback (and
/// reached there: [`loopback_for_name`]); else it is resolved, and served on every
/// interface when it resolves to loopback here (as `/etc/hosts` often maps the
/// host's own name) though other hosts must reach it, else on its first address that
/// is one of this host's.
fn listen_addr(launch: &Launch, host: &str, port: u16) -> std::result::Result<String, StoreError> {
    let join = |ip: IpAddr| SocketAddr::new(ip, port).to_string();
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(join(ip));
    }
    if let Some(lo) = loopback_for_name(launch, host, port) {
        return Ok(lo);
    }
    let ips: Vec<IpAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| StoreError::Io {
            op: format!("resolving the rendezvous host {host:?}"),
            error: e.to_string(),
        })?
        .map(|a| a.ip())
        .collect();
    if let Some(lo) = ips.iter().find(|ip| ip.is_loopback()) {
        let any = if lo.is_ipv6() {
            IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED)
        } else {
            IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED)
        };
        return Ok(join(any));
    }
    for ip in &ips {
        // Binding port 0 tells whether the address is one of this host's.
        if std::net::TcpListener::bind(SocketAddr::new(*ip, 0)).is_ok() {
            return Ok(join(*ip));
        }
    }
    Err(StoreError::Io {
        op: format!("choosing where rank 0 serves the store for {host}:{port}"),
        error: format!(
            "{host} resolves to {ips:?}, none of them an address of this host: rank 0 must \
             run on the rendezvous host (check MASTER_ADDR, or the host the launcher \
             placed task 0 on)"
        ),
    })
}

/// The variable that sets how many ranks share one bootstrap root of NCCL's init.
const RANKS_PER_ROOT_VAR: &str = "NCCL_RS_RANKS_PER_ROOT";
/// Its default (PyTorch's `TORCH_NCCL_RANKS_PER_ROOT` has the same).
const RANKS_PER_ROOT: usize = 128;

/// How many ranks share one bootstrap root: `NCCL_RS_RANKS_PER_ROOT`, else 128.
fn ranks_per_root() -> Result<usize> {
    match std::env::var(RANKS_PER_ROOT_VAR) {
        Err(_) => Ok(RANKS_PER_ROOT),
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| Error::InvalidOption {
                option: RANKS_PER_ROOT_VAR,
                value: v,
                reason: "a whole number of ranks per bootstrap root, at least 1".into(),
            }),
    }
}

/// The ranks that host a bootstrap root when `size` ranks have `roots` roots: the
/// first rank of each root's share, rank 0 first.
fn root_ranks(size: usize, roots: usize) -> Vec<usize> {
    (0..roots).map(|k| k * size / roots).collect()
}

/// The unique ids of the group's init: one (rank 0's) for a job of at most
/// `NCCL_RS_RANKS_PER_ROOT` ranks (128 by default), else one per root where the
/// driver can use several ([`Communicator::init_scalable`](nccl_safe::Communicator::init_scalable):
/// the sim, or NCCL 2.23.4 and newer), so that NCCL's bootstrap does not funnel every
/// rank through one root. Each root rank makes its own id and sets
/// `root/{k}` (`none` when its NCCL cannot use several); rank 0 gathers them (or, if
/// any root said `none`, keeps its own alone) and every rank receives the list through
/// [`store::rendezvous`]: a constant number of requests per rank, and one per root for
/// rank 0.
fn exchange_ids(
    r: &Rendezvoused,
    prefix: &str,
    rank: usize,
    size: usize,
    device: &Device,
    options: &Options,
) -> Result<Vec<UniqueId>> {
    let store_err = |error: StoreError| Error::Store {
        addr: r.addr.clone(),
        error,
    };
    let start = Instant::now();
    let roots = size.div_ceil(ranks_per_root()?);
    let several = roots > 1
        && match device.driver() {
            DriverKind::Sim => true,
            DriverKind::Cuda => nccl_safe::nccl_features()
                .is_ok_and(|f| f.supports(nccl_safe::Feature::ScalableInit)),
        };
    let hosts = if roots > 1 {
        root_ranks(size, roots)
    } else {
        vec![0]
    };
    if let Some(k) = hosts.iter().position(|&h| h == rank).filter(|&k| k > 0) {
        let mine = if several {
            UniqueId::for_driver(device.driver())?.to_hex()
        } else {
            "none".to_string()
        };
        r.store
            .set(&format!("{prefix}/root/{k}"), mine.as_bytes())
            .map_err(store_err)?;
    }
    let value = match rank {
        0 => {
            let mut ids = vec![UniqueId::for_driver(device.driver())?.to_hex()];
            // (Rank 0's own NCCL decides too: without it, one root.)
            if several && hosts.len() > 1 {
                let keys: Vec<String> = (1..hosts.len())
                    .map(|k| format!("{prefix}/root/{k}"))
                    .collect();
                let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
                match r.store.wait(&refs, options.timeout) {
                    Ok(()) => {}
                    Err(StoreError::Timeout { missing, waited }) => {
                        let missing = missing
                            .iter()
                            .filter_map(|k| k.rsplit('/').next()?.parse::<usize>().ok())
                            .map(|k| hosts[k])
                            .collect();
                        return Err(Error::Rendezvous {
                            addr: r.addr.clone(),
                            group: options.name.clone(),
                            rank,
                            what: "waiting for the ids of the bootstrap roots".into(),
                            missing,
                            waited,
                        });
                    }
                    Err(e) => return Err(store_err(e)),
                }
                let mut theirs = Vec::with_capacity(keys.len());
                for key in &keys {
                    let v = r.store.get(key).map_err(store_err)?.unwrap_or_default();
                    theirs.push(String::from_utf8_lossy(&v).into_owned());
                }
                if theirs.iter().all(|t| t != "none") {
                    ids.extend(theirs);
                } else {
                    log::info!(
                        "group {}: a root's NCCL cannot use several bootstrap roots; one \
                         root serves the {size} ranks",
                        options.name
                    );
                }
            }
            Some(ids.join(","))
        }
        _ => None,
    };
    let id = value;
    let met: std::result::Result<Vec<u8>, RendezvousError> = store::rendezvous(
        &*r.store,
        prefix,
        rank,
        size,
        id.as_ref().map(String::as_bytes),
        // (Rank 0 may have spent some of it gathering the roots' ids.)
        options.timeout.saturating_sub(start.elapsed()),
    );
    let hex = match met {
        Ok(hex) => hex,
        Err(RendezvousError::Missing {
            what,
            missing,
            waited,
        }) => {
            return Err(Error::Rendezvous {
                addr: r.addr.clone(),
                group: options.name.clone(),
                rank,
                what,
                missing,
                waited,
            });
        }
        Err(RendezvousError::Store(error)) => {
            return Err(Error::Store {
                addr: r.addr.clone(),
                error,
            });
        }
        Err(e) => {
            return Err(Error::Store {
                addr: r.addr.clone(),
                error: StoreError::Protocol {
                    what: e.to_string(),
                },
            });
        }
    };
    let text = String::from_utf8_lossy(&hex);
    Ok(text
        .split(',')
        .map(UniqueId::from_hex)
        .collect::<nccl_safe::Result<Vec<_>>>()?)
}
