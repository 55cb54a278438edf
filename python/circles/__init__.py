"""circles: exact alpha-blended circles from Python (docs/PYTHON.md).

The package wraps the C++ library (api/circles/circles.h) through its extension ``_circles``:
this file turns Python arguments into what the library takes (arrays to float16/32/64 views,
sizes, frame lists, renderer and mode names) and documents the API; the gathering, checking and
drawing happen in C++ with the GIL released.

    import numpy as np, circles
    rng = np.random.default_rng(1)
    xy = rng.random((100_000, 2))
    image = circles.render(xy=xy, radius=0.01, color=rng.random((100_000, 3)), alpha=0.5)
    image.shape        # (1024, 1024, 4), uint8, row 0 at the top
    circles.save_png("out.png", image)

Errors: a bad array element, shape or argument raises ValueError naming it ("radius[12]: must
be greater than 0, found -1"); a scene file that cannot be read raises SceneFileError (a
ValueError); anything else the library refuses (a file that cannot be written) RuntimeError.
"""

import builtins as _builtins
import operator as _operator
import os as _os
import sys as _sys
import tempfile as _tempfile
import time as _time

import numpy as _np

from . import _circles
from ._circles import SceneFileError

__version__ = _circles.__version__

__all__ = [
    "CudaFrames",
    "Scene",
    "SceneFileError",
    "circle_bytes_uploaded",
    "bench",
    "check",
    "default_renderer",
    "list",
    "release_renderers",
    "render",
    "save_png",
]

# The largest image side the renderers take (the library checks it too).
_MAX_SIDE = 16384
# The dtypes the library reads in place, with their strides; every other one is converted once.
_IN_PLACE = (_np.dtype(_np.float16), _np.dtype(_np.float32), _np.dtype(_np.float64))
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ---- arguments -------------------------------------------------------------------------------


def _float_array(name, value):
    """`value` as an array the library reads without a copy: a native float16/32/64 array as it
    is (any strides), anything else converted once to float64. None stays None."""
    if value is None:
        return None
    try:
        a = _np.asarray(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: cannot be read as an array of numbers ({e})") from None
    if a.dtype in _IN_PLACE and a.dtype.isnative:
        return a
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name}: expected real numbers, found dtype {a.dtype}")
    return _np.asarray(a, dtype=_np.float64)


def _size(size, default=None):
    """(width, height) as two ints in 1..16384, or `default` for None."""
    if size is None:
        return default
    try:
        width, height = size
        width, height = _operator.index(width), _operator.index(height)
    except (TypeError, ValueError):
        raise ValueError(f"size: expected (width, height), two integers, found {size!r}") from None
    if not (1 <= width <= _MAX_SIDE and 1 <= height <= _MAX_SIDE):
        raise ValueError(f"size: width and height must be 1..{_MAX_SIDE}, found {width}x{height}")
    return width, height


def _background(background):
    """The library's background: ('solid', rgba, rgba) or ('gradient', top rgb1, bottom rgb1)."""
    try:
        b = _np.asarray(background, dtype=_np.float64)
    except (TypeError, ValueError):
        b = None
    if b is not None and b.shape in ((3,), (4,)):
        rgba = [float(v) for v in b] + ([1.0] if b.shape == (3,) else [])
        return "solid", rgba, rgba
    if b is not None and b.shape == (2, 3):
        return "gradient", [float(v) for v in b[0]] + [1.0], [float(v) for v in b[1]] + [1.0]
    raise ValueError(
        "background: expected (r, g, b) or (r, g, b, a) for a solid colour, or ((r, g, b), (r, g, b)) "
        f"for a gradient from top to bottom, found {background!r}"
    )


def _int(name, value, low, high):
    try:
        v = _operator.index(value)
    except TypeError:
        raise ValueError(f"{name}: expected an integer, found {value!r}") from None
    if not low <= v <= high:
        raise ValueError(f"{name}: must be between {low} and {high}, found {v}")
    return v


def _name(renderer):
    if renderer is None:
        return ""
    if not isinstance(renderer, str):
        raise ValueError(f"renderer: expected a renderer's name (circles.list()), found {renderer!r}")
    return renderer


