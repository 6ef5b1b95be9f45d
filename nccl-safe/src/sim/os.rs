//! The operating-system pieces the sim needs to span processes, and all of the sim's
//! FFI in one place: anonymous shared memory (`memfd_create` + `mmap`), futexes on
//! shared words, abstract Unix sockets that pass file descriptors (`SCM_RIGHTS`) and
//! report their peer's credentials, and process liveness from `/proc`.
//!
//! Everything here is anonymous: memfds and abstract socket names vanish with the
//! last process that holds them, so a SIGKILLed rank leaves nothing behind in
//! `/dev/shm` or `/tmp`.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::OnceLock;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

/// Under Miri, which cannot map files: each "memfd" is an unlinked temporary file
/// standing for a zeroed heap block, which every [`Mapping`] of that file (by its
/// inode, so duplicated descriptors too) shares. Only what the unit tests need (one
/// process; no descriptor passing).
#[cfg(miri)]
mod stand_in {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};

    pub(super) struct Block {
        pub ptr: *mut u8,
        pub len: usize,
    }

    // SAFETY: the block is plain memory that is only ever accessed atomically (as
    // the real shared mappings are).
    unsafe impl Send for Block {}
    // SAFETY: as above.
    unsafe impl Sync for Block {}

    impl Drop for Block {
        fn drop(&mut self) {
            // SAFETY: allocated in `register` with this layout, freed once.
            unsafe { std::alloc::dealloc(self.ptr, layout(self.len)) };
        }
    }

    fn layout(len: usize) -> std::alloc::Layout {
        std::alloc::Layout::from_size_align(len.max(1), 4096).expect("a valid layout")
    }

    pub(super) fn blocks() -> &'static Mutex<HashMap<u64, Arc<Block>>> {
        static B: OnceLock<Mutex<HashMap<u64, Arc<Block>>>> = OnceLock::new();
        B.get_or_init(Default::default)
    }

    /// The identity of the file behind `fd`: its inode.
    pub(super) fn inode(fd: &std::os::fd::OwnedFd) -> std::io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        let f = std::fs::File::from(fd.try_clone()?);
        Ok(f.metadata()?.ino())
    }

    pub(super) fn register(key: u64, len: usize) {
        // SAFETY: a nonzero size and a valid alignment.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout(len)) };
        assert!(
            !ptr.is_null(),
            "out of memory for a Miri stand-in of {len} bytes"
        );
        let mut b = blocks().lock().unwrap_or_else(|e| e.into_inner());
        b.insert(key, Arc::new(Block { ptr, len }));
    }

    pub(super) fn block(fd: &std::os::fd::OwnedFd) -> std::io::Result<Arc<Block>> {
        let key = inode(fd)?;
        let b = blocks().lock().unwrap_or_else(|e| e.into_inner());
        b.get(&key)
            .cloned()
            .ok_or_else(|| std::io::Error::other("not a memfd stand-in"))
    }
}

/// A new anonymous shared-memory file of `len` bytes (sparse: pages cost memory only
/// once touched), closed on exec.
#[cfg(miri)]
pub(crate) fn memfd(_name: &str, len: usize) -> io::Result<OwnedFd> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("nccl-rs-miri-{}-{n}", pid()));
    let fd: OwnedFd = std::fs::File::create(&path)?.into();
    let _ = std::fs::remove_file(&path);
    stand_in::register(stand_in::inode(&fd)?, len);
    Ok(fd)
}

