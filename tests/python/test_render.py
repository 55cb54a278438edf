"""circles.render: what it draws from arrays equals what the command line draws from the same
scene in a file, row 0 is the top, every dtype and layout of the same numbers gives the same
pixels, and frames, batches, float output and progress behave as documented."""

import subprocess

import numpy as np
import pytest

import circles
from conftest import random_arrays, read_png


def _text(v):
    """A float32 value written so that the scene reader gets the same float back."""
    return repr(float(np.float32(v)))


def _write_scene_text(path, a, size, background):
    """The arrays `a` as scene text (docs/FORMAT.md), colour RGB + alpha, with velocities."""
    top, bottom = background
    lines = [
        "circles-scene 1",
        f"size {size[0]} {size[1]}",
        "background gradient " + " ".join(_text(v) for v in (*top, *bottom)),
        f"count {len(a['radius'])}",
    ]
    for i in range(len(a["radius"])):
        fields = [*a["xy"][i], a["z"][i], a["radius"][i], *a["color"][i], a["alpha"][i], *a["velocity"][i]]
        lines.append(" ".join(_text(v) for v in fields))
    path.write_text("\n".join(lines) + "\n")


def test_arrays_render_as_the_command_line_renders_the_same_scene_file(tmp_path, circles_bin):
    a = random_arrays(300, seed=3, velocity=True)
    size = (120, 90)  # not square: the unit square is fitted, centred
    background = ((0.25, 0.5, 0.75), (1.0, 0.875, 0.5))
    scene_file = tmp_path / "arrays.scene"
    _write_scene_text(scene_file, a, size, background)
    png = tmp_path / "cli.png"
    subprocess.run([circles_bin, "render", str(scene_file), "-o", str(png), "--renderer", "cpu-ref"], check=True,
                   capture_output=True)
    expected = read_png(png)
    assert expected.shape == (90, 120, 4)

    for renderer in ("cpu-ref", "cpu-mt"):
        image = circles.render(**a, size=size, background=background, renderer=renderer)
        assert image.dtype == np.uint8 and image.shape == (90, 120, 4)
        assert np.array_equal(image, expected), renderer
    # The file itself, loaded by the module, draws the same.
    assert np.array_equal(circles.render(str(scene_file), renderer="cpu-ref"), expected)
    assert np.array_equal(circles.render(circles.Scene.load(scene_file), renderer="cpu-mt"), expected)


def test_builtin_renders_as_the_command_line_renders_it(tmp_path, circles_bin):
    png = tmp_path / "rgby.png"
    subprocess.run([circles_bin, "render", "rgby", "-s", "64x48", "-o", str(png), "--renderer", "cpu-ref"],
                   check=True, capture_output=True)
    assert np.array_equal(circles.render("rgby", size=(64, 48), renderer="cpu-ref"), read_png(png))


def test_row_zero_is_the_top():
    # One black circle near the top edge (y up in the scene) on white.
    image = circles.render(xy=[[0.5, 0.9]], radius=0.05, size=(100, 100), renderer="cpu-ref")
    assert image.shape == (100, 100, 4)
    assert tuple(image[10, 50]) == (0, 0, 0, 255)  # row 10 from the top: y = 0.895
    assert tuple(image[90, 50]) == (255, 255, 255, 255)
    dark_rows = np.flatnonzero((image[:, :, 0] < 128).any(axis=1))
    assert dark_rows.min() >= 4 and dark_rows.max() <= 16


def test_every_dtype_and_layout_of_the_same_numbers_draws_the_same_pixels():
    a = random_arrays(500, seed=5)
    n = len(a["radius"])
    reference = circles.render(**a, size=(64, 64), renderer="cpu-ref")
    reference_circles = circles.Scene(**a).circles

    def variants():
        for dtype in (np.float16, np.float32, np.float64):
            yield f"C {np.dtype(dtype)}", {k: np.ascontiguousarray(v, dtype=dtype) for k, v in a.items()}
            yield f"Fortran {np.dtype(dtype)}", {k: np.asfortranarray(v, dtype=dtype) for k, v in a.items()}
            # Every other row and a column slice of wider arrays: strided, not contiguous.
            strided = {}
            for k, v in a.items():
                wide = np.zeros((2 * n,) + ((v.shape[1] + 3,) if v.ndim == 2 else (3,)), dtype=dtype)
                if v.ndim == 2:
                    wide[::2, 1 : 1 + v.shape[1]] = v
                    strided[k] = wide[::2, 1 : 1 + v.shape[1]]
                else:
                    wide[::2, 2] = v
                    strided[k] = wide[::2, 2]
                assert not strided[k].flags.c_contiguous
            yield f"strided {np.dtype(dtype)}", strided
            # Negative strides: a reversed copy, reversed again.
            yield f"reversed {np.dtype(dtype)}", {k: np.ascontiguousarray(v[::-1], dtype=dtype)[::-1] for k, v in a.items()}
        yield "lists", {k: v.tolist() for k, v in a.items()}
        yield "mixed", {"xy": a["xy"].astype(np.float16), "radius": a["radius"].astype(np.float32),
                        "color": np.asfortranarray(a["color"]), "alpha": a["alpha"].astype(np.longdouble),
                        "z": a["z"].astype(">f8")}

    for name, arrays in variants():
        assert np.array_equal(circles.Scene(**arrays).circles, reference_circles), name
        assert np.array_equal(circles.render(**arrays, size=(64, 64), renderer="cpu-ref"), reference), name


