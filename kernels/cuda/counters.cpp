// Live hardware counters through CUPTI's range profiler (see counters.h).
//
// How: libcupti is loaded at run time (cupti_loader.h), so nothing links it. The host side (cupti_profiler_host.h) turns the
// metric names into a config image for the GPU's chip once per device; each measurement then
// enables the range profiler on the current context, runs the work inside one user range
// (CUPTI_UserRange) with user replay (CUPTI_UserReplay) until CUPTI says every pass was
// submitted, decodes the counter data and evaluates the metrics over that one range.
//
// Why a user range with user replay: a lab variant or a renderer stage is often several kernels
// (CUB, multi-level scans, binning) on any stream, and the figure wanted is their sum, which only
// a user range gives; kernel replay works per kernel (auto range) and saves and restores device
// memory around every replay. Our work is idempotent (lab launchers reset their own counters), so
// replaying it ourselves is cheap and exact. The metrics need one pass on every chip CUPTI 13
// knows, so the work normally runs once. The profiler is disabled again after each measurement,
// so frames between measurements run with no profiler on the context.
#include "kernels/cuda/counters.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cuda/cupti_loader.h"
#include "kernels/cuda/device.h"

namespace circles {

namespace {

using namespace cupti_loader;

// Fills the struct's size field the way every CUPTI profiler call wants it: the size of the
// struct as this build's headers know it, so an older or newer libcupti reads only those fields.
template <class P>
P params(std::size_t struct_size) {
  P p;
  std::memset(&p, 0, sizeof p);
  p.structSize = struct_size;
  return p;
}
#define CIRCLES_PARAMS(T) params<T>(T##_STRUCT_SIZE)

// --- the host side: metric names -> config image, for one chip -----------------------------------

struct HostPlan {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::string chip;
  std::vector<std::string> present, missing;
  std::vector<const char*> names;  // c_str() of `present`, for CUPTI
  std::vector<std::uint8_t> config;
  int passes = 0;

