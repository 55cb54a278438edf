"""The CUDA renderers from Python: exact frames equal cpu-ref's to the byte, and the fast modes
keep their promises (circles.check). Marked `gpu`: skipped without a usable CUDA renderer,
failed instead with CIRCLES_REQUIRE_GPU=1 (conftest.py)."""

import numpy as np
import pytest

import circles
from conftest import random_arrays

pytestmark = pytest.mark.gpu


def _cuda_renderers():
    return [r["name"] for r in circles.list()["renderers"] if r["name"].startswith("cuda") and r["available"]]


def test_the_default_renderer_is_cuda_tile_binned():
    assert circles.default_renderer() == "cuda-tile-binned"


@pytest.mark.parametrize("scene", ["rand10k", "pattern", "biglittle"])
def test_cuda_renderers_draw_cpu_refs_bytes(scene):
    expected = circles.render(scene, size=(256, 192), renderer="cpu-ref")
    for renderer in _cuda_renderers():
        assert np.array_equal(circles.render(scene, size=(256, 192), renderer=renderer), expected), renderer
        assert circles.check(scene, renderer=renderer, size=(256, 192))["ok"], renderer


def test_cuda_frames_and_arrays_equal_cpu_ref():
    a = random_arrays(5000, seed=6, velocity=True)
    scene = circles.Scene(**a, animation="bouncingballs", size=(200, 150))
    expected = circles.render(scene, frames=range(0, 5), renderer="cpu-ref")
    assert np.array_equal(circles.render(scene, frames=range(0, 5), renderer="cuda-tile-binned"), expected)
    floats = circles.render(scene, frame=3, renderer="cuda-tile-binned", dtype="float32")
    assert np.array_equal(floats, circles.render(scene, frame=3, renderer="cpu-ref", dtype="float32"))


@pytest.mark.parametrize("mode", ["half-colour", "early-exit"])
def test_fast_modes_keep_their_promise(mode):
    result = circles.check("rand1M", renderer="cuda-tile-binned", mode=mode, size=(512, 512))
    assert result["ok"], result["broken"] or result["summary"]
    timing = circles.bench("rand1M", renderer="cuda-tile-binned", mode=mode, size=(512, 512), repeat=3)
    assert timing["median_ms"] > 0 and timing["renderer"] == "cuda-tile-binned"