/// A new anonymous shared-memory file of `len` bytes (sparse: pages cost memory only
/// once touched), closed on exec.
#[cfg(not(miri))]
pub(crate) fn memfd(name: &str, len: usize) -> io::Result<OwnedFd> {
    let cname = CString::new(name).map_err(|_| io::Error::other("NUL in a memfd name"))?;
    // SAFETY: a NUL-terminated name and valid flags; returns a new descriptor or -1.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned to us and is owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let size = libc::off_t::try_from(len).map_err(|_| io::Error::other("memfd too large"))?;
    // SAFETY: a valid descriptor we own.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), size) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

/// The size of the file behind `fd`.
#[cfg(miri)]
pub(crate) fn file_len(fd: &OwnedFd) -> io::Result<usize> {
    Ok(stand_in::block(fd)?.len)
}

/// The size of the file behind `fd`.
#[cfg(not(miri))]
pub(crate) fn file_len(fd: &OwnedFd) -> io::Result<usize> {
    // SAFETY: `stat` is plain data; fstat fills it for a valid descriptor.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and a valid out-pointer.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    usize::try_from(st.st_size).map_err(|_| io::Error::other("negative file size"))
}

/// A shared, read-write mapping of a whole file; unmapped on drop.
pub(crate) struct Mapping {
    ptr: *mut u8,
    len: usize,
    /// Under Miri, the heap block standing for the file.
    #[cfg(miri)]
    _block: std::sync::Arc<stand_in::Block>,
}

// SAFETY: the mapping is plain shared memory; every access through it is atomic (see
// `sim::memory`), so it may be used from any thread.
unsafe impl Send for Mapping {}
// SAFETY: as above.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps all `len` bytes of `fd`, shared.
    #[cfg(miri)]
    pub fn new(fd: &OwnedFd, len: usize) -> io::Result<Mapping> {
        let block = stand_in::block(fd)?;
        if len == 0 || len > block.len {
            return Err(io::Error::other("empty mapping, or past the end"));
        }
        Ok(Mapping {
            ptr: block.ptr,
            len,
            _block: block,
        })
    }

    /// Maps all `len` bytes of `fd`, shared.
    #[cfg(not(miri))]
    pub fn new(fd: &OwnedFd, len: usize) -> io::Result<Mapping> {
        if len == 0 {
            return Err(io::Error::other("empty mapping"));
        }
        // SAFETY: a fresh mapping at an address of the kernel's choice; it aliases no
        // Rust object.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping {
            ptr: ptr.cast(),
            len,
        })
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

#[cfg(not(miri))]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `new` mapped, once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Gives the pages of `[offset, offset + len)` of `fd` back to the system (they read
/// as zeroes afterwards).
pub(crate) fn punch_hole(fd: &OwnedFd, offset: usize, len: usize) {
    #[cfg(miri)]
    if let Ok(block) = stand_in::block(fd) {
        let end = offset.saturating_add(len).min(block.len);
        for i in offset.min(end)..end {
            // SAFETY: inside the block; every access to it is atomic.
            let b = unsafe { &*block.ptr.add(i).cast::<std::sync::atomic::AtomicU8>() };
            b.store(0, std::sync::atomic::Ordering::Relaxed);
        }
        return;
    }
    let (Ok(off), Ok(n)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
        return;
    };
    // SAFETY: a valid descriptor; the range is within the file. Failure only means the
    // memory stays resident.
    unsafe {
        libc::fallocate(
            fd.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            off,
            n,
        )
    };
}

/// Blocks while `*word == expected`, for at most `timeout`, or until woken. Works
/// across processes on shared mappings (not a private futex).
pub(crate) fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32),
    };
    // SAFETY: `word` is a live, aligned 32-bit word; the kernel only reads it.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
        )
    };
}

/// Wakes every waiter on `word`, in any process.
pub(crate) fn futex_wake_all(word: &AtomicU32) {
    // SAFETY: `word` is a live, aligned 32-bit word.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX) };
}

/// Whether `fd` becomes readable (or closed) within `timeout`.
pub(crate) fn poll_readable(fd: RawFd, timeout: Duration) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, ms) > 0 }
}

/// This process's id.
pub(crate) fn pid() -> u32 {
    std::process::id()
}