  void release(const Cupti& c) {
    if (host) {
      auto p = CIRCLES_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
      p.pHostObject = host;
      c.cuptiProfilerHostDeinitialize(&p);
      host = nullptr;
    }
  }
};

// Builds `out` for `chip` (and the counter availability image of the device, when there is one).
// Returns "" or the error; on error nothing is left allocated.
std::string build_host_plan(const Cupti& c, const std::string& chip,
                            const std::vector<std::uint8_t>& availability, HostPlan* out) {
  HostPlan plan;
  plan.chip = chip;
  auto init = CIRCLES_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  init.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  CUptiResult r = c.cuptiProfilerHostInitialize(&init);
  if (r != CUPTI_SUCCESS) {
    std::string e = c.fail("cuptiProfilerHostInitialize", r);
    if (r == CUPTI_ERROR_INVALID_CHIP_NAME || r == CUPTI_ERROR_NOT_SUPPORTED)
      e = "this CUPTI (" + c.path + ") does not know the chip " + chip + " [" + e + "]";
    else if (r == CUPTI_ERROR_UNKNOWN)
      e = "setting up the metrics of chip " + chip + " failed [" + e +
          "] (is libnvperf_host.so beside libcupti, or on the library search path?)";
    else
      e = "setting up the metrics of chip " + chip + " failed [" + e + "]";
    return e;
  }
  plan.host = init.pHostObject;
  // A metric this chip lacks would fail the whole config: leave it out and say so instead.
  for (const CounterSpec& s : counter_metrics()) {
    auto prop = CIRCLES_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
    prop.pHostObject = plan.host;
    prop.pMetricName = s.metric.c_str();
    (c.cuptiProfilerHostGetMetricProperties(&prop) == CUPTI_SUCCESS ? plan.present : plan.missing)
        .push_back(s.metric);
  }
  for (const std::string& m : plan.present) plan.names.push_back(m.c_str());
  auto fail = [&](const char* call, CUptiResult res) {
    plan.release(c);
    return c.fail(call, res);
  };
  if (plan.present.empty()) {
    plan.release(c);
    return "the chip " + chip + " has none of the counters read here";
  }
  auto add = CIRCLES_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = plan.host;
  add.ppMetricNames = plan.names.data();
  add.numMetrics = plan.names.size();
  if ((r = c.cuptiProfilerHostConfigAddMetrics(&add)) != CUPTI_SUCCESS)
    return fail("cuptiProfilerHostConfigAddMetrics", r);
  auto size = CIRCLES_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = plan.host;
  if ((r = c.cuptiProfilerHostGetConfigImageSize(&size)) != CUPTI_SUCCESS)
    return fail("cuptiProfilerHostGetConfigImageSize", r);
  plan.config.resize(size.configImageSize);
  auto image = CIRCLES_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  image.pHostObject = plan.host;
  image.configImageSize = plan.config.size();
  image.pConfigImage = plan.config.data();
  if ((r = c.cuptiProfilerHostGetConfigImage(&image)) != CUPTI_SUCCESS)
    return fail("cuptiProfilerHostGetConfigImage", r);
  auto passes = CIRCLES_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  passes.configImageSize = plan.config.size();
  passes.pConfigImage = plan.config.data();
  if ((r = c.cuptiProfilerHostGetNumOfPasses(&passes)) != CUPTI_SUCCESS)
    return fail("cuptiProfilerHostGetNumOfPasses", r);
  plan.passes = static_cast<int>(passes.numOfPasses);
  *out = std::move(plan);
  for (std::size_t i = 0; i < out->present.size(); ++i)
    out->names[i] = out->present[i].c_str();  // after the move
  return "";
}

// --- the device side -----------------------------------------------------------------------------

// All state, behind one recursive mutex (recursive so that `work` calling
// counters_unavailable_reason() does not deadlock; a nested measure_counters is refused).
struct State {
  std::recursive_mutex mutex;
  bool measuring = false;
  bool profiler_initialized = false;
  bool teardown_registered = false;
  int device = -1;     // the device the fields below belong to
  std::string reason;  // counters_unavailable_reason() for `device`
  HostPlan plan;
};

State& state() {
  static State* s = new State;  // never destroyed: the exit handler below may still use it
  return *s;
}

void teardown_at_exit() {
  State& s = state();
  std::unique_lock<std::recursive_mutex> lock(s.mutex, std::try_to_lock);
  if (!lock.owns_lock() || s.measuring) return;  // exiting from inside a measurement: leave it be
  const Cupti& c = cupti();
  s.plan.release(c);
  if (s.profiler_initialized) {
    auto p = CIRCLES_PARAMS(CUpti_Profiler_DeInitialize_Params);
    c.cuptiProfilerDeInitialize(&p);
    s.profiler_initialized = false;
  }
}

// The current thread's CUDA context (the device's primary context, made current by the runtime).
// Through the runtime's driver entry point: the binary does not link libcuda.
std::string current_context(CUcontext* ctx) {
  *ctx = nullptr;
  cudaError_t err = cudaFree(nullptr);  // makes the primary context current on this thread
  if (err != cudaSuccess) return std::string("cudaFree(0): ") + cudaGetErrorString(err);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  err = cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found);
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn)
    return "cannot reach the driver's cuCtxGetCurrent (cudaGetDriverEntryPointByVersion failed)";
  const CUresult r = reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(ctx);
  if (r != CUDA_SUCCESS || !*ctx) return "cuCtxGetCurrent: no current CUDA context";
  return "";
}

std::string level_text(CUpti_Profiler_Support_Level l) {
  return l == CUPTI_PROFILER_CONFIGURATION_DISABLED ? "disabled" : "not supported";
}

// Why CUPTI says the device cannot be profiled, or "".
std::string support_reason(const CUpti_Profiler_DeviceSupported_Params& p, int device) {
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "";
  std::string gpu = "this GPU";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
    gpu = std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "." +
          std::to_string(prop.minor) + ")";
  else
    cudaGetLastError();
  auto bad = [](CUpti_Profiler_Support_Level l) { return l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED; };
  if (bad(p.architecture))
    return gpu +
           " has no counters CUPTI's range profiler can read (it needs compute capability 7.0 or newer)";
  if (bad(p.vGpu)) return "profiling is " + level_text(p.vGpu) + " on this virtual GPU (vGPU) " + gpu;
  if (bad(p.confidentialCompute))
    return "counters cannot be read on " + gpu + " while confidential computing is on";
  if (bad(p.cmp)) return gpu + " is a crypto-mining processor (CMP), on which profiling is not supported";
  if (bad(p.sli)) return "counters cannot be read on " + gpu + " while SLI is enabled";
  if (bad(p.wsl)) return "profiling " + gpu + " is " + level_text(p.wsl) + " under WSL";
  return "CUPTI says " + gpu + " does not support the range profiler";
}

