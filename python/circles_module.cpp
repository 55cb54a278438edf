// The extension module `circles._circles`: a thin pybind11 layer over the library API
// (api/circles/circles.h). It turns buffers into strided ArrayViews, runs the gather and the
// drawing with the GIL released, writes frames straight into NumPy arrays (top row first) and maps
// the library's exceptions onto Python's. Argument handling, dtype conversion and the
// documentation live in python/circles/__init__.py, the package users import.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <circles/circles.h>
#include "render/png.h"

namespace py = pybind11;

namespace {

static_assert(sizeof(circles::Circle) == 10 * sizeof(float), "Scene.circles copies Circle as 10 floats");

// circles.SceneFileError (a ValueError): a scene file that cannot be read. Created once in the
// module's init and kept for the life of the process.
PyObject* scene_file_error = nullptr;

// Raises SceneFileError(message) with the attributes `file`, `line`, `column` and `key`.
void raise_scene_file_error(const char* message, const std::string& file, int line, int column,
                            const std::string& key) {
  py::object type = py::reinterpret_borrow<py::object>(scene_file_error);
  py::object error = type(message);
  error.attr("file") = file;
  error.attr("line") = line;
  error.attr("column") = column;
  error.attr("key") = key;
  PyErr_SetObject(scene_file_error, error.ptr());
}

// A field of CircleArrays from a Python buffer (None: absent). The buffer_info keeps the memory
// alive and must be released with the GIL held, so the caller owns it.
circles::ArrayView view_of(const char* name, const py::object& value, py::buffer_info* info) {
  circles::ArrayView v;
  if (value.is_none()) return v;
  *info = py::reinterpret_borrow<py::buffer>(value).request();
  std::string format = info->format;
  // NumPy writes native floats as "e", "f", "d" ("=" or "<" before them on a little-endian host).
  constexpr bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || (little && format[0] == '<')))
    format.erase(0, 1);
  if (format == "e" && info->itemsize == 2) v.dtype = circles::DType::F16;
  else if (format == "f" && info->itemsize == 4) v.dtype = circles::DType::F32;
  else if (format == "d" && info->itemsize == 8) v.dtype = circles::DType::F64;
  else
    throw circles::ArrayError(name, "expected float16, float32 or float64 in native byte order, found buffer format '" +
                                        info->format + "'");
  if (info->ndim > 2) {
    std::string shape = "(";
    for (py::ssize_t i = 0; i < info->ndim; ++i) shape += (i ? ", " : "") + std::to_string(info->shape[i]);
    throw circles::ArrayError(name, "expected at most 2 dimensions, found shape " + shape + ")");
  }
  v.data = info->ptr;
  v.ndim = static_cast<int>(info->ndim);
  for (int i = 0; i < v.ndim; ++i) {
    v.shape[i] = info->shape[i];
    v.strides[i] = info->strides[i];
  }
  // An empty array may have no memory at all; its view must still read as present.
  static const double no_elements = 0;
  if (!v.data) v.data = &no_elements;
  return v;
}

circles::Background background_of(const std::string& kind, const std::array<float, 4>& top,
                                  const std::array<float, 4>& bottom) {
  circles::Background bg;
  if (kind == "solid") bg.kind = circles::Background::Kind::Solid;
  else if (kind == "gradient") bg.kind = circles::Background::Kind::Gradient;
  else throw std::invalid_argument("background: unknown kind '" + kind + "' (expected solid or gradient)");
  bg.top = {top[0], top[1], top[2], top[3]};
  bg.bottom = {bottom[0], bottom[1], bottom[2], bottom[3]};
  return bg;
}

// The scene of the given arrays and settings, gathered with the GIL released.
circles::Scene scene_from_arrays(const py::object& xy, const py::object& radius, const py::object& color,
                                 const py::object& alpha, const py::object& z, const py::object& velocity, int width,
                                 int height, const std::string& background_kind, const std::array<float, 4>& top,
                                 const std::array<float, 4>& bottom, const std::string& shading,
                                 const std::string& animation, std::uint64_t seed, std::int64_t frame,
                                 const std::string& name) {
  circles::Scene settings;
  settings.name = name;
  settings.width = width;
  settings.height = height;
  settings.background = background_of(background_kind, top, bottom);
  if (!circles::parse_shading(shading, &settings.shading))
    throw std::invalid_argument("shading: unknown '" + shading + "' (expected flat or snow)");
  if (!circles::parse_animation(animation, &settings.animation))
    throw std::invalid_argument("animation: unknown '" + animation +
                                "' (expected none, bouncingballs, hypnosis, fireworks or snow)");
  settings.seed = seed;
  settings.frame = frame;
  // The buffers stay requested (their arrays referenced) until the gather has copied the circles.
  py::buffer_info infos[6];
  circles::CircleArrays arrays;
  arrays.xy = view_of("xy", xy, &infos[0]);
  arrays.radius = view_of("radius", radius, &infos[1]);
  arrays.color = view_of("color", color, &infos[2]);
  arrays.alpha = view_of("alpha", alpha, &infos[3]);
  arrays.z = view_of("z", z, &infos[4]);
  arrays.velocity = view_of("velocity", velocity, &infos[5]);
  py::gil_scoped_release release;
  return circles::scene_from_arrays(arrays, settings);
}