/// A random number naming this process, the same for its whole life and (with
/// overwhelming likelihood) different from every other process's: unlike a pid, it
/// tells processes of different pid namespaces apart (both may be pid 1) and is
/// never reused.
pub(crate) fn process_nonce() -> u64 {
    static NONCE: OnceLock<u64> = OnceLock::new();
    *NONCE.get_or_init(|| {
        let mut b = [0u8; 8];
        let from_kernel = std::fs::File::open("/dev/urandom")
            .and_then(|mut f| io::Read::read_exact(&mut f, &mut b))
            .is_ok();
        let n = u64::from_le_bytes(b);
        if from_kernel && n != 0 {
            return n;
        }
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(pid());
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish() | 1
    })
}

/// This process's lifeline: the read end of a pipe whose write end only this
/// process holds, for its whole life (close-on-exec, so programs it starts do not
/// hold it). Peers that receive the read end see it hang up when this process dies,
/// whatever pid namespace either is in.
pub(crate) fn lifeline() -> io::Result<RawFd> {
    static LIFELINE: OnceLock<(OwnedFd, OwnedFd)> = OnceLock::new();
    if let Some((read, _)) = LIFELINE.get() {
        return Ok(read.as_raw_fd());
    }
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    let pair = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // A racing thread's pair is dropped (closed) here; the one kept lives forever.
    let (read, _) = LIFELINE.get_or_init(|| pair);
    Ok(read.as_raw_fd())
}

/// Whether every writer of the pipe `fd` reads from has gone (its process died).
pub(crate) fn hung_up(fd: RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd; a zero timeout never blocks.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}

/// The real user id of this process.
pub(crate) fn uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}

/// The user and process on the other end of a Unix socket.
pub(crate) fn peer_cred(stream: &UnixStream) -> io::Result<(u32, u32)> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: a valid socket, and an out-buffer of the size passed.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((cred.uid, cred.pid as u32))
}

/// The most descriptors one message carries.
pub(crate) const MAX_FDS: usize = 250;

/// Sends `data` and `fds` in one message.
pub(crate) fn send_with_fds(stream: &UnixStream, data: &[u8], fds: &[RawFd]) -> io::Result<()> {
    if fds.len() > MAX_FDS {
        return Err(io::Error::other("too many descriptors for one message"));
    }
    let fd_bytes = std::mem::size_of_val(fds);
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(fd_bytes as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8).max(1)];
    let mut sent = 0;
    while sent < data.len() {
        let mut iov = libc::iovec {
            iov_base: data[sent..].as_ptr() as *mut libc::c_void,
            iov_len: data.len() - sent,
        };
        // SAFETY: `msghdr` is plain data; zero is a valid starting value.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        // The descriptors go with the first part only.
        if sent == 0 && !fds.is_empty() {
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = space as _;
            // SAFETY: the control buffer has room for one header with `fds`
            // (CMSG_SPACE) and is 8-byte aligned; CMSG_FIRSTHDR/CMSG_DATA point inside.
            unsafe {
                let cmsg = libc::CMSG_FIRSTHDR(&msg);
                (*cmsg).cmsg_level = libc::SOL_SOCKET;
                (*cmsg).cmsg_type = libc::SCM_RIGHTS;
                (*cmsg).cmsg_len = libc::CMSG_LEN(fd_bytes as u32) as _;
                std::ptr::copy_nonoverlapping(
                    fds.as_ptr().cast::<u8>(),
                    libc::CMSG_DATA(cmsg),
                    fd_bytes,
                );
            }
        }
        // SAFETY: `msg` points at live buffers set up above.
        let n = unsafe { libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        sent += n as usize;
    }
    Ok(())
}

