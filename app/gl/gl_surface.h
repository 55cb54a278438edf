// Where the viewer's frames go: a GLFW window (open_window) or an RGBA8 framebuffer object on an
// offscreen EGL context (open_offscreen). Either way the viewer runs the same frame loop and the
// same UI; only input, presentation and the ImGui platform side differ.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace circles {

// No window could be opened (no display, GLFW could not start, no suitable GL context).
class NoDisplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GlSurface {
 public:
  virtual ~GlSurface() = default;
  // e.g. "window (GLFW 3.3.8 X11 GLX)" or "offscreen (EGL device platform, device 0 = CUDA 0)".
  virtual std::string description() const = 0;
  virtual bool offscreen() const = 0;
  // Drawable size in pixels, and framebuffer pixels per ImGui (window) coordinate.
  virtual void framebuffer_size(int* w, int* h) const = 0;
  virtual float pixel_scale() const { return 1.f; }
  // The display's content scale (the desktop's scaling setting: 2 on a 4K monitor at 200%), in
  // framebuffer pixels per logical pixel; 1 offscreen.
  virtual float content_scale() const { return 1.f; }

  virtual bool should_close() const = 0;
  virtual void request_close() = 0;
  // Input events (windows); nothing offscreen.
  virtual void poll_events() {}
  // Scene files dropped onto the window since the last call.
  virtual std::vector<std::string> take_dropped_files() { return {}; }
  // Key presses since the last call, every one, in order (GLFW key codes; `repeat` for a held
  // key's auto-repeat). Events, not the key state polled once per frame: a tap that begins and
  // ends between two frames still counts, however slow the frames are.
  struct KeyPress {
    int key;
    bool repeat;
  };
  virtual std::vector<KeyPress> take_key_presses() { return {}; }

  // The ImGui platform side: GLFW backend for a window; a fixed display size offscreen.
  virtual void imgui_init() = 0;
  virtual void imgui_new_frame(double dt_seconds) = 0;
  virtual void imgui_shutdown() = 0;

  // Binds the framebuffer this frame is drawn into.
  virtual void bind_framebuffer() = 0;
  // Finishes the frame: swap buffers (window) or fence it so that at most two frames are in
  // flight (offscreen: what a swap chain would do).
  virtual void present() = 0;

  virtual bool can_vsync() const { return false; }
  virtual bool vsync() const { return false; }
  virtual void set_vsync(bool /*on*/) {}
};

// Opens a window of w x h screen coordinates with an OpenGL 3.3+ core context (current on this
// thread). Throws NoDisplayError when there is no display or no context.
std::unique_ptr<GlSurface> open_window(int w, int h, bool vsync, const std::string& title);
// Creates an offscreen desktop OpenGL 3.3+ core context through EGL (NVIDIA EGL device platform
// first, preferring the device of CUDA device 0; then Mesa surfaceless) and an RGBA8 framebuffer
// object of w x h pixels. Throws std::runtime_error listing what was tried.
std::unique_ptr<GlSurface> open_offscreen(int w, int h);

// The bound read framebuffer's w x h pixels as 8-bit RGBA, top row first (a PNG's order).
std::vector<std::uint8_t> read_framebuffer_rgba8(int w, int h, bool back_buffer);

}  // namespace circles
