//! One rank's sweep: buffers, warm-up, timed iterations, the check against a host
//! reference, on either layer.

use std::time::{Duration, Instant};

use collectives::{Options, ProcessGroup, WorkSet};
use nccl_safe::{
    AsDeviceView, AsDeviceViewMut, Communicator, DataType, Device, DeviceBuffer, DeviceView,
    DeviceViewMut, ReduceOp, Stream,
};

use crate::args::{Args, Coll, Layer, Red, sizes};

/// Measured numbers of one size: time per operation (µs) and wrong elements, out of
/// place and in place (`None` where the API has no such form).
#[derive(Clone, Copy, Debug, Default)]
pub struct Row {
    pub bytes: usize,
    pub count: usize,
    pub red: Option<Red>,
    pub oop: Option<(f64, u64)>,
    pub ip: Option<(f64, u64)>,
    /// The host's copy bandwidth measured just before this size (with `--floor`).
    pub copy_bw: Option<f64>,
}

/// How one rank talks to the others.
pub enum Link {
    Raw(Communicator),
    Group(ProcessGroup),
}

pub struct Rank {
    pub rank: usize,
    pub size: usize,
    pub device: Device,
    pub stream: Stream,
    pub link: Link,
}

fn input<T: DataType>(r: usize, i: usize) -> T {
    T::from_i64(((r * 7 + i * 3) % 5 + 1) as i64)
}

fn red_op<T: DataType>(r: Red) -> ReduceOp<'static, T> {
    match r {
        Red::Sum => ReduceOp::Sum,
        Red::Prod => ReduceOp::Prod,
        Red::Max => ReduceOp::Max,
        Red::Min => ReduceOp::Min,
        Red::Avg => ReduceOp::Avg,
    }
}

/// The reduction of element `i` over every rank, as the reference computes it.
fn reduced<T: DataType>(r: Red, n: usize, i: usize) -> T {
    let x = |k: usize| input::<T>(k, i);
    match r {
        Red::Sum => (1..n).fold(x(0), |a, k| a.add(x(k))),
        Red::Prod => (1..n).fold(x(0), |a, k| a.mul(x(k))),
        Red::Max => (1..n).map(x).fold(x(0), |a, b| if b > a { b } else { a }),
        Red::Min => (1..n).map(x).fold(x(0), |a, b| if b < a { b } else { a }),
        Red::Avg if T::DTYPE.is_float() => {
            T::from_i64((0..n).map(|k| x(k).to_f64() as i64).sum()).div_count(n)
        }
        Red::Avg => (1..n).fold(x(0), |a, k| a.add(x(k))).div_count(n),
    }
}

fn close<T: DataType>(a: T, b: T) -> bool {
    let (x, y) = (a.to_f64(), b.to_f64());
    let tol = match T::DTYPE {
        nccl_safe::DType::F16 => 1e-2,
        nccl_safe::DType::BF16 => 5e-2,
        nccl_safe::DType::F32 => 1e-5,
        nccl_safe::DType::F64 => 1e-12,
        _ => return a == b,
    };
    (x - y).abs() <= tol * x.abs().max(y.abs()) + tol
}

/// Element counts of one size: (count reported, per-rank send, per-rank receive).
fn counts(c: Coll, bytes: usize, esz: usize, n: usize) -> (usize, usize, usize) {
    let count = bytes / esz;
    if !c.size_is_total() {
        return (count, count, count);
    }
    let per = count / n;
    let total = per * n;
    match c {
        Coll::AllGather | Coll::Gather => (total, per, total),
        Coll::ReduceScatter | Coll::Scatter => (total, total, per),
        _ => (total, total, total), // all-to-all
    }
}

impl Rank {
    fn barrier(&self) -> collectives::Result<()> {
        match &self.link {
            Link::Raw(c) => {
                let mut b = DeviceBuffer::<u8>::zeroed(&self.stream, 1)?;
                c.all_reduce_in_place(&mut b, ReduceOp::Max, &self.stream)?;
                self.stream.synchronize()?;
            }
            Link::Group(g) => g.barrier()?.wait_host(Duration::from_secs(600))?,
        }
        Ok(())
    }