def test_integer_and_bool_arrays_are_accepted():
    xy = np.array([[0, 0], [1, 1], [1, 0]], dtype=np.int32)
    radius = np.array([1, 2, 1], dtype=np.int64)
    color = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.uint8)
    alpha = np.array([True, False, True])
    from_ints = circles.render(xy=xy, radius=radius, color=color, alpha=alpha, size=(16, 16), renderer="cpu-ref")
    from_floats = circles.render(xy=xy.astype(float), radius=radius.astype(float), color=color.astype(float),
                                 alpha=alpha.astype(float), size=(16, 16), renderer="cpu-ref")
    assert np.array_equal(from_ints, from_floats)


def test_scalars_and_broadcast_colour():
    n = 40
    a = random_arrays(n, seed=7)
    image = circles.render(xy=a["xy"], radius=0.1, color=(0.5, 0.25, 1.0, 0.75), z=0.5, size=(32, 32),
                           renderer="cpu-ref")
    full = circles.render(xy=a["xy"], radius=np.full(n, 0.1), color=np.tile([0.5, 0.25, 1.0, 0.75], (n, 1)),
                          z=np.full(n, 0.5), size=(32, 32), renderer="cpu-ref")
    assert np.array_equal(image, full)


def test_frames_equal_separate_renders_of_each_frame():
    scene = circles.Scene.load("bouncingballs")
    movie = circles.render(scene, frames=range(0, 3), size=(48, 48), renderer="cpu-ref")
    assert movie.shape == (3, 48, 48, 4)
    for k in range(3):
        assert np.array_equal(movie[k], circles.render(scene, frame=k, size=(48, 48), renderer="cpu-ref")), k
    assert not np.array_equal(movie[0], movie[2])  # the balls moved
    # A list of increasing frames, with gaps.
    some = circles.render("bouncingballs", frames=[1, 4, 9], size=(48, 48), renderer="cpu-mt")
    for i, k in enumerate((1, 4, 9)):
        assert np.array_equal(some[i], circles.render(scene, frame=k, size=(48, 48), renderer="cpu-ref")), k


def test_a_batch_of_scenes():
    names = ["rgb", "rgby", "pattern"]
    batch = circles.render([circles.Scene.load(n) for n in names], size=(40, 30), renderer="cpu-ref")
    assert batch.shape == (3, 30, 40, 4)
    for i, n in enumerate(names):
        assert np.array_equal(batch[i], circles.render(n, size=(40, 30), renderer="cpu-ref")), n
    # A batch of animations, several frames each: (B, F, H, W, 4).
    both = circles.render(["bouncingballs", "hypnosis"], frames=range(2, 4), size=(24, 24), renderer="cpu-ref")
    assert both.shape == (2, 2, 24, 24, 4)
    assert np.array_equal(both[1, 1], circles.render("hypnosis", frame=3, size=(24, 24), renderer="cpu-ref"))


def test_float32_output_rounds_to_the_uint8_output():
    a = random_arrays(200, seed=11)
    floats = circles.render(**a, size=(50, 40), renderer="cpu-ref", dtype="float32")
    bytes_ = circles.render(**a, size=(50, 40), renderer="cpu-ref")
    assert floats.dtype == np.float32 and floats.shape == (40, 50, 4)
    # The renderers' 8-bit rounding (render/image.h, to_byte_fast), in float32.
    x = np.clip(floats, 0, 1).astype(np.float32) * np.float32(255)
    r = np.floor(x)
    assert np.array_equal((r + ((x - r) >= 0.5)).astype(np.uint8), bytes_)


def test_progress_callable_gets_done_and_total(capsys):
    calls = []
    circles.render("bouncingballs", frames=range(0, 4), size=(16, 16), renderer="cpu-ref",
                   progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    circles.render("bouncingballs", frames=range(0, 4), size=(16, 16), renderer="cpu-ref", progress=True)
    err = capsys.readouterr().err
    assert "4/4 frames" in err and err.endswith("\n")


def test_an_exception_in_the_progress_callable_stops_the_render():
    def stop(done, total):
        if done == 2:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        circles.render("bouncingballs", frames=range(0, 100), size=(16, 16), renderer="cpu-ref", progress=stop)


def test_default_renderer_draws_cpu_refs_picture():
    image = circles.render("rand10k", size=(96, 96))
    assert np.array_equal(image, circles.render("rand10k", size=(96, 96), renderer="cpu-ref"))


def test_kept_renderers_draw_what_fresh_ones_draw():
    # render() keeps its renderer between calls: the same scene again, another scene, and an
    # animation drawn backwards must each give what a renderer made for that call gives.
    a = circles.Scene.load("rand10k")
    b = circles.Scene.load("rgby")
    anim = circles.Scene.load("bouncingballs")
    opts = dict(renderer="cpu-mt", size=(96, 64))

    def fresh(scene, **kw):
        circles.release_renderers()
        return circles.render(scene, **opts, **kw)

    want_a, want_b = fresh(a), fresh(b)
    want_5, want_2 = fresh(anim, frame=5), fresh(anim, frame=2)
    circles.release_renderers()
    assert np.array_equal(circles.render(a, **opts), want_a)
    assert np.array_equal(circles.render(a, **opts), want_a)  # the kept state, drawn again
    assert np.array_equal(circles.render(b, **opts), want_b)  # another scene on the kept renderer
    assert np.array_equal(circles.render(anim, frame=5, **opts), want_5)
    assert np.array_equal(circles.render(anim, frame=5, **opts), want_5)  # the same frame again
    assert np.array_equal(circles.render(anim, frame=2, **opts), want_2)  # backwards: loaded again
    assert not np.array_equal(want_5, want_2)
    assert not np.array_equal(want_a, want_b)