def _mode(mode):
    if not isinstance(mode, str):
        raise ValueError(f"mode: expected 'exact', 'half-colour' or 'early-exit', found {mode!r}")
    return mode


def _frames(frames):
    """A strictly increasing int64 array of frame numbers, each 0 or more."""
    if isinstance(frames, range):
        if frames.step <= 0:
            raise ValueError(f"frames: must increase, found {frames!r}")
        f = _np.arange(frames.start, frames.stop, frames.step, dtype=_np.int64)
    else:
        try:
            f = _np.asarray([_operator.index(v) for v in frames], dtype=_np.int64)
        except TypeError:
            raise ValueError(f"frames: expected a range or a list of integers, found {frames!r}") from None
        except OverflowError:
            raise ValueError("frames: a frame number is too large") from None
    if f.size == 0:
        raise ValueError(f"frames: no frame to draw ({frames!r})")
    if f[0] < 0:
        raise ValueError(f"frames[0]: must be 0 or more, found {f[0]}")
    steps = _np.flatnonzero(_np.diff(f) <= 0)
    if steps.size:
        k = int(steps[0]) + 1
        raise ValueError(f"frames[{k}]: frames must increase, found {f[k]} after {f[k - 1]}")
    return _np.ascontiguousarray(f)


class _ProgressLine:
    """progress=True: one line on stderr, redrawn in place at most ten times a second:
    'circles: 12/40 frames [#####.........]  30%  0:04 elapsed, 0:09 left'."""

    def __init__(self, stream=None):
        self.stream = stream or _sys.stderr
        self.start = _time.monotonic()
        self.last = 0.0

    @staticmethod
    def _clock(seconds):
        seconds = int(seconds + 0.5)
        return f"{seconds // 60}:{seconds % 60:02d}"

    def __call__(self, done, total):
        now = _time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        spent = now - self.start
        share = done / total if total else 1.0
        bar = "#" * int(share * 20)
        left = spent / done * (total - done) if done else 0.0
        self.stream.write(
            f"\rcircles: {done}/{total} frames [{bar:.<20}] {share:4.0%}  "
            f"{self._clock(spent)} elapsed, {self._clock(left)} left"
        )
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _progress(progress):
    if progress is None or progress is False:
        return None
    if progress is True:
        return _ProgressLine()
    if callable(progress):
        return progress
    raise ValueError(f"progress: expected True, False or a callable(done, total), found {progress!r}")


# ---- scenes ----------------------------------------------------------------------------------


