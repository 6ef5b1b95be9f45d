//! The data movement of each collective on the sim: once every rank has published
//! where its buffers are, each rank moves *its share* of the data, reading its peers'
//! device memory in place (mapped, as CUDA IPC does) and writing every output once:
//!
//! | collective | share of rank `me` |
//! |---|---|
//! | all-reduce, reduce | element chunk `me` of the reduction, written to every output (the root's) |
//! | reduce-scatter | block `me` of the reduction, into its own output |
//! | broadcast | chunk `me` of the root's input, to every output |
//! | all-gather, gather | its input, into block `me` of every output (the root's) |
//! | scatter, all-to-all, receive | its own output, from the inputs that feed it |
//!
//! A collective of at most [`ONE_RANK_MAX`] bytes per rank is done whole by the rank
//! that arrives last (it runs every rank's share in turn: the same data movement).
//!
//! So every input is read once and every output written once (the minimum traffic),
//! the work is split across the ranks' threads, and nothing is allocated per call
//! (each stream worker keeps its scratch). Within a chunk, a block of every input is
//! folded before the outputs are written, so in-place collectives are exact.

use std::cell::RefCell;

use super::memory::{BLOCK, load, store_stream};
use super::reduce::{Combine, accumulate, finish};
use crate::DType;
use crate::base::op::Kind;

/// The largest collective (the most bytes any rank reads or writes) that the rank
/// arriving last does alone: below it, hand-offs between the ranks' threads cost more
/// than the data, and one rank doing it all saves a round of them (the others only
/// wait for its completion). Above it, every rank does its share.
pub(super) const ONE_RANK_MAX: usize = 32 << 10;

/// One rank's buffers, as addresses in this process (`None`: none given).
#[derive(Clone, Copy, Debug)]
pub(super) struct Buffers {
    pub send: Option<*mut u8>,
    pub recv: Option<*mut u8>,
}

/// Everything a rank needs to do its share of one collective.
pub(super) struct Share<'a> {
    pub kind: Kind,
    pub dtype: DType,
    /// Elements per rank, as the collective's count.
    pub count: usize,
    pub root: usize,
    pub op: Combine,
    pub me: usize,
    /// Every rank's buffers (index = rank).
    pub bufs: &'a [Buffers],
    /// Every rank's PreMulSum scalar (little-endian bytes).
    pub scalars: &'a [u64],
    /// The rank order reductions fold in.
    pub order: &'a [usize],
}

/// Bytes a rank reads from `send` and writes to `recv` for `kind` (0 when it has
/// none), for `n` ranks and `count` elements of `esz` bytes.
pub(super) fn lengths(
    kind: Kind,
    count: usize,
    esz: usize,
    n: usize,
    is_root: bool,
) -> (usize, usize) {
    let b = count * esz;
    let root_only = |x: usize| if is_root { x } else { 0 };
    match kind {
        Kind::AllReduce => (b, b),
        Kind::Broadcast => (root_only(b), b),
        Kind::Reduce => (b, root_only(b)),
        Kind::AllGather => (b, n * b),
        Kind::ReduceScatter => (n * b, b),
        Kind::AllToAll => (n * b, n * b),
        Kind::Gather => (b, root_only(n * b)),
        Kind::Scatter => (root_only(n * b), b),
        Kind::Send => (b, 0),
        Kind::Recv => (0, b),
    }
}