    /// Sums `x` over every rank (totals of wrong elements).
    pub fn sum(&self, x: u64) -> collectives::Result<u64> {
        let mut b = DeviceBuffer::from_slice(&self.stream, &[x])?;
        match &self.link {
            Link::Raw(c) => c.all_reduce_in_place(&mut b, ReduceOp::Sum, &self.stream)?,
            Link::Group(g) => g
                .all_reduce(&mut b, ReduceOp::Sum)?
                .wait_stream(&self.stream)?,
        }
        Ok(b.to_vec(&self.stream)?[0])
    }

    /// Every rank's `x`, in rank order (device lines of the preamble).
    pub fn gather_all(&self, x: u64) -> collectives::Result<Vec<u64>> {
        let s = DeviceBuffer::from_slice(&self.stream, &[x])?;
        let mut r = DeviceBuffer::<u64>::zeroed(&self.stream, self.size)?;
        match &self.link {
            Link::Raw(c) => c.all_gather(&s, &mut r, &self.stream)?,
            Link::Group(g) => g.all_gather(&s, &mut r)?.wait_stream(&self.stream)?,
        }
        Ok(r.to_vec(&self.stream)?)
    }

    /// Issues one operation; `in_place` selects the in-place form. `None` when the API
    /// has no such form for this collective.
    fn issue<T: DataType>(
        &self,
        a: &Args,
        red: Red,
        send: &DeviceView<'_, T>,
        recv: &mut DeviceViewMut<'_, T>,
        in_place: bool,
        works: &mut WorkSet,
    ) -> Option<collectives::Result<()>> {
        let (me, n, root) = (self.rank, self.size, a.root % self.size);
        let s = &self.stream;
        let (next, prev) = ((me + 1) % n, (me + n - 1) % n);
        let is_root = me == root;
        Some(match (&self.link, a.coll, in_place) {
            (Link::Raw(c), Coll::AllReduce, false) => {
                c.all_reduce(send, recv, red_op(red), s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::AllReduce, true) => c
                .all_reduce_in_place(recv, red_op(red), s)
                .map_err(Into::into),
            (Link::Raw(c), Coll::Broadcast, true) => c.broadcast(recv, root, s).map_err(Into::into),
            (Link::Raw(c), Coll::Reduce, false) => {
                let r: Option<&mut dyn AsDeviceViewMut<T>> =
                    if is_root { Some(recv) } else { None };
                c.reduce(send, r, red_op(red), root, s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::AllGather, false) => {
                c.all_gather(send, recv, s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::AllGather, true) => {
                c.all_gather_in_place(recv, s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::ReduceScatter, false) => c
                .reduce_scatter(send, recv, red_op(red), s)
                .map_err(Into::into),
            (Link::Raw(c), Coll::ReduceScatter, true) => c
                .reduce_scatter_in_place(recv, red_op(red), s)
                .map_err(Into::into),
            (Link::Raw(c), Coll::AllToAll, false) => {
                c.all_to_all(send, recv, s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::Gather, false) => {
                let r: Option<&mut dyn AsDeviceViewMut<T>> =
                    if is_root { Some(recv) } else { None };
                c.gather(send, r, root, s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::Scatter, false) => {
                let sv: Option<&dyn AsDeviceView<T>> = if is_root { Some(send) } else { None };
                c.scatter(sv, recv, root, s).map_err(Into::into)
            }
            (Link::Raw(c), Coll::SendRecv, false) => nccl_safe::group(|_| {
                c.send(send, next, s)?;
                c.recv(recv, prev, s)
            })
            .map_err(Into::into),
            (Link::Group(g), coll, ip) => {
                let w = match (coll, ip) {
                    (Coll::AllReduce, false) => g.all_reduce_into(send, recv, red_op(red)),
                    (Coll::AllReduce, true) => g.all_reduce(recv, red_op(red)),
                    (Coll::Broadcast, true) => g.broadcast(recv, root),
                    (Coll::Reduce, false) => {
                        let r: Option<&mut dyn AsDeviceViewMut<T>> =
                            if is_root { Some(recv) } else { None };
                        g.reduce(send, r, red_op(red), root)
                    }
                    (Coll::AllGather, false) => g.all_gather(send, recv),
                    (Coll::ReduceScatter, false) => g.reduce_scatter(send, recv, red_op(red)),
                    (Coll::AllToAll, false) => g.all_to_all(send, recv),
                    (Coll::Gather, false) => {
                        let r: Option<&mut dyn AsDeviceViewMut<T>> =
                            if is_root { Some(recv) } else { None };
                        g.gather(send, r, root)
                    }
                    (Coll::Scatter, false) => {
                        let sv: Option<&dyn AsDeviceView<T>> =
                            if is_root { Some(send) } else { None };
                        g.scatter(sv, recv, root)
                    }
                    (Coll::SendRecv, false) => g.grouped(|c, st| {
                        c.send(send, next, st)?;
                        c.recv(recv, prev, st)
                    }),
                    _ => return None,
                };
                w.map(|w| works.push(w))
            }
            _ => return None,
        })
    }

    fn wait(&self, works: WorkSet) -> collectives::Result<()> {
        match &self.link {
            Link::Raw(_) => Ok(self.stream.synchronize()?),
            Link::Group(_) => works.wait_host(Duration::from_secs(600)),
        }
    }

    /// Elements of this rank's output that differ from the reference.
    fn check<T: DataType>(&self, a: &Args, red: Red, got: &[T], in_place: bool) -> u64 {
        let (me, n, root) = (self.rank, self.size, a.root % self.size);
        let _ = in_place;
        let c = got.len();
        let want = |i: usize| -> Option<T> {
            Some(match a.coll {
                Coll::AllReduce => reduced(red, n, i),
                Coll::Broadcast => input(root, i),
                Coll::Reduce if me == root => reduced(red, n, i),
                Coll::Reduce => return None,
                Coll::AllGather => input(i / (c / n), i % (c / n)),
                Coll::ReduceScatter => reduced(red, n, me * c + i),
                Coll::AllToAll => input(i / (c / n), me * (c / n) + i % (c / n)),
                Coll::Gather if me == root => input(i / (c / n), i % (c / n)),
                Coll::Gather => return None,
                Coll::Scatter => input(root, me * c + i),
                Coll::SendRecv => input((me + n - 1) % n, i),
            })
        };
        (0..c)
            .filter(|&i| want(i).is_some_and(|w| !close(got[i], w)))
            .count() as u64
    }

    /// The whole sweep; `on_row` gets each size's numbers (already summed over ranks).
    pub fn sweep<T: DataType>(
        &self,
        a: &Args,
        copy_bw: &dyn Fn() -> f64,
        mut on_row: impl FnMut(Row),
    ) -> collectives::Result<()> {
        let esz = T::DTYPE.size();
        let n = self.size;
        let max = sizes(a).into_iter().max().unwrap_or(0);
        let (_, max_send, max_recv) = counts(a.coll, max, esz, n);
        let cap = max_send.max(max_recv).max(1);
        let mut send = DeviceBuffer::<T>::alloc(&self.device, cap)?;
        let mut recv = DeviceBuffer::<T>::alloc(&self.device, cap)?;
        for bytes in sizes(a) {
            let (count, ns, nr) = counts(a.coll, bytes, esz, n);
            if count == 0 {
                continue;
            }
            for &red in &a.ops {
                // Side by side: the host's copy bandwidth right before this size (rank
                // 0 measures while the others wait in the barrier below).
                let bw = (a.floor && self.rank == 0).then(copy_bw);
                self.barrier()?;
                let mut row = Row {
                    bytes: count * esz,
                    count,
                    red: a.coll.reduces().then_some(red),
                    copy_bw: bw,
                    ..Row::default()
                };
                for in_place in [false, true] {
                    let mut result = None;
                    for phase in 0..2 {
                        // Phase 0: warm-up and timing; phase 1: one checked run.
                        let host: Vec<T> = if in_place && a.coll.size_is_total() && nr < ns {
                            // Reduce-scatter in place reads the whole buffer.
                            (0..ns).map(|i| input(self.rank, i)).collect()
                        } else {
                            (0..ns.max(nr)).map(|i| input(self.rank, i)).collect()
                        };
                        if phase == 1 || a.check {
                            send.view_mut(0..ns)?
                                .copy_from_slice(&self.stream, &host[..ns])?;
                            let ip_len = if in_place { host.len() } else { nr };
                            if in_place {
                                let own = if a.coll == Coll::AllGather {
                                    let b = self.rank * ns;
                                    let mut v = vec![T::default(); nr];
                                    v[b..b + ns].copy_from_slice(&host[..ns]);
                                    v
                                } else {
                                    host[..ip_len.min(nr.max(ns))].to_vec()
                                };
                                recv.view_mut(0..own.len())?
                                    .copy_from_slice(&self.stream, &own)?;
                            }
                        }
                        if phase == 1 && !a.check {
                            break;
                        }
                        let recv_len = if in_place && a.coll == Coll::ReduceScatter {
                            ns
                        } else {
                            nr
                        };
                        let iters = if phase == 0 { a.warmup + a.iters } else { 1 };
                        let mut t0 = Instant::now();
                        let mut works = WorkSet::new();
                        for it in 0..iters {
                            if phase == 0 && it == a.warmup {
                                self.wait(std::mem::take(&mut works))?;
                                self.barrier()?;
                                t0 = Instant::now();
                            }
                            let sv = send.view(0..ns)?;
                            let mut rv = recv.view_mut(0..recv_len)?;
                            match self.issue(a, red, &sv, &mut rv, in_place, &mut works) {
                                None => break,
                                Some(r) => r?,
                            }
                        }
                        self.wait(works)?;
                        let elapsed = t0.elapsed();
                        if phase == 0 {
                            if self.issue_supported(a, in_place) {
                                result = Some((elapsed.as_secs_f64() * 1e6 / a.iters as f64, 0));
                            }
                        } else if let Some(r) = result.as_mut() {
                            let got = if in_place && a.coll == Coll::ReduceScatter {
                                recv.view(self.rank * nr..(self.rank + 1) * nr)?
                                    .to_vec(&self.stream)?
                            } else {
                                recv.view(0..nr)?.to_vec(&self.stream)?
                            };
                            r.1 = self.check(a, red, &got, in_place);
                        }
                    }
                    let summed = match result {
                        Some((t, w)) => Some((t, self.sum(w)?)),
                        None => None,
                    };
                    if in_place {
                        row.ip = summed;
                    } else {
                        row.oop = summed;
                    }
                }
                on_row(row);
            }
        }
        Ok(())
    }

    /// Whether this collective has the form (`in_place`) in the API.
    fn issue_supported(&self, a: &Args, in_place: bool) -> bool {
        let api = match a.coll {
            Coll::AllReduce => true,
            Coll::Broadcast => in_place,
            Coll::AllGather | Coll::ReduceScatter => true,
            _ => !in_place,
        };
        let group_lacks = matches!(self.link, Link::Group(_))
            && in_place
            && matches!(a.coll, Coll::AllGather | Coll::ReduceScatter);
        api && !group_lacks
    }
}

/// A rank of `n` on `device`: its communicator (and group, for `--layer group`).
pub fn join(
    a: &Args,
    device: &Device,
    rank: usize,
    n: usize,
    id: &nccl_safe::UniqueId,
) -> collectives::Result<Rank> {
    let stream = Stream::new(device)?;
    let link = match a.layer {
        Layer::Raw => {
            let cfg = nccl_safe::Config::new().blocking(false);
            let c = Communicator::init(device, rank, n, id, &cfg)?;
            c.wait_ready(Duration::from_secs(600))?;
            Link::Raw(c)
        }
        Layer::Group => Link::Group(ProcessGroup::new(
            device,
            rank,
            n,
            id,
            Options::new().name("nccl-perf"),
        )?),
    };
    Ok(Rank {
        rank,
        size: n,
        device: device.clone(),
        stream,
        link,
    })
}
