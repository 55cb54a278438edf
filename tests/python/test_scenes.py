"""Scenes and the registry: circles.list(), Scene's properties, saving and loading (.npz and text,
bit for bit), scenes written by NumPy itself, and the PNG output (_repr_png_, save_png)."""

import numpy as np
import pytest

import circles
from conftest import random_arrays, read_png


def test_version_and_list():
    assert isinstance(circles.__version__, str) and circles.__version__
    listing = circles.list()
    renderers = {r["name"]: r for r in listing["renderers"]}
    assert {"cpu-ref", "cpu-mt"} <= set(renderers)
    for name in ("cpu-ref", "cpu-mt"):
        r = renderers[name]
        assert r["available"] is True and r["unavailable_reason"] == ""
        assert r["modes"][0] == "exact" and r["description"]
    for r in renderers.values():
        assert set(r) == {"name", "description", "available", "unavailable_reason", "modes"}
        assert r["available"] == (r["unavailable_reason"] == "")
    scenes = {s["name"]: s for s in listing["scenes"]}
    assert scenes["rand10k"]["circles"] == 10000 and scenes["rand10k"]["description"]
    assert circles.default_renderer() in renderers
    assert renderers[circles.default_renderer()]["available"]


def test_scene_properties():
    s = circles.Scene.load("rand10k")
    assert len(s) == 10000 and s.size == (1024, 1024) and s.name == "rand10k"
    assert s.has_velocity is False and s.animation == "none" and s.shading == "flat" and s.frame == 0
    c = s.circles
    assert c.shape == (10000, 10) and c.dtype == np.float32
    c[:] = 0  # a copy: the scene keeps its circles
    assert s.circles[:, 3].min() > 0
    assert "rand10k" in repr(s)
    assert circles.Scene.load("rand10k", seed=2).circles[0, 0] != s.circles[0, 0]

    a = random_arrays(10, velocity=True)
    t = circles.Scene(**a, size=(30, 20), background=((0, 0, 1), (1, 1, 0)), shading="snow", animation="snow",
                      seed=9, frame=4)
    assert t.size == (30, 20) and t.has_velocity and t.shading == "snow" and t.animation == "snow"
    assert t.seed == 9 and t.frame == 4 and t.background == ((0, 0, 1), (1, 1, 0))
    c = t.circles
    assert np.array_equal(c[:, 0:2], a["xy"].astype(np.float32))
    assert np.array_equal(c[:, 2], a["z"].astype(np.float32))
    assert np.array_equal(c[:, 3], a["radius"].astype(np.float32))
    assert np.array_equal(c[:, 4:7], a["color"].astype(np.float32))
    assert np.array_equal(c[:, 7], a["alpha"].astype(np.float32))
    assert np.array_equal(c[:, 8:10], a["velocity"].astype(np.float32))
    assert circles.Scene(xy=[[0, 0]], radius=1, background=(0.5, 0.5, 0.5)).background == (0.5, 0.5, 0.5, 1.0)


def test_defaults_and_empty_scenes():
    s = circles.Scene(xy=[[0.5, 0.5]], radius=0.25)
    assert s.size == (1024, 1024) and s.background == (1, 1, 1, 1)
    assert tuple(s.circles[0, 4:8]) == (0, 0, 0, 1)  # opaque black
    empty = circles.Scene(xy=np.zeros((0, 2)), radius=np.zeros(0), size=(5, 4), background=(0, 0.5, 1, 1))
    assert len(empty) == 0
    image = circles.render(empty, renderer="cpu-ref")
    assert image.shape == (4, 5, 4) and (image == [0, 128, 255, 255]).all()


def _same_scene(a, b):
    assert np.array_equal(a.circles, b.circles)
    for attribute in ("size", "background", "shading", "animation", "seed", "frame", "has_velocity"):
        assert getattr(a, attribute) == getattr(b, attribute), attribute