// The scene's circles as a new (N, 10) float32 array: x y z radius r g b a vx vy.
py::array_t<float> circles_of(const circles::Scene& scene) {
  const std::size_t n = scene.circles.size();
  py::array_t<float> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(10)});
  if (n) std::memcpy(out.mutable_data(), scene.circles.data(), n * sizeof(circles::Circle));
  return out;
}

// ---- GPU arrays in (__cuda_array_interface__) and out (DLPack, __cuda_array_interface__) ----

// DLPack's ABI (dmlc/dlpack, v0.x: the structs every framework's from_dlpack reads).
struct DLDevice {
  std::int32_t device_type;  // 2: CUDA
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // 1: unsigned int, 2: float
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // nullptr: C order
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};

// Frames kept in GPU memory for the caller: shape (..., H, W, 4) of uint8 or float32, written on
// `stream`. Shared by the Python object and every DLPack capsule taken from it.
struct GpuFrames {
  void* ptr = nullptr;
  std::vector<std::int64_t> shape;
  bool float32 = false;
  int device = 0;
  std::uintptr_t stream = 0;
  ~GpuFrames() { circles::gpu_free(ptr); }
  std::size_t bytes() const {
    std::size_t n = float32 ? 4 : 1;
    for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }
};

struct DLPackContext {
  std::shared_ptr<GpuFrames> frames;
  std::vector<std::int64_t> shape;
};

py::capsule to_dlpack(const std::shared_ptr<GpuFrames>& f, const py::object& consumer_stream) {
  // The consumer's stream waits for the frames (-1 or None: the consumer asks for no wait).
  if (!consumer_stream.is_none()) {
    const long long s = consumer_stream.cast<long long>();
    if (s != -1 && static_cast<std::uintptr_t>(s) != f->stream)
      circles::gpu_stream_wait(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(s)),
                               reinterpret_cast<const void*>(f->stream));
  }
  auto* ctx = new DLPackContext{f, f->shape};
  auto* m = new DLManagedTensor{};
  m->dl_tensor.data = f->ptr;
  m->dl_tensor.device = {2, f->device};
  m->dl_tensor.ndim = static_cast<std::int32_t>(ctx->shape.size());
  m->dl_tensor.dtype = f->float32 ? DLDataType{2, 32, 1} : DLDataType{1, 8, 1};
  m->dl_tensor.shape = ctx->shape.data();
  m->dl_tensor.strides = nullptr;
  m->dl_tensor.byte_offset = 0;
  m->manager_ctx = ctx;
  m->deleter = [](DLManagedTensor* t) {
    delete static_cast<DLPackContext*>(t->manager_ctx);
    delete t;
  };
  // A capsule never taken by a consumer (still named "dltensor") frees itself.
  return py::capsule(m, "dltensor", [](PyObject* cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      if (t && t->deleter) t->deleter(t);
    } else {
      PyErr_Clear();
    }
  });
}

// A GPU array handed over by DLPack (a capsule from its __dlpack__), as device_view_of takes it:
// (pointer, dtype code, shape, strides in bytes). The capsule is left as it is (still named
// "dltensor"), so the producer's memory lives until the package drops the capsule after the call.
py::tuple dlpack_field(const std::string& name, const py::capsule& capsule) {
  const auto* m = static_cast<const DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!m) {
    PyErr_Clear();
    throw circles::ArrayError(name, "expected an unused DLPack capsule named 'dltensor'");
  }
  const DLTensor& t = m->dl_tensor;
  if (t.device.device_type != 2 && t.device.device_type != 13)
    throw circles::ArrayError(name, "DLPack device type " + std::to_string(t.device.device_type) +
                                        " is not a CUDA device (2, or 13 for managed memory)");
  if (t.dtype.code != 2 || t.dtype.lanes != 1 || (t.dtype.bits != 16 && t.dtype.bits != 32 && t.dtype.bits != 64))
    throw circles::ArrayError(name, "expected float16, float32 or float64 on the GPU, found DLPack dtype code " +
                                        std::to_string(t.dtype.code) + " with " + std::to_string(t.dtype.bits) +
                                        " bits (convert it there first)");
  if (t.ndim < 0 || t.ndim > 2)
    throw circles::ArrayError(name, "expected at most 2 dimensions, found " + std::to_string(t.ndim));
  const int item = t.dtype.bits / 8;
  py::tuple shape(t.ndim), strides(t.ndim);
  std::int64_t step = item;
  for (int i = t.ndim - 1; i >= 0; --i) {
    shape[i] = t.shape[i];
    strides[i] = t.strides ? t.strides[i] * item : step;  // DLPack strides count elements
    step *= std::max<std::int64_t>(t.shape[i], 1);
  }
  const std::uintptr_t ptr = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  return py::make_tuple(ptr, item == 2 ? 0 : item == 4 ? 1 : 2, shape, strides);
}

