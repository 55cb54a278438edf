// Circles from strided float arrays, every value checked (render/circle_arrays.h).
#include "render/circle_arrays.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <limits>

#include "render/cpu_renderers.h"

namespace circles {

ArrayError::ArrayError(std::string argument, std::string message)
    : std::invalid_argument(argument + ": " + message), argument_(std::move(argument)), message_(std::move(message)) {}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F16: return "float16";
    case DType::F32: return "float32";
    case DType::F64: return "float64";
  }
  return "?";
}

int dtype_size(DType t) { return t == DType::F16 ? 2 : t == DType::F32 ? 4 : 8; }

ArrayView ArrayView::contiguous(const void* data, DType dtype, std::int64_t rows, std::int64_t cols) {
  ArrayView v;
  v.data = data;
  v.dtype = dtype;
  const int size = dtype_size(dtype);
  if (cols == 0) {
    v.ndim = 1;
    v.shape[0] = rows;
    v.strides[0] = size;
  } else {
    v.ndim = 2;
    v.shape[0] = rows;
    v.shape[1] = cols;
    v.strides[0] = cols * size;
    v.strides[1] = size;
  }
  return v;
}

ArrayView ArrayView::scalar(const void* data, DType dtype) {
  ArrayView v;
  v.data = data;
  v.dtype = dtype;
  return v;
}

namespace {

constexpr double kMaxMagnitude = 1e6;  // the scene format's bound on positions, radii, colours

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);  // inf or NaN
  } else if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while (!(man & 0x400u));
      bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (man & 0x3ffu) << 13;
    }
  } else {
    bits = sign | (exp + 127 - 15) << 23 | man << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double load(const ArrayView& a, std::int64_t offset_bytes) {
  const char* p = static_cast<const char*>(a.data) + offset_bytes;
  switch (a.dtype) {
    case DType::F16: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      return half_to_float(h);
    }
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F64: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
  }
  return 0;
}

std::string shortest(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  // A value that is a float prints as the float's shortest form (what the user wrote, usually).
  const float f = static_cast<float>(v);
  const auto r = (std::isfinite(v) && static_cast<double>(f) == v) ? std::to_chars(buf, buf + sizeof buf, f)
                                                                  : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string index_text(std::size_t i) { return "[" + std::to_string(i) + "]"; }
std::string index_text(std::size_t i, int j) { return "[" + std::to_string(i) + ", " + std::to_string(j) + "]"; }

std::string shape_text(const ArrayView& a) {
  if (a.ndim == 0) return "a scalar";
  if (a.ndim == 1) return "shape (" + std::to_string(a.shape[0]) + ",)";
  return "shape (" + std::to_string(a.shape[0]) + ", " + std::to_string(a.shape[1]) + ")";
}

// What a field may be: `rows` (N, or -1 for "not checked"), the column counts allowed for a 2-D
// array, whether a scalar or one row broadcast to every circle is allowed.
void check_shape(const ArrayView& a, const char* name, std::int64_t n, std::initializer_list<int> cols,
                 bool scalar, bool one_row, const char* expect) {
  if (!a.present()) return;
  if (a.ndim < 0 || a.ndim > 2) throw ArrayError(name, "expected " + std::string(expect) + ", found " +
                                                           std::to_string(a.ndim) + " dimensions");
  bool ok = false;
  if (a.ndim == 0) ok = scalar;
  const bool columns_ok_1d = std::find(cols.begin(), cols.end(), 0) != cols.end();
  if (a.ndim == 1) {
    ok = (columns_ok_1d && a.shape[0] == n) || (one_row && std::find(cols.begin(), cols.end(), a.shape[0]) != cols.end());
  }
  if (a.ndim == 2) ok = a.shape[0] == n && std::find(cols.begin(), cols.end(), a.shape[1]) != cols.end();
  if (!ok)
    throw ArrayError(name, "expected " + std::string(expect) + " for " + std::to_string(n) + " circles, found " +
                               shape_text(a));
}

}  // namespace

double array_value(const ArrayView& a, std::int64_t offset_bytes) { return load(a, offset_bytes); }