@pytest.mark.parametrize("suffix", [".npz", ".scene"])
def test_save_and_load_give_the_same_scene(tmp_path, suffix):
    a = random_arrays(1000, seed=4, velocity=True)
    scene = circles.Scene(**a, size=(300, 200), background=((0.1, 0.2, 0.3), (0.4, 0.5, 0.6)),
                          animation="bouncingballs", seed=12345678901234, frame=7)
    path = tmp_path / ("scene" + suffix)
    scene.save(path)
    loaded = circles.Scene.load(path)
    _same_scene(scene, loaded)
    assert loaded.name == str(path)
    assert np.array_equal(circles.render(loaded, size=(32, 32), renderer="cpu-ref"),
                          circles.render(scene, size=(32, 32), renderer="cpu-ref"))
    # A built-in survives the round trip too.
    builtin = circles.Scene.load("snow")
    builtin.save(tmp_path / ("snow" + suffix))
    _same_scene(builtin, circles.Scene.load(str(tmp_path / ("snow" + suffix))))


def test_a_scene_written_by_numpy_loads(tmp_path):
    rng = np.random.default_rng(8)
    xy, radius, color = rng.random((50, 2)), rng.uniform(0.01, 0.1, 50), rng.random((50, 4))
    path = tmp_path / "numpy.npz"
    np.savez(path, xy=xy, radius=radius, color=color)
    loaded = circles.Scene.load(path)
    _same_scene(loaded, circles.Scene(xy, radius, color))
    compressed = tmp_path / "compressed.npz"
    np.savez_compressed(compressed, xy=xy.astype(np.float32), radius=radius.astype(np.float16), color=color)
    assert np.array_equal(circles.Scene.load(compressed).circles,
                          circles.Scene(xy.astype(np.float32), radius.astype(np.float16), color).circles)
    # A bare .npy of packed circles, (N, 10): x y z radius r g b a vx vy.
    packed = circles.Scene.load("rand10k").circles
    np.save(tmp_path / "packed.npy", packed)
    assert np.array_equal(circles.Scene.load(tmp_path / "packed.npy").circles, packed)


def test_repr_png_is_a_png_of_the_default_render():
    s = circles.Scene.load("rgby")
    small = circles.Scene(xy=s.circles[:, :2], radius=s.circles[:, 3], color=s.circles[:, 4:8], size=(40, 30))
    png = small._repr_png_()
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")


def test_save_png_writes_what_render_returned(tmp_path):
    image = circles.render("rgby", size=(33, 21), renderer="cpu-ref")
    circles.save_png(tmp_path / "a.png", image)
    assert np.array_equal(read_png(tmp_path / "a.png"), image)
    # Floats are rounded as the renderers round them; RGB gets an opaque alpha.
    floats = circles.render("rgby", size=(33, 21), renderer="cpu-ref", dtype="float32")
    circles.save_png(tmp_path / "f.png", floats)
    assert np.array_equal(read_png(tmp_path / "f.png"), image)
    circles.save_png(tmp_path / "rgb.png", image[:, :, :3])
    rgb = read_png(tmp_path / "rgb.png")
    assert np.array_equal(rgb[:, :, :3], image[:, :, :3]) and (rgb[:, :, 3] == 255).all()
    # A strided view is written as the picture it shows.
    circles.save_png(tmp_path / "flipped.png", image[::-1])
    assert np.array_equal(read_png(tmp_path / "flipped.png"), image[::-1])


def test_save_png_matches_the_png_reader_of_the_repr(tmp_path):
    s = circles.Scene(xy=[[0.3, 0.7], [0.6, 0.4]], radius=[0.2, 0.3], color=[[1, 0, 0, 0.5], [0, 0, 1, 0.75]],
                      size=(24, 24))
    path = tmp_path / "repr.png"
    path.write_bytes(s._repr_png_())
    assert np.array_equal(read_png(path), circles.render(s))
