// Every lab variant in the registry, on every element type it supports and every knob value it
// lists, against the CPU on awkward sizes, with its output poisoned first (kernels/lab/lab_run.h).
// Without a GPU these tests skip; with CIRCLES_REQUIRE_GPU=1 set they fail instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "app/common/lab_registry.h"
#include "app/common/registry.h"
#include "kernels/cuda/raii.h"
#include "kernels/lab/frame_stats.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/lab/lab_run.h"
#include "render/builtin_scenes.h"
#include "render/raster.h"
#include "test_util.h"

namespace circles {
namespace {

using namespace lab;

// Skips where the lab cannot run here (fails instead with CIRCLES_REQUIRE_GPU=1).
#define REQUIRE_LAB()                                                   \
  do {                                                                  \
    const std::string lab_why_ = lab_unavailable_reason();              \
    NEED_GPU(lab_why_.empty() ? lab_why_ : "the lab cannot run: " + lab_why_); \
  } while (0)

std::vector<Shape> awkward_sizes(Task t) {
  if (t == Task::transpose)
    return {{1, 1, 1},       {1000, 1, 1000},  {1000, 1000, 1},      {1023, 33, 31},        {1023, 31, 33},
            {1024, 32, 32},  {0, 1023, 1025},  {0, 2047, 4000},      {0, 2049, 4000},       {0, 4000, 2049},
            {0, 8191, 8191},     {0, 1, 2100000},  {0, 2100000, 1}};  // the last two: > 65535 block rows
  std::vector<Shape> s;
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{1023},
                        std::size_t{1025}, (std::size_t{1} << 20) + 7})
    s.push_back({n, 0, 0});
  // Scans and their applications also cross a third level of block sums.
  if (t == Task::exclusive_scan || t == Task::segmented_scan || t == Task::compact || t == Task::find_repeats ||
      t == Task::reduce_sum)
    s.push_back({(std::size_t{1} << 24) + 3, 0, 0});
  for (Shape& x : s)
    if (x.is_2d()) x.n = static_cast<std::size_t>(x.width) * x.height;
  return s;
}

class LabVariantTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LabVariantTest, MatchesTheCpuOnAwkwardSizes) {
  const Variant& v = *find_lab_variant(GetParam());
  REQUIRE_LAB();
  int checked = 0;
  for (Elem type : v.types) {
    for (const Shape& shape : awkward_sizes(v.task)) {
      LabBench bench(v.task, type, shape, 1234 + shape.n);
      const std::vector<int> params = v.params.empty() ? std::vector<int>{0} : v.params;
      for (int param : params) {
        const Measurement m = bench.run(v, param, nullptr);
        EXPECT_EQ(m.check, "ok") << v.name << " " << elem_name(type) << " size " << shape.text()
                                 << (v.param_name.empty() ? "" : " " + v.param_name + " " + std::to_string(param));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const Variant& v : lab_registry()) names.push_back(v.name);
  return names;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Lab, LabVariantTest, ::testing::ValuesIn(variant_names()), test_name);

// Timing a variant changes nothing about its result, and the copy line is measured.
TEST(LabHarness, TimedRunsReportMediansAndBandwidth) {
  REQUIRE_LAB();
  LabBench bench(Task::reduce_sum, Elem::i32, Shape{std::size_t{1} << 22, 0, 0}, 9);
  const Timing t{5, 1};
  const Measurement copy = bench.device_copy(t);
  EXPECT_EQ(copy.runs, 5);
  EXPECT_DOUBLE_EQ(copy.bytes, 2.0 * 4 * (1 << 22));
  // A rate was measured and agrees with the bytes and the median (its value is the benchmark's).
  EXPECT_GT(copy.median_ms, 0.0);
  EXPECT_NEAR(copy.gbps, copy.bytes / (copy.median_ms * 1e6), 1e-6 * copy.gbps);
  const Measurement m = bench.run(*find_lab_variant("reduce-cub"), 0, &t);
  EXPECT_EQ(m.check, "ok");
  EXPECT_EQ(m.runs, 5);
  EXPECT_LE(m.min_ms, m.median_ms);
  EXPECT_LE(m.median_ms, m.max_ms);
  EXPECT_NEAR(m.gbps, m.bytes / (m.median_ms * 1e6), 1e-6 * m.gbps);
}

// The lab's reductions on a rendered frame (the viewer's frame statistics): every reduce_sum
// variant that takes floats, over the five planes of a CUDA renderer's device image, agrees with
// the CPU's double sums of the same image read back (mean colour to 1e-4, coverage exactly).
TEST(LabOnTheFrame, EveryFloatReductionGivesTheFramesStatistics) {
  REQUIRE_LAB();
  for (const char* scene_name : {"rand10k", "snow"}) {
    const Scene scene = make_builtin_scene(scene_name);
    auto r = make_renderer("cuda-tile-binned");
    Image img;
    run_frames(*r, scene, 257, 193, scene.frame, scene.frame + 3, [&](std::int64_t) {});
    r->read_image(&img);
    const FrameStats want = frame_stats_cpu(img, scene.background);
    EXPECT_GT(want.touched, 0);
    EXPECT_LT(want.touched, want.pixels);
    int variants = 0;
    for (const Variant& v : lab_registry()) {
      if (v.task != Task::reduce_sum || v.host || !v.launch) continue;
      if (std::find(v.types.begin(), v.types.end(), Elem::f32) == v.types.end()) continue;
      FrameReducer reducer;
      const int param = v.default_param();
      ASSERT_TRUE(reducer.enqueue(v.launch, param, r->device_pixels(), 257, 193, scene.background,
                                  r->device_stream()));
      EXPECT_FALSE(reducer.enqueue(v.launch, param, r->device_pixels(), 257, 193, scene.background,
                                   r->device_stream()))
          << "a second request while the first runs";
      const std::optional<FrameStats> got = reducer.poll(true);
      ASSERT_TRUE(got.has_value()) << v.name;
      EXPECT_TRUE(frame_stats_agree(*got, want))
          << scene_name << " " << v.name << ": mean " << got->mean[0] << " " << got->mean[1] << " " << got->mean[2]
          << " " << got->mean[3] << " touched " << got->touched << " vs " << want.mean[0] << " " << want.mean[1] << " "
          << want.mean[2] << " " << want.mean[3] << " touched " << want.touched;
      EXPECT_GT(got->ms, 0);
      EXPECT_FALSE(reducer.poll().has_value());  // once
      ++variants;
    }
    EXPECT_GE(variants, 10);
  }
}

// The Check's difference statistics on the GPU (every float reduction for the sums, the max
// kernel for the maxima) against the CPU's: a frame and a copy with known changes, exactly equal
// maxima, sums within 1e-4; identical images give zeros.
TEST(LabOnTheFrame, DifferenceStatisticsMatchTheCpu) {
  REQUIRE_LAB();
  const Scene scene = make_builtin_scene("rand10k");
  auto r = make_renderer("cuda-tile-scan");
  Image a;
  run_frames(*r, scene, 301, 203, scene.frame, scene.frame + 1, [&](std::int64_t) {});
  r->read_image(&a);
  Image b = a;
  for (std::size_t k = 0; k < b.pixels.size(); k += 97) b.pixels[k].y += 0.001f * static_cast<float>(k % 13);
  b.pixels[12345].w -= 0.25f;
  const DiffStats want = diff_stats_cpu(a, b);
  EXPECT_FLOAT_EQ(static_cast<float>(want.max_abs[3]), 0.25f);
  EXPECT_GT(want.sum_abs[1], 1.0);
  EXPECT_EQ(want.max_abs[0], 0.0);
  int variants = 0;
  for (const Variant& v : lab_registry()) {
    if (v.task != Task::reduce_sum || v.host || !v.launch) continue;
    if (std::find(v.types.begin(), v.types.end(), Elem::f32) == v.types.end()) continue;
    const int param = v.default_param();
    const DiffStats got = diff_stats_gpu(a, b, v.launch, param);
    EXPECT_TRUE(diff_stats_agree(got, want))
        << v.name << ": max " << got.max_abs[1] << " " << got.max_abs[3] << " sum " << got.sum_abs[1] << " "
        << got.sum_abs[3] << " vs " << want.max_abs[1] << " " << want.max_abs[3] << " sum " << want.sum_abs[1] << " "
        << want.sum_abs[3];
    const DiffStats same = diff_stats_gpu(a, a, v.launch, param);
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(same.max_abs[c], 0.0) << v.name;
      EXPECT_EQ(same.sum_abs[c], 0.0) << v.name;
    }
    ++variants;
  }
  EXPECT_GE(variants, 10);
}

// The transpose view: every device transpose variant over a CUDA renderer's frame (square and
// not) gives exactly the CPU's mirror image, and the 8-bit texels are to_byte of it.
TEST(LabOnTheFrame, EveryTransposeMirrorsTheFrameExactly) {
  REQUIRE_LAB();
  const Scene scene = make_builtin_scene("snow");
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{257, 193}, {200, 200}}) {
    auto r = make_renderer("cuda-tile-binned");
    Image frame;
    run_frames(*r, scene, w, h, scene.frame, scene.frame + 2, [&](std::int64_t) {});
    r->read_image(&frame);
    const Image want = transpose_cpu(frame);
    int variants = 0;
    for (const Variant& v : lab_registry()) {
      if (v.task != Task::transpose || v.host || !v.launch) continue;
      FrameTransposer t;
      const int param = v.default_param();
      ASSERT_TRUE(t.enqueue(v.launch, param, r->device_pixels(), w, h, r->device_stream()));
      EXPECT_FALSE(t.enqueue(v.launch, param, r->device_pixels(), w, h, r->device_stream()));
      const std::optional<TransposedFrame> got = t.poll(true);
      ASSERT_TRUE(got.has_value()) << v.name;
      EXPECT_EQ(got->width, h);
      EXPECT_EQ(got->height, w);
      EXPECT_GT(got->ms, 0);
      Image img;
      t.read_image(&img);
      ASSERT_EQ(img.pixels.size(), want.pixels.size());
      std::size_t differ = 0, bytes_differ = 0;
      for (std::size_t k = 0; k < img.pixels.size(); ++k) {
        const Float4& p = img.pixels[k];
        const Float4& q = want.pixels[k];
        differ += (p.x != q.x || p.y != q.y || p.z != q.z || p.w != q.w);
        const unsigned char* texel = &got->rgba8[4 * k];
        bytes_differ += texel[0] != to_byte(q.x) || texel[1] != to_byte(q.y) || texel[2] != to_byte(q.z) ||
                        texel[3] != to_byte(q.w);
      }
      EXPECT_EQ(differ, 0u) << v.name << " at " << w << "x" << h;
      EXPECT_EQ(bytes_differ, 0u) << v.name << " at " << w << "x" << h;
      ++variants;
    }
    EXPECT_GE(variants, 6);
  }
}