std::string position_problem(double v) {
  if (!std::isfinite(v)) return "must be a finite number, found " + shortest(v);
  if (!(v >= -kMaxMagnitude && v <= kMaxMagnitude)) return "must be between -1e6 and 1e6, found " + shortest(v);
  return {};
}
std::string radius_problem(double v) {
  if (!std::isfinite(v)) return "must be a finite number, found " + shortest(v);
  if (!(v > 0) || !(static_cast<float>(v) > 0.f)) return "must be greater than 0, found " + shortest(v);
  if (!(v <= kMaxMagnitude)) return "must be at most 1e6, found " + shortest(v);
  return {};
}
std::string intensity_problem(double v) {
  if (!std::isfinite(v)) return "must be a finite number, found " + shortest(v);
  if (!(v >= 0 && v <= kMaxMagnitude)) return "must be between 0 and 1e6, found " + shortest(v);
  return {};
}
std::string unit_problem(double v) {
  if (!std::isfinite(v)) return "must be a finite number, found " + shortest(v);
  if (!(v >= 0 && v <= 1)) return "must be in [0, 1], found " + shortest(v);
  return {};
}

std::size_t circle_count(const CircleArrays& a) {
  if (!a.xy.present()) throw ArrayError("xy", "is required: the circles' centres, shape (N, 2)");
  if (!a.radius.present()) throw ArrayError("radius", "is required: shape (N,) or a scalar");
  if (a.xy.ndim != 2 || a.xy.shape[1] != 2) throw ArrayError("xy", "expected shape (N, 2), found " + shape_text(a.xy));
  const std::int64_t n = a.xy.shape[0];
  if (n < 0) throw ArrayError("xy", "negative length");
  check_shape(a.radius, "radius", n, {0}, true, false, "shape (N,) or a scalar");
  check_shape(a.z, "z", n, {0}, true, false, "shape (N,) or a scalar");
  check_shape(a.alpha, "alpha", n, {0}, true, false, "shape (N,) or a scalar");
  check_shape(a.color, "color", n, {3, 4}, false, true, "shape (N, 4), (N, 3), (4,) or (3,)");
  check_shape(a.velocity, "velocity", n, {2}, false, false, "shape (N, 2)");
  const bool color_has_alpha = a.color.present() && a.color.shape[a.color.ndim - 1] == 4;
  if (a.alpha.present() && color_has_alpha)
    throw ArrayError("alpha", "given twice: color has 4 columns (RGBA); pass 3 columns (RGB) with alpha");
  return static_cast<std::size_t>(n);
}

