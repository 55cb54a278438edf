// Hardware counters (kernels/cuda/counters.h) on lab kernels whose counts are known from their code:
// bank conflicts by stride, DRAM bytes of a reduction and a transpose, and the repeatability of a
// measurement. Without a GPU, or where counters cannot be read, the GPU tests skip; with
// CIRCLES_REQUIRE_GPU=1 a missing GPU fails them, and with CIRCLES_REQUIRE_COUNTERS=1 so does
// any reason counters cannot be read. The CPU tests here (the metric list, the no-GPU answers,
// the host-side plan for GH100) run everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

#include "app/common/lab_registry.h"
#include "kernels/cuda/counters.h"
#include "kernels/cuda/device.h"
#include "kernels/lab/lab_run.h"
#include "test_util.h"

namespace circles {
namespace {

using namespace lab;

using test::env_is_1;

// Skips (or fails, when required) a test that needs readable counters.
#define REQUIRE_COUNTERS()                                                                    \
  do {                                                                                        \
    const std::string lab_why = lab_unavailable_reason();                                     \
    if (!lab_why.empty()) {                                                                   \
      if (env_is_1("CIRCLES_REQUIRE_GPU") || env_is_1("CIRCLES_REQUIRE_COUNTERS"))            \
        FAIL() << "a GPU is required but the lab cannot run: " << lab_why;                    \
      GTEST_SKIP() << test::kNeedsGpu << lab_why;                                             \
    }                                                                                         \
    const std::string counters_why = counters_unavailable_reason();                           \
    if (!counters_why.empty()) {                                                              \
      if (env_is_1("CIRCLES_REQUIRE_COUNTERS"))                                               \
        FAIL() << "CIRCLES_REQUIRE_COUNTERS=1 but counters cannot be read: " << counters_why; \
      SKIP_EXPECTED("counters cannot be read here: " << counters_why);                         \
    }                                                                                         \
  } while (0)

double value(const CounterReport& r, const std::string& metric) {
  const CounterValue* v = r.find(metric);
  if (!v) throw std::runtime_error(metric + " was not read" + (r.ok() ? "" : ": " + r.error));
  return v->value;
}

const char* kDramRead = "dram__bytes_read.sum";
const char* kDramWrite = "dram__bytes_write.sum";
const char* kWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
const char* kConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
const char* kThreadsPerInst = "smsp__thread_inst_executed_per_inst_executed.ratio";
const char* kInstExecuted = "sm__inst_executed.sum";
const char* kIssueBusy = "sm__inst_issued.avg.pct_of_peak_sustained_active";

// Checks `v` on `bench` (the scratch grows there), then reads its counters.
CounterReport measured(LabBench& bench, const Variant& v, int param) {
  const Measurement m = bench.run(v, param, nullptr);
  EXPECT_EQ(m.check, "ok") << v.name << " " << param;
  CounterReport r = measure_counters([&] { bench.launch_once(v, param); });
  EXPECT_TRUE(r.ok()) << v.name << " " << param << ": " << r.error;
  return r;
}

// --- everywhere ---

TEST(CounterMetrics, OneListWithUniqueNcuNames) {
  const std::vector<CounterSpec>& specs = counter_metrics();
  ASSERT_GE(specs.size(), 8u);
  std::set<std::string> names, labels;
  for (const CounterSpec& s : specs) {
    EXPECT_TRUE(names.insert(s.metric).second) << "duplicate metric " << s.metric;
    EXPECT_TRUE(labels.insert(s.label).second) << "duplicate label " << s.label;
    // ncu's grammar: unit__counter.rollup[.submetric]
    EXPECT_NE(s.metric.find("__"), std::string::npos) << s.metric;
    EXPECT_NE(s.metric.find('.'), std::string::npos) << s.metric;
    EXPECT_TRUE(s.unit == "bytes" || s.unit == "%" || s.unit == "count" || s.unit == "ratio") << s.unit;
    EXPECT_FALSE(s.meaning.empty()) << s.metric;
    EXPECT_EQ(find_counter_metric(s.metric), &s);
  }
  for (const char* m : {kDramRead, kDramWrite, kWavefronts, kConflicts, kOccupancy, kThreadsPerInst,
                        kInstExecuted, kIssueBusy})
    EXPECT_NE(find_counter_metric(m), nullptr) << m;
  EXPECT_EQ(find_counter_metric("no__such.metric"), nullptr);
}

// Without a GPU (this is what CI and the build machine see): a sentence, and a measurement that
// fails cleanly without running the work. With a GPU: whatever the answer, nothing crashes.
TEST(CounterMetrics, WithoutCountersMeasuringFailsCleanly) {
  const std::string why = counters_unavailable_reason();
  EXPECT_EQ(counters_unavailable_reason(), why);  // cached, stable
  if (why.empty()) SKIP_EXPECTED("counters can be read here: this test is of the machines where they cannot");
  EXPECT_GT(why.size(), 20u) << why;
  if (!cuda_device_info().available) {
    EXPECT_NE(why.find("GPU"), std::string::npos) << why;
  }
  bool ran = false;
  const CounterReport r = measure_counters([&] { ran = true; });
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, why);
  EXPECT_TRUE(r.values.empty());
  EXPECT_FALSE(ran) << "the work must not run when counters cannot be read";
}

// The host side needs libcupti (and its libnvperf_host) but no GPU: the list is one pass on the
// H100's chip, every metric present.
TEST(CounterMetrics, PlanForGh100IsOnePass) {
  std::string why;
  const std::string lib = counters_library(&why);
  if (lib.empty()) {
    if (env_is_1("CIRCLES_REQUIRE_COUNTERS")) FAIL() << why;
    SKIP_EXPECTED("libcupti is not here: " << why);
  }
  const CounterPlan plan = counters_plan_for_chip("GH100");
  ASSERT_TRUE(plan.ok()) << plan.error;
  EXPECT_EQ(plan.passes, 1);
  EXPECT_TRUE(plan.missing.empty()) << plan.missing.front();
  const CounterPlan bad = counters_plan_for_chip("NOT-A-CHIP");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("NOT-A-CHIP"), std::string::npos) << bad.error;
}

