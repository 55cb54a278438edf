// What the viewer writes and checks after a frame: the PNG export (the bytes of `circles render`),
// the check against cpu-ref on a worker thread, and the screenshot of the whole window.
#include "app/viewer/viewer_impl.h"

#include <glad/gl.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/gl/gl_util.h"
#include "app/gl/interop.h"
#include "render/compare.h"
#include "render/png.h"

namespace circles {

using viewer_detail::report;

bool Viewer::export_frame(const std::string& path) {
  ui_.export_png.reveal = true;
  try {
    // Exactly what `circles render` does with the same scene, size, renderer and frame.
    Image img;
    renderer_->read_image(&img);
    write_png(path, img);
    char buf[512];
    std::snprintf(buf, sizeof buf, "wrote %s: frame %" PRId64 ", %dx%d, %s", path.c_str(), renderer_->frame(),
                  img.width, img.height, renderer_name_.c_str());
    ui_.export_png.status = buf;
    ui_.export_png.ok = true;
    report("export: %s", buf);
    return true;
  } catch (const std::exception& e) {
    ui_.export_png.status = e.what();
    ui_.export_png.ok = false;
    report("error: export: %s", e.what());
    return false;
  }
}

void Viewer::start_check() {
  if (check_.valid() || !loaded_) return;
  auto test = std::make_shared<Image>();
  renderer_->read_image(test.get());
  const std::int64_t frame = renderer_->frame();
  const float tolerance = ui_.check.tolerance, gain = ui_.check.gain;
  const Mode mode = renderer_->mode();
  std::shared_ptr<const Scene> scene = scene_;
  const std::string name = renderer_name_;
  ui_.check.running = true;
  ui_.check.reveal = true;
  // With a CUDA renderer, the difference statistics also come from the lab's reduction chosen in
  // "Lab on the frame" (on the GPU, in the worker), shown beside the CPU's.
  const lab::Variant* sum = nullptr;
  if (renderer_->device_pixels() && lab_unavailable_reason().empty() && !ui_.frame_stats.variants.empty())
    sum = find_lab_variant(ui_.frame_stats.variants[static_cast<std::size_t>(ui_.frame_stats.selected)]);
  // cpu-ref renders the same scene, size and frame on a worker thread; the UI keeps running.
  check_ = std::async(std::launch::async, [scene, test, frame, tolerance, gain, name, sum, mode] {
    CheckResult r;
    r.mode = mode;
    r.frame = frame;
    r.width = test->width;
    r.height = test->height;
    r.renderer = name;
    try {
      std::unique_ptr<Renderer> ref = make_renderer("cpu-ref");
      Image reference;
      run_frames(*ref, *scene, test->width, test->height, frame, frame + 1,
                 [&](std::int64_t) { ref->read_image(&reference); });
      r.comparison = compare_images(reference, *test, tolerance);
      r.broken = promise_broken(mode, reference, *test);
      r.diff = difference_image(reference, *test, gain);
      if (sum) {
        const lab::DiffStats gpu = lab::diff_stats_gpu(*test, reference, sum->launch,
                                                       sum->default_param());
        const lab::DiffStats cpu = lab::diff_stats_cpu(*test, reference);
        r.gpu_stats_ok = lab::diff_stats_agree(gpu, cpu);
        char buf[400];
        std::snprintf(buf, sizeof buf,
                      "GPU (%s + max kernel, %.3f ms): max |diff| %.3g %.3g %.3g %.3g, sum |diff| %.6g %.6g %.6g "
                      "%.6g: %s the CPU's",
                      sum->name.c_str(), gpu.ms, gpu.max_abs[0], gpu.max_abs[1], gpu.max_abs[2], gpu.max_abs[3],
                      gpu.sum_abs[0], gpu.sum_abs[1], gpu.sum_abs[2], gpu.sum_abs[3],
                      r.gpu_stats_ok ? "match" : "DIFFER from");
        r.gpu_stats = buf;
      }
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  });
}

void Viewer::poll_check(bool wait) {
  if (!check_.valid()) return;
  if (!wait && check_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  CheckResult r = check_.get();
  ui_.check.running = false;
  if (!r.error.empty()) {
    ui_.check.error = "check failed to run: " + r.error;
    report("error: %s", ui_.check.error.c_str());
    check_failed_ = true;
    return;
  }
  ui_.check.error.clear();
  ui_.check.have_result = true;
  ui_.check.passed = r.broken.empty();
  char buf[512];
  std::snprintf(buf, sizeof buf, "frame %" PRId64 " %dx%d %s vs cpu-ref (%s mode: %s): ", r.frame, r.width, r.height,
                r.renderer.c_str(), mode_name(r.mode), mode_promise(r.mode));
  ui_.check.summary = buf + (r.broken.empty() ? "" : r.broken + "; ") + r.comparison.summary();
  ui_.check.gpu_stats = r.gpu_stats;
  ui_.check.gpu_stats_ok = r.gpu_stats_ok;
  if (!ui_.check.passed) check_failed_ = true;
  std::printf("check: %s %s\n", ui_.check.passed ? "PASS" : "FAIL", ui_.check.summary.c_str());
  if (!r.gpu_stats.empty()) {
    std::printf("check: %s\n", r.gpu_stats.c_str());
    if (!r.gpu_stats_ok) check_failed_ = true;
  }
  std::fflush(stdout);
  if (r.width == render_w_ && r.height == render_h_) {
    std::vector<std::uint8_t> bytes(r.diff.pixels.size() * 4);
    to_rgba8_bottom_up(r.diff, bytes.data());
    presenter_->upload_overlay(bytes.data(), r.width, r.height);
  }
}

void Viewer::take_screenshot(const std::string& path, int fb_w, int fb_h) {
  std::vector<std::uint8_t> rgba = read_framebuffer_rgba8(fb_w, fb_h, !surface_->offscreen());
  // The window as seen: opaque (ImGui's blending leaves other alphas in the framebuffer).
  Image img(fb_w, fb_h);
  for (int row = 0; row < fb_h; ++row)
    for (int i = 0; i < fb_w; ++i) {
      const std::uint8_t* p = &rgba[(static_cast<std::size_t>(row) * fb_w + i) * 4];
      img.at(i, fb_h - 1 - row) = Float4{p[0] / 255.f, p[1] / 255.f, p[2] / 255.f, 1.f};
    }
  write_png(path, img);  // v / 255 -> byte is exact, so the PNG holds the framebuffer's bytes
  const PixelRect area = scene_area(fb_w, fb_h, surface_->pixel_scale(), ui_.scale);
  report("screenshot: %s (%dx%d window; scene area x %d..%d, frame %" PRId64 " at %dx%d, %s)", path.c_str(), fb_w,
      fb_h, area.x, area.x + area.w - 1, renderer_->frame(), render_w_, render_h_,
      view_.is_default() ? "default view" : "panned/zoomed");
}

}  // namespace circles