// A field from the package's parse of __cuda_array_interface__ or DLPack: None, (pointer, dtype
// code 0/1/2 for float16/32/64, shape, strides in bytes), or a list of floats in host memory (a
// scalar, or for color a row of 3 or 4), copied into *store and passed to the gather by value.
circles::ArrayView device_view_of(const char* name, const py::object& value, std::vector<double>* store) {
  circles::ArrayView v;
  if (value.is_none()) return v;
  if (py::isinstance<py::list>(value)) {
    *store = value.cast<std::vector<double>>();
    const bool row = std::strcmp(name, "color") == 0;
    if (store->empty() || store->size() > 4 || (!row && store->size() != 1))
      throw circles::ArrayError(name, "in host memory beside GPU arrays: expected a scalar or a colour row");
    v = row ? circles::ArrayView::contiguous(store->data(), circles::DType::F64, static_cast<std::int64_t>(store->size()))
            : circles::ArrayView::scalar(store->data(), circles::DType::F64);
    v.host_constant = true;
    return v;
  }
  const py::tuple t = value.cast<py::tuple>();
  const std::uintptr_t ptr = t[0].cast<std::uintptr_t>();
  const int code = t[1].cast<int>();
  v.dtype = code == 0 ? circles::DType::F16 : code == 1 ? circles::DType::F32 : circles::DType::F64;
  const py::tuple shape = t[2].cast<py::tuple>(), strides = t[3].cast<py::tuple>();
  if (shape.size() > 2)
    throw circles::ArrayError(name, "expected at most 2 dimensions, found " + std::to_string(shape.size()));
  v.ndim = static_cast<int>(shape.size());
  for (int i = 0; i < v.ndim; ++i) {
    v.shape[i] = shape[i].cast<std::int64_t>();
    v.strides[i] = strides[i].cast<std::int64_t>();
  }
  static const double no_elements = 0;  // an empty array may have no memory; present all the same
  v.data = ptr ? reinterpret_cast<const void*>(ptr) : &no_elements;
  return v;
}

circles::RenderOptions options_of(const std::string& renderer, const std::string& mode, int width, int height,
                                  std::int64_t frame) {
  circles::RenderOptions o;
  o.renderer = renderer;
  o.mode = mode;
  o.width = width;
  o.height = height;
  o.frame = frame;
  return o;
}

// Renderers kept from call to call, so that drawing again (the same scene, or another one of the
// same size) costs a frame, not a renderer: its streams, its device buffers, and when the scene
// is the one it holds, the upload too. At most kKept, the least recently used dropped first;
// each is used by one call at a time (`busy`, taken with the GIL held), another call meanwhile
// makes its own. Only touched with the GIL held, but for `busy`'s owner.
struct Kept {
  std::string renderer, mode;
  int width = 0, height = 0;
  std::unique_ptr<circles::Canvas> canvas;
  py::object scene;  // the Python Scene loaded: held, so that its identity means its circles
  std::mutex busy;
  std::uint64_t used = 0;
};
constexpr std::size_t kKept = 4;
std::vector<std::unique_ptr<Kept>>& kept() {
  static auto* list = new std::vector<std::unique_ptr<Kept>>();  // never destroyed: no Python at exit
  return *list;
}
std::uint64_t kept_clock = 0;

// A kept canvas for these options, locked for the caller; nullptr when none is free (the caller
// then makes one and offers it with keep()).
Kept* take_kept(const std::string& renderer, const std::string& mode, int w, int h) {
  for (auto& k : kept())
    if (k->renderer == renderer && k->mode == mode && k->width == w && k->height == h && k->busy.try_lock()) {
      k->used = ++kept_clock;
      return k.get();
    }
  return nullptr;
}

// Offers `entry` to the cache, locked for the caller; nullptr (and `entry` left as it is) when every
// kept one is in use.
Kept* keep(std::unique_ptr<Kept>& entry) {
  auto& list = kept();
  if (list.size() >= kKept) {
    // Drop the least recently used entry that no call is using.
    auto victim = list.end();
    for (auto it = list.begin(); it != list.end(); ++it)
      if ((*it)->busy.try_lock()) {
        (*it)->busy.unlock();
        if (victim == list.end() || (*it)->used < (*victim)->used) victim = it;
      }
    if (victim == list.end()) return nullptr;
    list.erase(victim);
  }
  entry->used = ++kept_clock;
  entry->busy.lock();
  list.push_back(std::move(entry));
  return list.back().get();
}

