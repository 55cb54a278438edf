// The kernel lab's CPU side: the registry's invariants, the inputs, the CPU references, the
// checks (poison never passes) and the bank-conflict arithmetic. The kernels themselves are
// tested on the GPU (tests/gpu/cuda/lab_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "app/common/lab_registry.h"
#include "kernels/lab/reference.h"
#include "test_util.h"

namespace circles {
namespace {

using namespace lab;

std::uint32_t bits(float f) { return float_bits(f); }
float flt(std::uint32_t u) { return bits_float(u); }

TEST(LabRegistry, EveryEntryIsComplete) {
  std::set<std::string> names;
  std::set<Family> families;
  for (const Variant& v : lab_registry()) {
    SCOPED_TRACE(v.name);
    EXPECT_TRUE(names.insert(v.name).second) << "duplicate name";
    families.insert(v.family);
    EXPECT_GT(v.description.size(), 20u);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(test::source_dir()) / v.source)) << v.source;
    EXPECT_FALSE(v.types.empty());
    EXPECT_EQ(v.param_name.empty(), v.params.empty());
    EXPECT_EQ(find_lab_variant(v.name), &v);
    // With CUDA every variant has a launcher; without, none has (and the lab says why).
    EXPECT_EQ(v.launch != nullptr, CIRCLES_HAVE_CUDA == 1);
    if (v.task == Task::bank_read) {
      EXPECT_TRUE(v.word_bytes == 1 || v.word_bytes == 2 || v.word_bytes == 4 || v.word_bytes == 8 ||
                  v.word_bytes == 16);
    }
  }
  EXPECT_EQ(families.size(), lab_families().size());
  EXPECT_EQ(find_lab_variant("no-such-kernel"), nullptr);
#if !CIRCLES_HAVE_CUDA
  EXPECT_NE(lab_unavailable_reason().find("no CUDA support"), std::string::npos);
#endif
}

TEST(LabRegistry, LaddersHaveWhatTheLabPromises) {
  // Each family's first rung is a real kernel (not a reference), and the reduce, scan and compact
  // tasks carry their library line; the reduce sweep covers 32..1024 threads per block.
  for (Family f : lab_families()) {
    const Variant* first = nullptr;
    for (const Variant& v : lab_registry())
      if (v.family == f && !first) first = &v;
    ASSERT_NE(first, nullptr);
    EXPECT_FALSE(first->reference) << family_name(f);
  }
  for (const char* ref : {"reduce-cub", "scan-cub", "compact-cub"}) {
    ASSERT_NE(find_lab_variant(ref), nullptr) << ref;
    EXPECT_TRUE(find_lab_variant(ref)->reference);
  }
  const Variant* sweep = find_lab_variant("reduce-shuffle");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(std::set<int>(sweep->params.begin(), sweep->params.end()), (std::set<int>{32, 64, 128, 256, 512, 1024}));
  Family f;
  EXPECT_TRUE(parse_lab_family("transpose", &f));
  EXPECT_EQ(f, Family::transpose);
  EXPECT_FALSE(parse_lab_family("all", &f));
  EXPECT_FALSE(parse_lab_family("", &f));
}

TEST(LabReference, ShapesAreValidated) {
  EXPECT_EQ(shape_error(Task::reduce_sum, Shape{1, 0, 0}), "");
  EXPECT_NE(shape_error(Task::reduce_sum, Shape{0, 0, 0}), "");
  EXPECT_NE(shape_error(Task::reduce_sum, Shape{kMaxElements + 1, 0, 0}), "");
  EXPECT_NE(shape_error(Task::reduce_sum, Shape{12, 3, 4}), "");
  EXPECT_EQ(shape_error(Task::transpose, Shape{12, 3, 4}), "");
  EXPECT_NE(shape_error(Task::transpose, Shape{12, 0, 0}), "");
  EXPECT_NE(shape_error(Task::transpose, Shape{0, 65536, 65536}), "");
}

