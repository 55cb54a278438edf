// The one registry of renderer variants. The CLI, the viewer, the tests and the benchmark all
// read this list: adding a renderer is one entry here and it is listed, tested and timed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace circles {

struct RendererInfo {
  std::string name;         // what users type: "cuda-tile-scan"
  std::string description;  // one line
  std::string source;       // the file that implements it
  bool needs_gpu = false;
  std::unique_ptr<Renderer> (*make)() = nullptr;
};

const std::vector<RendererInfo>& renderer_registry();
// nullptr if no renderer has that name.
const RendererInfo* find_renderer(const std::string& name);
// Why `info` cannot run on this machine, or "" when it can.
std::string unavailable_reason(const RendererInfo& info);
// The best renderer that runs here: cuda-tile-binned with a GPU, cpu-mt without.
std::string default_renderer_name();
// Creates the named renderer; throws std::runtime_error (unknown or unavailable, with reason).
std::unique_ptr<Renderer> make_renderer(const std::string& name);

}  // namespace circles