// Raises KeyboardInterrupt (or whatever a signal handler raised) when a signal has come in.
void check_signals() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

// Ctrl-C inside one long frame. Python's SIGINT handler only notes the signal for the interpreter,
// which cannot look while a render holds the thread with the GIL released; so while any render
// runs, SIGINT first asks the renderers to stop (request_interrupt: they throw Interrupted
// between pieces of the frame) and then goes on to Python's handler, whose KeyboardInterrupt
// check_signals raises once the render has returned. The first render in installs the handler,
// the last out restores Python's. Left alone when SIGINT is ignored or has its default action.
struct sigaction g_python_sigint;
std::mutex g_sigint_mutex;
int g_sigint_users = 0;

void on_sigint(int sig, siginfo_t* info, void* context) {
  circles::request_interrupt();
  if (g_python_sigint.sa_flags & SA_SIGINFO) g_python_sigint.sa_sigaction(sig, info, context);
  else if (g_python_sigint.sa_handler != SIG_DFL && g_python_sigint.sa_handler != SIG_IGN)
    g_python_sigint.sa_handler(sig);
}

class SigintBridge {
 public:
  SigintBridge() {
    std::lock_guard<std::mutex> lock(g_sigint_mutex);
    if (g_sigint_users > 0) {
      ++g_sigint_users;
      joined_ = true;
      return;
    }
    struct sigaction now {};
    if (sigaction(SIGINT, nullptr, &now) != 0) return;
    if (!(now.sa_flags & SA_SIGINFO) && (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)) return;
    g_python_sigint = now;
    struct sigaction mine = now;  // the same mask and flags, our function
    mine.sa_flags |= SA_SIGINFO;
    mine.sa_sigaction = &on_sigint;
    if (sigaction(SIGINT, &mine, nullptr) != 0) return;
    g_sigint_users = 1;
    joined_ = true;
  }
  ~SigintBridge() {
    std::lock_guard<std::mutex> lock(g_sigint_mutex);
    if (!joined_ || --g_sigint_users > 0) return;
    sigaction(SIGINT, &g_python_sigint, nullptr);
    circles::clear_interrupt();
  }
  SigintBridge(const SigintBridge&) = delete;
  SigintBridge& operator=(const SigintBridge&) = delete;

 private:
  bool joined_ = false;
};

// Runs `work` (which releases the GIL itself) until it ends without Interrupted: an interruption
// whose signal raises in Python (KeyboardInterrupt) propagates; one that does not (a handler that
// returns, or a thread other than the main one, where Python raises nothing) draws again.
template <class Work>
void interruptible(Work&& work) {
  for (;;) {
    try {
      work();
      return;
    } catch (const circles::Interrupted&) {
      check_signals();
      circles::clear_interrupt();
    }
  }
}