// Sets up everything for the current device once: the profiler, the chip's config image, a probe
// of the range profiler on the context (where a missing permission shows). Returns the reason.
std::string setup_locked(State& s) {
  const CudaDeviceInfo& info = cuda_device_info();
  if (!info.available) return "hardware counters need a CUDA GPU: " + info.reason;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return "hardware counters need a CUDA GPU: cudaGetDevice failed";
  }
  if (device == s.device) return s.reason;
  // A new device (or the first): forget the old one's plan.
  const Cupti& c = cupti();
  if (!c.error.empty()) return c.error;
  s.plan.release(c);
  s.device = device;
  s.reason.clear();
  auto fail = [&](std::string why) {
    s.reason = std::move(why);
    return s.reason;
  };
  // A CUPTI failure is kept as the reason, unless another profiler holds the counters for now:
  // then it is said this time and the setup is tried again next time.
  auto fail_cupti = [&](const char* call, CUptiResult res) {
    if (!is_transient(res)) return fail(c.fail(call, res));
    s.plan.release(c);
    s.device = -1;
    return c.fail(call, res);
  };
  CUcontext ctx = nullptr;
  std::string e = current_context(&ctx);
  if (!e.empty()) return fail("hardware counters need a CUDA context: " + e);
  CUptiResult r;
  if (!s.profiler_initialized) {
    auto p = CIRCLES_PARAMS(CUpti_Profiler_Initialize_Params);
    if ((r = c.cuptiProfilerInitialize(&p)) != CUPTI_SUCCESS) return fail_cupti("cuptiProfilerInitialize", r);
    s.profiler_initialized = true;
    if (!s.teardown_registered) {
      // Registered after the CUDA runtime's own exit handler (the runtime is initialized by now),
      // so it runs first, while the driver is still there.
      std::atexit(teardown_at_exit);
      s.teardown_registered = true;
    }
  }
  auto sup = CIRCLES_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  sup.cuDevice = static_cast<CUdevice>(device);
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  if ((r = c.cuptiProfilerDeviceSupported(&sup)) != CUPTI_SUCCESS)
    return fail_cupti("cuptiProfilerDeviceSupported", r);
  e = support_reason(sup, device);
  if (!e.empty()) return fail(e);
  auto chip = CIRCLES_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = static_cast<std::size_t>(device);
  if ((r = c.cuptiDeviceGetChipName(&chip)) != CUPTI_SUCCESS || !chip.pChipName)
    return fail_cupti("cuptiDeviceGetChipName", r);
  // Which counters this device exposes now (some are taken by other clients such as DCGM).
  auto avail = CIRCLES_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  avail.ctx = ctx;
  if ((r = c.cuptiProfilerGetCounterAvailability(&avail)) != CUPTI_SUCCESS)
    return fail_cupti("cuptiProfilerGetCounterAvailability", r);
  std::vector<std::uint8_t> image(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = image.data();
  if ((r = c.cuptiProfilerGetCounterAvailability(&avail)) != CUPTI_SUCCESS)
    return fail_cupti("cuptiProfilerGetCounterAvailability", r);
  e = build_host_plan(c, chip.pChipName, image, &s.plan);
  if (!e.empty()) return fail(e);
  // The probe: enabling the range profiler is where a missing permission shows.
  auto enable = CIRCLES_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = ctx;
  if ((r = c.cuptiRangeProfilerEnable(&enable)) != CUPTI_SUCCESS)
    return fail_cupti("cuptiRangeProfilerEnable", r);
  auto disable = CIRCLES_PARAMS(CUpti_RangeProfiler_Disable_Params);
  disable.pRangeProfilerObject = enable.pRangeProfilerObject;
  if ((r = c.cuptiRangeProfilerDisable(&disable)) != CUPTI_SUCCESS)
    return fail_cupti("cuptiRangeProfilerDisable", r);
  return "";
}

