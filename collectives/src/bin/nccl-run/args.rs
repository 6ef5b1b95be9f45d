//! nccl-run's command line: parsing, checks, and the usage text.

use std::time::Duration;

pub const USAGE: &str = "\
usage: nccl-run -n N [options] [--] program [args...]

Starts N processes of `program` on this node, one per device, as the ranks of one job,
and supervises them. Every rank finds its place with `ProcessGroup::from_env`.

options:
  -n, --nproc N          processes on this node (required)
  --driver sim|cuda      sets NCCL_RS_DRIVER for the ranks (default: the environment's)
  --timeout S            stop every rank after S seconds (exit status 124)
  --grace S              after a rank fails (exits with an error, dies, or publishes
                         a failure), how long the others may run before they are
                         stopped (SIGTERM, then SIGKILL 0.5 s later; default 0.5)
  --max-restarts K       when the job's groups heal (ErrorPolicy::Shrink), restart a
                         rank whose process fails (dies, or exits with an error),
                         at most K times on this node: the new process gets
                         NCCL_RS_RESTART_COUNT and joins the running group through
                         a grow (ProcessGroup::admit on the others). Without it such
                         a job goes on without the failed rank. An error exit
                         stays the job's status (default 0)
  --tag-output           prefix every output line with [rank R]
  --nnodes M             nodes of the job (default 1)
  --node-rank K          this node's index, 0 to M-1 (default 0)
  --master HOST:PORT     where node 0 hosts the store (needed when M > 1)
  -h, --help             this text

Each rank gets NCCL_RS_RANK, NCCL_RS_WORLD_SIZE, NCCL_RS_LOCAL_RANK,
NCCL_RS_LOCAL_WORLD_SIZE, NCCL_RS_NODE_RANK, NCCL_RS_NNODES, NCCL_RS_STORE,
NCCL_RS_STORE_TOKEN, and NCCL_RUNTIME_CONNECT=0 unless it is set; a restarted rank
also NCCL_RS_RESTART_COUNT.

SIGINT, SIGTERM and SIGHUP are forwarded to every rank's process group. Each rank
runs in a process group of its own and is killed if nccl-run dies (even by SIGKILL);
what is left of a rank's process group (its background children) is killed when the
job ends.";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub struct Args {
    pub nproc: usize,
    pub driver: Option<String>,
    pub timeout: Option<Duration>,
    pub grace: Duration,
    pub max_restarts: usize,
    pub tag_output: bool,
    pub nnodes: usize,
    pub node_rank: usize,
    pub master: Option<(String, u16)>,
    pub program: Vec<String>,
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} {value:?}: not a valid number"))
}

fn seconds(flag: &str, value: &str) -> Result<Duration, String> {
    let s: f64 = number(flag, value)?;
    if !(s.is_finite() && s > 0.0 && s < 1e9) {
        return Err(format!(
            "{flag} {value:?}: must be a positive number of seconds"
        ));
    }
    Ok(Duration::from_secs_f64(s))
}