// Draws `frames` (empty: the one frame `frame`, -1 the scene's own) of every scene in `scenes` on
// one Canvas per scene, into a new (len(scenes) * frame count, H, W, 4) array of uint8 or float32,
// top row first. The GIL is released while a canvas loads and while a frame is drawn and read;
// between them signals are checked and `progress(done, total)` is called. An error or an
// interruption returns nothing (the array is dropped).
py::array render_frames(const py::list& scene_list, const std::string& renderer, const std::string& mode, int width,
                        int height, std::int64_t frame, const py::array_t<std::int64_t, py::array::c_style>& frames,
                        bool float32, const py::object& progress) {
  SigintBridge sigint;
  // References of our own: the list may change while the GIL is released.
  std::vector<py::object> held;
  std::vector<const circles::Scene*> scenes;
  for (const py::handle& h : scene_list) {
    held.push_back(py::reinterpret_borrow<py::object>(h));
    scenes.push_back(&h.cast<const circles::Scene&>());
  }
  if (scenes.empty()) throw std::invalid_argument("scenes: no scene to draw");
  const std::int64_t* frame_list = frames.data();
  const std::size_t frame_count = static_cast<std::size_t>(frames.size());
  const std::size_t per_scene = frame_count ? frame_count : 1;

  // One size for all: the size asked for, or every scene's own, which must then agree.
  const int w = width ? width : scenes[0]->width, h = height ? height : scenes[0]->height;
  for (const circles::Scene* s : scenes) {
    const int sw = width ? width : s->width, sh = height ? height : s->height;
    if (sw != w || sh != h)
      throw std::invalid_argument("size: the scenes differ in size ('" + scenes[0]->name + "' is " +
                                  std::to_string(w) + "x" + std::to_string(h) + ", '" + s->name + "' is " +
                                  std::to_string(sw) + "x" + std::to_string(sh) + "); pass size=(width, height)");
  }
  if (w < 1 || h < 1 || w > 16384 || h > 16384)
    throw std::invalid_argument("size: width and height must be 1..16384, found " + std::to_string(w) + "x" +
                                std::to_string(h));

  const std::size_t images = scenes.size() * per_scene;
  const std::size_t channel = float32 ? sizeof(float) : 1;
  const std::size_t image_bytes = static_cast<std::size_t>(w) * h * 4 * channel;
  py::array out = float32 ? py::array(py::array_t<float>({static_cast<py::ssize_t>(images), static_cast<py::ssize_t>(h),
                                                          static_cast<py::ssize_t>(w), static_cast<py::ssize_t>(4)}))
                          : py::array(py::array_t<std::uint8_t>({static_cast<py::ssize_t>(images),
                                                                 static_cast<py::ssize_t>(h), static_cast<py::ssize_t>(w),
                                                                 static_cast<py::ssize_t>(4)}));
  char* base = static_cast<char*>(out.mutable_data());

  std::size_t done = 0;
  for (std::size_t si = 0; si < scenes.size(); ++si) {
    const circles::Scene* scene = scenes[si];
    const std::int64_t first = frame_count ? frame_list[0] : frame >= 0 ? frame : scene->frame;
    // A kept canvas: drawn as it stands when it holds this scene at or before `first` (a still
    // scene at any frame), else loaded with the scene; or a new one, offered to the cache.
    Kept* k = take_kept(renderer, mode, w, h);
    std::unique_ptr<Kept> unkept;       // a canvas the cache had no room for
    std::unique_lock<std::mutex> hold;  // k's, released however this scene ends (before unkept dies)
    if (k) {
      hold = std::unique_lock<std::mutex>(k->busy, std::adopt_lock);
      const bool holds = k->scene.is(held[si]) &&
                         (scene->animation == circles::Animation::None || first >= k->canvas->raw().frame());
      if (!holds) {
        k->scene = py::object();
        py::gil_scoped_release release;
        k->canvas->load(*scene, first);
      }
    } else {
      auto fresh = std::make_unique<Kept>();
      fresh->renderer = renderer;
      fresh->mode = mode;
      fresh->width = w;
      fresh->height = h;
      const circles::RenderOptions o = options_of(renderer, mode, width, height, first);
      {
        py::gil_scoped_release release;
        fresh->canvas = std::make_unique<circles::Canvas>(*scene, o);
      }
      k = keep(fresh);
      if (!k) {  // every kept one busy: this call's own, dropped at its end
        k = fresh.get();
        k->busy.lock();
        unkept = std::move(fresh);
      }
      hold = std::unique_lock<std::mutex>(k->busy, std::adopt_lock);
    }
    k->scene = held[si];
    circles::Canvas* canvas = k->canvas.get();
    check_signals();
    for (std::size_t f = 0; f < per_scene; ++f) {
      interruptible([&] {
        py::gil_scoped_release release;
        const std::int64_t at = frame_count ? frame_list[f] : first;
        // A still scene draws any frame; an animation only forward (a new load otherwise).
        if (at < canvas->raw().frame()) canvas->load(*scene, at);
        canvas->draw(at);
        char* dst = base + done * image_bytes;
        if (float32) canvas->read_rgba32f(reinterpret_cast<float*>(dst));
        else canvas->read_rgba8(reinterpret_cast<std::uint8_t*>(dst));
      });
      ++done;
      check_signals();
      if (!progress.is_none()) progress(done, images);
    }
  }
  return out;
}

