// The windowed surface: GLFW, an OpenGL 3.3+ core context, the ImGui GLFW backend, file drops.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "app/gl/gl_surface.h"
#include "app/gl/gl_util.h"

namespace circles {

namespace {

std::string g_glfw_error;  // the last GLFW error message (GLFW reports through a callback)

void on_glfw_error(int code, const char* message) {
  g_glfw_error = std::string(message ? message : "?") + " (GLFW error 0x" + [&] {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%X", static_cast<unsigned>(code));
    return std::string(buf);
  }() + ")";
}

// glfwInit/glfwTerminate as an owner, so every exit path terminates GLFW.
struct GlfwLibrary {
  GlfwLibrary() {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) throw NoDisplayError("GLFW could not start: " + g_glfw_error);
  }
  ~GlfwLibrary() { glfwTerminate(); }
  GlfwLibrary(const GlfwLibrary&) = delete;
  GlfwLibrary& operator=(const GlfwLibrary&) = delete;
};

struct WindowDeleter {
  void operator()(GLFWwindow* w) const { glfwDestroyWindow(w); }
};

class GlfwSurface final : public GlSurface {
 public:
  GlfwSurface(int w, int h, bool vsync, const std::string& title) {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, GLFW_TRUE);
    glfwWindowHint(GLFW_SRGB_CAPABLE, GLFW_FALSE);
    glfwWindowHint(GLFW_SAMPLES, 0);
    window_.reset(glfwCreateWindow(w, h, title.c_str(), nullptr, nullptr));
    if (!window_) throw NoDisplayError("cannot create a window with an OpenGL 3.3 core context: " + g_glfw_error);
    glfwMakeContextCurrent(window_.get());
    load_gl(glfwGetProcAddress, "glfwGetProcAddress");
    glfwSetWindowUserPointer(window_.get(), this);
    glfwSetDropCallback(window_.get(), [](GLFWwindow* win, int count, const char** paths) {
      auto* self = static_cast<GlfwSurface*>(glfwGetWindowUserPointer(win));
      for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
    });
    set_vsync(vsync);
    require_gl_33();
    GL_CHECK("window context");
  }
  ~GlfwSurface() override = default;

  std::string description() const override {
    return std::string("window (GLFW ") + glfwGetVersionString() + ")";
  }
  bool offscreen() const override { return false; }
  void framebuffer_size(int* w, int* h) const override { glfwGetFramebufferSize(window_.get(), w, h); }
  float pixel_scale() const override {
    int ww = 0, wh = 0, fw = 0, fh = 0;
    glfwGetWindowSize(window_.get(), &ww, &wh);
    glfwGetFramebufferSize(window_.get(), &fw, &fh);
    return ww > 0 ? static_cast<float>(fw) / static_cast<float>(ww) : 1.f;
  }
  float content_scale() const override {
    float x = 1.f, y = 1.f;
    glfwGetWindowContentScale(window_.get(), &x, &y);
    return x > 0.f ? x : 1.f;
  }
  bool should_close() const override { return glfwWindowShouldClose(window_.get()); }
  void request_close() override { glfwSetWindowShouldClose(window_.get(), GLFW_TRUE); }
  void poll_events() override { glfwPollEvents(); }
  std::vector<std::string> take_dropped_files() override { return std::exchange(dropped_, {}); }
  std::vector<KeyPress> take_key_presses() override { return std::exchange(keys_, {}); }

  void imgui_init() override {
    if (!ImGui_ImplGlfw_InitForOpenGL(window_.get(), true))
      throw std::runtime_error("ImGui_ImplGlfw_InitForOpenGL failed");
    imgui_ready_ = true;
    // Our key callback feeds ImGui's, then queues the press for the shortcuts.
    glfwSetKeyCallback(window_.get(), [](GLFWwindow* win, int key, int scancode, int action, int mods) {
      ImGui_ImplGlfw_KeyCallback(win, key, scancode, action, mods);
      auto* self = static_cast<GlfwSurface*>(glfwGetWindowUserPointer(win));
      if (action == GLFW_PRESS || action == GLFW_REPEAT) self->keys_.push_back({key, action == GLFW_REPEAT});
    });
  }
  void imgui_new_frame(double /*dt*/) override { ImGui_ImplGlfw_NewFrame(); }
  void imgui_shutdown() override {
    if (imgui_ready_) ImGui_ImplGlfw_Shutdown();
    imgui_ready_ = false;
  }

  void bind_framebuffer() override {
    GL_CALL(glBindFramebuffer(GL_FRAMEBUFFER, 0));
    GL_CALL(glReadBuffer(GL_BACK));
  }
  void present() override { glfwSwapBuffers(window_.get()); }

  bool can_vsync() const override { return true; }
  bool vsync() const override { return vsync_; }
  void set_vsync(bool on) override {
    glfwSwapInterval(on ? 1 : 0);
    vsync_ = on;
  }

 private:
  GlfwLibrary glfw_;  // first member: initialised first, terminated last
  std::unique_ptr<GLFWwindow, WindowDeleter> window_;
  std::vector<std::string> dropped_;
  std::vector<KeyPress> keys_;
  bool vsync_ = true;
  bool imgui_ready_ = false;
};

}  // namespace

std::unique_ptr<GlSurface> open_window(int w, int h, bool vsync, const std::string& title) {
  return std::make_unique<GlfwSurface>(w, h, vsync, title);
}

std::vector<std::uint8_t> read_framebuffer_rgba8(int w, int h, bool back_buffer) {
  if (back_buffer) GL_CALL(glReadBuffer(GL_BACK));
  GL_CALL(glPixelStorei(GL_PACK_ALIGNMENT, 4));
  std::vector<std::uint8_t> bottom_up(static_cast<std::size_t>(w) * h * 4);
  GL_CALL(glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data()));
  std::vector<std::uint8_t> top_down(bottom_up.size());
  const std::size_t row = static_cast<std::size_t>(w) * 4;
  for (int y = 0; y < h; ++y)
    std::copy_n(&bottom_up[static_cast<std::size_t>(h - 1 - y) * row], row, &top_down[static_cast<std::size_t>(y) * row]);
  return top_down;
}

}  // namespace circles
