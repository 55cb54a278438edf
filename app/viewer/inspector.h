// The pixel inspector's work, off the render loop: a request names a pixel of the frame on
// screen; a worker thread advances a copy of the scene to that frame (kept for the next request)
// and walks the pixel's circles (render/inspect.h). The viewer polls for the answer each frame,
// so even 10M circles never stall the UI. No GL, no ImGui.
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "render/image.h"
#include "render/inspect.h"
#include "render/scene.h"

namespace circles {

struct InspectRequest {
  std::shared_ptr<const Scene> scene;  // at its own frame
  std::int64_t frame = 0;              // the frame on screen
  int width = 0, height = 0, i = 0, j = 0, tile_size = 16;
  std::string renderer;                // who drew the pixel
  Float4 renderer_pixel;               // what it drew there (read when the request was made)
};

struct InspectResult {
  InspectRequest request;
  PixelReport report;
  std::string error;  // non-empty when the walk failed
};

class PixelInspector {
 public:
  ~PixelInspector();
  // Starts on `r` once the worker is free (a newer request replaces one still waiting).
  void request(InspectRequest r);
  // The newest finished result, once; nullopt while working or idle. `wait`: block until the
  // work in hand is done (the last frame of an offscreen run).
  std::optional<InspectResult> poll(bool wait = false);
  bool busy() const { return job_.valid() || waiting_.has_value(); }

 private:
  void start(InspectRequest r);
  // The result and the advanced scene, which becomes the cache.
  std::future<std::pair<InspectResult, std::shared_ptr<Scene>>> job_;
  std::optional<InspectRequest> waiting_;
  // The scene advanced for the last request, reused when the next one is at a later frame.
  std::shared_ptr<const Scene> cache_base_;
  std::shared_ptr<Scene> cache_;
};

// Where the walk's colour and the renderer's pixel agree: the GPU tests' per-channel tolerance.
constexpr float kInspectTolerance = 2e-3f;
// The largest per-channel difference between the walk's final colour and the renderer's pixel.
float renderer_difference(const InspectResult& r);

// One line for logs and tests: the pixel, its tile, the circles, the walk's colour against the
// renderer's, and whether they agree within kInspectTolerance per channel.
std::string describe_inspection(const InspectResult& r);

}  // namespace circles