// Draws circles that are in GPU memory (fields as device_view_of takes them, written on
// `in_stream`) with a CUDA renderer: gathered and checked there, no host copy. The frames come
// back as NumPy arrays (to_cuda false) or as GpuFrames on `out_stream`, top row first; the shape
// is (frame count, H, W, 4), or (H, W, 4) without `frames`.
py::object render_device(const py::list& fields, int scene_width, int scene_height, const std::string& background_kind,
                         const std::array<float, 4>& top, const std::array<float, 4>& bottom,
                         const std::string& shading, const std::string& animation, std::uint64_t seed,
                         std::int64_t scene_frame, const std::string& renderer, const std::string& mode, int width,
                         int height, std::int64_t frame, const py::array_t<std::int64_t, py::array::c_style>& frames,
                         bool float32, std::uintptr_t in_stream, bool to_cuda, std::uintptr_t out_stream,
                         std::uintptr_t dst, std::size_t dst_row_stride, const py::object& progress) {
  SigintBridge sigint;
  circles::Scene settings;
  settings.name = "GPU arrays";
  settings.width = scene_width;
  settings.height = scene_height;
  settings.background = background_of(background_kind, top, bottom);
  if (!circles::parse_shading(shading, &settings.shading))
    throw std::invalid_argument("shading: unknown '" + shading + "' (expected flat or snow)");
  if (!circles::parse_animation(animation, &settings.animation))
    throw std::invalid_argument("animation: unknown '" + animation +
                                "' (expected none, bouncingballs, hypnosis, fireworks or snow)");
  settings.seed = seed;
  settings.frame = scene_frame;
  static const char* const names[6] = {"xy", "radius", "color", "alpha", "z", "velocity"};
  circles::CircleArrays a;
  circles::ArrayView* slots[6] = {&a.xy, &a.radius, &a.color, &a.alpha, &a.z, &a.velocity};
  std::vector<double> constants[6];
  for (int k = 0; k < 6; ++k) *slots[k] = device_view_of(names[k], fields[k], &constants[k]);
  const int w = width ? width : scene_width, h = height ? height : scene_height;
  if (w < 1 || h < 1 || w > 16384 || h > 16384)
    throw std::invalid_argument("size: width and height must be 1..16384, found " + std::to_string(w) + "x" +
                                std::to_string(h));
  const std::int64_t* frame_list = frames.data();
  const std::size_t count = frames.size() ? static_cast<std::size_t>(frames.size()) : 1;
  const std::int64_t first = frames.size() ? frame_list[0] : frame >= 0 ? frame : scene_frame;
  const void* in = reinterpret_cast<const void*>(in_stream);
  const void* out = reinterpret_cast<const void*>(out_stream);

  Kept* k = take_kept(renderer, mode + " gpu", w, h);
  std::unique_ptr<Kept> unkept;
  std::unique_lock<std::mutex> hold;
  if (k) {
    hold = std::unique_lock<std::mutex>(k->busy, std::adopt_lock);
    k->scene = py::object();
    py::gil_scoped_release release;
    k->canvas->load_device(a, in, settings, first);
  } else {
    auto fresh = std::make_unique<Kept>();
    fresh->renderer = renderer;
    fresh->mode = mode + " gpu";
    fresh->width = w;
    fresh->height = h;
    const circles::RenderOptions o = options_of(renderer, mode, width, height, first);
    {
      py::gil_scoped_release release;
      fresh->canvas = std::make_unique<circles::Canvas>(a, in, settings, o);
    }
    k = keep(fresh);
    if (!k) {
      k = fresh.get();
      k->busy.lock();
      unkept = std::move(fresh);
    }
    hold = std::unique_lock<std::mutex>(k->busy, std::adopt_lock);
  }
  circles::Canvas* canvas = k->canvas.get();
  const std::size_t image_bytes = static_cast<std::size_t>(w) * h * 4 * (float32 ? 4 : 1);
  std::shared_ptr<GpuFrames> gpu;
  py::array host;
  char* host_base = nullptr;
  if (dst) {
    if (count != 1) throw std::invalid_argument("out: takes one frame (not frames=)");
  } else if (to_cuda) {
    gpu = std::make_shared<GpuFrames>();
    gpu->shape = frames.size() ? std::vector<std::int64_t>{static_cast<std::int64_t>(count), h, w, 4}
                               : std::vector<std::int64_t>{h, w, 4};
    gpu->float32 = float32;
    gpu->stream = out_stream;
    gpu->device = circles::gpu_device();
    gpu->ptr = circles::gpu_alloc(gpu->bytes());
  } else {
    const std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(count), h, w, 4};
    host = float32 ? py::array(py::array_t<float>(shape)) : py::array(py::array_t<std::uint8_t>(shape));
    host_base = static_cast<char*>(host.mutable_data());
  }
  for (std::size_t f = 0; f < count; ++f) {
    interruptible([&] {
      py::gil_scoped_release release;
      const std::int64_t at = frames.size() ? frame_list[f] : first;
      canvas->draw(at);
      if (dst) canvas->write_device(reinterpret_cast<void*>(dst), float32, out, dst_row_stride);
      else if (to_cuda) canvas->write_device(static_cast<char*>(gpu->ptr) + f * image_bytes, float32, out);
      else if (float32) canvas->read_rgba32f(reinterpret_cast<float*>(host_base + f * image_bytes));
      else canvas->read_rgba8(reinterpret_cast<std::uint8_t*>(host_base + f * image_bytes));
    });
    check_signals();
    if (!progress.is_none()) progress(f + 1, count);
  }
  if (dst) return py::none();
  if (to_cuda) return py::cast(gpu);
  return host;
}

