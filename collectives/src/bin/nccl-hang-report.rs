//! Merges flight-recorder dumps (JSON files written by process groups on a timeout,
//! under `NCCL_RS_TRACE_DIR`) and prints one line per finding.
//!
//! Usage: `nccl-hang-report DIR|FILE...` (a folder means every `*.json` in it).
//! Exits with 0 when nothing is stuck, 1 when something is, 2 on bad input.

use std::path::PathBuf;
use std::process::ExitCode;

use collectives::{Dump, hang_report};

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.is_empty() {
        eprintln!("usage: nccl-hang-report DIR|FILE...");
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    for a in args {
        if a.is_dir() {
            match std::fs::read_dir(&a) {
                Ok(entries) => {
                    let mut found: Vec<PathBuf> = entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "json"))
                        .collect();
                    found.sort();
                    files.extend(found);
                }
                Err(e) => {
                    eprintln!("{}: {e}", a.display());
                    return ExitCode::from(2);
                }
            }
        } else {
            files.push(a);
        }
    }
    let mut dumps = Vec::new();
    for f in &files {
        match Dump::read(f) {
            Ok(d) => dumps.push(d),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    }
    let lines = hang_report(&dumps);
    if lines.is_empty() {
        println!("nothing pending in {} dump(s)", dumps.len());
        return ExitCode::SUCCESS;
    }
    for l in &lines {
        println!("{l}");
    }
    ExitCode::from(1)
}