class Scene:
    """A scene: circles in the unit square (x right, y up), a background, a shading style and an
    optional animation.

    Scene(xy, radius, color=None, alpha=None, z=None, velocity=None, *, size=(1024, 1024),
          background=(1, 1, 1, 1), shading='flat', animation='none', seed=1, frame=0)

    Arrays are anything np.asarray accepts. float16, float32 and float64 arrays are read where
    they are, with their strides (C or Fortran order, slices, negative steps); other dtypes
    (integers, bools, float128) are converted once to float64. The circles are copied into the
    scene (float32), every value checked: later changes to the arrays do not change the scene.

      xy        (N, 2)                      centres; the unit square, y up
      radius    (N,) or a scalar            greater than 0, at most 1e6
      color     (N, 4), (N, 3), (4,), (3,)  straight RGB(A): RGB 0..1e6 (above 1 saturates in
                                            8-bit images), A in [0, 1]; default opaque black
      alpha     (N,) or a scalar            A in [0, 1], with a 3-column (or no) color only
      z         (N,) or a scalar            depth (0 near, 1 far), default 0
      velocity  (N, 2)                      units a second, for the animations

    size is (width, height) in pixels, 1..16384 each; background is (r, g, b) or (r, g, b, a)
    for a solid colour, or ((r, g, b), (r, g, b)) for a vertical gradient from top to bottom;
    shading 'flat' or 'snow'; animation 'none', 'bouncingballs', 'hypnosis', 'fireworks' or
    'snow'; seed feeds the animation's noise; frame is the animation frame this state is at;
    name names the scene in messages and in its repr.

    A bad value raises ValueError naming the argument and the element:
    "radius[12]: must be greater than 0, found -1".
    """

    def __init__(self, xy, radius, color=None, alpha=None, z=None, velocity=None, *, size=(1024, 1024),
                 background=(1, 1, 1, 1), shading="flat", animation="none", seed=1, frame=0, name="arrays"):
        width, height = _size(size)
        kind, top, bottom = _background(background)
        if not isinstance(shading, str):
            raise ValueError(f"shading: expected 'flat' or 'snow', found {shading!r}")
        if not isinstance(animation, str):
            raise ValueError(f"animation: expected a name such as 'bouncingballs', found {animation!r}")
        self._scene = _circles.scene_from_arrays(
            _float_array("xy", xy), _float_array("radius", radius), _float_array("color", color),
            _float_array("alpha", alpha), _float_array("z", z), _float_array("velocity", velocity),
            width, height, kind, top, bottom, shading, animation,
            _int("seed", seed, 0, 2**64 - 1), _int("frame", frame, 0, 2**62), str(name))

    @classmethod
    def _wrap(cls, core):
        scene = cls.__new__(cls)
        scene._scene = core
        return scene

    @classmethod
    def load(cls, path_or_name, seed=1):
        """A built-in scene by name ('rand10k', ...: circles.list()['scenes']) or a scene file:
        scene text (docs/FORMAT.md), a .npz (Scene.save's binary format, or arrays named xy,
        radius, color, ... as np.savez writes them) or a .npy of packed circles, (N, 8) or
        (N, 10). A built-in name wins over a file of that name; seed is the built-ins' seed.
        A file that cannot be read raises SceneFileError (a ValueError) with .file."""
        return cls._wrap(_circles.load_scene(_os.fspath(path_or_name), _int("seed", seed, 0, 2**64 - 1)))

    def save(self, path):
        """Writes the scene: a path ending in .npz gets the binary format, any other scene text
        (docs/FORMAT.md); both read back bit for bit. The file is written whole or not at all."""
        _circles.save_scene(self._scene, _os.fspath(path))

    def __len__(self):
        return self._scene.count

    @property
    def size(self):
        """(width, height): the size the scene is drawn at unless render() is given another."""
        return (self._scene.width, self._scene.height)

    @property
    def name(self):
        """The built-in's name, the file's path, or the name given (default 'arrays')."""
        return self._scene.name

    @property
    def has_velocity(self):
        """Whether the circles' velocities are meaningful (given, or in the file)."""
        return self._scene.has_velocity

    @property
    def shading(self):
        return self._scene.shading

    @property
    def animation(self):
        return self._scene.animation

    @property
    def seed(self):
        return self._scene.seed

    @property
    def frame(self):
        """The animation frame this scene's circles are at (the first frame render() can draw)."""
        return self._scene.frame

    @property
    def background(self):
        """(r, g, b, a) for a solid background, ((r, g, b), (r, g, b)) for a gradient (top,
        bottom), as Scene() takes it."""
        kind, top, bottom = self._scene.background
        return tuple(top) if kind == "solid" else (tuple(top[:3]), tuple(bottom[:3]))

    @property
    def circles(self):
        """A new (N, 10) float32 array of the circles: x y z radius r g b a vx vy."""
        return self._scene.circles()

    def __repr__(self):
        width, height = self.size
        animated = "" if self.animation == "none" else f", animation {self.animation}"
        return f"<circles.Scene {self.name!r}: {len(self)} circles, {width}x{height}{animated}>"

    def _repr_png_(self):
        """PNG bytes of the scene drawn by the default renderer (Jupyter shows them)."""
        return _png_bytes(render(self))


def _scene(scene):
    if isinstance(scene, Scene):
        return scene
    if isinstance(scene, (str, bytes, _os.PathLike)):
        return Scene.load(_os.fsdecode(scene) if isinstance(scene, bytes) else scene)
    raise ValueError(f"scene: expected a circles.Scene, a built-in's name or a scene file's path, found {scene!r}")


