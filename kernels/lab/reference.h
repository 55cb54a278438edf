// The lab's CPU side: inputs generated from a seed, the result every variant must produce
// (computed on the CPU, in double or exact integers), the check of a variant's output against it,
// and the bytes each task must move. Plain C++, built with or without CUDA, and unit-tested.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/lab/lab.h"

namespace circles::lab {

// Largest problem the lab accepts (elements, or width * height): 2^30 (4 GiB of 32-bit words).
constexpr std::size_t kMaxElements = std::size_t{1} << 30;
// Why `shape` is not a valid size for `task` ("" when it is). Transpose needs width x height;
// the others one count n >= 1.
std::string shape_error(Task task, const Shape& shape);

// Bit patterns written over a variant's output before it runs, so an element it never writes
// cannot pass: NaN for floats, 0xA5A5A5A5 (-1515870811, out of reach of the inputs) for ints.
constexpr std::uint32_t kPoisonF32 = 0xFFFFFFFFu;
constexpr std::uint32_t kPoisonI32 = 0xA5A5A5A5u;

// A float's bits and back (elements are kept as raw 32-bit words).
std::uint32_t float_bits(float f);
float bits_float(std::uint32_t u);

// The input of one problem and what a variant must produce from it. Elements are kept as raw
// 32-bit words (int or float bits).
struct Problem {
  Task task;
  Elem type;
  Shape shape;
  std::vector<std::uint32_t> in;     // input (empty for bank_read)
  std::vector<std::int32_t> flags;   // segmented_scan head flags
  std::size_t out_elems = 0;         // size of the output buffer, in 32-bit words
  bool has_count = false;            // find_repeats, compact: a count is written too
};

// Fresh random input for `task` (deterministic from `seed`). Ints are small (|x| <= 128, or
// 0..3 for find_repeats so that repeats are common). Floats are multiples of 2^-8 in
// (-1, 1) with mean 0: every partial sum a correct algorithm forms stays a short binary fraction
// below 2^16 in magnitude (a zero-mean walk of 2^28 steps rarely leaves +-2^15), so float sums
// come out exact in practice, whatever the order.
Problem make_problem(Task task, Elem type, const Shape& shape, std::uint64_t seed);

// The expected result of `p` for knob value `param` (stride or radius; ignored by other tasks)
// and word width `word_bytes` (bank_read).
struct Expected {
  std::vector<double> value;  // expected output elements (ints exactly; floats in double)
  std::vector<double> scale;  // floats: sum of |terms| behind each element (tolerance scale)
  long long count = -1;       // find_repeats, compact
  bool exact = true;          // compare bit for bit (ints, transpose) or with the tolerance
  double rel_tol = 0;         // floats: rel_tol(task)
};
Expected expected_result(const Problem& p, int param, int word_bytes);

// Float tolerance: |got - exact| <= rel_tol(task) * scale + kAbsTol, where scale is the sum of
// the magnitudes of the terms behind the element. Sums (reduce, scans): 1e-9, tight enough that
// one element dropped or added twice (at least 2^-8) fails up to n = 2^21 everywhere and far
// beyond on most elements, while leaving room for the few roundings a partial sum past 2^16 can
// cause at n = 2^30; the int runs of the same kernels are checked exactly at every size.
// Convolution: 2e-6 (each output is 2R+1 products by 1/(2R+1), each rounded once).
constexpr double kAbsTol = 1e-6;
double rel_tol(Task task);

// "ok", or "WRONG at index I: got G, expected E" (the first bad element), or a wrong count.
// `out` holds p.out_elems words; `count` is what the variant wrote (ignored without a count).
std::string check_result(const Problem& p, const Expected& e, const std::uint32_t* out, long long count);

// Memory one problem takes while it is checked: on the host (the input, flags, the expected
// result in double and the read-back output) and on the device (input, output, flags; the
// variants' scratch comes on top, at most about one more output's worth).
double host_bytes_needed(Task task, Elem type, const Shape& shape);
double device_bytes_needed(Task task, Elem type, const Shape& shape);

// Bytes the task must move at least (read + written; bank_read: shared bytes loaded), the
// figure GB/s is computed from. `count`: the output count (find_repeats, compact).
double task_bytes(const Problem& p, long long count, int word_bytes);
// Bytes of the device-to-device copy that serves as the family's ceiling (the input's size;
// 0 for bank_read, which has no global-memory ceiling).
double copy_bytes(const Problem& p);

// Shared-memory wavefronts one warp-wide load of bank_read needs, from the arithmetic alone:
// 32 banks of 4 bytes; a warp's request is served in phases of 128 bytes (1 for words up to
// 4 bytes, 2 for 8-byte, 4 for 16-byte words); within a phase, lanes reading the same 32-bit
// word share it, and each bank serves one distinct word per wavefront. Averaged over the 32
// starting offsets the kernel cycles through. The minimum (no conflict) is the phase count.
double bank_wavefronts(int word_bytes, int stride);
int bank_phases(int word_bytes);

}  // namespace circles::lab
