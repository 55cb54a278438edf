"""PyTorch and CuPy arrays on the GPU: read there by the CUDA renderers (no circle byte crosses
from the host: circle_bytes_uploaded() stays put), frames equal to cpu-ref's from the same
values, frames handed back on the GPU through DLPack and __cuda_array_interface__, and a bad
element named as for host arrays. Marked `gpu`; each framework's tests skip (expectedly) where
it is not installed."""

import numpy as np
import pytest

import circles
from conftest import random_arrays

pytestmark = pytest.mark.gpu


def _frameworks():
    out = []
    try:
        import torch  # noqa: F401
        if torch.cuda.is_available():
            out.append("torch")
    except ImportError:
        pass
    try:
        import cupy  # noqa: F401
        out.append("cupy")
    except ImportError:
        pass
    return out


def _to_gpu(framework, a):
    if framework == "torch":
        import torch
        return torch.as_tensor(a).cuda()
    import cupy
    return cupy.asarray(a)


def _to_host(framework, frames):
    if framework == "torch":
        import torch
        return torch.from_dlpack(frames).cpu().numpy()
    import cupy
    return cupy.asnumpy(cupy.from_dlpack(frames))


@pytest.fixture(params=["torch", "cupy"])
def framework(request):
    if request.param not in _frameworks():
        pytest.skip(f"[expected skip] {request.param} with CUDA is not installed here")
    return request.param


def test_gpu_arrays_draw_cpu_refs_bytes_without_a_host_copy(framework):
    a = random_arrays(20000, seed=11)
    expected = circles.render(**a, size=(320, 240), renderer="cpu-ref")
    gpu = {k: _to_gpu(framework, v.astype(np.float32)) for k, v in a.items()}  # the values are exact in float32
    before = circles.circle_bytes_uploaded()
    frames = circles.render(**gpu, size=(320, 240), renderer="cuda-tile-binned")
    assert circles.circle_bytes_uploaded() == before, "GPU arrays must not be uploaded from the host"
    assert isinstance(frames, circles.CudaFrames) and frames.shape == (240, 320, 4)
    assert np.array_equal(_to_host(framework, frames), expected)
    # The same through __cuda_array_interface__, and as NumPy straight away.
    if framework == "torch":
        import torch
        assert np.array_equal(torch.as_tensor(frames, device="cuda").cpu().numpy(), expected)
    else:
        import cupy
        assert np.array_equal(cupy.asarray(frames).get(), expected)
    host = circles.render(**gpu, size=(320, 240), renderer="cuda-tile-binned", output="numpy")
    assert np.array_equal(host, expected)
    assert circles.circle_bytes_uploaded() == before
    # Float frames, and every CUDA renderer.
    floats = circles.render(**gpu, size=(320, 240), renderer="cuda-tile-binned", dtype="float32")
    assert np.array_equal(_to_host(framework, floats),
                          circles.render(**a, size=(320, 240), renderer="cpu-ref", dtype="float32"))
    for r in ("cuda-naive", "cuda-tile-scan"):
        assert np.array_equal(circles.render(**gpu, size=(320, 240), renderer=r, output="numpy"), expected), r


def test_a_host_scene_costs_one_upload():
    a = random_arrays(3000, seed=2)
    scene = circles.Scene(**a, size=(64, 64))
    circles.release_renderers()
    before = circles.circle_bytes_uploaded()
    circles.render(scene, renderer="cuda-tile-binned")
    assert circles.circle_bytes_uploaded() - before == 3000 * 40
    circles.render(scene, renderer="cuda-tile-binned")  # the kept renderer holds it already
    assert circles.circle_bytes_uploaded() - before == 3000 * 40


def test_gpu_strides_dtypes_and_frames(framework):
    a = random_arrays(4000, seed=5, velocity=True)
    scene = circles.Scene(**a, animation="bouncingballs", size=(160, 120))
    expected = circles.render(scene, frames=range(0, 4), renderer="cpu-ref")
    gpu = {k: _to_gpu(framework, v) for k, v in a.items()}
    got = circles.render(**gpu, animation="bouncingballs", size=(160, 120), frames=range(0, 4),
                         renderer="cuda-tile-binned", output="numpy")
    assert np.array_equal(got, expected)
    # float64 and a transposed (Fortran-order) view: read with their strides.
    xy64 = _to_gpu(framework, np.asfortranarray(a["xy"].astype(np.float64)))
    g2 = dict(gpu, xy=xy64)
    assert np.array_equal(circles.render(**g2, animation="bouncingballs", size=(160, 120), frame=0,
                                         renderer="cuda-tile-binned", output="numpy"), expected[0])


def test_bad_gpu_elements_are_named(framework):
    a = random_arrays(1000, seed=3)
    a["radius"] = a["radius"].copy()
    a["radius"][417] = -2.0
    gpu = {k: _to_gpu(framework, v) for k, v in a.items()}
    with pytest.raises(ValueError, match=r"radius\[417\]: must be greater than 0, found -2"):
        circles.render(**gpu, size=(64, 64), renderer="cuda-tile-binned")
    a["radius"][417] = 0.01
    a["xy"] = a["xy"].copy()
    a["xy"][5, 1] = np.nan
    gpu = {k: _to_gpu(framework, v) for k, v in a.items()}
    with pytest.raises(ValueError, match=r"xy\[5, 1\]: must be a finite number, found nan"):
        circles.render(**gpu, size=(64, 64), renderer="cuda-tile-binned")
    with pytest.raises(ValueError, match="GPU arrays need a CUDA renderer"):
        circles.render(**gpu, size=(64, 64), renderer="cpu-mt")
    with pytest.raises(ValueError, match="radius: in host memory while other arrays are on the GPU"):
        circles.render(xy=gpu["xy"], radius=a["radius"], size=(64, 64))


def test_frames_into_a_gpu_array_of_the_callers(framework):
    a = random_arrays(2000, seed=8)
    expected = circles.render(**a, size=(96, 80), renderer="cpu-ref")
    gpu = {k: _to_gpu(framework, v) for k, v in a.items()}
    target = _to_gpu(framework, np.zeros((80, 96, 4), np.uint8))
    got = circles.render(**gpu, size=(96, 80), renderer="cuda-tile-binned", out=target)
    assert got is target
    host = target.cpu().numpy() if framework == "torch" else target.get()
    assert np.array_equal(host, expected)
    with pytest.raises(ValueError, match=r"out: expected shape \(80, 96, 4\)"):
        circles.render(**gpu, size=(96, 80), renderer="cuda-tile-binned", out=_to_gpu(framework, np.zeros((8, 8, 4), np.uint8)))
