#!/usr/bin/env python3
"""circles.render from Python beside `circles bench`, in one run (docs/PYTHON.md, "How fast").

For one scene (default rand1M at 1024x1024) and cuda-tile-binned in its exact default:
  - `circles bench`'s median frame (CUDA events around each frame),
  - circles.render from PyTorch tensors on the GPU (columns of one (N, 10) tensor, read with
    their strides), frames returned on the GPU: the median time a call adds to a stream kept
    busy (many calls, one synchronize), and the median of calls waited for one by one,
  - frames=range(F) in one call from the same tensors (the circles gathered and checked once,
    then F frames drawn into one (F, H, W, 4) CudaFrames): the median cost a frame,
  - the same with the frame returned to NumPy, and from a host Scene (kept renderer),
  - the Python side alone (the core's call replaced by a no-op): argument checks and the
    tensors' __cuda_array_interface__.

Usage: PYTHONPATH=build/python python3 scripts/bench_python.py [--bin build/circles] [--scene rand1M]
       [--size 1024x1024] [--repeat 50] [--frames 50]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import circles


def median_ms(fn, repeat, sync):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.environ.get("CIRCLES_BIN", "build/circles"))
    p.add_argument("--scene", default="rand1M")
    p.add_argument("--size", default="1024x1024")
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--frames", type=int, default=50)
    args = p.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    import torch

    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "bench.json")
        subprocess.run([args.bin, "bench", "--scenes", args.scene, "--renderers", "cuda-tile-binned", "--size",
                        args.size, "--repeat", str(args.repeat), "--json", out], check=True,
                       stdout=subprocess.DEVNULL)
        with open(out) as f:
            bench = json.load(f)
    print(f"GPU: {torch.cuda.get_device_name()}; scene {args.scene} at {w}x{h}, cuda-tile-binned, exact")
    for b in bench:
        print(f"  circles bench, tile {b['tile_size']}: median {b['median_ms']:.3f} ms")

    scene = circles.Scene.load(args.scene)
    rows = torch.as_tensor(scene.circles).cuda()  # x y z radius r g b a vx vy
    gpu = dict(xy=rows[:, 0:2], z=rows[:, 2], radius=rows[:, 3], color=rows[:, 4:8])
    kw = dict(size=(w, h), renderer="cuda-tile-binned", background=scene.background)
    sync = torch.cuda.synchronize
    for _ in range(5):
        circles.render(**gpu, **kw)
    sync()
    # Throughput: calls queued behind each other, one wait at the end.
    t = time.perf_counter()
    for _ in range(args.repeat):
        frames = circles.render(**gpu, **kw)
    sync()
    queued = (time.perf_counter() - t) * 1e3 / args.repeat
    waited = median_ms(lambda: circles.render(**gpu, **kw), args.repeat, sync)
    # Into a tensor of the caller's, drawn again and again: no allocation a call.
    target = torch.empty((h, w, 4), dtype=torch.uint8, device="cuda")
    t = time.perf_counter()
    for _ in range(args.repeat):
        circles.render(**gpu, **kw, out=target)
    sync()
    into = (time.perf_counter() - t) * 1e3 / args.repeat
    # Frames in one call: the gather once, then a frame each.
    batch = []
    for _ in range(5):
        t = time.perf_counter()
        circles.render(**gpu, **kw, frames=range(args.frames))
        sync()
        batch.append((time.perf_counter() - t) * 1e3 / args.frames)
    per_frame = statistics.median(batch)
    # The Python side alone.
    core, circles._circles.render_device = circles._circles.render_device, lambda *a: None
    try:
        python_side = median_ms(lambda: circles.render(**gpu, **kw, out=target), args.repeat * 10, lambda: None)
    finally:
        circles._circles.render_device = core
    numpy_out = median_ms(lambda: circles.render(**gpu, **kw, output="numpy"), args.repeat, sync)
    host = median_ms(lambda: circles.render(scene, size=(w, h), renderer="cuda-tile-binned"), args.repeat, sync)
    print(f"  circles.render, torch tensors in, frame on the GPU: {queued:.3f} ms a call queued, "
          f"{waited:.3f} ms a call waited for")
    print(f"  circles.render, torch tensors in, out= a torch tensor: {into:.3f} ms a call queued")
    print(f"  circles.render, torch tensors in, frames=range({args.frames}) in one call: {per_frame:.3f} ms a frame")
    print(f"  circles.render's Python side (tensors' interfaces, argument checks): {python_side:.3f} ms")
    print(f"  circles.render, torch tensors in, NumPy frame out: {numpy_out:.3f} ms")
    print(f"  circles.render, host Scene (kept renderer), NumPy frame out: {host:.3f} ms")
    # The frames timed are the picture: cpu-ref's bytes, as circles bench's are.
    import numpy as np
    assert np.array_equal(torch.from_dlpack(frames).cpu().numpy(), circles.render(scene, size=(w, h),
                                                                                   renderer="cuda-tile-binned"))


if __name__ == "__main__":
    main()
