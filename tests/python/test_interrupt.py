"""Long renders and Python: Ctrl-C (SIGINT) stops a render of many frames promptly with
KeyboardInterrupt, and other Python threads run while a render draws (the GIL is released)."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import circles

# A cheap animation drawn for a million frames: far longer than the test waits on any machine.
_ENDLESS = r"""
import numpy as np, circles
rng = np.random.default_rng(1)
scene = circles.Scene(rng.random((100, 2)), 0.05, velocity=rng.random((100, 2)) - 0.5,
                      animation="bouncingballs", size=(16, 16))
print("drawing", flush=True)
circles.render(scene, frames=range(0, 10**6), renderer="cpu-ref")
print("finished", flush=True)
"""


def _interrupted_child(code, timeout):
    """Runs `code` in a child Python until it prints "drawing", sends SIGINT a second later and
    checks the child ends at once with an uncaught KeyboardInterrupt, without "finished"."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
    try:
        assert child.stdout.readline() == "drawing\n"
        time.sleep(1.0)
        assert child.poll() is None, "the render ended before it was interrupted"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
        waited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert "finished" not in out
    assert "KeyboardInterrupt" in err, err
    # Python ends an uncaught KeyboardInterrupt by killing itself with SIGINT.
    assert child.returncode == -signal.SIGINT, (child.returncode, err)
    assert waited < 5, f"{waited:.1f} s from SIGINT to exit"


def test_ctrl_c_stops_a_long_render_with_keyboard_interrupt():
    _interrupted_child(_ENDLESS, timeout=10)


def _ticks_during(work):
    """Runs work() while another thread ticks about once a millisecond; returns how long work()
    took and how many ticks fell in the middle 80% of it (none if work() held the GIL)."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        time.sleep(0.05)
        start = time.perf_counter()
        work()
        end = time.perf_counter()
    finally:
        stop.set()
        ticker.join()
    duration = end - start
    return duration, len([t for t in ticks if start + 0.1 * duration < t < end - 0.1 * duration])


def test_other_threads_run_while_a_render_draws():
    # A single long call: several frames of 10k circles at 512x512 on the reference renderer.
    duration, ticks = _ticks_during(
        lambda: circles.render("rand10k", frames=range(0, 4), size=(512, 512), renderer="cpu-ref"))
    assert duration > 0.1, f"the render took only {duration:.3f} s: too short to tell"
    assert ticks >= 10 + int(0.05 * duration * 1000), (ticks, duration)


def test_other_threads_run_while_a_scene_gathers_its_circles():
    xy = np.random.default_rng(3).random((4_000_000, 2)).astype(np.float32)
    scenes = []
    duration, ticks = _ticks_during(lambda: scenes.append(circles.Scene(xy, 0.001)))
    assert len(scenes[0]) == 4_000_000
    if duration < 0.05:
        pytest.skip(f"the gather took only {duration * 1000:.0f} ms: too short to tell")
    assert ticks >= 5, (ticks, duration)


# One frame far longer than the test waits: 50k circles of radius 0.4 at 1024x1024 on cpu-ref
# (about 25 billion blends), so only an interruption inside the frame can end it in time.
_ONE_LONG_FRAME = r"""
import numpy as np, circles
rng = np.random.default_rng(2)
scene = circles.Scene(rng.random((50000, 2)), 0.4, color=rng.random((50000, 3)), alpha=0.01, size=(1024, 1024))
print("drawing", flush=True)
circles.render(scene, renderer="{renderer}")
print("finished", flush=True)
"""


@pytest.mark.parametrize("renderer", ["cpu-ref", "cpu-mt"])
def test_ctrl_c_stops_one_long_frame(renderer):
    _interrupted_child(_ONE_LONG_FRAME.replace("{renderer}", renderer), timeout=20)


def test_a_signal_whose_handler_returns_leaves_the_frame_whole():
    # SIGINT with a Python handler that does not raise: the frame it interrupted is drawn again.
    rng = np.random.default_rng(6)
    scene = circles.Scene(rng.random((2000, 2)), 0.25, color=rng.random((2000, 3)), alpha=0.3, size=(512, 512))
    start = time.perf_counter()
    expected = circles.render(scene, renderer="cpu-ref")
    took = time.perf_counter() - start
    hits = []
    previous = signal.signal(signal.SIGINT, lambda *_: hits.append(time.perf_counter()))
    try:
        timer = threading.Timer(0.3 * took, os.kill, (os.getpid(), signal.SIGINT))
        begun = time.perf_counter()
        timer.start()
        got = circles.render(scene, renderer="cpu-ref")
        ended = time.perf_counter()
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    # The handler ran as soon as the frame stopped (not once it was done), and the frame was then
    # drawn again, whole.
    assert hits and begun < hits[0] < ended - 0.5 * took, (hits, begun, ended, took)
    assert np.array_equal(got, expected)