// Undoes what a measurement has done so far, in reverse, whatever path leaves it.
struct RangeProfiler {
  const Cupti& c;
  CUpti_RangeProfiler_Object* object = nullptr;
  bool started = false, pushed = false;
  ~RangeProfiler() {
    if (pushed) {
      auto p = CIRCLES_PARAMS(CUpti_RangeProfiler_PopRange_Params);
      p.pRangeProfilerObject = object;
      c.cuptiRangeProfilerPopRange(&p);
    }
    if (started) {
      auto p = CIRCLES_PARAMS(CUpti_RangeProfiler_Stop_Params);
      p.pRangeProfilerObject = object;
      c.cuptiRangeProfilerStop(&p);
    }
    if (object) {
      auto p = CIRCLES_PARAMS(CUpti_RangeProfiler_Disable_Params);
      p.pRangeProfilerObject = object;
      c.cuptiRangeProfilerDisable(&p);
    }
  }
};

std::string cuda_fail(const char* what, cudaError_t err) {
  cudaGetLastError();
  return std::string(what) + ": " + cudaGetErrorString(err);
}

// measure_counters_in_range: the range profiler whose range the work opens and closes itself.
RangeProfiler* g_work_range = nullptr;
bool g_work_range_opened = false;

// The measurement proper; `s.reason` is "" and `s.plan` is set up for the current device.
// work_ranges: `work` pushes and pops the one range itself (counters_range_push/pop), around the
// part of it to count; otherwise the whole of `work` is the range.
void measure_locked(State& s, const std::function<void()>& work, CounterReport* rep, bool work_ranges) {
  const Cupti& c = cupti();
  const HostPlan& plan = s.plan;
  CUcontext ctx = nullptr;
  std::string e = current_context(&ctx);
  if (!e.empty()) {
    rep->error = e;
    return;
  }
  // Work enqueued before the call is not ours to count.
  cudaError_t cerr = cudaDeviceSynchronize();
  if (cerr != cudaSuccess) {
    rep->error = cuda_fail("cudaDeviceSynchronize before measuring", cerr);
    return;
  }
  CUptiResult r;
  auto failed = [&](const char* call, CUptiResult res) {
    rep->error = c.fail(call, res);
    if (is_permanent(res)) s.reason = rep->error;  // the panel says why from now on
  };
  std::vector<std::uint8_t> data;  // the counter data image; outlives the profiler that fills it
  RangeProfiler profiler{c};
  auto enable = CIRCLES_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = ctx;
  if ((r = c.cuptiRangeProfilerEnable(&enable)) != CUPTI_SUCCESS)
    return failed("cuptiRangeProfilerEnable", r);
  profiler.object = enable.pRangeProfilerObject;

  // One range, one nesting level: everything the work enqueues is summed into it.
  auto size = CIRCLES_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = profiler.object;
  size.pMetricNames = const_cast<const char**>(plan.names.data());
  size.numMetrics = plan.names.size();
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  if ((r = c.cuptiRangeProfilerGetCounterDataSize(&size)) != CUPTI_SUCCESS)
    return failed("cuptiRangeProfilerGetCounterDataSize", r);
  data.resize(size.counterDataSize);
  auto init = CIRCLES_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = profiler.object;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  if ((r = c.cuptiRangeProfilerCounterDataImageInitialize(&init)) != CUPTI_SUCCESS)
    return failed("cuptiRangeProfilerCounterDataImageInitialize", r);

  auto config = CIRCLES_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  config.pRangeProfilerObject = profiler.object;
  config.configSize = plan.config.size();
  config.pConfig = plan.config.data();
  config.counterDataImageSize = data.size();
  config.pCounterDataImage = data.data();
  config.range = CUPTI_UserRange;
  config.replayMode = CUPTI_UserReplay;
  config.maxRangesPerPass = 1;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  if ((r = c.cuptiRangeProfilerSetConfig(&config)) != CUPTI_SUCCESS)
    return failed("cuptiRangeProfilerSetConfig", r);

  // One run of the work per pass, until CUPTI has every pass it needs. The bound only guards
  // against a CUPTI that never says it is done.
  const int max_passes = std::max(1, plan.passes) + 2;
  for (;;) {
    auto start = CIRCLES_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = profiler.object;
    if ((r = c.cuptiRangeProfilerStart(&start)) != CUPTI_SUCCESS) return failed("cuptiRangeProfilerStart", r);
    profiler.started = true;
    if (!work_ranges) {
      auto push = CIRCLES_PARAMS(CUpti_RangeProfiler_PushRange_Params);
      push.pRangeProfilerObject = profiler.object;
      push.pRangeName = "circles";
      if ((r = c.cuptiRangeProfilerPushRange(&push)) != CUPTI_SUCCESS)
        return failed("cuptiRangeProfilerPushRange", r);
      profiler.pushed = true;
    }
    struct WorkRange {  // counters_range_push/pop find the profiler here while the work runs
      RangeProfiler* s;
      explicit WorkRange(RangeProfiler* x, bool on) : s(on ? x : nullptr) {
        if (s) g_work_range = s, g_work_range_opened = false;
      }
      ~WorkRange() {
        if (s) g_work_range = nullptr;
      }
    } work_range(&profiler, work_ranges);
    try {
      work();
      if (work_ranges && !g_work_range_opened) {
        rep->error = "the measured part never ran (its range was not opened)";
        return;
      }
      if (work_ranges && profiler.pushed) {
        rep->error = "the measured part's range was opened and not closed";
        return;
      }
    } catch (const std::exception& ex) {
      cudaDeviceSynchronize();
      cudaGetLastError();
      rep->error = std::string("the measured work failed: ") + ex.what();
      return;
    } catch (...) {
      cudaDeviceSynchronize();
      cudaGetLastError();
      rep->error = "the measured work failed (an exception that is not a std::exception)";
      return;
    }
    ++rep->passes;
    // Every kernel of the work, on any stream, finishes inside the range.
    if ((cerr = cudaDeviceSynchronize()) != cudaSuccess) {
      rep->error = cuda_fail("the measured work", cerr);
      return;
    }
    if (!work_ranges) {
      auto pop = CIRCLES_PARAMS(CUpti_RangeProfiler_PopRange_Params);
      pop.pRangeProfilerObject = profiler.object;
      profiler.pushed = false;
      if ((r = c.cuptiRangeProfilerPopRange(&pop)) != CUPTI_SUCCESS)
        return failed("cuptiRangeProfilerPopRange", r);
    }
    auto stop = CIRCLES_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = profiler.object;
    profiler.started = false;
    if ((r = c.cuptiRangeProfilerStop(&stop)) != CUPTI_SUCCESS) return failed("cuptiRangeProfilerStop", r);
    if (stop.isAllPassSubmitted) break;
    if (rep->passes >= max_passes) {
      rep->error = "CUPTI asked for more than " + std::to_string(max_passes) + " passes (the plan said " +
                   std::to_string(plan.passes) + ")";
      return;
    }
  }

  auto decode = CIRCLES_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  decode.pRangeProfilerObject = profiler.object;
  if ((r = c.cuptiRangeProfilerDecodeData(&decode)) != CUPTI_SUCCESS)
    return failed("cuptiRangeProfilerDecodeData", r);
  if (decode.numOfRangeDropped > 0) {
    rep->error =
        "CUPTI dropped the measured range (" + std::to_string(decode.numOfRangeDropped) + " dropped)";
    return;
  }
  auto info = CIRCLES_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if ((r = c.cuptiRangeProfilerGetCounterDataInfo(&info)) != CUPTI_SUCCESS)
    return failed("cuptiRangeProfilerGetCounterDataInfo", r);
  if (info.numTotalRanges == 0) {
    rep->error = "nothing was counted: the measured work ran no kernel on the GPU";
    return;
  }
  std::vector<double> values(plan.names.size(), std::nan(""));
  auto eval = CIRCLES_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  eval.pHostObject = plan.host;
  eval.pCounterDataImage = data.data();
  eval.counterDataImageSize = data.size();
  eval.rangeIndex = 0;
  eval.ppMetricNames = const_cast<const char**>(plan.names.data());
  eval.numMetrics = plan.names.size();
  eval.pMetricValues = values.data();
  if ((r = c.cuptiProfilerHostEvaluateToGpuValues(&eval)) != CUPTI_SUCCESS)
    return failed("cuptiProfilerHostEvaluateToGpuValues", r);
  for (const CounterSpec& spec : counter_metrics())
    for (std::size_t i = 0; i < plan.present.size(); ++i)
      if (plan.present[i] == spec.metric)
        rep->values.push_back(CounterValue{spec.metric, spec.label, values[i], spec.unit});
}

}  // namespace