# ---- the registry ----------------------------------------------------------------------------


def list():  # noqa: A001 (circles.list, as the command line's `circles list`)
    """The renderers and built-in scenes:
    {'renderers': [{'name', 'description', 'available', 'unavailable_reason', 'modes'}, ...],
     'scenes': [{'name', 'description', 'circles'}, ...]}."""
    return {"renderers": _circles.renderers(), "scenes": _circles.scenes()}


def default_renderer():
    """The renderer used when none is named: cuda-tile-binned where a GPU is usable, else cpu-mt."""
    return _circles.default_renderer()


# ---- drawing ---------------------------------------------------------------------------------


_CUDA_TYPES = {"<f2": 0, "<f4": 1, "<f8": 2}


# Host values that are never GPU arrays (checked first: asking a torch tensor for its
# __cuda_array_interface__ builds the dict in Python each time).
_HOST_TYPES = (int, float, _np.ndarray, _np.generic, _builtins.list, tuple, range)


def _gpu_array(name, value):
    """How a field is on the GPU: ('cai', interface dict), ('dlpack', value) for an object with
    only __dlpack__ on a CUDA device, or None (absent, or in host memory)."""
    if value is None or isinstance(value, _HOST_TYPES):
        return None
    try:
        cai = value.__cuda_array_interface__
    except AttributeError:
        cai = None
    except Exception as e:  # e.g. torch: a tensor that requires grad
        raise ValueError(f"{name}: {e}") from None
    if cai is not None:
        return "cai", cai
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        if value.__dlpack_device__()[0] in (2, 13):  # kDLCUDA, kDLCUDAManaged
            return "dlpack", value
    return None


def _on_gpu(value):
    return _gpu_array("value", value) is not None


def _cai_field(name, cai):
    """A __cuda_array_interface__ as the core takes it: (pointer, dtype code, shape, strides in
    bytes), and the stream it was written on (None: no stream named)."""
    typestr = cai["typestr"]
    if typestr not in _CUDA_TYPES:
        raise ValueError(f"{name}: expected float16, float32 or float64 on the GPU, found typestr {typestr!r} "
                         "(convert it there first, e.g. tensor.float())")
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is None:  # C order
        item = int(typestr[2])
        strides = (shape[1] * item, item) if len(shape) == 2 else (item,) * len(shape)
    return (cai["data"][0], _CUDA_TYPES[typestr], shape, tuple(strides)), cai.get("stream")


def _host_constant(name, value):
    """A host value allowed beside GPU arrays, as a list of floats: a scalar (radius, alpha, z) or a
    colour row of 3 or 4 values (color)."""
    a = _float_array(name, value)
    if a.ndim == 0 and name in ("radius", "alpha", "z"):
        return [float(a)]
    if name == "color" and a.shape in ((3,), (4,)):
        return [float(v) for v in a]
    raise ValueError(f"{name}: in host memory while other arrays are on the GPU: pass them all on one side "
                     "(only a scalar radius, alpha or z, or one colour row, may stay on the host)")


def _stream_handle(stream):
    """A CUDA stream as its handle: an int, a torch.cuda.Stream (.cuda_stream), a CuPy stream
    (.ptr), or None for the default stream."""
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


class CudaFrames:
    """Frames in GPU memory, top row first: (H, W, 4) or (F, H, W, 4), uint8 or float32, written
    on the stream render() was given. Zero-copy into PyTorch (torch.from_dlpack, or
    torch.as_tensor(frames, device="cuda")) and CuPy (cupy.from_dlpack, cupy.asarray) through
    DLPack and __cuda_array_interface__; the memory lives while any of them uses it."""

    def __init__(self, core, shape):
        self._core = core
        self.shape = shape
        self.dtype = _np.dtype(_np.float32 if core.float32 else _np.uint8)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self._core.ptr, False), "version": 3,
                "strides": None, "stream": self._core.stream or 1}

    def __dlpack__(self, stream=None, **_):
        capsule = self._core.dlpack(stream)
        return capsule

    def __dlpack_device__(self):
        return (2, self._core.device)  # kDLCUDA

    def __repr__(self):
        return f"CudaFrames(shape={self.shape}, dtype={self.dtype}, device=cuda:{self._core.device})"