py::dict check(const circles::Scene& scene, const std::string& renderer, const std::string& mode, int width, int height,
               std::int64_t frame) {
  circles::CheckResult r;
  {
    py::gil_scoped_release release;
    r = circles::check(scene, options_of(renderer, mode, width, height, frame));
  }
  py::dict d;
  d["ok"] = r.ok;
  d["mode"] = mode_key(r.mode);
  d["broken"] = r.broken;
  d["bytes_differ"] = r.bytes_differ;
  d["floats_differ"] = r.floats_differ;
  d["max_steps"] = r.max_steps;
  d["max_abs"] = py::make_tuple(r.max_abs[0], r.max_abs[1], r.max_abs[2], r.max_abs[3]);
  d["summary"] = r.summary;
  return d;
}

py::dict bench(const circles::Scene& scene, const std::string& renderer, const std::string& mode, int width, int height,
               int repeat, int warmup) {
  circles::BenchResult r;
  {
    py::gil_scoped_release release;
    r = circles::bench(scene, options_of(renderer, mode, width, height, -1), repeat, warmup);
  }
  py::dict stages;
  for (const circles::StageTiming& t : r.stages) stages[py::str(t.stage)] = t.ms;
  py::dict d;
  d["renderer"] = r.renderer;
  d["mode"] = mode_key(r.mode);
  d["plan"] = r.plan;
  d["frames"] = r.frames;
  d["median_ms"] = r.median_ms;
  d["min_ms"] = r.min_ms;
  d["max_ms"] = r.max_ms;
  d["stages"] = stages;
  return d;
}

// Writes an (H, W, 4) C-contiguous uint8 or float32 image, top row first, as an 8-bit RGBA PNG
// (render/png.h: the command line's encoder and its atomic write).
void write_png(const std::string& path, const py::buffer& buffer) {
  const py::buffer_info info = buffer.request();
  const bool u8 = info.format == "B" && info.itemsize == 1;
  const bool f32 = (info.format == "f" || info.format == "=f" || info.format == "<f") && info.itemsize == 4;
  if (!u8 && !f32) throw std::invalid_argument("image: expected uint8 or float32, found buffer format '" + info.format + "'");
  if (info.ndim != 3 || info.shape[2] != 4)
    throw std::invalid_argument("image: expected shape (height, width, 4)");
  const py::ssize_t h = info.shape[0], w = info.shape[1];
  if (w < 1 || h < 1) throw std::invalid_argument("image: empty (" + std::to_string(h) + "x" + std::to_string(w) + ")");
  if (info.strides[2] != info.itemsize || info.strides[1] != 4 * info.itemsize || info.strides[0] != w * 4 * info.itemsize)
    throw std::invalid_argument("image: expected a C-contiguous array");
  py::gil_scoped_release release;
  circles::Image img(static_cast<int>(w), static_cast<int>(h));
  for (py::ssize_t row = 0; row < h; ++row) {
    circles::Float4* dst = &img.at(0, static_cast<int>(h - 1 - row));  // the image's row 0 is the bottom
    if (u8) {
      const std::uint8_t* src = static_cast<const std::uint8_t*>(info.ptr) + row * w * 4;
      for (py::ssize_t i = 0; i < w; ++i, src += 4)
        dst[i] = {src[0] / 255.f, src[1] / 255.f, src[2] / 255.f, src[3] / 255.f};
    } else {
      std::memcpy(static_cast<void*>(dst), static_cast<const float*>(info.ptr) + row * w * 4, static_cast<std::size_t>(w) * 16);
    }
  }
  circles::write_png(path, img);
}

}  // namespace

