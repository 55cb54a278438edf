"""Shared pieces of the Python tests (tests/python): the command line's path, a small PNG reader
(zlib and NumPy only, so no imaging library is needed), random scenes, and the `gpu` marker.

Tests marked `gpu` need a usable CUDA renderer: without one they are skipped, with the reason,
unless CIRCLES_REQUIRE_GPU=1 is set, which makes them fail instead (a GPU machine's CI).
The CLI comparisons need CIRCLES_BIN, the `circles` executable (ctest sets it; without it they
are skipped)."""

import os
import struct
import zlib

import numpy as np
import pytest

import circles


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpu: needs a usable CUDA renderer (skipped without one; CIRCLES_REQUIRE_GPU=1 fails instead)"
    )


def gpu_unavailable_reason():
    """Why no CUDA renderer can draw here, or '' when one can."""
    cuda = [r for r in circles.list()["renderers"] if r["name"].startswith("cuda")]
    if any(r["available"] for r in cuda):
        return ""
    reasons = sorted({r["unavailable_reason"] for r in cuda if r["unavailable_reason"]})
    return "no usable CUDA renderer: " + ("; ".join(reasons) if reasons else "none in this build")


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is None:
        return
    reason = gpu_unavailable_reason()
    if not reason:
        return
    if os.environ.get("CIRCLES_REQUIRE_GPU") == "1":
        pytest.fail(f"CIRCLES_REQUIRE_GPU=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def circles_bin():
    """The `circles` executable from CIRCLES_BIN."""
    path = os.environ.get("CIRCLES_BIN")
    if not path:
        pytest.skip("CIRCLES_BIN is not set (the path of the circles executable; ctest sets it)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"CIRCLES_BIN={path} is not an executable")
    return path


def _unfilter(raw, width, height, bpp):
    """Undoes PNG's per-row filters (None, Sub, Up, Average, Paeth) of 8-bit samples."""
    stride = width * bpp
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    pos = 0
    for y in range(height):
        kind = raw[pos]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=pos + 1).astype(np.int32)
        pos += 1 + stride
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind in (1, 3, 4):
            # Left neighbours depend on the row's own output: a pixel at a time.
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                if kind == 1:
                    pred = a
                elif kind == 3:
                    pred = (a + b) >> 1
                else:
                    c = prev[x - bpp] if x >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pred) & 0xFF
        else:
            raise ValueError(f"PNG: unknown filter {kind} in row {y}")
        out[y] = cur
        prev = cur
    return out


def read_png(path):
    """An 8-bit, non-interlaced PNG (grey, RGB, grey+alpha or RGBA) as an (H, W, 4) uint8 RGBA
    array, row 0 at the top."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    if depth != 8 or interlace != 0:
        raise ValueError(f"{path}: only 8-bit non-interlaced PNGs are read here")
    pixels = _unfilter(zlib.decompress(b"".join(idat)), width, height, channels).reshape(height, width, channels)
    if channels == 4:
        return pixels
    grey = channels in (1, 2)
    rgb = np.repeat(pixels[..., :1], 3, axis=2) if grey else pixels[..., :3]
    alpha = pixels[..., 1:2] if channels == 2 else np.full((height, width, 1), 255, np.uint8)
    return np.concatenate([rgb, alpha], axis=2)


def random_arrays(n, seed=1, velocity=False):
    """n random circles as arrays whose values are all exact in float16, so every dtype holds
    the same numbers: xy, radius, color (N, 3), alpha, z (and velocity)."""
    rng = np.random.default_rng(seed)
    out = {
        "xy": rng.uniform(-0.1, 1.1, (n, 2)),
        "radius": rng.uniform(0.02, 0.15, n),
        "color": rng.uniform(0, 1, (n, 3)),
        "alpha": rng.uniform(0.2, 1, n),
        "z": rng.uniform(0, 1, n),
    }
    if velocity:
        out["velocity"] = rng.uniform(-0.5, 0.5, (n, 2))
    return {k: v.astype(np.float16).astype(np.float64) for k, v in out.items()}