def circle_bytes_uploaded():
    """Bytes of circles this process has copied from the host to the GPU (every CUDA renderer):
    a host scene adds 40 bytes a circle each time it is loaded; GPU arrays add nothing."""
    return _circles.circle_bytes_uploaded()


def _out_target(out, width, height, kind):
    """The pointer and row stride of `out`, a GPU array (H, W, 4) of the frame's dtype."""
    g = _gpu_array("out", out)
    if g is None or g[0] != "cai":
        raise ValueError("out: expected a GPU array (__cuda_array_interface__), (height, width, 4)")
    cai = g[1]
    want = "|u1" if kind == _np.uint8 else "<f4"
    if cai["typestr"] != want:
        raise ValueError(f"out: expected typestr {want!r} for dtype {kind}, found {cai['typestr']!r}")
    if tuple(cai["shape"]) != (height, width, 4):
        raise ValueError(f"out: expected shape ({height}, {width}, 4), found {tuple(cai['shape'])}")
    item = kind.itemsize
    strides = cai.get("strides")
    if strides is not None and (strides[2] != item or strides[1] != 4 * item):
        raise ValueError("out: each row's pixels must be contiguous (strides (row, 4 * item, item))")
    row = strides[0] if strides is not None else width * 4 * item
    return int(cai["data"][0]), int(row)


_FIELDS = ("xy", "radius", "color", "alpha", "z", "velocity")
_WHITE = ("solid", [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0])


def _render_gpu(arrays, gpu, background, shading, animation, seed, renderer, mode, size, frame, frames, kind,
                output, stream, progress, out=None):
    fields = [None] * 6
    in_stream = None
    dlpacks = []
    for k, name in enumerate(_FIELDS):
        g = gpu.get(name)
        if g is None:
            if arrays[name] is not None:
                fields[k] = _host_constant(name, arrays[name])
        elif g[0] == "cai":
            fields[k], s = _cai_field(name, g[1])
            if s is not None and in_stream is None:
                in_stream = int(s)
        else:
            dlpacks.append((k, name, g[1]))
    if in_stream is None:
        in_stream = _stream_handle(stream) if stream is not None else 0
    # DLPack arrays are made ready on the stream the gather waits for (1: the legacy default).
    keep = []
    for k, name, value in dlpacks:
        capsule = value.__dlpack__(stream=in_stream or 1)
        keep.append(capsule)
        fields[k] = _circles.dlpack_field(name, capsule)
    width, height = _size(size, (1024, 1024))
    bg_kind, top, bottom = _WHITE if background is None else _background(background)
    out_stream = _stream_handle(stream) if stream is not None else in_stream
    frame_list = _frames(frames) if frames is not None else _np.zeros(0, dtype=_np.int64)
    first = -1 if frame is None else _int("frame", frame, 0, 2**62)
    to_cuda = output != "numpy"
    dst, dst_row = _out_target(out, width, height, kind) if out is not None else (0, 0)
    result = _circles.render_device(fields, width, height, bg_kind, top, bottom, shading or "flat",
                                    animation or "none", _int("seed", 1 if seed is None else seed, 0, 2**64 - 1), 0,
                                    _name(renderer), _mode(mode), 0, 0, first, frame_list, kind == _np.float32,
                                    in_stream, to_cuda, out_stream, dst, dst_row, _progress(progress))
    if out is not None:
        return out
    out = result
    shape = (height, width, 4) if frames is None else (frame_list.size, height, width, 4)
    if to_cuda:
        return CudaFrames(out, tuple(out.shape))
    return out.reshape(shape)