std::string counters_library(std::string* why) {
  const Cupti& c = cupti();
  if (why) *why = c.error;
  return c.error.empty() ? c.path : std::string();
}

std::string counters_unavailable_reason() {
  try {
    State& s = state();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    if (s.measuring) return s.reason;
    return setup_locked(s);
  } catch (const std::exception& e) {
    return std::string("hardware counters could not be set up: ") + e.what();
  }
}

bool counters_range_push(const char* name) {
  RangeProfiler* profiler = g_work_range;
  if (!profiler || profiler->pushed) return false;
  auto push = CIRCLES_PARAMS(CUpti_RangeProfiler_PushRange_Params);
  push.pRangeProfilerObject = profiler->object;
  push.pRangeName = name;
  if (profiler->c.cuptiRangeProfilerPushRange(&push) != CUPTI_SUCCESS) return false;
  profiler->pushed = true;
  g_work_range_opened = true;
  return true;
}

bool counters_range_pop() {
  RangeProfiler* profiler = g_work_range;
  if (!profiler || !profiler->pushed) return false;
  cudaDeviceSynchronize();  // every kernel of the part finishes inside its range
  auto pop = CIRCLES_PARAMS(CUpti_RangeProfiler_PopRange_Params);
  pop.pRangeProfilerObject = profiler->object;
  profiler->pushed = false;
  return profiler->c.cuptiRangeProfilerPopRange(&pop) == CUPTI_SUCCESS;
}

