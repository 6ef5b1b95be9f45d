"""Host time per torch.distributed.all_reduce(async_op=True) + wait(), world size 1,
NCCL backend, 8 B float32 on cuda:0: the figure ci/gpu-check prints beside the
host-overhead benchmark's ProcessGroup::all_reduce + Work::wait_host. Median of 7
repetitions of 2000 operations each."""
import os
import statistics
import time

import torch
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("nccl", rank=0, world_size=1)
x = torch.ones(2, dtype=torch.float32, device="cuda:0")
for _ in range(50):
    dist.all_reduce(x, async_op=True).wait()
torch.cuda.synchronize()


def per_op(n, host_wait):
    t = time.perf_counter()
    for _ in range(n):
        w = dist.all_reduce(x, async_op=True)
        w.wait()
        if host_wait:
            torch.cuda.current_stream().synchronize()
    return (time.perf_counter() - t) / n * 1e6


reps = [per_op(2000, True) for _ in range(7)]
issue = [per_op(2000, False) for _ in range(7)]
torch.cuda.synchronize()
print(f"torch all_reduce(async_op=True)+wait()+stream sync, 8 B: {statistics.median(reps):.2f} us/op")
print(f"torch all_reduce(async_op=True)+wait() (stream wait only), 8 B: {statistics.median(issue):.2f} us/op")
dist.destroy_process_group()