namespace {

// One field's element (i, j) as an offset, with scalars and broadcast rows stride 0.
struct Field {
  const ArrayView* a;
  std::int64_t s0 = 0, s1 = 0;  // row and column strides, 0 where broadcast
  explicit Field(const ArrayView& v) : a(&v) {
    if (v.ndim == 2) {
      s0 = v.strides[0];
      s1 = v.strides[1];
    } else if (v.ndim == 1) {
      // (N,) per circle, or one broadcast row of columns
      s0 = v.strides[0];
    }
  }
  double at(std::size_t i, int j) const { return load(*a, static_cast<std::int64_t>(i) * s0 + j * s1); }
};

constexpr std::size_t ModeFactsNone = static_cast<std::size_t>(-1);

// The first problem in circle i: which element, and what is wrong with it.
struct Problem {
  std::string where, message;
};

// Fills circle i; on a bad value returns false and (when p) says what.
bool gather_one(const CircleArrays& in, const Field& xy, const Field* radius, const Field* z, const Field* color,
                bool color_row, int color_cols, const Field* alpha, const Field* vel, std::size_t i, Circle* c,
                Problem* p, std::size_t report) {
  const auto fail = [&](const char* name, std::string idx, std::string m) {
    if (p) {
      p->where = name + idx;
      p->message = std::move(m);
    }
    return false;
  };
  std::string m;
  const double x = xy.at(i, 0), y = xy.at(i, 1);
  if (!(m = position_problem(x)).empty()) return fail("xy", index_text(report, 0), m);
  if (!(m = position_problem(y)).empty()) return fail("xy", index_text(report, 1), m);
  const bool radius_scalar = in.radius.ndim == 0;
  const double r = radius_scalar ? radius->at(0, 0) : radius->at(i, 0);
  if (!(m = radius_problem(r)).empty()) return fail("radius", radius_scalar ? "" : index_text(report), m);
  double zz = 0;
  if (z) {
    const bool scalar = in.z.ndim == 0;
    zz = scalar ? z->at(0, 0) : z->at(i, 0);
    if (!(m = position_problem(zz)).empty()) return fail("z", scalar ? "" : index_text(report), m);
  }
  double rgba[4] = {0, 0, 0, 1};
  if (color) {
    const std::size_t row = color_row ? 0 : i;
    for (int k = 0; k < color_cols; ++k) {
      // A broadcast row reads its columns along its only dimension.
      const double v = color_row ? load(*color->a, k * color->a->strides[0]) : color->at(row, k);
      m = k < 3 ? intensity_problem(v) : unit_problem(v);
      if (!m.empty()) return fail("color", color_row ? index_text(static_cast<std::size_t>(k)) : index_text(report, k), m);
      rgba[k] = v;
    }
  }
  if (alpha) {
    const bool scalar = in.alpha.ndim == 0;
    const double v = scalar ? alpha->at(0, 0) : alpha->at(i, 0);
    if (!(m = unit_problem(v)).empty()) return fail("alpha", scalar ? "" : index_text(report), m);
    rgba[3] = v;
  }
  double vx = 0, vy = 0;
  if (vel) {
    vx = vel->at(i, 0);
    vy = vel->at(i, 1);
    if (!(m = position_problem(vx)).empty()) return fail("velocity", index_text(report, 0), m);
    if (!(m = position_problem(vy)).empty()) return fail("velocity", index_text(report, 1), m);
  }
  c->x = static_cast<float>(x);
  c->y = static_cast<float>(y);
  c->z = static_cast<float>(zz);
  c->radius = static_cast<float>(r);
  c->r = static_cast<float>(rgba[0]);
  c->g = static_cast<float>(rgba[1]);
  c->b = static_cast<float>(rgba[2]);
  c->a = static_cast<float>(rgba[3]);
  c->vx = static_cast<float>(vx);
  c->vy = static_cast<float>(vy);
  return true;
}

struct Fields {
  const CircleArrays* in;
  Field xy, radius, z, color, alpha, vel;
  bool has_z, has_color, has_alpha, has_vel, color_row;
  int color_cols;
  explicit Fields(const CircleArrays& a)
      : in(&a), xy(a.xy), radius(a.radius), z(a.z), color(a.color), alpha(a.alpha), vel(a.velocity),
        has_z(a.z.present()), has_color(a.color.present()), has_alpha(a.alpha.present()),
        has_vel(a.velocity.present()), color_row(a.color.present() && a.color.ndim == 1),
        color_cols(a.color.present() ? static_cast<int>(a.color.shape[a.color.ndim - 1]) : 0) {}
  bool one(std::size_t i, Circle* c, Problem* p, std::size_t report = ModeFactsNone) const {
    return gather_one(*in, xy, &radius, has_z ? &z : nullptr, has_color ? &color : nullptr, color_row, color_cols,
                      has_alpha ? &alpha : nullptr, has_vel ? &vel : nullptr, i, c, p,
                      report == ModeFactsNone ? i : report);
  }
};

struct Ctx {
  const Fields* f;
  Circle* out;
  std::atomic<std::size_t> first_bad{std::numeric_limits<std::size_t>::max()};
};

void note_bad(std::atomic<std::size_t>* first, std::size_t i) {
  std::size_t cur = first->load(std::memory_order_relaxed);
  while (i < cur && !first->compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
  }
}

constexpr std::size_t kChunk = 1 << 16;

// Memory for n circles that nothing fills first: the threads that gather them touch its pages
// first, in parallel (a value-initialised vector of 100M circles costs seconds in page faults on
// one thread before any work starts).
std::shared_ptr<Circle> uninitialised_circles(std::size_t n) {
  void* p = std::malloc(std::max<std::size_t>(n, 1) * sizeof(Circle));
  if (!p) throw std::bad_alloc();
  return std::shared_ptr<Circle>(static_cast<Circle*>(p), [](Circle* c) { std::free(c); });
}

}  // namespace

void check_circle(const CircleArrays& arrays, std::size_t row, std::size_t reported_index) {
  const Fields fields(arrays);
  Problem p;
  Circle c;
  if (!fields.one(row, &c, &p, reported_index)) throw ArrayError(p.where, p.message);
}

CircleList gather_circles(const CircleArrays& arrays, unsigned threads) {
  const std::size_t n = circle_count(arrays);
  const Fields fields(arrays);
  std::shared_ptr<Circle> result = uninitialised_circles(n);
  Ctx ctx{&fields, result.get()};
  parallel_for(
      n, kChunk,
      [](void* p, std::size_t b, std::size_t e) {
        auto* c = static_cast<Ctx*>(p);
        for (std::size_t i = b; i < e; ++i)
          if (!c->f->one(i, &c->out[i], nullptr)) {
            note_bad(&c->first_bad, i);
            return;
          }
      },
      &ctx, threads);
  const std::size_t bad = ctx.first_bad.load();
  if (bad != std::numeric_limits<std::size_t>::max()) {
    Problem p;
    Circle c;
    fields.one(bad, &c, &p);
    throw ArrayError(p.where, p.message);
  }
  const Circle* data = result.get();
  return CircleList::view(std::move(result), data, n);
}

