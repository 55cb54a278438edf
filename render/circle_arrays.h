// Circles from arrays: the one way every array input becomes a scene's circles (binary scene
// files, render/scene_npz.h; the library API; the Python module). Each field is a strided view of
// someone else's memory in float16, float32 or float64; gathering checks every value against the
// scene format's rules (docs/FORMAT.md) and names the first bad element, "radius[12]: must be
// greater than 0, found -1", so a mistake costs one message and no partial scene.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "render/scene.h"

namespace circles {

// A bad array: what() reads "ARGUMENT[INDEX]: MESSAGE" (or "ARGUMENT: MESSAGE" for its shape).
class ArrayError : public std::invalid_argument {
 public:
  ArrayError(std::string argument, std::string message);
  const std::string& argument() const { return argument_; }
  const std::string& message() const { return message_; }

 private:
  std::string argument_, message_;
};

enum class DType : std::uint8_t { F16, F32, F64 };
const char* dtype_name(DType t);  // "float16", "float32", "float64"
int dtype_size(DType t);

// A strided 0-, 1- or 2-dimensional array of floats in host memory (strides in bytes, any sign).
struct ArrayView {
  const void* data = nullptr;  // nullptr: the field is absent
  DType dtype = DType::F32;
  int ndim = 0;
  std::int64_t shape[2] = {0, 0};
  std::int64_t strides[2] = {0, 0};
  // For the device gather (Renderer::load_device) only: this field, a scalar or a colour row, is
  // in host memory while the others are on the GPU; its values are passed to the gather by value.
  bool host_constant = false;
  bool present() const { return data != nullptr; }
  // One contiguous C-order float array of `rows` x `cols` (cols 0: one dimension of `rows`).
  static ArrayView contiguous(const void* data, DType dtype, std::int64_t rows, std::int64_t cols = 0);
  static ArrayView scalar(const void* data, DType dtype);
};

// A scene's circles, a field each (N circles; absent fields take their defaults):
//   xy        (N, 2)                      required: centres, unit square, y up
//   radius    (N,) or a scalar            required: greater than 0, at most 1e6
//   color     (N, 4), (N, 3), (4,), (3,)  RGB from 0 to 1e6 (above 1 allowed, as in scene text),
//                                         A in [0, 1]; default opaque black
//   alpha     (N,) or a scalar            A in [0, 1]; only with a 3-column (or absent) color
//   z         (N,) or a scalar            depth, default 0
//   velocity  (N, 2)                      units a second; present: the scene has velocities
// x, y, z and velocities lie within +-1e6; every value is finite.
struct CircleArrays {
  ArrayView xy, radius, color, alpha, z, velocity;
};

// The number of circles the fields describe (xy's rows), after checking every field's shape
// against it. Throws ArrayError naming the field.
std::size_t circle_count(const CircleArrays& arrays);

// Gathers the fields into new circles (the list owns them), checking every value on up to
// `threads` threads (0: every core). Throws ArrayError for the first bad element (the lowest
// index); nothing is returned then.
CircleList gather_circles(const CircleArrays& arrays, unsigned threads = 0);

// Checks circle `row` of `arrays` as gather_circles does, and throws its ArrayError naming the
// circle `reported_index` (arrays holding one circle copied from a larger set, the GPU's).
void check_circle(const CircleArrays& arrays, std::size_t row, std::size_t reported_index);

// Packed circles: N rows of 8 (x y z radius r g b a) or 10 (... vx vy) floats, as the binary
// scene format stores them. check_packed_circles checks contiguous float32 rows in place (a
// mapped file read without a copy); gather_packed_circles takes any dtype and strides ((N, 8) or
// (N, 10)). Both throw ArrayError naming `name` and the first bad element.
void check_packed_circles(const float* rows, std::size_t count, int columns, const std::string& name,
                          unsigned threads = 0);
CircleList gather_packed_circles(const ArrayView& packed, const std::string& name, unsigned threads = 0);

// One element of `a`, `offset_bytes` from its data, widened to double.
double array_value(const ArrayView& a, std::int64_t offset_bytes);

// The value rules of scene files, on one value (the message after "NAME[INDEX]: ").
// "" when `v` is allowed.
std::string position_problem(double v);   // x, y, z, vx, vy
std::string radius_problem(double v);
std::string intensity_problem(double v);  // r, g, b
std::string unit_problem(double v);       // alpha, background channels

}  // namespace circles