def render(scene=None, *, xy=None, radius=None, color=None, alpha=None, z=None, velocity=None, background=None,
           shading=None, animation=None, seed=None, renderer=None, mode="exact", size=None, frame=None,
           frames=None, dtype="uint8", progress=False, output=None, stream=None, out=None):
    """Draws a scene and returns its pixels as a new NumPy array, (H, W, 4) RGBA, row 0 at the
    top (image-library order): uint8 (the bytes a PNG holds) or, with dtype='float32', the
    renderer's floats.

    scene is a Scene, a built-in's name or a scene file's path, or a list of them (drawn one
    after another: (B, H, W, 4); they must come out the same size). Without a scene, the keyword
    arrays xy, radius, color, alpha, z, velocity and the settings background, shading, animation,
    seed make one, as Scene() does, at `size` (default 1024x1024).

    renderer: a name from circles.list() (default: circles.default_renderer()). mode: 'exact'
    (cpu-ref's picture to the bit), 'half-colour' or 'early-exit' (cuda-tile-binned). size:
    (width, height) instead of the scene's own. frame: the animation frame to draw (default the
    scene's). frames: a range or increasing list of frames, drawn on one loaded renderer:
    (F, H, W, 4), or (B, F, H, W, 4) with a list of scenes. progress: True for a progress line
    on stderr, or a callable(done, total) called after each frame.

    Ctrl-C between frames raises KeyboardInterrupt and returns nothing; so does any error.

    GPU arrays (PyTorch or CuPy arrays on the GPU, anything with __cuda_array_interface__) as
    xy, radius, ... are read where they are: gathered and checked on the GPU by a CUDA renderer,
    after the work their stream has enqueued, never copied through the host. Their frames come
    back as CudaFrames in GPU memory (output='numpy' for a NumPy array instead), written on
    `stream` (a torch or CuPy stream, or a handle; default: the arrays' stream). A host scene
    drawn by a CUDA renderer costs one upload of its circles, 40 bytes each, per load
    (circle_bytes_uploaded() counts them). out: a GPU array (H, W, 4) of the dtype to draw the
    frame into (a torch tensor, a CuPy array), returned: no allocation, the fastest way to draw
    frame after frame on the GPU.

    The renderer is kept for the next call with the same renderer, mode and size (up to four are
    kept): drawing the same Scene again costs a frame, another Scene its upload, and neither the
    renderer's set-up. circles.release_renderers() lets them (and their GPU memory) go.
    """
    given = {k: v for k, v in (("xy", xy), ("radius", radius), ("color", color), ("alpha", alpha), ("z", z),
                               ("velocity", velocity), ("background", background), ("shading", shading),
                               ("animation", animation), ("seed", seed)) if v is not None}
    if frame is not None and frames is not None:
        raise TypeError("render() takes frame= or frames=, not both")
    if output not in (None, "numpy", "cuda"):
        raise ValueError(f"output: expected 'numpy' or 'cuda', found {output!r}")
    arrays = {"xy": xy, "radius": radius, "color": color, "alpha": alpha, "z": z, "velocity": velocity}
    gpu = {}
    if scene is None:
        for name, value in arrays.items():
            g = _gpu_array(name, value)
            if g is not None:
                gpu[name] = g
    if gpu:
        try:
            kind = _np.dtype(dtype)
        except TypeError:
            kind = None
        if kind not in (_np.dtype(_np.uint8), _np.dtype(_np.float32)):
            raise ValueError(f"dtype: expected 'uint8' or 'float32', found {dtype!r}")
        if xy is None or radius is None:
            raise TypeError("render() needs xy= and radius=")
        return _render_gpu(arrays, gpu, background, shading, animation, seed, renderer, mode, size, frame, frames,
                           kind, output, stream, progress, out)
    if out is not None:
        raise ValueError("out: is for GPU arrays in (xy=, radius=, ... on the GPU)")
    if output == "cuda":
        raise ValueError("output: 'cuda' is for GPU arrays in (xy=, radius=, ... on the GPU); host scenes give NumPy")
    wh = _size(size, (0, 0))
    if scene is None:
        if xy is None or radius is None:
            raise TypeError("render() needs a scene (a circles.Scene, a name or a path), or xy= and radius=")
        settings = {k: given[k] for k in ("background", "shading", "animation", "seed") if k in given}
        scene = Scene(xy, radius, color, alpha, z, velocity, size=_size(size, (1024, 1024)), **settings)
    elif given:
        raise TypeError(f"render() takes a scene or arrays, not both (got a scene and {', '.join(given)})")
    batch = isinstance(scene, (_builtins.list, tuple))
    scenes = [_scene(s) for s in scene] if batch else [_scene(scene)]
    if not scenes:
        raise ValueError("scene: an empty list")
    try:
        kind = _np.dtype(dtype)
    except TypeError:
        kind = None
    if kind not in (_np.dtype(_np.uint8), _np.dtype(_np.float32)):
        raise ValueError(f"dtype: expected 'uint8' or 'float32', found {dtype!r}")
    frame_list = _frames(frames) if frames is not None else _np.zeros(0, dtype=_np.int64)
    first = -1 if frame is None else _int("frame", frame, 0, 2**62)
    out = _circles.render([s._scene for s in scenes], _name(renderer), _mode(mode), wh[0], wh[1], first,
                          frame_list, kind == _np.float32, _progress(progress))
    shape = out.shape[1:]
    if frames is not None:
        shape = (frame_list.size,) + shape
    if batch:
        shape = (len(scenes),) + shape
    return out.reshape(shape)


