"""circles.check and circles.bench: the comparison with cpu-ref and the timing, as the command
line's `circles check` and `circles bench` report them."""

import pytest

import circles


@pytest.mark.parametrize("scene", ["rand10k", "pattern", "bouncingballs"])
def test_check_cpu_mt_against_cpu_ref(scene):
    result = circles.check(scene, renderer="cpu-mt", size=(128, 96))
    assert set(result) == {"ok", "mode", "broken", "bytes_differ", "floats_differ", "max_steps", "max_abs", "summary"}
    assert result["ok"] is True and result["broken"] == "" and result["mode"] == "exact"
    assert result["bytes_differ"] == 0 and result["floats_differ"] == 0 and result["max_steps"] == 0
    assert result["max_abs"] == (0.0, 0.0, 0.0, 0.0)
    assert "0 values differ" in result["summary"]


def test_check_a_later_frame_of_a_scene_object():
    scene = circles.Scene.load("fireworks")
    assert circles.check(scene, renderer="cpu-mt", size=(64, 64), frame=30)["ok"]


def test_bench_times_frames():
    result = circles.bench("rand10k", renderer="cpu-mt", size=(64, 64), repeat=5, warmup=1)
    assert set(result) == {"renderer", "mode", "plan", "frames", "median_ms", "min_ms", "max_ms", "stages"}
    assert result["renderer"] == "cpu-mt" and result["mode"] == "exact" and result["frames"] == 5
    assert 0 < result["min_ms"] <= result["median_ms"] <= result["max_ms"]
    assert result["stages"] and all(ms >= 0 for ms in result["stages"].values())
    with pytest.raises(ValueError, match="repeat"):
        circles.bench("rand10k", renderer="cpu-mt", size=(8, 8), repeat=0)
