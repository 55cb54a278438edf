// Binary scenes: a scene's meaning read from and written to .npz / .npy arrays (render/scene_npz.h).
#include "render/scene_npz.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>

#include "render/circle_arrays.h"

namespace circles {

namespace {

constexpr std::int64_t kMaxImageSide = 16384;

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  return true;
}

std::string shape_text(const NpyArray& a) {
  if (a.shape.empty()) return "a scalar";
  std::string s = "shape (";
  for (std::size_t i = 0; i < a.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(a.shape[i]);
  return s + (a.shape.size() == 1 ? ",)" : ")");
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const NpyArray& a, const std::string& message) const { throw NpyError(file_, a.key, message); }

  // The array as a float view (float16/32/64, little-endian, C or Fortran order).
  ArrayView floats(const NpyArray& a) const {
    ArrayView v;
    const std::string& d = a.descr;
    if (d == "<f2") v.dtype = DType::F16;
    else if (d == "<f4") v.dtype = DType::F32;
    else if (d == "<f8") v.dtype = DType::F64;
    else fail(a, "expected floating-point numbers (float16, float32 or float64, little-endian), found dtype '" + d + "'");
    if (a.shape.size() > 2) fail(a, "expected at most 2 dimensions, found " + shape_text(a));
    v.data = a.nbytes ? a.data : static_cast<const void*>(&kEmpty);
    v.ndim = static_cast<int>(a.shape.size());
    const std::int64_t size = dtype_size(v.dtype);
    for (int i = 0; i < v.ndim; ++i) v.shape[i] = static_cast<std::int64_t>(a.shape[i]);
    if (v.ndim == 1) v.strides[0] = size;
    if (v.ndim == 2) {
      if (a.fortran_order) {
        v.strides[0] = size;
        v.strides[1] = size * v.shape[0];
      } else {
        v.strides[0] = size * v.shape[1];
        v.strides[1] = size;
      }
    }
    return v;
  }

  // A signed or unsigned integer scalar (or a one-element array), within [lo, hi].
  std::int64_t integer(const NpyArray& a, std::int64_t lo, std::int64_t hi, const char* what) const {
    const std::uint64_t u = unsigned_integer(a, what);
    const std::int64_t v = static_cast<std::int64_t>(u);
    if (negative_ || v < lo || v > hi)
      fail(a, std::string(what) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", found " +
                  (negative_ ? "-" + std::to_string(0 - u) : std::to_string(u)));
    return v;
  }

  // The raw 64 bits (sign-extended for signed types); negative_ says whether it was below 0.
  std::uint64_t unsigned_integer(const NpyArray& a, const char* what) const {
    negative_ = false;
    if (a.count() != 1) fail(a, std::string("expected one integer (") + what + "), found " + shape_text(a));
    const char k = a.kind();
    const int n = a.itemsize();
    if ((k != 'i' && k != 'u') || !a.little_endian_or_single_byte() || (n != 1 && n != 2 && n != 4 && n != 8))
      fail(a, std::string("expected an integer (") + what + "), found dtype '" + a.descr + "'");
    std::uint64_t u = 0;
    std::memcpy(&u, a.data, static_cast<std::size_t>(n));
    if (k == 'i' && n < 8 && (u >> (8 * n - 1)) & 1) u |= ~std::uint64_t{0} << (8 * n);  // sign-extend
    negative_ = k == 'i' && static_cast<std::int64_t>(u) < 0;
    return u;
  }

  // A string scalar: NumPy's '<U' (UTF-32) or '|S' (bytes), ASCII only.
  std::string text(const NpyArray& a) const {
    if (a.count() != 1 || a.shape.size() > 1) fail(a, "expected one string, found " + shape_text(a));
    const std::string& d = a.descr;
    std::string out;
    const char* p = static_cast<const char*>(a.data);
    if (d.size() > 2 && d[0] == '<' && d[1] == 'U') {
      for (std::uint64_t i = 0; i + 4 <= a.nbytes; i += 4) {
        std::uint32_t c;
        std::memcpy(&c, p + i, 4);
        if (c == 0) break;
        if (c > 127) fail(a, "expected an ASCII name, found character U+" + std::to_string(c));
        out += static_cast<char>(c);
      }
    } else if (d.size() > 2 && (d[0] == '|' || d[0] == '<') && d[1] == 'S') {
      for (std::uint64_t i = 0; i < a.nbytes && p[i]; ++i) out += p[i];
    } else {
      fail(a, "expected a string, found dtype '" + d + "'");
    }
    return out;
  }

 private:
  static inline const double kEmpty = 0;
  std::string file_;
  mutable bool negative_ = false;
};

const char* const kKnownKeys =
    "version, circles, xy, radius, color, alpha, z, velocity, size, background, shading, animation, seed, frame, "
    "has_velocity";

// The scene the arrays of the file `path` hold (a bare .npy's one array has the key "circles").
Scene scene_from_arrays(const std::vector<NpyArray>& arrays, const std::string& path) {
  const Reader r(path);
  std::map<std::string, const NpyArray*> by_key;
  for (const NpyArray& a : arrays) {
    static const char* const known[] = {"version", "circles", "xy", "radius", "color", "alpha", "z", "velocity",
                                        "size", "background", "shading", "animation", "seed", "frame",
                                        "has_velocity"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return a.key == k; }) == std::end(known))
      r.fail(a, std::string("unknown key (a scene has: ") + kKnownKeys + ")");
    by_key[a.key] = &a;
  }
  const auto get = [&](const char* key) -> const NpyArray* {
    const auto it = by_key.find(key);
    return it == by_key.end() ? nullptr : it->second;
  };

  Scene scene;
  scene.name = path;
  if (const NpyArray* a = get("version")) {
    const std::int64_t v = r.integer(*a, 1, std::numeric_limits<std::int64_t>::max(), "version");
    if (v > kSceneNpzVersion)
      r.fail(*a, "version " + std::to_string(v) + " is newer than this circles reads (" +
                     std::to_string(kSceneNpzVersion) + ")");
  }
  if (const NpyArray* a = get("size")) {
    if (a->shape.size() != 1 || a->shape[0] != 2) r.fail(*a, "expected 2 integers (width, height), found " + shape_text(*a));
    for (int k = 0; k < 2; ++k) {
      NpyArray one = *a;
      one.shape.clear();
      one.data = static_cast<const char*>(a->data) + k * a->itemsize();
      one.nbytes = static_cast<std::uint64_t>(a->itemsize());
      const std::int64_t v = r.integer(one, 1, kMaxImageSide, k == 0 ? "width" : "height");
      (k == 0 ? scene.width : scene.height) = static_cast<int>(v);
    }
  }
  if (const NpyArray* a = get("background")) {
    const ArrayView v = r.floats(*a);
    const bool solid = v.ndim == 1 && (v.shape[0] == 3 || v.shape[0] == 4);
    const bool gradient = v.ndim == 2 && v.shape[0] == 2 && v.shape[1] == 3;
    if (!solid && !gradient)
      r.fail(*a, "expected (3,) or (4,) for a solid colour (R G B [A]) or (2, 3) for a gradient (top, bottom), found " +
                     shape_text(*a));
    float vals[8] = {};
    const int cols = solid ? static_cast<int>(v.shape[0]) : 3;
    for (int row = 0; row < (solid ? 1 : 2); ++row)
      for (int k = 0; k < cols; ++k) {
        const double d = array_value(v, solid ? k * v.strides[0] : row * v.strides[0] + k * v.strides[1]);
        const std::string m = unit_problem(d);
        if (!m.empty())
          r.fail(*a, (solid ? "[" + std::to_string(k) + "]" : "[" + std::to_string(row) + ", " + std::to_string(k) + "]") +
                         " " + m);
        vals[row * 4 + k] = static_cast<float>(d);
      }
    if (solid) {
      scene.background.kind = Background::Kind::Solid;
      scene.background.top = Float4{vals[0], vals[1], vals[2], cols == 4 ? vals[3] : 1.f};
      scene.background.bottom = scene.background.top;
    } else {
      scene.background.kind = Background::Kind::Gradient;
      scene.background.top = Float4{vals[0], vals[1], vals[2], 1.f};
      scene.background.bottom = Float4{vals[4], vals[5], vals[6], 1.f};
    }
  }
  if (const NpyArray* a = get("shading")) {
    const std::string s = r.text(*a);
    if (!parse_shading(s, &scene.shading)) r.fail(*a, "unknown shading '" + s + "' (expected flat or snow)");
  }
  if (const NpyArray* a = get("animation")) {
    const std::string s = r.text(*a);
    if (!parse_animation(s, &scene.animation))
      r.fail(*a, "unknown animation '" + s + "' (expected none, bouncingballs, hypnosis, fireworks or snow)");
  }
  if (const NpyArray* a = get("seed")) {
    const std::uint64_t u = r.unsigned_integer(*a, "seed");
    if (a->kind() == 'i' && static_cast<std::int64_t>(u) < 0)
      r.fail(*a, "seed must be between 0 and 18446744073709551615, found " + std::to_string(static_cast<std::int64_t>(u)));
    scene.seed = u;
  }
  if (const NpyArray* a = get("frame")) scene.frame = r.integer(*a, 0, kMaxFrame, "frame");

  // The circles: packed rows, or one array per field; not both.
  const NpyArray* packed = get("circles");
  static const char* const field_keys[] = {"xy", "radius", "color", "alpha", "z", "velocity"};
  for (const char* k : field_keys)
    if (const NpyArray* a = get(k); a && packed)
      r.fail(*a, "given with 'circles': a scene has packed circles or one array per field, not both");
  try {
    if (packed) {
      const ArrayView v = r.floats(*packed);
      if (v.ndim != 2 || (v.shape[1] != 8 && v.shape[1] != 10))
        r.fail(*packed, "expected shape (N, 8) or (N, 10) (x y z radius r g b a [vx vy]), found " + shape_text(*packed));
      const std::size_t n = static_cast<std::size_t>(v.shape[0]);
      const int cols = static_cast<int>(v.shape[1]);
      const bool in_place = cols == 10 && v.dtype == DType::F32 && !packed->fortran_order &&
                            reinterpret_cast<std::uintptr_t>(packed->data) % alignof(Circle) == 0;
      if (in_place) {
        // The file's rows are Circles: check them where they lie and keep the mapping.
        check_packed_circles(static_cast<const float*>(packed->data), n, cols, "circles");
        scene.circles = CircleList::view(packed->keeper, static_cast<const Circle*>(packed->data), n);
      } else {
        scene.circles = gather_packed_circles(v, "circles");
      }
      scene.has_velocity = cols == 10;
    } else if (get("xy")) {
      CircleArrays in;
      ArrayView* slots[] = {&in.xy, &in.radius, &in.color, &in.alpha, &in.z, &in.velocity};
      for (int k = 0; k < 6; ++k)
        if (const NpyArray* a = get(field_keys[k])) *slots[k] = r.floats(*a);
      scene.circles = gather_circles(in);
      scene.has_velocity = in.velocity.present();
    } else {
      for (const char* k : field_keys)
        if (const NpyArray* a = get(k)) r.fail(*a, "given without 'xy': the circles' centres, shape (N, 2)");
    }
  } catch (const ArrayError& e) {
    // The argument begins with the key: "radius[12]" is key 'radius'.
    std::string key = e.argument().substr(0, e.argument().find('['));
    throw NpyError(path, key, e.what());
  }
  if (const NpyArray* a = get("has_velocity")) {
    if (a->descr != "|b1" || a->count() != 1) r.fail(*a, "expected one bool, found dtype '" + a->descr + "', " + shape_text(*a));
    const bool hv = *static_cast<const unsigned char*>(a->data) != 0;
    if (hv && !scene.has_velocity) r.fail(*a, "is true, but the circles have no velocities");
    scene.has_velocity = hv;
  }
  return scene;
}