namespace {
CounterReport measure(const std::function<void()>& work, bool work_ranges);
}

CounterReport measure_counters(const std::function<void()>& work) { return measure(work, false); }
CounterReport measure_counters_in_range(const std::function<void()>& work) { return measure(work, true); }

namespace {
CounterReport measure(const std::function<void()>& work, bool work_ranges) {
  CounterReport rep;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    State& s = state();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    if (s.measuring) {
      rep.error = "measure_counters was called from inside the work it is measuring";
      return rep;
    }
    rep.error = setup_locked(s);
    if (rep.error.empty()) {
      rep.missing = s.plan.missing;
      s.measuring = true;
      struct Clear {  // however measure_locked leaves
        bool& flag;
        ~Clear() { flag = false; }
      } clear{s.measuring};
      measure_locked(s, work, &rep, work_ranges);
    }
  } catch (const std::exception& e) {  // std::bad_alloc and the like; the work's own are caught inside
    rep.error = std::string("measuring counters failed: ") + e.what();
  }
  if (!rep.ok()) rep.values.clear();
  rep.collect_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}
}  // namespace

CounterPlan counters_plan_for_chip(const std::string& chip) {
  CounterPlan out;
  out.chip = chip;
  try {
    State& s = state();
    std::lock_guard<std::recursive_mutex> lock(s.mutex);
    const Cupti& c = cupti();
    if (!c.error.empty()) {
      out.error = c.error;
      return out;
    }
    HostPlan plan;
    out.error = build_host_plan(c, chip, {}, &plan);
    if (!out.ok()) return out;
    out.passes = plan.passes;
    out.missing = plan.missing;
    plan.release(c);
  } catch (const std::exception& e) {
    out.error = std::string("planning counters failed: ") + e.what();
  }
  return out;
}

}  // namespace circles