/// Parses the arguments after the program name; `Ok(None)` for `--help`.
pub fn parse(args: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args {
        nproc: 0,
        driver: None,
        timeout: None,
        grace: Duration::from_millis(500),
        max_restarts: 0,
        tag_output: false,
        nnodes: 1,
        node_rank: 0,
        master: None,
        program: Vec::new(),
    };
    let mut nproc = None;
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "--" {
            a.program = args[i + 1..].to_vec();
            break;
        }
        if !flag.starts_with('-') {
            a.program = args[i..].to_vec();
            break;
        }
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (flag, None),
        };
        let mut value = || -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "-n" | "--nproc" | "--nproc-per-node" => nproc = Some(number(flag, &value()?)?),
            "--driver" => {
                let d = value()?;
                if d != "sim" && d != "cuda" {
                    return Err(format!("--driver {d:?}: must be sim or cuda"));
                }
                a.driver = Some(d);
            }
            "--timeout" => a.timeout = Some(seconds(flag, &value()?)?),
            "--grace" => a.grace = seconds(flag, &value()?)?,
            "--max-restarts" => a.max_restarts = number(flag, &value()?)?,
            "--tag-output" => a.tag_output = true,
            "--nnodes" => a.nnodes = number(flag, &value()?)?,
            "--node-rank" => a.node_rank = number(flag, &value()?)?,
            "--master" => {
                let v = value()?;
                let (host, port) = v
                    .rsplit_once(':')
                    .ok_or_else(|| format!("--master {v:?}: expected HOST:PORT"))?;
                let port: u16 = number("--master port", port)?;
                let host = host.trim_start_matches('[').trim_end_matches(']');
                if host.is_empty() || port == 0 {
                    return Err(format!(
                        "--master {v:?}: expected HOST:PORT, port 1 to 65535"
                    ));
                }
                a.master = Some((host.to_string(), port));
            }
            other => return Err(format!("unknown option {other:?}")),
        }
        i += 1;
    }
    a.nproc = nproc.ok_or("-n N is required")?;
    if a.nproc == 0 || a.nproc > 4096 {
        return Err(format!("-n {}: must be 1 to 4096", a.nproc));
    }
    if a.nnodes == 0 {
        return Err("--nnodes 0: must be at least 1".into());
    }
    if a.node_rank >= a.nnodes {
        return Err(format!(
            "--node-rank {} is not below --nnodes {}",
            a.node_rank, a.nnodes
        ));
    }
    if a.nnodes > 1 && a.master.is_none() {
        return Err(format!(
            "--nnodes {} needs --master HOST:PORT (where node 0 hosts the store)",
            a.nnodes
        ));
    }
    if a.program.is_empty() {
        return Err("no program given (nccl-run -n N -- program args...)".into());
    }
    Ok(Some(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: &str) -> Result<Option<Args>, String> {
        let v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        parse(&v)
    }

    #[test]
    fn flags_parse() {
        let a = p("-n 4 --driver sim --timeout 30 --tag-output --grace=0.5 -- prog -n 2")
            .unwrap()
            .unwrap();
        assert_eq!(a.nproc, 4);
        assert_eq!(a.max_restarts, 0);
        assert_eq!(
            p("-n 2 --max-restarts 3 prog")
                .unwrap()
                .unwrap()
                .max_restarts,
            3
        );
        assert_eq!(a.driver.as_deref(), Some("sim"));
        assert_eq!(a.timeout, Some(Duration::from_secs(30)));
        assert_eq!(a.grace, Duration::from_millis(500));
        assert!(a.tag_output);
        assert_eq!(a.program, ["prog", "-n", "2"]);
        let m = p("-n 2 --nnodes 2 --node-rank 1 --master head:29500 prog")
            .unwrap()
            .unwrap();
        assert_eq!((m.nnodes, m.node_rank), (2, 1));
        assert_eq!(m.master, Some(("head".into(), 29500)));
        assert_eq!(m.program, ["prog"]);
        assert_eq!(p("--help").unwrap(), None);
    }

    #[test]
    fn bad_lines_name_the_value() {
        for (line, needle) in [
            ("prog", "-n N is required"),
            ("-n 0 prog", "-n 0"),
            ("-n x prog", "\"x\""),
            ("-n 2 --driver gpu prog", "\"gpu\""),
            ("-n 2 --timeout -1 prog", "\"-1\""),
            ("-n 2 --nnodes 2 prog", "--master"),
            (
                "-n 2 --nnodes 2 --node-rank 2 --master h:1 prog",
                "--node-rank 2",
            ),
            ("-n 2 --master h:0 prog", "h:0"),
            ("-n 2 --bogus prog", "--bogus"),
            ("-n 2 --max-restarts -1 prog", "\"-1\""),
            ("-n 2", "no program"),
            ("-n", "-n needs a value"),
        ] {
            let err = p(line).unwrap_err();
            assert!(err.contains(needle), "{line}: {err}");
        }
    }
}
