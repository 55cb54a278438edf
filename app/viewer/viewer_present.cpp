// The viewer's frame into the GL texture: through CUDA-GL interop (external, surface or pbo) or the
// host copy, the fallbacks when a path fails, and the waits that keep a CUDA frame's work and GL's
// from running inside each other (docs/VIEWER.md, "How a frame gets to the screen").
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

namespace circles {

using viewer_detail::Clock;
using viewer_detail::interop_present_path;
using viewer_detail::ms_between;

void Viewer::frame_to_texture() {
  const void* device = renderer_->device_pixels();
  while (device && interop_) {
    const InteropPath path = interop_->path();
    try {
      if (!interop_->attached()) {
        const GLuint target = path == InteropPath::Pbo ? presenter_->pixel_buffer() : presenter_->frame_texture();
        interop_->attach(target, render_w_, render_h_);
      }
      interop_->present(device, renderer_->device_stream());
      // pbo: the bytes are in the pixel buffer; GL copies them into the texture (after the unmap).
      if (path == InteropPath::Pbo) presenter_->upload_from_pixel_buffer();
      // external: the host wait and GL's copy come later (finish_present), after the UI is built.
      set_present_path(interop_present_path(path));
      return;
    } catch (const std::exception& e) {
      interop_failed(path, e.what());
    }
  }
  // The host copy: the frame's 8-bit bytes (a GPU renderer converts on the device and copies a
  // quarter of the float image's bytes; a CPU renderer converts its image on every core), then
  // glTexSubImage2D.
  // The bytes are written straight into a mapped GL pixel buffer, then copied on the GPU.
  const auto t0 = Clock::now();
  std::uint8_t* dst = presenter_->begin_frame_upload();
  try {
    renderer_->read_rgba8(dst);
  } catch (...) {
    presenter_->end_frame_upload();  // never leave the buffer mapped
    throw;
  }
  const auto t1 = Clock::now();
  presenter_->end_frame_upload();
  const auto t2 = Clock::now();
  record("copy: read 8-bit", ms_between(t0, t1));
  record("copy: upload", ms_between(t1, t2));
  timeline_.host("copy: read 8-bit", t0, t1);
  timeline_.host("copy: upload", t1, t2);
  set_present_path(device ? "host copy: read_rgba8 + pixel buffer upload (" + interop_off_reason_ + ")"
                          : "host copy: read_rgba8 + pixel buffer upload (CPU renderer)");
}

// The frames' order on the GPU, unless --overlap: a CUDA renderer's work starts only once GL has
// drawn the last frame (wait_for_gl), and GL's work only once CUDA's is done (wait_for_cuda).
// The GPU then never switches between the two APIs in the middle of either's work, so a render
// stage's time is its own kernels', not GL's time slices or the switches; the host's waits are
// lines of their own. --overlap queues each API's work without waiting for the other's.
bool Viewer::serialising() const { return !cfg_.opt.overlap && renderer_->device_pixels() != nullptr; }

void Viewer::fence_gl() {
  if (gl_fence_) glDeleteSync(static_cast<GLsync>(gl_fence_));
  gl_fence_ = serialising() ? glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0) : nullptr;
  GL_CHECK("glFenceSync");
}

void Viewer::wait_for_gl() {
  if (!gl_fence_) return;
  const auto t0 = Clock::now();
  const GLenum r = glClientWaitSync(static_cast<GLsync>(gl_fence_), GL_SYNC_FLUSH_COMMANDS_BIT, 10'000'000'000ull);
  GL_CHECK("glClientWaitSync");
  if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED) throw GlError("waiting for GL's last frame failed");
  glDeleteSync(static_cast<GLsync>(gl_fence_));
  gl_fence_ = nullptr;
  const auto t1 = Clock::now();
  record("wait: GL done (host)", ms_between(t0, t1));
  timeline_.host("wait: GL done (host)", t0, t1);
}

void Viewer::wait_for_cuda() {
  if (!rendered_ || !serialising()) return;
  rendered_ = false;
  const auto t0 = Clock::now();
  wait_for_stream(renderer_->device_stream());
  const auto t1 = Clock::now();
  record("wait: CUDA done (host)", ms_between(t0, t1));
  timeline_.host("wait: CUDA done (host)", t0, t1);
}

// Surface and pbo paths: map the texture (or pixel buffer) before the render, so the GPU's wait
// for GL's previous frame is a line of its own ("wait: interop map") and never lands inside one of
// the render's stages.
void Viewer::acquire_interop() {
  if (!interop_ || !interop_->attached() || !renderer_->device_pixels()) return;
  try {
    interop_->acquire(renderer_->device_stream());
  } catch (const std::exception& e) {
    interop_failed(interop_->path(), e.what());
  }
}

// An interop path failed: the external path falls back to the surface path, the others to the
// host copy; said once, as a notice.
void Viewer::interop_failed(InteropPath path, const std::string& what) {
  try {
    interop_->detach();
  } catch (const std::exception&) {
  }
  interop_.reset();
  if (path == InteropPath::External) {
    std::string why;
    interop_ = make_cuda_gl_interop(InteropPath::Surface, &why);
    if (interop_) {
      notice("CUDA-GL interop (external) failed (" + what + "): CUDA frames go through the surface path.");
      return;
    }
  }
  interop_off_reason_ = "interop failed: " + what;
  notice("CUDA-GL interop (" + std::string(interop_path_name(path)) + ") failed (" + what +
         "): CUDA frames go through a host copy (read_rgba8 + pixel buffer upload).");
}

// The external path's second half, just before the frame texture is drawn: the host waits for
// the render and the convert (which ran while the UI was built) and GL copies the frame in. A
// no-op where no frame waits (the other paths, or nothing rendered).
void Viewer::finish_present() {
  if (!interop_) return;
  try {
    interop_->finish_present();
  } catch (const std::exception& e) {
    interop_failed(interop_->path(), e.what());
    frame_to_texture();  // this frame through the path that is left
    finish_present();
  }
}

}  // namespace circles
