// libcupti, loaded at run time: dlopen'ed on first use and every entry point resolved with dlsym
// against the toolkit's headers, so nothing links it and the binary runs where it is missing; and
// CUPTI's results turned into sentences. Used by the hardware counters (counters.cpp) only.
#pragma once
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <string>

namespace circles::cupti_loader {

// Every entry point used. decltype of the header's declaration keeps the signatures exact.
#define CIRCLES_CUPTI_FUNCTIONS(X)                \
  X(cuptiGetResultString)                         \
  X(cuptiProfilerInitialize)                      \
  X(cuptiProfilerDeInitialize)                    \
  X(cuptiProfilerDeviceSupported)                 \
  X(cuptiDeviceGetChipName)                       \
  X(cuptiProfilerGetCounterAvailability)          \
  X(cuptiProfilerHostInitialize)                  \
  X(cuptiProfilerHostDeinitialize)                \
  X(cuptiProfilerHostGetMetricProperties)         \
  X(cuptiProfilerHostConfigAddMetrics)            \
  X(cuptiProfilerHostGetConfigImageSize)          \
  X(cuptiProfilerHostGetConfigImage)              \
  X(cuptiProfilerHostGetNumOfPasses)              \
  X(cuptiProfilerHostEvaluateToGpuValues)         \
  X(cuptiRangeProfilerEnable)                     \
  X(cuptiRangeProfilerDisable)                    \
  X(cuptiRangeProfilerGetCounterDataSize)         \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                  \
  X(cuptiRangeProfilerStart)                      \
  X(cuptiRangeProfilerStop)                       \
  X(cuptiRangeProfilerPushRange)                  \
  X(cuptiRangeProfilerPopRange)                   \
  X(cuptiRangeProfilerDecodeData)                 \
  X(cuptiRangeProfilerGetCounterDataInfo)

struct Cupti {
  void* lib = nullptr;
  std::string path;   // the file loaded
  std::string error;  // why not loaded (a sentence)
#define CIRCLES_CUPTI_DECLARE(name) decltype(&::name) name = nullptr;
  CIRCLES_CUPTI_FUNCTIONS(CIRCLES_CUPTI_DECLARE)
#undef CIRCLES_CUPTI_DECLARE
  decltype(&::cuptiGetErrorMessage) cuptiGetErrorMessage = nullptr;  // optional: a longer message

  // "<call>: <CUPTI's name for r> (<its message>)", or the permission sentence.
  std::string fail(const char* call, CUptiResult r) const;
};

// Loaded once and never closed (CUPTI keeps callbacks into itself), nor destroyed: an exit handler
// may still read it. error is set where it could not be loaded.
const Cupti& cupti();

// The permission sentence (ERR_NVGPUCTRPERM), and what kind of failure a result is.
extern const char* const kPermission;
bool is_permission(CUptiResult r);
bool is_permanent(CUptiResult r);  // will not change while the process runs: the reason is kept
bool is_transient(CUptiResult r);  // another profiler holds the counters now: worth another try later

}  // namespace circles::cupti_loader