PYBIND11_MODULE(_circles, m) {
  m.doc() = "circles' C++ core; import the package `circles` instead (docs/PYTHON.md).";
  m.attr("__version__") = circles::version();

  scene_file_error = PyErr_NewException("circles.SceneFileError", PyExc_ValueError, nullptr);
  if (!scene_file_error) throw py::error_already_set();
  m.add_object("SceneFileError", py::handle(scene_file_error));
  // ArrayError and std::invalid_argument become ValueError and other std::runtime_errors
  // RuntimeError (pybind11's own translation); a bad scene file becomes SceneFileError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const circles::SceneError& e) {
      raise_scene_file_error(e.what(), e.file(), e.line(), e.column(), "");
    } catch (const circles::NpyError& e) {
      raise_scene_file_error(e.what(), e.file(), 0, 0, e.key());
    }
  });

  py::class_<circles::Scene>(m, "Scene")
      .def_readonly("name", &circles::Scene::name)
      .def_readonly("width", &circles::Scene::width)
      .def_readonly("height", &circles::Scene::height)
      .def_readonly("seed", &circles::Scene::seed)
      .def_readonly("frame", &circles::Scene::frame)
      .def_readonly("has_velocity", &circles::Scene::has_velocity)
      .def_property_readonly("count", [](const circles::Scene& s) { return s.circles.size(); })
      .def_property_readonly("shading", [](const circles::Scene& s) { return std::string(circles::to_string(s.shading)); })
      .def_property_readonly("animation",
                             [](const circles::Scene& s) { return std::string(circles::to_string(s.animation)); })
      .def_property_readonly("background",
                             [](const circles::Scene& s) {
                               const circles::Background& b = s.background;
                               return py::make_tuple(b.kind == circles::Background::Kind::Solid ? "solid" : "gradient",
                                                     py::make_tuple(b.top.x, b.top.y, b.top.z, b.top.w),
                                                     py::make_tuple(b.bottom.x, b.bottom.y, b.bottom.z, b.bottom.w));
                             })
      .def("circles", &circles_of);

  m.def("scene_from_arrays", &scene_from_arrays, py::arg("xy"), py::arg("radius"), py::arg("color"), py::arg("alpha"),
        py::arg("z"), py::arg("velocity"), py::arg("width"), py::arg("height"), py::arg("background_kind"),
        py::arg("background_top"), py::arg("background_bottom"), py::arg("shading"), py::arg("animation"),
        py::arg("seed"), py::arg("frame"), py::arg("name"));
  m.def(
      "load_scene",
      [](const std::string& name_or_path, std::uint64_t seed) {
        py::gil_scoped_release release;
        return circles::load_scene(name_or_path, seed);
      },
      py::arg("name_or_path"), py::arg("seed"));
  m.def(
      "save_scene",
      [](const circles::Scene& scene, const std::string& path) {
        py::gil_scoped_release release;
        circles::save_scene_file(scene, path);
      },
      py::arg("scene"), py::arg("path"));

  m.def("renderers", [] {
    py::list out;
    for (const circles::RendererEntry& r : circles::renderers()) {
      py::dict d;
      d["name"] = r.name;
      d["description"] = r.description;
      d["available"] = r.available;
      d["unavailable_reason"] = r.unavailable_reason;
      d["modes"] = r.modes;
      out.append(d);
    }
    return out;
  });
  m.def("scenes", [] {
    py::list out;
    for (const circles::SceneEntry& s : circles::builtin_scenes()) {
      py::dict d;
      d["name"] = s.name;
      d["description"] = s.description;
      d["circles"] = s.circles;
      out.append(d);
    }
    return out;
  });
  m.def("default_renderer", &circles::default_renderer);

  m.def("render", &render_frames, py::arg("scenes"), py::arg("renderer"), py::arg("mode"), py::arg("width"),
        py::arg("height"), py::arg("frame"), py::arg("frames"), py::arg("float32"), py::arg("progress"));
  m.def("check", &check, py::arg("scene"), py::arg("renderer"), py::arg("mode"), py::arg("width"), py::arg("height"),
        py::arg("frame"));
  m.def("bench", &bench, py::arg("scene"), py::arg("renderer"), py::arg("mode"), py::arg("width"), py::arg("height"),
        py::arg("repeat"), py::arg("warmup"));
  m.def(
      "release_renderers", [] { kept().clear(); },
      "Drops the renderers kept between calls (and the GPU memory and scenes they hold).");
  py::class_<GpuFrames, std::shared_ptr<GpuFrames>>(m, "GpuFrames")
      .def_property_readonly("ptr", [](const GpuFrames& f) { return reinterpret_cast<std::uintptr_t>(f.ptr); })
      .def_property_readonly("shape", [](const GpuFrames& f) { return f.shape; })
      .def_property_readonly("float32", [](const GpuFrames& f) { return f.float32; })
      .def_property_readonly("device", [](const GpuFrames& f) { return f.device; })
      .def_property_readonly("stream", [](const GpuFrames& f) { return f.stream; })
      .def("dlpack", [](const std::shared_ptr<GpuFrames>& f, const py::object& stream) { return to_dlpack(f, stream); },
           py::arg("stream") = py::none());
  m.def("render_device", &render_device, py::arg("fields"), py::arg("scene_width"), py::arg("scene_height"),
        py::arg("background_kind"), py::arg("background_top"), py::arg("background_bottom"), py::arg("shading"),
        py::arg("animation"), py::arg("seed"), py::arg("scene_frame"), py::arg("renderer"), py::arg("mode"),
        py::arg("width"), py::arg("height"), py::arg("frame"), py::arg("frames"), py::arg("float32"),
        py::arg("in_stream"), py::arg("to_cuda"), py::arg("out_stream"), py::arg("dst"), py::arg("dst_row_stride"),
        py::arg("progress"));
  m.def("dlpack_field", &dlpack_field, py::arg("name"), py::arg("capsule"),
        "(pointer, dtype code, shape, strides in bytes) of a DLPack capsule on a CUDA device.");
  m.def("circle_bytes_uploaded", &circles::circle_bytes_uploaded,
        "Bytes of circles copied from the host to the GPU by CUDA renderers in this process.");
  m.def("write_png", &write_png, py::arg("path"), py::arg("image"));
}