/// Receives exactly `len` bytes and the descriptors sent with them (at most
/// `max_fds`).
pub(crate) fn recv_with_fds(
    stream: &UnixStream,
    len: usize,
    max_fds: usize,
) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    let mut data = vec![0u8; len];
    let mut fds = Vec::new();
    let mut got = 0;
    let max_fds = max_fds.min(MAX_FDS);
    // SAFETY: a pure size computation.
    let space = unsafe { libc::CMSG_SPACE((max_fds * std::mem::size_of::<RawFd>()) as u32) };
    let mut control = vec![0u64; (space as usize).div_ceil(8).max(1)];
    while got < len {
        let mut iov = libc::iovec {
            iov_base: data[got..].as_mut_ptr().cast(),
            iov_len: len - got,
        };
        // SAFETY: plain data.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: `msg` points at live buffers of the sizes given.
        let n = unsafe { libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the peer closed the connection",
            ));
        }
        // SAFETY: the kernel filled the control buffer; walk its headers as the
        // CMSG macros define, taking ownership of every descriptor received.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let bytes = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                    let n = bytes / std::mem::size_of::<RawFd>();
                    let p = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                    for i in 0..n {
                        fds.push(OwnedFd::from_raw_fd(p.add(i).read_unaligned()));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
        if msg.msg_flags & libc::MSG_CTRUNC != 0 {
            return Err(io::Error::other("descriptors were truncated"));
        }
        got += n as usize;
    }
    Ok((data, fds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn memfd_mappings_share_pages() {
        let fd = memfd("test", 1 << 20).unwrap();
        assert_eq!(file_len(&fd).unwrap(), 1 << 20);
        let a = Mapping::new(&fd, 1 << 20).unwrap();
        let b = Mapping::new(&fd, 1 << 20).unwrap();
        // SAFETY: both map the same live file; aligned word accesses.
        unsafe {
            let wa = &*(a.ptr().add(4096) as *const AtomicU32);
            let wb = &*(b.ptr().add(4096) as *const AtomicU32);
            wa.store(7, Ordering::SeqCst);
            assert_eq!(wb.load(Ordering::SeqCst), 7);
        }
        punch_hole(&fd, 0, 1 << 20);
        // SAFETY: as above.
        let w = unsafe { &*(b.ptr().add(4096) as *const AtomicU32) };
        assert_eq!(w.load(Ordering::SeqCst), 0, "a punched hole reads as zero");
    }

    #[test]
    fn descriptors_cross_a_socket_with_the_data() {
        let (a, b) = UnixStream::pair().unwrap();
        let fd = memfd("pass", 4096).unwrap();
        send_with_fds(&a, b"hello", &[fd.as_raw_fd()]).unwrap();
        let (data, fds) = recv_with_fds(&b, 5, 4).unwrap();
        assert_eq!(data, b"hello");
        assert_eq!(fds.len(), 1);
        assert_eq!(file_len(&fds[0]).unwrap(), 4096);
        let (uid_, pid_) = peer_cred(&a).unwrap();
        assert_eq!((uid_, pid_), (uid(), pid()));
    }

    #[test]
    fn a_lifeline_hangs_up_when_its_writers_are_gone_and_the_nonce_stays() {
        let mut fds = [0 as RawFd; 2];
        // SAFETY: pipe2 writes two new descriptors into the array.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: both were just created and are owned here only.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        assert!(!hung_up(read.as_raw_fd()), "a writer is alive");
        drop(write);
        assert!(hung_up(read.as_raw_fd()), "the last writer is gone");
        // This process's own lifeline does not hang up while it lives.
        let mine = lifeline().unwrap();
        assert_eq!(lifeline().unwrap(), mine, "one lifeline per process");
        assert!(!hung_up(mine));
        let n = process_nonce();
        assert_ne!(n, 0);
        assert_eq!(process_nonce(), n);
    }

    #[test]
    fn a_futex_wait_times_out_or_is_woken() {
        let w = std::sync::Arc::new(AtomicU32::new(0));
        let t = std::time::Instant::now();
        futex_wait(&w, 0, Duration::from_millis(20));
        assert!(t.elapsed() >= Duration::from_millis(15));
        futex_wait(&w, 1, Duration::from_secs(5)); // value differs: returns at once
        let w2 = w.clone();
        let waker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            w2.store(1, Ordering::SeqCst);
            futex_wake_all(&w2);
        });
        let t = std::time::Instant::now();
        while w.load(Ordering::SeqCst) == 0 {
            futex_wait(&w, 0, Duration::from_secs(5));
        }
        assert!(t.elapsed() < Duration::from_secs(4));
        waker.join().unwrap();
    }
}