def release_renderers():
    """Drops the renderers render() keeps between calls, with the GPU memory and Scenes they hold."""
    _circles.release_renderers()


def check(scene, renderer=None, mode="exact", size=None, frame=None):
    """Draws one frame with `renderer` in `mode` and with cpu-ref, and compares them (as
    `circles check` does): {'ok' (the mode's promise kept), 'mode' (the mode the frame was drawn
    in), 'broken' (what broke, '' when ok), 'bytes_differ', 'floats_differ', 'max_steps',
    'max_abs' (r, g, b, a), 'summary'}."""
    width, height = _size(size, (0, 0))
    first = -1 if frame is None else _int("frame", frame, 0, 2**62)
    return _circles.check(_scene(scene)._scene, _name(renderer), _mode(mode), width, height, first)


def bench(scene, renderer=None, mode="exact", size=None, repeat=20, warmup=3):
    """Times frames as `circles bench` does: `warmup` untimed frames, then `repeat` timed ones,
    then one timed stage by stage: {'renderer', 'mode', 'plan', 'frames', 'median_ms',
    'min_ms', 'max_ms', 'stages': {stage: ms}}."""
    width, height = _size(size, (0, 0))
    return _circles.bench(_scene(scene)._scene, _name(renderer), _mode(mode), width, height,
                          _int("repeat", repeat, 1, 2**31 - 1), _int("warmup", warmup, 0, 2**31 - 1))


# ---- PNG files -------------------------------------------------------------------------------


def _image_for_png(image):
    a = _np.asarray(image)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise ValueError(f"image: expected shape (height, width, 4) or (height, width, 3), found {a.shape}")
    if a.dtype == _np.uint8:
        pass
    elif a.dtype.kind == "f":
        a = _np.asarray(a, dtype=_np.float32)
    else:
        raise ValueError(f"image: expected uint8 or floats, found dtype {a.dtype}")
    if a.shape[2] == 3:
        opaque = 255 if a.dtype == _np.uint8 else 1.0
        a = _np.concatenate([a, _np.full(a.shape[:2] + (1,), opaque, dtype=a.dtype)], axis=2)
    return _np.ascontiguousarray(a)


def save_png(path, image):
    """Writes an image, (H, W, 4) or (H, W, 3) RGBA/RGB with row 0 at the top, as an 8-bit RGBA
    PNG: uint8 as it is, floats rounded as the renderers' 8-bit output is (clamped to [0, 1]).
    The file is written whole or not at all (the command line's encoder)."""
    _circles.write_png(_os.fspath(path), _image_for_png(image))


def _png_bytes(image):
    """The PNG save_png writes, as bytes."""
    with _tempfile.TemporaryDirectory(prefix="circles-") as d:
        path = _os.path.join(d, "image.png")
        save_png(path, image)
        with open(path, "rb") as f:
            data = f.read()
    assert data.startswith(_PNG_SIGNATURE)
    return data