// --- on the GPU ---

// 32-bit words: stride 1 is conflict-free (one wavefront per warp load), stride 32 puts all 32
// lanes on one bank (32 wavefronts, 31 of them conflicts).
TEST(GpuCounters, BankConflictsFollowTheStride) {
  REQUIRE_COUNTERS();
  const Variant& v = *find_lab_variant("banks-32bit");
  const Shape shape{std::size_t{1} << 20, 0, 0};
  LabBench bench(Task::bank_read, Elem::i32, shape, 7);
  const CounterReport s1 = measured(bench, v, 1), s32 = measured(bench, v, 32);
  ASSERT_TRUE(s1.ok() && s32.ok());
  // Every thread loads kBankIters words: one warp load (request) per warp and step.
  const double requests = static_cast<double>(shape.n) / 32 * kBankIters;
  const double wf1 = value(s1, kWavefronts), wf32 = value(s32, kWavefronts);
  EXPECT_GT(wf1, 0.99 * requests);
  EXPECT_LT(wf1, 1.05 * requests);
  EXPECT_GT(wf32 / wf1, 30.0);
  EXPECT_LT(wf32 / wf1, 33.0);
  EXPECT_LT(value(s1, kConflicts), 0.01 * wf1);
  EXPECT_GT(value(s32, kConflicts), 0.9 * (wf32 - wf1));
  EXPECT_LE(value(s32, kConflicts), wf32);
  for (const CounterReport* r : {&s1, &s32}) {
    EXPECT_GT(value(*r, kOccupancy), 0.0);
    EXPECT_LE(value(*r, kOccupancy), 100.0);
    EXPECT_GT(value(*r, kIssueBusy), 0.0);
    EXPECT_LE(value(*r, kIssueBusy), 100.0);
    EXPECT_GE(r->passes, 1);
  }
}

