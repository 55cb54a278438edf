"""Bad input: every wrong shape, bad value and bad setting raises ValueError naming the argument
(and the element, where one is at fault), before anything is drawn or written; bad scene files
raise circles.SceneFileError."""

import re

import numpy as np
import pytest

import circles
from conftest import random_arrays

N = 20


@pytest.fixture
def good():
    return random_arrays(N, seed=2, velocity=True)


def _raises(match, **kwargs):
    """Scene(...) and render(...) both refuse `kwargs` with a ValueError matching `match`."""
    with pytest.raises(ValueError, match=match):
        circles.Scene(**kwargs)
    with pytest.raises(ValueError, match=match):
        circles.render(**kwargs, size=(8, 8), renderer="cpu-ref")


@pytest.mark.parametrize(
    "argument, bad",
    [
        ("xy", np.zeros((N, 3))),
        ("xy", np.zeros(N)),
        ("xy", np.zeros((N, 2, 1))),
        ("radius", np.ones(N + 1)),
        ("radius", np.ones((N, 1))),
        ("color", np.ones((N, 5))),
        ("color", np.ones((N - 1, 3))),
        ("color", np.ones(2)),
        ("alpha", np.ones((N, 2))),
        ("z", np.zeros(N - 1)),
        ("velocity", np.zeros((N, 3))),
        ("velocity", np.zeros(2)),
    ],
)
def test_a_wrong_shape_names_the_argument(good, argument, bad):
    arrays = dict(good, **{argument: bad})
    with pytest.raises(ValueError) as e:
        circles.Scene(**arrays)
    assert str(e.value).startswith(argument + ":"), str(e.value)
    assert "shape" in str(e.value) or "dimensions" in str(e.value)


@pytest.mark.parametrize(
    "argument, index, value, message",
    [
        ("xy", (3, 1), np.nan, "xy[3, 1]: must be a finite number, found nan"),
        ("xy", (4, 0), np.inf, "xy[4, 0]: must be a finite number, found inf"),
        ("xy", (5, 0), 2e6, "xy[5, 0]: must be between -1e6 and 1e6, found 2e+06"),
        ("radius", 12, -1, "radius[12]: must be greater than 0, found -1"),
        ("radius", 0, 0, "radius[0]: must be greater than 0, found 0"),
        ("radius", 7, np.nan, "radius[7]: must be a finite number, found nan"),
        ("color", (5, 0), 2e6, "color[5, 0]: must be between 0 and 1e6, found 2e+06"),
        ("color", (6, 2), -0.5, "color[6, 2]: must be between 0 and 1e6, found -0.5"),
        ("alpha", 7, 1.5, "alpha[7]: must be in [0, 1], found 1.5"),
        ("z", 9, np.nan, "z[9]: must be a finite number, found nan"),
        ("velocity", (2, 1), np.inf, "velocity[2, 1]: must be a finite number, found inf"),
    ],
)
def test_a_bad_value_names_the_argument_and_the_element(good, argument, index, value, message):
    arrays = {k: v.copy() for k, v in good.items()}
    arrays[argument][index] = value
    _raises("^" + re.escape(message) + "$", **arrays)


def test_the_first_bad_element_is_named(good):
    arrays = {k: v.copy() for k, v in good.items()}
    arrays["radius"][[3, 15, 17]] = -2
    _raises(r"^radius\[3\]: ", **arrays)


def test_a_bad_value_in_every_dtype_is_found(good):
    for dtype in (np.float16, np.float32, np.float64, np.int64):
        arrays = {k: v.copy() for k, v in good.items()}
        arrays["radius"] = np.ones(N)  # whole numbers, so that every dtype holds them
        arrays["radius"][12] = -1
        arrays["radius"] = arrays["radius"].astype(dtype)
        _raises(re.escape("radius[12]: must be greater than 0, found -1"), **arrays)


def test_a_bad_scalar_or_broadcast_row_names_the_argument(good):
    _raises(r"^radius: must be greater than 0", xy=good["xy"], radius=-1.0)
    _raises(r"^alpha: must be in \[0, 1\]", xy=good["xy"], radius=0.1, alpha=2.0)
    _raises(r"^color\[3\]: must be in \[0, 1\]", xy=good["xy"], radius=0.1, color=(1, 1, 1, 1.5))


def test_alpha_twice_is_refused(good):
    _raises(r"^alpha: given twice", xy=good["xy"], radius=good["radius"], color=np.ones((N, 4)), alpha=good["alpha"])


@pytest.mark.parametrize("size", [(0, 10), (10, 0), (20000, 10), (10, 16385), (-1, 5)])
def test_a_bad_size_names_size(good, size):
    with pytest.raises(ValueError, match=r"^size: "):
        circles.Scene(**good, size=size)
    with pytest.raises(ValueError, match=r"^size: "):
        circles.render(**good, size=size)
    with pytest.raises(ValueError, match=r"^size: "):
        circles.render("rgb", size=size)
    with pytest.raises(ValueError, match=r"^size: "):
        circles.check("rgb", size=size)


@pytest.mark.parametrize("size", [(10,), (1, 2, 3), "10x10", (1.5, 2), 7])
def test_a_malformed_size_names_size(size):
    with pytest.raises(ValueError, match=r"^size: "):
        circles.render("rgb", size=size)