TEST(LabReference, InputsAreDeterministicAndInRange) {
  const Problem a = make_problem(Task::exclusive_scan, Elem::f32, Shape{1000, 0, 0}, 7);
  const Problem b = make_problem(Task::exclusive_scan, Elem::f32, Shape{1000, 0, 0}, 7);
  const Problem c = make_problem(Task::exclusive_scan, Elem::f32, Shape{1000, 0, 0}, 8);
  EXPECT_EQ(a.in, b.in);
  EXPECT_NE(a.in, c.in);
  for (std::uint32_t w : a.in) {
    const float x = flt(w);
    EXPECT_GE(x, -1.f);
    EXPECT_LT(x, 1.f);
    EXPECT_EQ(x * 256.f, std::round(x * 256.f));
  }
  // Zero mean: 255 steps either side.
  const Problem big = make_problem(Task::reduce_sum, Elem::f32, Shape{1 << 20, 0, 0}, 7);
  double sum = 0;
  for (std::uint32_t w : big.in) sum += flt(w);
  EXPECT_LT(std::fabs(sum), 5 * std::sqrt(1 << 20) * 0.58);
  const Problem r = make_problem(Task::find_repeats, Elem::i32, Shape{1000, 0, 0}, 1);
  for (std::uint32_t w : r.in) EXPECT_LT(w, 4u);
  const Problem s = make_problem(Task::segmented_scan, Elem::i32, Shape{100000, 0, 0}, 1);
  ASSERT_EQ(s.flags.size(), 100000u);
  std::size_t heads = 0;
  for (int f : s.flags) heads += f != 0;
  EXPECT_GT(heads, 100u);
  EXPECT_LT(heads, 10000u);
}

// A hand-made problem, so the references are checked against values worked out by hand.
Problem hand(Task t, Elem e, std::vector<std::uint32_t> in) {
  Problem p{t, e, Shape{in.size(), 0, 0}, std::move(in), {}, 0, false};
  p.out_elems = t == Task::reduce_sum ? 1 : p.in.size();
  p.has_count = t == Task::find_repeats || t == Task::compact;
  return p;
}

std::vector<std::uint32_t> ints(std::vector<int> v) { return std::vector<std::uint32_t>(v.begin(), v.end()); }

TEST(LabReference, ReduceAndScan) {
  Expected e = expected_result(hand(Task::reduce_sum, Elem::i32, ints({3, -5, 7, 1})), 0, 4);
  ASSERT_EQ(e.value.size(), 1u);
  EXPECT_EQ(e.value[0], 6);
  EXPECT_TRUE(e.exact);
  // Ints wrap like uint32.
  e = expected_result(hand(Task::reduce_sum, Elem::i32, ints({0x7FFFFFFF, 1})), 0, 4);
  EXPECT_EQ(e.value[0], -2147483648.0);
  e = expected_result(hand(Task::exclusive_scan, Elem::i32, ints({3, -5, 7, 1})), 0, 4);
  EXPECT_EQ(e.value, (std::vector<double>{0, 3, -2, 5}));
  e = expected_result(hand(Task::exclusive_scan, Elem::f32, {bits(0.5f), bits(-0.25f), bits(1.f)}), 0, 4);
  EXPECT_FALSE(e.exact);
  EXPECT_EQ(e.value, (std::vector<double>{0, 0.5, 0.25}));
  EXPECT_EQ(e.scale, (std::vector<double>{0, 0.5, 0.75}));
}

TEST(LabReference, FindRepeatsCompactSegmented) {
  Expected e = expected_result(hand(Task::find_repeats, Elem::i32, ints({1, 1, 2, 3, 3, 3, 0})), 0, 4);
  EXPECT_EQ(e.value, (std::vector<double>{0, 3, 4}));
  EXPECT_EQ(e.count, 3);
  e = expected_result(hand(Task::compact, Elem::i32, ints({-1, 4, 0, 9, -7, 2})), 0, 4);
  EXPECT_EQ(e.value, (std::vector<double>{4, 9, 2}));
  EXPECT_EQ(e.count, 3);
  Problem p = hand(Task::segmented_scan, Elem::i32, ints({1, 2, 3, 4, 5, 6}));
  p.flags = {0, 0, 1, 0, 0, 7};  // element 0 starts a segment whatever its flag
  e = expected_result(p, 0, 4);
  EXPECT_EQ(e.value, (std::vector<double>{0, 1, 0, 3, 7, 0}));
}