// A bare .npy's array as the arrays of a scene: its packed circles.
std::vector<NpyArray> circles_only(NpyArray a) {
  a.key = "circles";
  std::vector<NpyArray> arrays;
  arrays.push_back(std::move(a));
  return arrays;
}

}  // namespace

bool is_binary_scene_path(const std::string& path) { return ends_with(path, ".npz") || ends_with(path, ".npy"); }

Scene load_scene_npz(const std::string& path) {
  return scene_from_arrays(ends_with(path, ".npy") ? circles_only(read_npy(path)) : read_npz(path), path);
}

Scene load_scene_npz_bytes(const void* data, std::size_t size, const std::string& name,
                           std::shared_ptr<const void> owner) {
  return scene_from_arrays(ends_with(name, ".npy") ? circles_only(read_npy_bytes(data, size, name, owner))
                                                   : read_npz_bytes(data, size, name, owner),
                           name);
}

namespace {

// NumPy's '<U' encoding of an ASCII string: UTF-32LE code units.
std::string utf32(const std::string& s) {
  std::string out(s.size() * 4, '\0');
  for (std::size_t i = 0; i < s.size(); ++i) out[i * 4] = s[i];
  return out;
}

// The arrays a saved scene holds, in file order (`out`), and the values they point to: built in
// place, not copied or moved (`out` points into the object itself).
struct SceneArrays {
  explicit SceneArrays(const Scene& scene)
      : size{scene.width, scene.height},
        shading(utf32(to_string(scene.shading))),
        animation(utf32(to_string(scene.animation))),
        seed(scene.seed),
        frame(scene.frame),
        has_velocity(scene.has_velocity ? 1 : 0) {
    const Background& bg = scene.background;
    const bool solid = bg.kind == Background::Kind::Solid;
    const float bgv[6] = {bg.top.x, bg.top.y, bg.top.z, solid ? bg.top.w : bg.bottom.x,
                          solid ? 0.f : bg.bottom.y, solid ? 0.f : bg.bottom.z};
    std::copy(std::begin(bgv), std::end(bgv), background);

    // Rows of 10 floats are the Circles themselves, written from where they lie. Without
    // velocities the file keeps them zero (+0, whose bits are all zero: -0 is replaced too), as
    // the text format drops them: a copy only where a circle has another value.
    const std::size_t n = scene.circles.size();
    const Circle* rows = scene.circles.data();
    const auto plus_zero = [](float v) { return v == 0.f && !std::signbit(v); };
    if (!scene.has_velocity && std::any_of(scene.circles.begin(), scene.circles.end(), [&](const Circle& c) {
          return !plus_zero(c.vx) || !plus_zero(c.vy);
        })) {
      zeroed.assign(scene.circles.begin(), scene.circles.end());
      for (Circle& c : zeroed) c.vx = c.vy = 0.f;
      rows = zeroed.data();
    }
    static_assert(sizeof(Circle) == 10 * sizeof(float), "a Circle is a row of 10 floats");
    out = {
        {"version", "<i8", {}, &version, 8},
        {"size", "<i8", {2}, size, 16},
        {"background", "<f4", solid ? std::vector<std::uint64_t>{4} : std::vector<std::uint64_t>{2, 3}, background,
         solid ? 16u : 24u},
        {"shading", "<U" + std::to_string(shading.size() / 4), {}, shading.data(), shading.size()},
        {"animation", "<U" + std::to_string(animation.size() / 4), {}, animation.data(), animation.size()},
        {"seed", "<u8", {}, &seed, 8},
        {"frame", "<i8", {}, &frame, 8},
        {"has_velocity", "|b1", {}, &has_velocity, 1},
        {"circles", "<f4", {n, 10}, rows, n * sizeof(Circle)},
    };
  }
  SceneArrays(const SceneArrays&) = delete;
  SceneArrays& operator=(const SceneArrays&) = delete;

  const std::int64_t version = kSceneNpzVersion;
  std::int64_t size[2];
  float background[6];
  std::string shading, animation;
  std::uint64_t seed;
  std::int64_t frame;
  unsigned char has_velocity;
  std::vector<Circle> zeroed;
  std::vector<NpyOut> out;
};

}  // namespace

void save_scene_npz(const Scene& scene, const std::string& path) {
  if (ends_with(path, ".npy"))
    throw std::runtime_error("cannot write scene '" + path +
                             "': a .npy holds the circles only (size, background and the rest would be lost); "
                             "write a .npz");
  const SceneArrays arrays(scene);
  write_npz(path, arrays.out);
}

std::string save_scene_npz_bytes(const Scene& scene) {
  const SceneArrays arrays(scene);
  return write_npz_bytes(arrays.out, scene.name);
}

}  // namespace circles