// The look-back kernels leave their status words and tile counter for the next launch instead of
// clearing them (Scratch::lookback: each launch tags its words with its own epoch): one Scratch
// through the look-back scan (launched ordinarily and dependent), compaction and segmented scan,
// at sizes that shrink and grow, and across the epoch's wrap, each result against the CPU.
TEST(LabLookback, StatusWordsCarryOverLaunchesAndTheEpochWrap) {
  REQUIRE_LAB();
  Scratch scratch;
  CudaStream stream;
  std::mt19937 rng(7);
  const std::size_t sizes[] = {(std::size_t{1} << 20) + 7, 33, 5000, (std::size_t{1} << 21) + 1, 1, 4097};
  int launches = 0;
  for (int round = 0; round < 3; ++round) {
    // The last round starts two launches short of the wrap: it clears the words once, mid-round.
    if (round == 2) scratch.set_lookback_epoch(Scratch::kMaxEpoch - 2);
    for (std::size_t n : sizes) {
      std::vector<int> in(n), flags(n);
      for (std::size_t i = 0; i < n; ++i) {
        in[i] = static_cast<int>(rng() % 4);
        flags[i] = rng() % 5 == 0;
      }
      DeviceBuffer<int> d_in, d_flags, d_out, d_count;
      d_in.upload(in.data(), n, stream.get());
      d_flags.upload(flags.data(), n, stream.get());
      d_out.reserve(n);
      d_count.reserve(1);
      LaunchArgs a;
      a.in = d_in.get();
      a.out = d_out.get();
      a.count = d_count.get();
      a.shape.n = n;
      a.type = Elem::i32;
      a.scratch = &scratch;
      a.stream = stream.get();
      std::vector<int> got(n), want(n);
      int count = -1;
      auto read = [&] {
        CUDA_CHECK(cudaMemcpyAsync(got.data(), d_out.get(), n * sizeof(int), cudaMemcpyDeviceToHost, stream.get()));
        CUDA_CHECK(cudaMemcpyAsync(&count, d_count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream.get()));
        CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      };
      const std::string at = "round " + std::to_string(round) + ", n " + std::to_string(n) + ", epoch " +
                             std::to_string(scratch.lookback_epoch());
      // The exclusive scan, dependent on the flags' upload in odd rounds (an ordinary launch then,
      // as after a copy: the flag only asks).
      a.dependent = round % 2 == 1;
      scan_lookback(a);
      ++launches;
      a.dependent = false;
      read();
      int run = 0;
      for (std::size_t i = 0; i < n; ++i) {
        want[i] = run;
        run += in[i];
      }
      EXPECT_EQ(got, want) << "scan, " << at;
      // Compaction: the positive elements, in order, and their count.
      compact_scan(a);
      ++launches;
      read();
      std::vector<int> kept;
      for (int x : in)
        if (x > 0) kept.push_back(x);
      ASSERT_EQ(count, static_cast<int>(kept.size())) << "compact, " << at;
      EXPECT_TRUE(std::equal(kept.begin(), kept.end(), got.begin())) << "compact, " << at;
      // The segmented scan: the sum since the segment's head (0 at a head).
      a.flags = d_flags.get();
      segmented_scan(a);
      ++launches;
      read();
      run = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (flags[i]) run = 0;
        want[i] = run;
        run += in[i];
      }
      EXPECT_EQ(got, want) << "segmented scan, " << at;
    }
  }
  // The wrap happened: the last round's launches went past kMaxEpoch and began again at 1.
  EXPECT_EQ(launches, 3 * 6 * 3);
  EXPECT_EQ(scratch.lookback_epoch(), 6u * 3 - 2);
}

}  // namespace
}  // namespace circles