TEST(LabReference, TransposeAndConvolve) {
  Problem t{Task::transpose, Elem::f32, Shape{6, 3, 2}, {1, 2, 3, 4, 5, 6}, {}, 6, false};
  Expected e = expected_result(t, 0, 4);
  // 2 rows of 3 -> 3 rows of 2.
  EXPECT_EQ(e.value, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  Problem c = hand(Task::convolve, Elem::f32, {bits(3.f), bits(6.f), bits(-3.f), bits(9.f)});
  e = expected_result(c, 1, 4);
  ASSERT_EQ(e.value.size(), 4u);
  EXPECT_DOUBLE_EQ(e.value[0], 3.0);  // (0 + 3 + 6) / 3
  EXPECT_DOUBLE_EQ(e.value[1], 2.0);  // (3 + 6 - 3) / 3
  EXPECT_DOUBLE_EQ(e.value[2], 4.0);
  EXPECT_DOUBLE_EQ(e.value[3], 2.0);  // (-3 + 9 + 0) / 3
  EXPECT_DOUBLE_EQ(e.scale[1], 4.0);  // (3 + 6 + 3) / 3
  // A radius wider than the input.
  e = expected_result(c, 16, 4);
  for (double v : e.value) EXPECT_DOUBLE_EQ(v, 15.0 / 33);
}

TEST(LabReference, BankReadMatchesTheKernelsDefinition) {
  Problem p{Task::bank_read, Elem::i32, Shape{70, 0, 0}, {}, {}, 70, false};
  for (int word : {1, 2, 4, 8, 16}) {
    for (int stride : {0, 1, 5, 32}) {
      const Expected e = expected_result(p, stride, word);
      ASSERT_EQ(e.value.size(), 70u);
      // Thread 37 is lane 5; its first load is word 5*stride, its second 5*stride + 1.
      std::uint32_t acc = 0;
      for (int it = 0; it < kBankIters; ++it) {
        const unsigned k = 5u * stride + it % 32;
        if (word == 1) acc += bank_word(k, 0) & 0xFF;
        else if (word == 2) acc += bank_word(k, 0) & 0xFFFF;
        else
          for (int c = 0; c < word / 4; ++c) acc += bank_word(k, c);
      }
      EXPECT_EQ(e.value[37], acc) << word << " " << stride;
      EXPECT_EQ(e.value[5], e.value[37]);
    }
  }
}

TEST(LabReference, PoisonNeverPasses) {
  for (Elem type : {Elem::i32, Elem::f32}) {
    for (Task t : {Task::reduce_sum, Task::exclusive_scan, Task::segmented_scan}) {
      const Problem p = make_problem(t, type, Shape{100, 0, 0}, 3);
      const Expected e = expected_result(p, 0, 4);
      std::vector<std::uint32_t> out(p.out_elems, type == Elem::f32 ? kPoisonF32 : kPoisonI32);
      EXPECT_NE(check_result(p, e, out.data(), -1).rfind("WRONG at index 0", 0), std::string::npos)
          << task_name(t) << " " << elem_name(type);
    }
  }
  const Problem c = make_problem(Task::compact, Elem::i32, Shape{100, 0, 0}, 3);
  const Expected ce = expected_result(c, 0, 4);
  std::vector<std::uint32_t> out(c.out_elems, kPoisonI32);
  EXPECT_NE(check_result(c, ce, out.data(), -1).find("WRONG count"), std::string::npos);
  EXPECT_NE(check_result(c, ce, out.data(), ce.count).find("WRONG at index 0"), std::string::npos);
}

TEST(LabReference, CheckAcceptsTheExactAnswerAndNamesTheFirstBadElement) {
  const Problem p = make_problem(Task::exclusive_scan, Elem::f32, Shape{1000, 0, 0}, 5);
  const Expected e = expected_result(p, 0, 4);
  std::vector<std::uint32_t> out;
  for (double v : e.value) out.push_back(bits(static_cast<float>(v)));
  EXPECT_EQ(check_result(p, e, out.data(), -1), "ok");
  // Within the stated tolerance passes; a dropped element (at least 2^-8) does not.
  out[500] = bits(static_cast<float>(e.value[500]) + 0.5f * static_cast<float>(kAbsTol));
  EXPECT_EQ(check_result(p, e, out.data(), -1), "ok");
  out[600] = bits(static_cast<float>(e.value[600] + 1.0 / 256));
  EXPECT_EQ(check_result(p, e, out.data(), -1).rfind("WRONG at index 600", 0), 0u);
  // Transpose compares bits.
  Problem t = make_problem(Task::transpose, Elem::f32, Shape{12, 4, 3}, 1);
  const Expected te = expected_result(t, 0, 4);
  std::vector<std::uint32_t> tout;
  for (double v : te.value) tout.push_back(static_cast<std::uint32_t>(v));
  EXPECT_EQ(check_result(t, te, tout.data(), -1), "ok");
  tout[11] ^= 1;
  EXPECT_EQ(check_result(t, te, tout.data(), -1).rfind("WRONG at index 11", 0), 0u);
}

TEST(LabReference, FloatChecksCatchOneDroppedElementAtLargeSizes) {
  // 2^21 elements: a reduce or scan that loses one input element fails the float check.
  for (Task t : {Task::reduce_sum, Task::exclusive_scan}) {
    const Problem p = make_problem(t, Elem::f32, Shape{std::size_t{1} << 21, 0, 0}, 11);
    const Expected e = expected_result(p, 0, 4);
    const std::size_t last = e.value.size() - 1;
    // The last element of the sum / scan without input element 12345 (nonzero).
    std::size_t k = 12345;
    while (p.in[k] == float_bits(0.f)) ++k;
    std::vector<std::uint32_t> out;
    for (double v : e.value) out.push_back(float_bits(static_cast<float>(v)));
    EXPECT_EQ(check_result(p, e, out.data(), -1), "ok") << task_name(t);
    out[last] = float_bits(static_cast<float>(e.value[last] - bits_float(p.in[k])));
    EXPECT_NE(check_result(p, e, out.data(), -1), "ok") << task_name(t);
  }
  // Convolution: one window element dropped (radius 16: a change of 2^-8 / 33).
  const Problem c = make_problem(Task::convolve, Elem::f32, Shape{1000, 0, 0}, 3);
  const Expected ce = expected_result(c, 16, 4);
  std::vector<std::uint32_t> out;
  for (double v : ce.value) out.push_back(float_bits(static_cast<float>(v)));
  EXPECT_EQ(check_result(c, ce, out.data(), -1), "ok");
  std::size_t k = 500;
  while (c.in[k] == float_bits(0.f)) ++k;
  out[k] = float_bits(static_cast<float>(ce.value[k] - bits_float(c.in[k]) / 33.0));
  EXPECT_NE(check_result(c, ce, out.data(), -1), "ok");
}

TEST(LabReference, MemoryNeedsAreDeclared) {
  const double n = 1 << 20;
  // Float scan: input, expected value and tolerance scale in double, the read-back output.
  EXPECT_DOUBLE_EQ(host_bytes_needed(Task::exclusive_scan, Elem::f32, Shape{1 << 20, 0, 0}), n * (4 + 8 + 8 + 4));
  EXPECT_DOUBLE_EQ(host_bytes_needed(Task::exclusive_scan, Elem::i32, Shape{1 << 20, 0, 0}), n * (4 + 8 + 4));
  EXPECT_DOUBLE_EQ(host_bytes_needed(Task::reduce_sum, Elem::i32, Shape{1 << 20, 0, 0}), n * 4 + 12);
  EXPECT_DOUBLE_EQ(device_bytes_needed(Task::segmented_scan, Elem::i32, Shape{1 << 20, 0, 0}), n * 16);
  EXPECT_DOUBLE_EQ(device_bytes_needed(Task::transpose, Elem::f32, Shape{0, 1024, 1024}), n * 12);
}

TEST(LabReference, BankConflictArithmetic) {
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 0), 1);   // broadcast
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 1), 1);
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 2), 2);
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 3), 1);   // odd strides are conflict-free
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 8), 8);
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 32), 32);
  EXPECT_DOUBLE_EQ(bank_wavefronts(4, 33), 1);
  EXPECT_DOUBLE_EQ(bank_wavefronts(1, 1), 1);   // 32 bytes: 8 or 9 words, all different banks
  EXPECT_DOUBLE_EQ(bank_wavefronts(1, 4), 1);   // one byte per word, 32 words
  EXPECT_DOUBLE_EQ(bank_wavefronts(8, 1), 2);   // two half-warp phases, no conflict
  EXPECT_DOUBLE_EQ(bank_wavefronts(8, 16), 32); // 16 lanes in one bank pair per phase
  EXPECT_DOUBLE_EQ(bank_wavefronts(16, 1), 4);
  EXPECT_EQ(bank_phases(16), 4);
  // Bytes: the shared bytes loaded.
  Problem p{Task::bank_read, Elem::i32, Shape{64, 0, 0}, {}, {}, 64, false};
  EXPECT_DOUBLE_EQ(task_bytes(p, 0, 16), 64.0 * kBankIters * 16);
  EXPECT_DOUBLE_EQ(copy_bytes(p), 0);
}

}  // namespace
}  // namespace circles