def test_bad_settings_are_value_errors(good):
    with pytest.raises(ValueError, match=r"^background"):
        circles.Scene(**good, background=(1, 1, 2))
    with pytest.raises(ValueError, match=r"^background"):
        circles.Scene(**good, background=(1, 1))
    with pytest.raises(ValueError, match=r"^shading"):
        circles.Scene(**good, shading="glossy")
    with pytest.raises(ValueError, match=r"^animation"):
        circles.Scene(**good, animation="spin")
    with pytest.raises(ValueError, match=r"^seed"):
        circles.Scene(**good, seed=-1)
    with pytest.raises(ValueError, match=r"^frame"):
        circles.Scene(**good, frame=-1)
    with pytest.raises(ValueError, match="renderer"):
        circles.render("rgb", size=(8, 8), renderer="no-such-renderer")
    with pytest.raises(ValueError, match="mode"):
        circles.render("rgb", size=(8, 8), renderer="cpu-ref", mode="fastest")
    with pytest.raises(ValueError, match="half-colour"):
        circles.render("rgb", size=(8, 8), renderer="cpu-ref", mode="half-colour")
    with pytest.raises(ValueError, match="^dtype"):
        circles.render("rgb", size=(8, 8), dtype="int16")
    with pytest.raises(ValueError):
        circles.render("no-such-scene-or-file")
    with pytest.raises(ValueError, match="^xy: expected real numbers"):
        circles.Scene(xy=np.zeros((2, 2), dtype=complex), radius=0.1)
    with pytest.raises(ValueError, match="^xy: cannot be read"):
        circles.Scene(xy=[[0, 0], [1]], radius=0.1)


def test_bad_frames_are_value_errors():
    with pytest.raises(ValueError, match=r"^frames\[2\]: frames must increase"):
        circles.render("bouncingballs", frames=[0, 3, 3], size=(8, 8))
    with pytest.raises(ValueError, match=r"^frames"):
        circles.render("bouncingballs", frames=range(5, 0, -1), size=(8, 8))
    with pytest.raises(ValueError, match=r"^frames"):
        circles.render("bouncingballs", frames=[], size=(8, 8))
    with pytest.raises(ValueError, match=r"^frames\[0\]"):
        circles.render("bouncingballs", frames=[-1, 0], size=(8, 8))
    with pytest.raises(ValueError, match=r"^frame"):
        circles.render("bouncingballs", frame=-2, size=(8, 8))
    # A scene saved at frame 5 cannot draw frame 4.
    later = circles.Scene(xy=[[0.5, 0.5]], radius=0.1, velocity=[[0.1, 0]], animation="bouncingballs", frame=5)
    with pytest.raises(ValueError, match="frame 4"):
        circles.render(later, frame=4, size=(8, 8))
    with pytest.raises(TypeError):
        circles.render("bouncingballs", frame=1, frames=[1, 2])


def test_a_batch_of_different_sizes_is_refused_unless_a_size_is_given():
    a = circles.Scene(xy=[[0.5, 0.5]], radius=0.1, size=(10, 10))
    b = circles.Scene(xy=[[0.5, 0.5]], radius=0.1, size=(12, 10))
    with pytest.raises(ValueError, match=r"^size: the scenes differ"):
        circles.render([a, b])
    assert circles.render([a, b], size=(6, 6), renderer="cpu-ref").shape == (2, 6, 6, 4)


def test_mixing_a_scene_and_arrays_is_a_type_error():
    with pytest.raises(TypeError):
        circles.render("rgb", xy=[[0, 0]], radius=1)
    with pytest.raises(TypeError):
        circles.render()
    with pytest.raises(TypeError):
        circles.render(xy=[[0, 0]])


def test_bad_scene_files_raise_scene_file_error(tmp_path):
    bad = tmp_path / "bad.scene"
    bad.write_text("circles-scene 1\ncount 1\n0.5 0.5 0 -1 1 0 0 1\n")
    with pytest.raises(circles.SceneFileError) as e:
        circles.Scene.load(bad)
    assert isinstance(e.value, ValueError)
    assert e.value.file == str(bad) and e.value.line == 3
    assert str(e.value).startswith(f"{bad}:3:")
    assert "radius" in str(e.value)

    with pytest.raises(circles.SceneFileError) as e:
        circles.Scene.load(tmp_path / "missing.scene")
    assert e.value.file == str(tmp_path / "missing.scene")

    npz = tmp_path / "bad.npz"
    np.savez(npz, xy=np.zeros((3, 2)), radius=np.array([0.1, -1, 0.1]))
    with pytest.raises(circles.SceneFileError) as e:
        circles.Scene.load(npz)
    assert e.value.file == str(npz) and "radius" in str(e.value)

    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"PK\x03\x04 this is not a zip file")
    with pytest.raises(circles.SceneFileError):
        circles.Scene.load(garbage)


def test_nothing_is_written_on_error(tmp_path):
    out = tmp_path / "image.png"
    with pytest.raises(ValueError):
        circles.save_png(out, np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ValueError):
        circles.save_png(out, np.zeros((0, 4, 4), np.uint8))
    assert not out.exists()
    with pytest.raises(RuntimeError):
        circles.Scene.load("rgb").save(tmp_path / "no-such-dir" / "rgb.npz")
    assert list(tmp_path.iterdir()) == []
