//! The file store: [`FileStore`] keeps each key as a file in one directory of a file
//! system the processes share (`file:///path`), so that a job needs no server.
//!
//! **Names.** A key becomes a file name by keeping `a-z`, `0-9`, `_` and `-` and
//! writing every other byte as `%XX` (upper-case hex; upper-case letters too, so that
//! case-insensitive file systems cannot merge two keys). A name can therefore never be
//! `.` or `..`, contain `/` or NUL, or start with `.` (the prefix of the store's own
//! temporary and lock files). Names longer than 200 bytes are cut into 200-byte pieces,
//! all but the last a directory whose name ends in `+` (a character no escaped name
//! has), which keeps every path component under the usual 255-byte limit and the
//! mapping one-to-one. Those directories are left in place when keys are deleted.
//!
//! **Writes** go to a temporary file beside the target and are renamed over it, so a
//! reader sees the old value or the new one, never a part. Nothing is fsynced: the
//! store is for coordination while the job runs, not for durability. A process killed
//! in the middle of a write leaves its `.tmp-<pid>-<random>` file behind; such files
//! are never read and may be deleted.
//!
//! **Locking.** `set`, `add`, `compare_set` and `delete` hold a per-key lock file
//! (`<name>.lock`, created with `O_CREAT | O_EXCL` through `create_new`) for their
//! read-modify-write; `get` and `wait` read without it. O_EXCL rather than `flock`:
//! `flock` would need `libc` (or a newer Rust than this crate's minimum), its behaviour
//! on network file systems varies (it is dropped silently on some, emulated with
//! byte-range locks on others), whereas exclusive creation is atomic on local file
//! systems and on NFS from version 3 on. The price is that a process killed while
//! holding a lock leaves the file behind: a lock whose modification time is older than
//! [`FileStore::stale_lock_after`] (default 30 s; a lock is normally held for
//! microseconds) is broken by renaming it aside. If the file renamed aside turns out
//! to be fresh (another process broke the stale lock and took the lock in between),
//! it is linked back. What remains unsafe: a holder paused (not dead) for longer than
//! the stale age, and clocks of hosts that differ by more than it, since the age is
//! the local clock minus the file's time stamp.