namespace {

const char* const kPackedNames[10] = {"x", "y", "z", "radius", "r", "g", "b", "a", "vx", "vy"};

std::string packed_problem(int k, double v) {
  if (k == 3) return radius_problem(v);
  if (k >= 4 && k <= 6) return intensity_problem(v);
  if (k == 7) return unit_problem(v);
  return position_problem(v);
}

// The column's name in a message: "circles[12, 3] (radius)".
std::string packed_where(const std::string& name, std::size_t i, int k) {
  return name + index_text(i, k) + " (" + kPackedNames[k] + ")";
}

// A quick test of one float32 row; exact rules (and the message) come from packed_problem.
inline bool row_ok(const float* v, int cols) {
  bool ok = true;
  for (int k = 0; k < cols; ++k) {
    const float f = v[k];
    // NaN fails every comparison below.
    if (k == 3) ok &= (f > 0.f) & (f <= 1e6f);
    else if (k >= 4 && k <= 6) ok &= (f >= 0.f) & (f <= 1e6f);
    else if (k == 7) ok &= (f >= 0.f) & (f <= 1.f);
    else ok &= (f >= -1e6f) & (f <= 1e6f);
  }
  return ok;
}

struct PackedCtx {
  const float* rows;
  int cols;
  std::atomic<std::size_t> first_bad{std::numeric_limits<std::size_t>::max()};
};

}  // namespace

void check_packed_circles(const float* rows, std::size_t count, int columns, const std::string& name,
                          unsigned threads) {
  if (columns != 8 && columns != 10)
    throw ArrayError(name, "expected 8 or 10 columns (x y z radius r g b a [vx vy]), found " + std::to_string(columns));
  PackedCtx ctx{rows, columns};
  parallel_for(
      count, kChunk,
      [](void* p, std::size_t b, std::size_t e) {
        auto* c = static_cast<PackedCtx*>(p);
        const float* v = c->rows + b * c->cols;
        for (std::size_t i = b; i < e; ++i, v += c->cols)
          if (!row_ok(v, c->cols)) {
            note_bad(&c->first_bad, i);
            return;
          }
      },
      &ctx, threads);
  const std::size_t bad = ctx.first_bad.load();
  if (bad == std::numeric_limits<std::size_t>::max()) return;
  for (int k = 0; k < columns; ++k) {
    const std::string m = packed_problem(k, rows[bad * columns + k]);
    if (!m.empty()) throw ArrayError(packed_where(name, bad, k), m);
  }
}

CircleList gather_packed_circles(const ArrayView& packed, const std::string& name, unsigned threads) {
  if (packed.ndim != 2 || (packed.shape[1] != 8 && packed.shape[1] != 10))
    throw ArrayError(name, "expected shape (N, 8) or (N, 10) (x y z radius r g b a [vx vy]), found " +
                               shape_text(packed));
  const std::size_t n = static_cast<std::size_t>(packed.shape[0]);
  const int cols = static_cast<int>(packed.shape[1]);
  std::shared_ptr<Circle> result = uninitialised_circles(n);
  struct G {
    const ArrayView* a;
    int cols;
    Circle* out;
    std::atomic<std::size_t> first_bad{std::numeric_limits<std::size_t>::max()};
  } ctx{&packed, cols, result.get()};
  parallel_for(
      n, kChunk,
      [](void* p, std::size_t b, std::size_t e) {
        auto* g = static_cast<G*>(p);
        const ArrayView& a = *g->a;
        for (std::size_t i = b; i < e; ++i) {
          float v[10] = {};
          for (int k = 0; k < g->cols; ++k) {
            const double d = load(a, static_cast<std::int64_t>(i) * a.strides[0] + k * a.strides[1]);
            if (!packed_problem(k, d).empty()) {
              note_bad(&g->first_bad, i);
              return;
            }
            v[k] = static_cast<float>(d);
          }
          Circle& c = g->out[i];
          c.x = v[0], c.y = v[1], c.z = v[2], c.radius = v[3];
          c.r = v[4], c.g = v[5], c.b = v[6], c.a = v[7];
          c.vx = v[8], c.vy = v[9];
        }
      },
      &ctx, threads);
  const std::size_t bad = ctx.first_bad.load();
  if (bad != std::numeric_limits<std::size_t>::max()) {
    for (int k = 0; k < cols; ++k) {
      const double d = load(packed, static_cast<std::int64_t>(bad) * packed.strides[0] + k * packed.strides[1]);
      const std::string m = packed_problem(k, d);
      if (!m.empty()) throw ArrayError(packed_where(name, bad, k), m);
    }
  }
  const Circle* data = result.get();
  return CircleList::view(std::move(result), data, n);
}

}  // namespace circles