// reduce-shuffle reads its 2^26 int32 (256 MiB, five times the L2) once from DRAM; measured
// twice, it counts the same instructions (the measurement is repeatable and re-entrant).
TEST(GpuCounters, ReductionReadsItsInputOnceFromDram) {
  REQUIRE_COUNTERS();
  const Variant& v = *find_lab_variant("reduce-shuffle");
  const Shape shape{std::size_t{1} << 26, 0, 0};
  LabBench bench(Task::reduce_sum, Elem::i32, shape, 11);
  const CounterReport a = measured(bench, v, 256);
  const CounterReport b = measure_counters([&] { bench.launch_once(v, 256); });
  ASSERT_TRUE(a.ok() && b.ok()) << a.error << b.error;
  const double input = static_cast<double>(shape.n) * 4;
  EXPECT_GT(value(a, kDramRead), 0.95 * input);
  EXPECT_LT(value(a, kDramRead), 1.10 * input);
  EXPECT_GT(value(a, kOccupancy), 0.0);
  EXPECT_LE(value(a, kOccupancy), 100.0);
  EXPECT_GT(value(a, kThreadsPerInst), 16.0);  // a grid-stride loop of full warps: little divergence
  EXPECT_LE(value(a, kThreadsPerInst), 32.0);
  EXPECT_GT(value(a, kInstExecuted), 0.0);
  EXPECT_NEAR(value(b, kInstExecuted), value(a, kInstExecuted), 0.001 * value(a, kInstExecuted));
  EXPECT_NEAR(value(b, kDramRead), value(a, kDramRead), 0.03 * value(a, kDramRead));
  EXPECT_GT(a.collect_ms, 0.0);
}

// A multi-kernel variant (block scans, scan of the block sums, fix-up) is summed over all its
// kernels, so its extra pass over the array shows; the padded shared-tile transpose reads and writes each 256 MiB matrix once.
TEST(GpuCounters, MultiKernelScanAndTransposeMoveTheirBytes) {
  REQUIRE_COUNTERS();
  {
    const Shape shape{std::size_t{1} << 26, 0, 0};
    LabBench bench(Task::exclusive_scan, Elem::i32, shape, 3);
    const CounterReport r = measured(bench, *find_lab_variant("scan-warp-shuffle"), 0);
    ASSERT_TRUE(r.ok()) << r.error;
    // The hierarchy moves the array twice: the tile scans read the input and write the output,
    // then the fix-up reads the output and writes it again with the block offsets (measured on
    // the H100: 537 MB read, 536 MB written for 268 MB; ncu agrees), which is why this rung runs
    // at about 45% of the copy.
    const double bytes = static_cast<double>(shape.n) * 4;
    EXPECT_GT(value(r, kDramRead), 1.8 * bytes);
    EXPECT_LT(value(r, kDramRead), 2.2 * bytes);
    EXPECT_GT(value(r, kDramWrite), 1.8 * bytes);
    EXPECT_LT(value(r, kDramWrite), 2.2 * bytes);
  }
  {
    const Shape shape{8192u * 8192u, 8192, 8192};
    LabBench bench(Task::transpose, Elem::f32, shape, 5);
    const CounterReport r = measured(bench, *find_lab_variant("transpose-best"), 0);
    ASSERT_TRUE(r.ok()) << r.error;
    const double bytes = static_cast<double>(shape.n) * 4;
    EXPECT_GT(value(r, kDramRead), 0.95 * bytes);
    EXPECT_LT(value(r, kDramRead), 1.15 * bytes);
    EXPECT_GT(value(r, kDramWrite), 0.95 * bytes);
    EXPECT_LT(value(r, kDramWrite), 1.15 * bytes);
  }
}

// A failing piece of work becomes an error, and the next measurement works.
TEST(GpuCounters, AFailingWorkIsReportedAndTheNextMeasurementWorks) {
  REQUIRE_COUNTERS();
  const CounterReport bad = measure_counters([] { throw std::runtime_error("boom"); });
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("boom"), std::string::npos) << bad.error;
  EXPECT_TRUE(bad.values.empty());
  const Variant& v = *find_lab_variant("reduce-shuffle");
  LabBench bench(Task::reduce_sum, Elem::i32, Shape{std::size_t{1} << 20, 0, 0}, 1);
  const CounterReport good = measured(bench, v, 256);
  EXPECT_TRUE(good.ok()) << good.error;
  EXPECT_EQ(good.values.size() + good.missing.size(), counter_metrics().size());
  // A measurement inside the measured work is refused; the outer one goes on.
  const CounterReport outer = measure_counters([&] {
    const CounterReport inner = measure_counters([] {});
    if (inner.ok()) throw std::runtime_error("a nested measurement was not refused");
    bench.launch_once(v, 256);
  });
  EXPECT_TRUE(outer.ok()) << outer.error;
}

}  // namespace
}  // namespace circles
