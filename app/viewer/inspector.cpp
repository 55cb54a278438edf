#include "app/viewer/inspector.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>

#include "render/cpu_renderers.h"

namespace circles {

PixelInspector::~PixelInspector() {
  if (job_.valid()) job_.wait();
}

void PixelInspector::request(InspectRequest r) {
  if (job_.valid()) {
    waiting_ = std::move(r);
    return;
  }
  start(std::move(r));
}

void PixelInspector::start(InspectRequest r) {
  // The worker owns the cached scene while it runs; poll() takes it back with the result.
  std::shared_ptr<Scene> cache = cache_;
  if (cache_base_ != r.scene || (cache && cache->frame > r.frame)) cache.reset();
  cache_base_ = r.scene;
  cache_.reset();
  job_ = std::async(std::launch::async, [r = std::move(r), cache]() mutable {
    InspectResult out;
    out.request = r;
    try {
      if (!cache) cache = std::make_shared<Scene>(*r.scene);
      if (r.frame > cache->frame) advance_scene(cache.get(), r.frame - cache->frame);
      out.report = inspect_pixel(*cache, r.width, r.height, r.i, r.j, r.tile_size);
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    return std::make_pair(std::move(out), std::move(cache));
  });
}

std::optional<InspectResult> PixelInspector::poll(bool wait) {
  if (!job_.valid()) return std::nullopt;
  if (!wait && job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
  auto [result, cache] = job_.get();
  cache_ = std::move(cache);
  if (waiting_) {
    InspectRequest next = std::move(*waiting_);
    waiting_.reset();
    start(std::move(next));
    if (wait) return poll(true);  // the newest request is the one asked for
  }
  return result;
}

float renderer_difference(const InspectResult& r) {
  const Float4 a = r.report.final_colour, b = r.request.renderer_pixel;
  return std::max({std::fabs(a.x - b.x), std::fabs(a.y - b.y), std::fabs(a.z - b.z), std::fabs(a.w - b.w)});
}

std::string describe_inspection(const InspectResult& r) {
  const InspectRequest& q = r.request;
  char buf[512];
  if (!r.error.empty()) {
    std::snprintf(buf, sizeof buf, "pixel %d,%d: %s", q.i, q.j, r.error.c_str());
    return buf;
  }
  const PixelReport& p = r.report;
  const Float4 a = p.final_colour, b = q.renderer_pixel;
  const float diff = renderer_difference(r);
  std::snprintf(buf, sizeof buf,
                "pixel %d,%d of %dx%d at frame %lld: tile %d,%d (%dx%d) holds %zu circles; %zu cover the pixel; "
                "cpu walk %.4f %.4f %.4f %.4f, %s %.4f %.4f %.4f %.4f: %s (max diff %.2g)",
                q.i, q.j, q.width, q.height, static_cast<long long>(q.frame), p.tile_x, p.tile_y, p.tile_size,
                p.tile_size, p.tile_circles, p.covering, a.x, a.y, a.z, a.w, q.renderer.c_str(), b.x, b.y, b.z, b.w,
                diff <= kInspectTolerance ? "match" : "DIFFER", static_cast<double>(diff));
  return buf;
}

}  // namespace circles