#[derive(Default)]
struct Scratch {
    acc: Vec<u64>,
    x: Vec<u64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Private, 8-byte aligned scratch of `len` bytes.
fn bytes(v: &mut Vec<u64>, len: usize) -> &mut [u8] {
    let words = len.div_ceil(8);
    if v.len() < words {
        v.resize(words, 0);
    }
    // SAFETY: `u64`s viewed as the bytes they are made of; length in range.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

fn missing(what: &str, rank: usize) -> String {
    format!("rank {rank} gave no {what} buffer for this collective")
}

/// Offsets `p` by `bytes`.
fn at(p: *mut u8, bytes: usize) -> *mut u8 {
    p.wrapping_add(bytes)
}

impl Share<'_> {
    fn n(&self) -> usize {
        self.bufs.len()
    }

    fn send(&self, r: usize) -> Result<*mut u8, String> {
        self.bufs[r].send.ok_or_else(|| missing("send", r))
    }

    fn recv(&self, r: usize) -> Result<*mut u8, String> {
        self.bufs[r].recv.ok_or_else(|| missing("receive", r))
    }

    /// Element range of chunk `c` of `total` elements.
    fn chunk(&self, c: usize, total: usize) -> (usize, usize) {
        let n = self.n();
        (c * total / n, (c + 1) * total / n)
    }

    /// Does this rank's share. Every pointer was resolved and bounds-checked against
    /// its arena by the caller, for the lengths of [`lengths`].
    pub fn run(&self) -> Result<(), String> {
        let esz = self.dtype.size();
        let n = self.n();
        let count = self.count;
        match self.kind {
            Kind::AllReduce | Kind::Reduce => {
                let (lo, hi) = self.chunk(self.me, count);
                let outputs: Vec<*mut u8> = if self.kind == Kind::AllReduce {
                    (0..n).map(|r| self.recv(r)).collect::<Result<_, _>>()?
                } else {
                    vec![self.recv(self.root)?]
                };
                let inputs: Vec<*mut u8> =
                    (0..n).map(|r| self.send(r)).collect::<Result<_, _>>()?;
                self.reduce(&inputs, lo * esz, &outputs, lo * esz, (hi - lo) * esz);
            }
            Kind::ReduceScatter => {
                let inputs: Vec<*mut u8> =
                    (0..n).map(|r| self.send(r)).collect::<Result<_, _>>()?;
                let out = self.recv(self.me)?;
                self.reduce(&inputs, self.me * count * esz, &[out], 0, count * esz);
            }
            Kind::Broadcast => {
                let (lo, hi) = self.chunk(self.me, count);
                let src = at(self.send(self.root)?, lo * esz);
                let outs: Vec<*mut u8> = (0..n)
                    .map(|r| self.recv(r).map(|p| at(p, lo * esz)))
                    .collect::<Result<_, _>>()?;
                fan_out(src, &outs, (hi - lo) * esz);
            }
            Kind::AllGather => {
                let src = self.send(self.me)?;
                let outs: Vec<*mut u8> = (0..n)
                    .map(|r| self.recv(r).map(|p| at(p, self.me * count * esz)))
                    .collect::<Result<_, _>>()?;
                fan_out(src, &outs, count * esz);
            }
            Kind::Gather => {
                let src = self.send(self.me)?;
                let out = at(self.recv(self.root)?, self.me * count * esz);
                fan_out(src, &[out], count * esz);
            }
            Kind::Scatter => {
                let src = at(self.send(self.root)?, self.me * count * esz);
                fan_out(src, &[self.recv(self.me)?], count * esz);
            }
            Kind::AllToAll => {
                let out = self.recv(self.me)?;
                for s in 0..n {
                    let src = at(self.send(s)?, self.me * count * esz);
                    fan_out(src, &[at(out, s * count * esz)], count * esz);
                }
            }
            Kind::Send | Kind::Recv => {}
        }
        Ok(())
    }

    /// Folds `len` bytes at `in_off` of every input (in `order`) and writes the result
    /// at `out_off` of every output, a block at a time.
    fn reduce(
        &self,
        inputs: &[*mut u8],
        in_off: usize,
        outputs: &[*mut u8],
        out_off: usize,
        len: usize,
    ) {
        let n = self.n();
        SCRATCH.with(|s| {
            let s = &mut *s.borrow_mut();
            let step = BLOCK.min(len.max(1)).div_ceil(8) * 8;
            let (acc, x) = (bytes(&mut s.acc, step), bytes(&mut s.x, step));
            let mut done = 0;
            while done < len {
                let b = step.min(len - done);
                for (i, &r) in self.order.iter().enumerate() {
                    // SAFETY: inside input `r`'s checked range.
                    unsafe { load(at(inputs[r], in_off + done), &mut x[..b]) };
                    accumulate(
                        self.dtype,
                        self.op,
                        &mut acc[..b],
                        &mut x[..b],
                        i == 0,
                        n,
                        self.scalars[r],
                    );
                }
                finish(self.dtype, self.op, &mut acc[..b], n);
                for &o in outputs {
                    let dst = at(o, out_off + done);
                    // An output that is also an input (in place) was just read: it is
                    // in the cache, where a plain store is cheapest.
                    let cached = inputs
                        .iter()
                        .any(|&i| std::ptr::eq(at(i, in_off + done), dst));
                    let stream_len = if cached { 0 } else { len };
                    // SAFETY: inside output `o`'s checked range.
                    unsafe { store_stream(dst, &acc[..b], stream_len) };
                }
                done += b;
            }
        });
    }
}

/// Copies `len` bytes at `src` to every one of `outs` (reading `src` once), skipping
/// an output that is `src` itself.
pub(super) fn fan_out(src: *mut u8, outs: &[*mut u8], len: usize) {
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        let step = BLOCK.min(len.max(1));
        let buf = bytes(&mut s.x, step);
        let mut done = 0;
        while done < len {
            let b = step.min(len - done);
            // SAFETY: inside the caller's checked source range.
            unsafe { load(at(src, done), &mut buf[..b]) };
            for &o in outs {
                if !std::ptr::eq(o, src) {
                    // SAFETY: inside the caller's checked output range.
                    unsafe { store_stream(at(o, done), &buf[..b], len) };
                }
            }
            done += b;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(values: &[f32]) -> Vec<u64> {
        let mut v = vec![0u64; values.len().div_ceil(2)];
        let b = bytes(&mut v, values.len() * 4);
        for (c, x) in b.chunks_exact_mut(4).zip(values) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        v
    }

    fn read(v: &mut [u64], len: usize) -> Vec<f32> {
        let p = v.as_mut_ptr().cast::<u8>();
        // SAFETY: reading the words' own bytes.
        let b = unsafe { std::slice::from_raw_parts(p, len * 4) };
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn shares_of_an_all_reduce_in_place_cover_every_element_once() {
        // Three ranks, 7 elements, in place: every rank's share together must give
        // every rank the sum, whatever order the shares run in.
        let mut mem: Vec<Vec<u64>> = (0..3)
            .map(|r| buf(&(0..7).map(|i| (r * 10 + i) as f32).collect::<Vec<_>>()))
            .collect();
        let bufs: Vec<Buffers> = mem
            .iter_mut()
            .map(|m| Buffers {
                send: Some(m.as_mut_ptr().cast()),
                recv: Some(m.as_mut_ptr().cast()),
            })
            .collect();
        for me in [2, 0, 1] {
            Share {
                kind: Kind::AllReduce,
                dtype: DType::F32,
                count: 7,
                root: 0,
                op: Combine::Sum,
                me,
                bufs: &bufs,
                scalars: &[0; 3],
                order: &[1, 2, 0],
            }
            .run()
            .unwrap();
        }
        for m in &mut mem {
            assert_eq!(
                read(m, 7),
                (0..7).map(|i| (30 + 3 * i) as f32).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn lengths_follow_the_collectives() {
        assert_eq!(lengths(Kind::AllGather, 3, 4, 5, false), (12, 60));
        assert_eq!(lengths(Kind::Reduce, 3, 4, 5, false), (12, 0));
        assert_eq!(lengths(Kind::Scatter, 3, 4, 5, true), (60, 12));
        assert_eq!(lengths(Kind::Recv, 3, 8, 2, false), (0, 24));
    }
}
