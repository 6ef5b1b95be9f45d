//! Slurm's compact notations: hostlists (`gpu[001-004,010]`), tasks-per-node lists
//! (`2(x3),1`), and the rendezvous port this crate derives from a job and step id.
//!
//! Everything here is a pure function of its arguments; nothing reads the
//! environment. Inputs come from the environment of a job, so every parser returns a
//! [`SyntaxError`] that quotes the input instead of panicking, and caps what one
//! string may expand to at [`MAX_EXPANSION`] entries.

use std::fmt::Write as _;

/// The most entries one hostlist or tasks-per-node string may expand to. Bigger
/// inputs are refused (they are mistakes, and expanding them would exhaust memory).
pub const MAX_EXPANSION: usize = 1 << 20;

/// The longest number (in digits) accepted inside brackets or a tasks-per-node list.
const MAX_DIGITS: usize = 18;

/// A hostlist or tasks-per-node string that does not follow Slurm's syntax.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SyntaxError {
    /// A malformed hostlist, or a host name that a hostlist cannot express.
    #[error("hostlist {input:?}: {reason}")]
    Hostlist {
        /// The string as given (for [`compress_hostlist`], the offending host).
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A malformed tasks-per-node list.
    #[error("tasks-per-node list {input:?}: {reason}")]
    TasksPerNode {
        /// The string as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// The variant's name and the `Display` text: what `fn main() -> Result<(), E>`
/// and `unwrap` print, so they name the values at fault as `Display` does.
impl std::fmt::Debug for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variant = match self {
            SyntaxError::Hostlist { .. } => "Hostlist",
            SyntaxError::TasksPerNode { .. } => "TasksPerNode",
        };
        write!(f, "SyntaxError::{variant}: {self}")
    }
}

fn hostlist_error(input: &str, reason: impl Into<String>) -> SyntaxError {
    SyntaxError::Hostlist {
        input: input.to_owned(),
        reason: reason.into(),
    }
}

fn tasks_error(input: &str, reason: impl Into<String>) -> SyntaxError {
    SyntaxError::TasksPerNode {
        input: input.to_owned(),
        reason: reason.into(),
    }
}

/// Parses a run of ASCII digits (no sign, no spaces) of at most [`MAX_DIGITS`].
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > MAX_DIGITS || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// One piece of a hostlist item: literal text, or a bracket group of numeric ranges.
enum Piece<'a> {
    Text(&'a str),
    /// `(lo, hi, width)`: numbers `lo..=hi`, each zero-padded to `width` digits.
    Ranges(Vec<(u64, u64, usize)>),
}

/// Expands a Slurm hostlist into host names, in order.
///
/// The syntax: host names separated by commas, where a name may hold bracket groups
/// of comma-separated numbers and inclusive ranges. `gpu[001-003,010]` is `gpu001`,
/// `gpu002`, `gpu003`, `gpu010`; `a1,b[1-2]` is `a1`, `b1`, `b2`. As in Slurm, each
/// number is zero-padded to the width of the range's lower bound as written (`[08-10]`
/// gives `08 09 10`, `[8-10]` gives `8 9 10`), and several groups in one name expand
/// to their cartesian product with the first group varying slowest:
/// `rack[1-2]-node[01-02]` is `rack1-node01`, `rack1-node02`, `rack2-node01`,
/// `rack2-node02`.
///
/// Errors: an empty list or empty name, unbalanced or nested brackets, empty
/// brackets, a bound that is not a decimal number, a range that runs backwards
/// (`gpu[3-1]`), whitespace, or more than [`MAX_EXPANSION`] hosts in all.
pub fn expand_hostlist(list: &str) -> Result<Vec<String>, SyntaxError> {
    if list.is_empty() {
        return Err(hostlist_error(list, "it is empty"));
    }
    if list.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(hostlist_error(
            list,
            "it contains whitespace or control characters",
        ));
    }
    let mut hosts = Vec::new();
    for item in split_top_level(list)? {
        if item.is_empty() {
            return Err(hostlist_error(
                list,
                "it has an empty host name (two commas in a row, or a comma at an end)",
            ));
        }
        let pieces = pieces(list, item)?;
        let mut count: usize = 1;
        for piece in &pieces {
            if let Piece::Ranges(ranges) = piece {
                let size = ranges.iter().try_fold(0usize, |sum, &(lo, hi, _)| {
                    usize::try_from(hi - lo)
                        .ok()?
                        .checked_add(1)?
                        .checked_add(sum)
                });
                count = size
                    .and_then(|s| count.checked_mul(s))
                    .unwrap_or(usize::MAX);
            }
        }
        if count > MAX_EXPANSION - hosts.len().min(MAX_EXPANSION) {
            return Err(hostlist_error(
                list,
                format!("it expands to more than {MAX_EXPANSION} hosts"),
            ));
        }
        hosts.extend(product(&pieces));
    }
    Ok(hosts)
}

