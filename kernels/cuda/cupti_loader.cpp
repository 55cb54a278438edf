// libcupti, loaded at run time (cupti_loader.h).
#include "kernels/cuda/cupti_loader.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace circles::cupti_loader {

namespace {

std::string dir_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

Cupti load_cupti() {
  Cupti c;
  // The loader's own search first (LD_LIBRARY_PATH, ldconfig), then the toolkit's usual places:
  // a binary built here runs on machines whose CUDA is not on the search path.
  std::vector<std::string> tried = {"libcupti.so.13", "libcupti.so"};
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(env);
    if (v && *v)
      dirs.push_back(std::string(v) + "/lib64"), dirs.push_back(std::string(v) + "/extras/CUPTI/lib64");
  }
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("/usr/local/cuda/extras/CUPTI/lib64");
  for (const std::string& d : dirs)
    for (const char* name : {"libcupti.so.13", "libcupti.so"})
      if (std::find(tried.begin(), tried.end(), d + "/" + name) == tried.end())
        tried.push_back(d + "/" + name);
  std::string last_error;
  for (const std::string& name : tried) {
    c.lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (c.lib) break;
    const char* e = dlerror();
    if (e && std::strstr(e, "No such file") == nullptr) last_error = e;  // found but unloadable: say so
  }
  if (!c.lib) {
    std::string list;
    for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
    c.error = "libcupti (CUDA's profiling library) was not found; tried " + list +
              (last_error.empty() ? "" : " (" + last_error + ")") +
              ": install the CUDA toolkit's CUPTI, or point CUDA_HOME or LD_LIBRARY_PATH at it";
    return c;
  }
  link_map* map = nullptr;
  if (dlinfo(c.lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) c.path = map->l_name;
  const std::string shown = c.path.empty() ? std::string("libcupti") : c.path;
#define CIRCLES_CUPTI_RESOLVE(name)                                                            \
  c.name = reinterpret_cast<decltype(c.name)>(dlsym(c.lib, #name));                            \
  if (!c.name) {                                                                               \
    c.error = shown + " has no " #name ": hardware counters need CUPTI from CUDA 13 or newer"; \
    return c;                                                                                  \
  }
  CIRCLES_CUPTI_FUNCTIONS(CIRCLES_CUPTI_RESOLVE)
#undef CIRCLES_CUPTI_RESOLVE
  c.cuptiGetErrorMessage =
      reinterpret_cast<decltype(c.cuptiGetErrorMessage)>(dlsym(c.lib, "cuptiGetErrorMessage"));
  // libcupti dlopens libnvperf_host.so (the metric evaluator) by bare name. Loading the one beside
  // it first makes that name resolve even where the toolkit is not on the search path; if this
  // fails, CUPTI's own search still applies and cuptiProfilerHostInitialize says so.
  const std::string dir = dir_of(c.path);
  if (!dir.empty()) dlopen((dir + "/libnvperf_host.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  dlerror();
  return c;
}

}  // namespace

const Cupti& cupti() {
  static const Cupti* c = new Cupti(load_cupti());
  return *c;
}

const char* const kPermission =
    "reading GPU performance counters is not permitted for this user (ERR_NVGPUCTRPERM): counters need "
    "root, or the NVIDIA driver loaded with the option NVreg_RestrictProfilingToAdminUsers=0 "
    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)";

bool is_permission(CUptiResult r) {
  return r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
         r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

bool is_permanent(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_NOT_COMPATIBLE:
      return true;
    default:
      return false;
  }
}

bool is_transient(CUptiResult r) {
  return r == CUPTI_ERROR_HARDWARE_BUSY || r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
         r == CUPTI_ERROR_NOT_READY;
}

std::string Cupti::fail(const char* call, CUptiResult r) const {
  const char* name = nullptr;
  if (!cuptiGetResultString || cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
    name = "unknown CUPTI error";
  const std::string code = std::string(name) + " (" + std::to_string(static_cast<int>(r)) + ")";
  if (is_permission(r)) return std::string(kPermission) + " [" + call + ": " + code + "]";
  std::string s = std::string(call) + ": " + code;
  const char* msg = nullptr;
  if (cuptiGetErrorMessage && cuptiGetErrorMessage(r, &msg) == CUPTI_SUCCESS && msg && *msg &&
      std::strcmp(msg, name) != 0)
    s += ": " + std::string(msg);
  if (is_transient(r)) s += " (another profiler, such as ncu, nsys or DCGM, may be holding the counters)";
  return s;
}

}  // namespace circles::cupti_loader