use std::collections::hash_map::RandomState;
use std::fs::{self, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use super::{Store, StoreError, add_counter, check_key, deadline_after, short};

/// The longest piece of an escaped name in one path component.
const PIECE: usize = 200;
/// The longest pause between two polls of a `wait`, or two tries of a lock.
const MAX_POLL: Duration = Duration::from_millis(50);

/// A store kept as files in a directory. `Send + Sync`; any number of processes (on
/// any hosts that share the file system) may open the same directory at once.
#[derive(Clone, Debug)]
pub struct FileStore {
    dir: PathBuf,
    stale_after: Duration,
}

impl FileStore {
    /// Opens the store in `dir`, creating the directory (mode 0700, its parents as
    /// the umask says) when missing. Its files are created 0600: the job's unique id
    /// and flight records are for the job's user alone.
    ///
    /// # Errors
    ///
    /// [`StoreError::Unsafe`] for a directory that is not owned by this user or that
    /// others may write to (another user could plant or change keys);
    /// [`StoreError::Io`] when it cannot be created or is no directory.
    pub fn open(dir: impl AsRef<Path>) -> Result<FileStore, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        if let Some(parent) = dir.parent() {
            fs::create_dir_all(parent).map_err(|e| io("creating", parent, e))?;
        }
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io("creating the store directory", &dir, e)),
        }
        let meta = fs::metadata(&dir).map_err(|e| io("reading", &dir, e))?;
        if !meta.is_dir() {
            return Err(StoreError::Io {
                op: format!("opening the store directory {}", dir.display()),
                error: "not a directory".into(),
            });
        }
        let unsafe_dir = |reason: String| StoreError::Unsafe {
            path: dir.display().to_string(),
            reason,
        };
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        // (Miri answers geteuid with a fixed uid of its own, not the files' owner's.)
        if meta.uid() != me && !cfg!(miri) {
            return Err(unsafe_dir(format!(
                "the directory is owned by uid {}, not by this user (uid {me}): another \
                 user could read the job's keys or plant their own; use a directory of \
                 your own",
                meta.uid()
            )));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(unsafe_dir(format!(
                "the directory has mode {:04o}: others may write to it and plant or \
                 change keys; `chmod 700` it or use a fresh one",
                meta.mode() & 0o7777
            )));
        }
        Ok(FileStore {
            dir,
            stale_after: Duration::from_secs(30),
        })
    }

    /// How old a lock file must be before it is taken for the leftover of a dead
    /// process and broken (at least 1 ms). Keep it well above any pause a live process
    /// may take and any clock difference between the hosts.
    pub fn stale_lock_after(mut self, age: Duration) -> Result<FileStore, StoreError> {
        if age < Duration::from_millis(1) {
            return Err(StoreError::InvalidOption {
                option: "stale_lock_after",
                value: format!("{age:?}"),
                reason: "must be at least 1 ms".into(),
            });
        }
        self.stale_after = age;
        Ok(self)
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key` (see the module's documentation for the mapping).
    fn path_of(&self, key: &str) -> PathBuf {
        let name = escape(key);
        let mut path = self.dir.clone();
        let mut rest = name.as_str();
        while rest.len() > PIECE {
            let (piece, tail) = rest.split_at(PIECE);
            path.push(format!("{piece}+"));
            rest = tail;
        }
        path.push(rest);
        path
    }

    /// Takes the lock of the key stored at `path`, breaking a stale one.
    fn lock(&self, key: &str, path: &Path) -> Result<LockGuard, StoreError> {
        let lock_path = sibling(path, ".lock");
        let nonce = format!("{} {:016x}", std::process::id(), random());
        let start = Instant::now();
        let patience = self.stale_after * 2 + Duration::from_secs(1);
        let mut pause = Duration::from_micros(100);
        loop {
            match private_file().open(&lock_path) {
                Ok(mut f) => {
                    if let Err(e) = f.write_all(nonce.as_bytes()) {
                        let _ = fs::remove_file(&lock_path);
                        return Err(io("writing the lock", &lock_path, e));
                    }
                    return Ok(LockGuard {
                        path: lock_path,
                        nonce,
                    });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    if self.break_if_stale(&lock_path)? {
                        continue;
                    }
                }
                Err(e) if e.kind() == ErrorKind::NotFound => make_parent(&lock_path)?,
                Err(e) => return Err(io("creating the lock", &lock_path, e)),
            }
            if start.elapsed() > patience {
                return Err(StoreError::Io {
                    op: format!("locking key {:?}", short(key)),
                    error: format!(
                        "{} is still held after {:?}",
                        lock_path.display(),
                        start.elapsed()
                    ),
                });
            }
            thread::sleep(pause);
            pause = (pause * 2).min(MAX_POLL);
        }
    }

    /// Breaks the lock at `lock_path` if it is older than the stale age; returns
    /// whether it is gone (broken by us, or released meanwhile).
    fn break_if_stale(&self, lock_path: &Path) -> Result<bool, StoreError> {
        let age = match file_age(lock_path) {
            Ok(age) => age,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(io("reading the lock", lock_path, e)),
        };
        if age < self.stale_after {
            return Ok(false);
        }
        let aside = sibling(lock_path, &format!(".stale-{:016x}", random()));
        match fs::rename(lock_path, &aside) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(io("breaking the stale lock", lock_path, e)),
        }
        if file_age(&aside).is_ok_and(|age| age < self.stale_after) {
            // Someone broke it first and holds a fresh lock: give it back.
            if fs::hard_link(&aside, lock_path).is_err() {
                log::warn!(
                    "file store: could not restore the lock {}",
                    lock_path.display()
                );
            }
        } else {
            log::warn!(
                "file store: broke the stale lock {} ({age:?} old)",
                lock_path.display()
            );
        }
        let _ = fs::remove_file(&aside);
        Ok(true)
    }

    /// Replaces the file at `path` with `value` through a temporary file and a rename.
    fn write(&self, path: &Path, value: &[u8]) -> Result<(), StoreError> {
        let tmp = sibling_in_dir(
            path,
            &format!(".tmp-{}-{:016x}", std::process::id(), random()),
        );
        let mut f = match private_file().open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                make_parent(&tmp)?;
                private_file()
                    .open(&tmp)
                    .map_err(|e| io("creating", &tmp, e))?
            }
            Err(e) => return Err(io("creating", &tmp, e)),
        };
        let written = f.write_all(value).and_then(|()| fs::rename(&tmp, path));
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(io("writing", path, e));
        }
        Ok(())
    }

    fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        match fs::read(path) {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io("reading", path, e)),
        }
    }
}

impl Store for FileStore {
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        check_key(key)?;
        let path = self.path_of(key);
        let _lock = self.lock(key, &path)?;
        self.write(&path, value)
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        self.read(&self.path_of(key))
    }

    fn wait(&self, keys: &[&str], timeout: Duration) -> Result<(), StoreError> {
        keys.iter().try_for_each(|k| check_key(k))?;
        let start = Instant::now();
        let deadline = deadline_after(timeout);
        let mut pause = Duration::from_millis(1);
        loop {
            let mut missing = Vec::new();
            for key in keys {
                let path = self.path_of(key);
                if !path.try_exists().map_err(|e| io("looking for", &path, e))? {
                    missing.push(key.to_string());
                }
            }
            if missing.is_empty() {
                return Ok(());
            }
            let left = deadline.map_or(MAX_POLL, |d| d.saturating_duration_since(Instant::now()));
            if left.is_zero() {
                return Err(StoreError::Timeout {
                    missing,
                    waited: start.elapsed(),
                });
            }
            thread::sleep(pause.min(left));
            pause = (pause * 2).min(MAX_POLL);
        }
    }

    fn add(&self, key: &str, delta: i64) -> Result<i64, StoreError> {
        check_key(key)?;
        let path = self.path_of(key);
        let _lock = self.lock(key, &path)?;
        let current = self.read(&path)?;
        let (new, bytes) = add_counter(key, current.as_deref(), delta)?;
        self.write(&path, &bytes)?;
        Ok(new)
    }

    fn compare_set(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<Option<Vec<u8>>, StoreError> {
        check_key(key)?;
        let path = self.path_of(key);
        let _lock = self.lock(key, &path)?;
        let current = self.read(&path)?;
        if current.as_deref() != expected {
            return Ok(current);
        }
        self.write(&path, new)?;
        Ok(Some(new.to_vec()))
    }

    fn delete(&self, key: &str) -> Result<bool, StoreError> {
        check_key(key)?;
        let path = self.path_of(key);
        let _lock = self.lock(key, &path)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io("deleting", &path, e)),
        }
    }
}

/// A held lock file; dropping it removes the file if it is still ours.
struct LockGuard {
    path: PathBuf,
    nonce: String,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        match fs::read(&self.path) {
            Ok(content) if content == self.nonce.as_bytes() => {
                let _ = fs::remove_file(&self.path);
            }
            _ => log::warn!(
                "file store: lost the lock {} while holding it",
                self.path.display()
            ),
        }
    }
}

/// The escaped file name of `key`.
fn escape(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `path` with `suffix` appended to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// A file named `name` in the directory of `path`.
fn sibling_in_dir(path: &Path, name: &str) -> PathBuf {
    path.with_file_name(name)
}

fn make_parent(path: &Path) -> Result<(), StoreError> {
    match path.parent() {
        Some(dir) => fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| io("creating", dir, e)),
        None => Ok(()),
    }
}

/// Options that create a new file readable and writable by this user alone.
fn private_file() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true).mode(0o600);
    o
}

/// How long ago (by this host's clock) `path` was last modified.
fn file_age(path: &Path) -> std::io::Result<Duration> {
    let modified = fs::metadata(path)?.modified()?;
    Ok(SystemTime::now()
        .duration_since(modified)
        .unwrap_or(Duration::ZERO))
}

/// 64 random bits (from the standard library's randomly seeded hasher).
fn random() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    h.finish()
}

fn io(op: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io {
        op: format!("{op} {}", path.display()),
        error: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_names_are_safe_and_distinct() {
        for (key, name) in [
            ("rank0/addr", "rank0%2Faddr"),
            ("..", "%2E%2E"),
            (".", "%2E"),
            ("A", "%41"),
            ("a\0b", "a%00b"),
            ("é", "%C3%A9"),
            ("%41", "%2541"),
        ] {
            assert_eq!(escape(key), name);
        }
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path()).unwrap();
        for key in ["..", "../escape", "/etc/passwd", "a/../../b", "nul\0key"] {
            let path = store.path_of(key);
            assert_eq!(
                path.parent(),
                Some(dir.path()),
                "{key:?} -> {}",
                path.display()
            );
            store.set(key, key.as_bytes()).unwrap();
            assert_eq!(store.get(key).unwrap().as_deref(), Some(key.as_bytes()));
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 5);
    }

    #[test]
    fn long_keys_are_split_into_short_components_without_collisions() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path()).unwrap();
        let long = "K".repeat(super::super::MAX_KEY_LEN);
        let prefix = "k".repeat(PIECE);
        let keys = [
            long.as_str(),
            &prefix,
            &format!("{prefix}x"),
            &format!("{prefix}+"),
        ];
        for key in keys {
            let path = store.path_of(key);
            for c in path.strip_prefix(dir.path()).unwrap().components() {
                assert!(c.as_os_str().len() <= PIECE + 1);
            }
            store.set(key, key.as_bytes()).unwrap();
        }
        for key in keys {
            assert_eq!(store.get(key).unwrap().as_deref(), Some(key.as_bytes()));
            assert!(matches!(store.add(key, 0), Err(StoreError::Counter { .. })));
        }
        assert!(store.delete(&long).unwrap());
        assert_eq!(store.get(&long).unwrap(), None);
    }

    #[test]
    fn a_stale_lock_is_broken_and_a_fresh_one_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path())
            .unwrap()
            .stale_lock_after(Duration::from_millis(300))
            .unwrap();
        let lock = sibling(&store.path_of("c"), ".lock");
        let f = fs::File::create(&lock).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(60))
            .unwrap();
        let t = Instant::now();
        assert_eq!(store.add("c", 1).unwrap(), 1);
        assert!(
            t.elapsed() < Duration::from_millis(250),
            "{:?}",
            t.elapsed()
        );
        assert!(!lock.exists());

        fs::File::create(&lock).unwrap();
        let t = Instant::now();
        assert_eq!(store.add("c", 1).unwrap(), 2);
        assert!(
            t.elapsed() >= Duration::from_millis(250),
            "{:?}",
            t.elapsed()
        );
        assert!(store.stale_lock_after(Duration::ZERO).is_err());
    }
}
