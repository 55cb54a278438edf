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


class _DLPackOnly:
    """A GPU array that offers DLPack and nothing else (as JAX's do): no __cuda_array_interface__."""

    def __init__(self, array):
        self._array = array
        self.streams = []

    def __dlpack__(self, stream=None, **kw):
        self.streams.append(stream)
        return self._array.__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_only_arrays_are_read_on_the_gpu(framework):
    a = random_arrays(3000, seed=21)
    expected = circles.render(**a, size=(128, 96), renderer="cpu-ref")
    gpu = {k: _DLPackOnly(_to_gpu(framework, v.astype(np.float32))) for k, v in a.items()}
    before = circles.circle_bytes_uploaded()
    got = circles.render(**gpu, size=(128, 96), renderer="cuda-tile-binned", output="numpy")
    assert circles.circle_bytes_uploaded() == before
    assert np.array_equal(got, expected)
    # The consumer's stream is named (1: the legacy default stream; 0 is not allowed by DLPack).
    assert gpu["xy"].streams == [1]
    # Strided (a column of a wider array) and float64 through DLPack too.
    wide = _to_gpu(framework, np.column_stack([a["xy"], a["radius"]]))
    got = circles.render(xy=_DLPackOnly(wide[:, 0:2]), radius=_DLPackOnly(wide[:, 2]), color=gpu["color"],
                         alpha=gpu["alpha"], z=gpu["z"], size=(128, 96), renderer="cuda-tile-binned", output="numpy")
    assert np.array_equal(got, expected)
    bad = _to_gpu(framework, a["radius"].astype(np.float32))
    bad[7] = -1.0
    with pytest.raises(ValueError, match=r"radius\[7\]: must be greater than 0, found -1"):
        circles.render(**dict(gpu, radius=_DLPackOnly(bad)), size=(128, 96), renderer="cuda-tile-binned")
    ints = _to_gpu(framework, np.zeros(3000, np.int32))
    with pytest.raises(ValueError, match=r"radius: expected float16, float32 or float64 on the GPU"):
        circles.render(**dict(gpu, radius=_DLPackOnly(ints)), size=(128, 96), renderer="cuda-tile-binned")


def test_host_scalars_and_a_colour_row_beside_gpu_arrays(framework):
    rng = np.random.default_rng(4)
    xy = rng.uniform(0, 1, (5000, 2)).astype(np.float16).astype(np.float64)
    expected = circles.render(xy=xy, radius=0.03125, color=(0.25, 0.5, 1.0), alpha=0.75, z=0.5, size=(100, 100),
                              renderer="cpu-ref")
    got = circles.render(xy=_to_gpu(framework, xy), radius=0.03125, color=(0.25, 0.5, 1.0), alpha=0.75, z=0.5,
                         size=(100, 100), renderer="cuda-tile-binned", output="numpy")
    assert np.array_equal(got, expected)
    # A scalar NumPy value and an RGBA row are host values too.
    rgba = np.array([0.25, 0.5, 1.0, 0.75])
    got = circles.render(xy=_to_gpu(framework, xy), radius=np.float32(0.03125), color=rgba, z=0.5, size=(100, 100),
                         renderer="cuda-tile-binned", output="numpy")
    assert np.array_equal(got, expected)
    with pytest.raises(ValueError, match=r"radius\[0\]: must be greater than 0, found -1|radius: must be greater"):
        circles.render(xy=_to_gpu(framework, xy), radius=-1.0, size=(100, 100), renderer="cuda-tile-binned")
    with pytest.raises(ValueError, match=r"alpha.*found 2"):
        circles.render(xy=_to_gpu(framework, xy), radius=0.01, alpha=2.0, size=(100, 100), renderer="cuda-tile-binned")
    # Per-circle arrays must be on one side.
    with pytest.raises(ValueError, match="color: in host memory while other arrays are on the GPU"):
        circles.render(xy=_to_gpu(framework, xy), radius=0.01, color=rng.uniform(0, 1, (5000, 3)),
                       size=(100, 100), renderer="cuda-tile-binned")