/// Splits at the commas outside brackets, checking that brackets balance and do not
/// nest.
fn split_top_level(list: &str) -> Result<Vec<&str>, SyntaxError> {
    let mut items = Vec::new();
    let mut open = false;
    let mut start = 0;
    for (at, c) in list.char_indices() {
        match c {
            '[' if open => return Err(hostlist_error(list, "it nests `[` inside `[`")),
            '[' => open = true,
            ']' if !open => return Err(hostlist_error(list, "it has a `]` without a `[`")),
            ']' => open = false,
            ',' if !open => {
                items.push(&list[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    if open {
        return Err(hostlist_error(list, "it has a `[` that is never closed"));
    }
    items.push(&list[start..]);
    Ok(items)
}

/// Cuts one item (balanced, unnested brackets) into text and bracket groups.
fn pieces<'a>(list: &str, item: &'a str) -> Result<Vec<Piece<'a>>, SyntaxError> {
    let mut out = Vec::new();
    let mut rest = item;
    while let Some(open) = rest.find('[') {
        if open > 0 {
            out.push(Piece::Text(&rest[..open]));
        }
        let Some(close) = rest[open..].find(']').map(|c| open + c) else {
            return Err(hostlist_error(list, "it has a `[` that is never closed"));
        };
        let inside = &rest[open + 1..close];
        if inside.is_empty() {
            return Err(hostlist_error(list, "it has empty brackets `[]`"));
        }
        let mut ranges = Vec::new();
        for range in inside.split(',') {
            let (lo_text, hi_text) = range.split_once('-').unwrap_or((range, range));
            let (Some(lo), Some(hi)) = (digits(lo_text), digits(hi_text)) else {
                return Err(hostlist_error(
                    list,
                    format!(
                        "`{range}` in brackets is not a number or a range of numbers \
                         (up to {MAX_DIGITS} decimal digits each)"
                    ),
                ));
            };
            if lo > hi {
                return Err(hostlist_error(
                    list,
                    format!("the range `{range}` runs backwards"),
                ));
            }
            ranges.push((lo, hi, lo_text.len()));
        }
        out.push(Piece::Ranges(ranges));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// Every name the pieces spell, the first bracket group varying slowest.
fn product(pieces: &[Piece<'_>]) -> Vec<String> {
    let mut names = vec![String::new()];
    for piece in pieces {
        match piece {
            Piece::Text(text) => names.iter_mut().for_each(|name| name.push_str(text)),
            Piece::Ranges(ranges) => {
                let mut next = Vec::new();
                for name in &names {
                    for &(lo, hi, width) in ranges {
                        for n in lo..=hi {
                            let mut host = name.clone();
                            let _ = write!(host, "{n:0width$}");
                            next.push(host);
                        }
                    }
                }
                names = next;
            }
        }
    }
    names
}

/// A range of one bracket group being written: lower bound as written, upper bound
/// and upper bound as written.
type Run<'a> = (&'a str, u64, &'a str);

/// Writes host names as a Slurm hostlist that [`expand_hostlist`] turns back into
/// exactly the same names, in the same order (duplicates included).
///
/// Consecutive names that differ only in their last run of digits share one bracket
/// group, and numbers that follow each other (at the same zero padding) become a
/// range: `gpu001 gpu002 gpu003 gpu010 login` gives `gpu[001-003,010],login`. Only
/// the last run of digits is compressed, so `rack[1-2]-node[01-02]` comes back as
/// `rack1-node[01-02],rack2-node[01-02]`.
///
/// Errors: an empty list, an empty name, or a name holding `[`, `]`, `,`, whitespace
/// or control characters (which a hostlist cannot express).
pub fn compress_hostlist<S: AsRef<str>>(hosts: &[S]) -> Result<String, SyntaxError> {
    if hosts.is_empty() {
        return Err(hostlist_error("", "there are no hosts to write"));
    }
    let mut groups: Vec<(&str, &str, Vec<Run<'_>>)> = Vec::new();
    for host in hosts {
        let host = host.as_ref();
        if host.is_empty()
            || host
                .chars()
                .any(|c| matches!(c, '[' | ']' | ',') || c.is_whitespace() || c.is_control())
        {
            return Err(hostlist_error(
                host,
                "a host name must be non-empty and hold no brackets, commas or whitespace",
            ));
        }
        let Some((prefix, number, suffix)) = split_last_number(host) else {
            groups.push((host, "", Vec::new()));
            continue;
        };
        let value = digits(number).unwrap_or_default();
        match groups.last_mut() {
            Some((p, s, ranges)) if *p == prefix && *s == suffix && !ranges.is_empty() => {
                match ranges.last_mut() {
                    Some(last)
                        if last.1.checked_add(1) == Some(value)
                            && format!("{value:0width$}", width = last.0.len()) == number =>
                    {
                        last.1 = value;
                        last.2 = number;
                    }
                    _ => ranges.push((number, value, number)),
                }
            }
            _ => groups.push((prefix, suffix, vec![(number, value, number)])),
        }
    }
    let mut out = String::new();
    for (i, (prefix, suffix, ranges)) in groups.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match ranges.as_slice() {
            [] => out.push_str(prefix),
            [(lo, _, hi)] if lo == hi => {
                let _ = write!(out, "{prefix}{lo}{suffix}");
            }
            _ => {
                let _ = write!(out, "{prefix}[");
                for (j, (lo, _, hi)) in ranges.iter().enumerate() {
                    let comma = if j > 0 { "," } else { "" };
                    if lo == hi {
                        let _ = write!(out, "{comma}{lo}");
                    } else {
                        let _ = write!(out, "{comma}{lo}-{hi}");
                    }
                }
                let _ = write!(out, "]{suffix}");
            }
        }
    }
    Ok(out)
}

/// `(prefix, digits, suffix)` around the last run of digits of `host`, when that run
/// is short enough to compute with.
fn split_last_number(host: &str) -> Option<(&str, &str, &str)> {
    // Byte positions: next to an ASCII digit is always a character boundary.
    let bytes = host.as_bytes();
    let end = bytes.iter().rposition(u8::is_ascii_digit)? + 1;
    let start = bytes[..end]
        .iter()
        .rposition(|b| !b.is_ascii_digit())
        .map_or(0, |i| i + 1);
    let number = &host[start..end];
    digits(number)?;
    Some((&host[..start], number, &host[end..]))
}

/// Expands Slurm's tasks-per-node list (as in `SLURM_STEP_TASKS_PER_NODE`) into one
/// count per node, in node order: `2(x3),1` is `[2, 2, 2, 1]`.
///
/// Each comma-separated entry is a count `N` or `N(xM)`, meaning `N` on each of `M`
/// nodes (`M` at least 1). Errors: an empty list or entry, anything but decimal
/// digits where a number belongs, `(x0)`, whitespace, or more than
/// [`MAX_EXPANSION`] nodes.
pub fn expand_tasks_per_node(list: &str) -> Result<Vec<usize>, SyntaxError> {
    if list.is_empty() {
        return Err(tasks_error(list, "it is empty"));
    }
    let mut counts = Vec::new();
    for entry in list.split(',') {
        let (count, repeat) = match entry.split_once("(x") {
            Some((count, rest)) => {
                let Some(repeat) = rest.strip_suffix(')') else {
                    return Err(tasks_error(
                        list,
                        format!("the entry `{entry}` opens `(x` but does not end in `)`"),
                    ));
                };
                (count, repeat)
            }
            None => (entry, "1"),
        };
        let count = digits(count).and_then(|c| usize::try_from(c).ok());
        let repeat = digits(repeat).and_then(|r| usize::try_from(r).ok());
        let (Some(count), Some(repeat)) = (count, repeat) else {
            return Err(tasks_error(
                list,
                format!("the entry `{entry}` is not `N` or `N(xM)` with decimal N and M"),
            ));
        };
        if repeat == 0 {
            return Err(tasks_error(
                list,
                format!("the entry `{entry}` repeats zero times"),
            ));
        }
        if repeat > MAX_EXPANSION - counts.len() {
            return Err(tasks_error(
                list,
                format!("it expands to more than {MAX_EXPANSION} nodes"),
            ));
        }
        counts.extend(std::iter::repeat_n(count, repeat));
    }
    Ok(counts)
}

/// Writes per-node task counts in Slurm's tasks-per-node notation, runs of equal
/// counts as `N(xM)`: `[2, 2, 2, 1]` gives `2(x3),1`. [`expand_tasks_per_node`] turns
/// the result back into `counts`; an empty slice gives the empty string, which it
/// rejects.
pub fn compress_tasks_per_node(counts: &[usize]) -> String {
    let mut out = String::new();
    let mut rest = counts;
    while let Some(&first) = rest.first() {
        let run = rest.iter().take_while(|&&c| c == first).count();
        let comma = if out.is_empty() { "" } else { "," };
        if run == 1 {
            let _ = write!(out, "{comma}{first}");
        } else {
            let _ = write!(out, "{comma}{first}(x{run})");
        }
        rest = &rest[run..];
    }
    out
}

/// The first port of [`rendezvous_port`]'s range.
pub const PORT_BASE: u16 = 20_000;

/// The TCP port on which a Slurm job step's ranks meet, when the launcher names none:
///
/// `PORT_BASE + 10 * (job_id % 1000) + (step_id % 10)`, i.e. 20000 to 29999.
///
/// Why this formula: every rank computes it alone from `SLURM_JOB_ID` and
/// `SLURM_STEP_ID`, so all agree without talking. Two jobs whose first nodes coincide
/// get different ports unless their ids differ by a multiple of 1000, and up to ten
/// concurrent steps of one job (whose ids count up from 0) get different ports. The
/// range stays below Linux's default ephemeral range (32768 to 60999), from which the
/// kernel picks the local ports of outgoing connections, so such a connection cannot
/// already hold it.
pub fn rendezvous_port(job_id: u64, step_id: u64) -> u16 {
    // Both terms are below 10_000 before the cast, so the sum fits a u16.
    let offset = 10 * (job_id % 1000) + step_id % 10;
    PORT_BASE + u16::try_from(offset).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_refuses_signs_spaces_and_overlong_numbers() {
        assert_eq!(digits("007"), Some(7));
        for bad in ["", "+1", "-1", " 1", "1 ", "1x", "1234567890123456789"] {
            assert_eq!(digits(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn split_last_number_finds_the_last_digit_run() {
        assert_eq!(
            split_last_number("rack1-node01"),
            Some(("rack1-node", "01", ""))
        );
        assert_eq!(split_last_number("a7b"), Some(("a", "7", "b")));
        assert_eq!(split_last_number("12"), Some(("", "12", "")));
        assert_eq!(split_last_number("login"), None);
        assert_eq!(split_last_number("é1ü"), Some(("é", "1", "ü")));
    }

    #[test]
    fn ranges_count_before_expanding() {
        let huge = "n[0-999999999999]";
        assert!(matches!(
            expand_hostlist(huge),
            Err(SyntaxError::Hostlist { .. })
        ));
        let product = "a[0-2000]b[0-2000]";
        assert!(matches!(
            expand_hostlist(product),
            Err(SyntaxError::Hostlist { .. })
        ));
        assert!(expand_tasks_per_node("1(x1048577)").is_err());
        if cfg!(miri) {
            return; // a million-entry expansion takes minutes interpreted
        }
        assert_eq!(
            expand_tasks_per_node("1(x1048576)").map(|v| v.len()),
            Ok(1 << 20)
        );
    }

    #[test]
    fn port_formula_corners() {
        assert_eq!(rendezvous_port(0, 0), 20_000);
        assert_eq!(rendezvous_port(999, 9), 29_999);
        assert_eq!(rendezvous_port(u64::MAX, u64::MAX), 20_000 + 10 * 615 + 5);
        assert_eq!(rendezvous_port(12_345, 2), 23_452);
    }
}
