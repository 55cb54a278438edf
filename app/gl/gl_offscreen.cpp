// The offscreen surface: a desktop OpenGL 3.3+ core context through EGL and an RGBA8 framebuffer
// object of the "window" size. NVIDIA's EGL device platform comes first (the device that is CUDA
// device 0 preferred, so that CUDA-GL interop works); then Mesa's surfaceless platform.
// CIRCLES_EGL_PLATFORM=device or =surfaceless restricts the choice (for testing the fallbacks).
// EGL and GL come through GLAD: libEGL.so.1 (GLVND or Mesa) is opened at run time, first without
// a display (client extensions: platforms, devices), then again with each display once it is
// initialised (its EGL version and display extensions); GL through eglGetProcAddress.
#include <glad/egl.h>
#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "app/gl/gl_surface.h"
#include "app/gl/gl_util.h"

namespace circles {

namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  std::istringstream words(list);
  std::string w;
  while (words >> w)
    if (w == name) return true;
  return false;
}

std::string egl_error_name(EGLint e) {
  switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "EGL error " + std::to_string(e);
  }
}

// Fails with the call's name and eglGetError().
[[noreturn]] void egl_fail(const char* what) {
  throw std::runtime_error(std::string(what) + " failed: " + egl_error_name(eglGetError()));
}

// GL functions for GLAD from the current EGL context.
GLADapiproc egl_get_proc(const char* name) { return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name)); }

// An initialised EGL display with a current context; tears down in reverse order.
class EglContext {
 public:
  // Initialises `display`, creates a 3.3 core context (debug if possible) and makes it current.
  explicit EglContext(EGLDisplay display) : display_(display) {
    if (display_ == EGL_NO_DISPLAY) egl_fail("eglGetPlatformDisplayEXT");
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display_, &major, &minor)) egl_fail("eglInitialize");
    initialized_ = true;
    // GLAD again, with this display: the functions of its EGL version (eglBindAPI is 1.2) and its
    // extensions (GLAD_EGL_KHR_surfaceless_context). This resets GLAD's client-extension flags:
    // open_offscreen read them before.
    if (!gladLoaderLoadEGL(display_)) throw std::runtime_error("gladLoaderLoadEGL(display) failed");
    if (!eglBindAPI(EGL_OPENGL_API)) egl_fail("eglBindAPI(EGL_OPENGL_API)");

    // A pbuffer-capable config when there is one (NVIDIA's device platform); otherwise any
    // desktop-GL config, made current without a surface (EGL_KHR_surfaceless_context).
    EGLConfig config = nullptr;
    EGLint n = 0;
    bool pbuffer = true;
    const EGLint with_pbuffer[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                   EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                                   EGL_NONE};
    if (!eglChooseConfig(display_, with_pbuffer, &config, 1, &n) || n < 1) {
      pbuffer = false;
      const EGLint any[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
      if (!eglChooseConfig(display_, any, &config, 1, &n)) egl_fail("eglChooseConfig");
      if (n < 1) throw std::runtime_error("eglChooseConfig: no config renders desktop OpenGL");
      if (!GLAD_EGL_KHR_surfaceless_context)
        throw std::runtime_error("no pbuffer config and no EGL_KHR_surfaceless_context");
    }

    const bool egl15 = major > 1 || (major == 1 && minor >= 5);
    for (bool debug : {true, false}) {
      std::vector<EGLint> attribs = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT};
      if (debug && egl15) attribs.insert(attribs.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
      attribs.push_back(EGL_NONE);
      context_ = eglCreateContext(display_, config, EGL_NO_CONTEXT, attribs.data());
      if (context_ != EGL_NO_CONTEXT || !(debug && egl15)) break;
    }
    if (context_ == EGL_NO_CONTEXT) egl_fail("eglCreateContext(OpenGL 3.3 core)");

    if (pbuffer) {
      const EGLint size[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
      surface_ = eglCreatePbufferSurface(display_, config, size);
      if (surface_ == EGL_NO_SURFACE) egl_fail("eglCreatePbufferSurface");
    }
    if (!eglMakeCurrent(display_, surface_, surface_, context_)) egl_fail("eglMakeCurrent");
    current_ = true;
    version_ = std::to_string(major) + "." + std::to_string(minor);
  }
  ~EglContext() {
    if (current_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
    if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
    if (initialized_) eglTerminate(display_);
  }
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;
  const std::string& version() const { return version_; }

 private:
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  EGLSurface surface_ = EGL_NO_SURFACE;
  bool initialized_ = false, current_ = false;
  std::string version_;
};

struct NvidiaDevice {
  EGLDeviceEXT device;
  int index;       // in eglQueryDevicesEXT's list
  EGLAttrib cuda;  // EGL_CUDA_DEVICE_NV, or -1
};

// NVIDIA EGL devices (those with EGL_NV_device_cuda), CUDA device 0 first. `can_enumerate`: the
// client extensions offer eglQueryDevicesEXT and eglQueryDevice{String,Attrib}EXT.
std::vector<NvidiaDevice> nvidia_devices(bool can_enumerate) {
  std::vector<NvidiaDevice> out;
  if (!can_enumerate || !eglQueryDevicesEXT || !eglQueryDeviceStringEXT || !eglQueryDeviceAttribEXT) return out;
  EGLint n = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &n) || n <= 0) return out;
  std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(n));
  if (!eglQueryDevicesEXT(n, devices.data(), &n)) return out;
  for (int i = 0; i < n; ++i) {
    // Device extensions have no GLAD flags (GLAD reads client and display extensions only).
    const char* dev_exts = eglQueryDeviceStringEXT(devices[static_cast<std::size_t>(i)], EGL_EXTENSIONS);
    if (!has_extension(dev_exts, "EGL_NV_device_cuda")) continue;
    EGLAttrib cuda = -1;
    if (!eglQueryDeviceAttribEXT(devices[static_cast<std::size_t>(i)], EGL_CUDA_DEVICE_NV, &cuda)) cuda = -1;
    out.push_back({devices[static_cast<std::size_t>(i)], i, cuda});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NvidiaDevice& a, const NvidiaDevice& b) { return (a.cuda == 0) > (b.cuda == 0); });
  return out;
}

class EglSurface final : public GlSurface {
 public:
  EglSurface(std::unique_ptr<EglContext> context, std::string description, int w, int h)
      : context_(std::move(context)), description_(std::move(description)), width_(w), height_(h) {
    load_gl(egl_get_proc, "eglGetProcAddress");
    require_gl_33();
    description_ += ", EGL " + context_->version();
    // The "window": an RGBA8 colour renderbuffer (the UI needs no depth).
    fbo_ = make_framebuffer();
    color_ = make_renderbuffer();
    GL_CALL(glBindRenderbuffer(GL_RENDERBUFFER, color_.get()));
    GL_CALL(glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h));
    GL_CALL(glBindFramebuffer(GL_FRAMEBUFFER, fbo_.get()));
    GL_CALL(glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_.get()));
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    GL_CHECK("glCheckFramebufferStatus");
    if (status != GL_FRAMEBUFFER_COMPLETE)
      throw GlError("offscreen framebuffer incomplete (status 0x" + std::to_string(status) + ")");
    GL_CALL(glDrawBuffer(GL_COLOR_ATTACHMENT0));
    GL_CALL(glReadBuffer(GL_COLOR_ATTACHMENT0));
  }
  ~EglSurface() override {
    for (GLsync& s : fences_)
      if (s) glDeleteSync(s);
    // GL objects go while the context is still current, before context_ is destroyed.
    fbo_.reset();
    color_.reset();
  }

  std::string description() const override { return description_; }
  bool offscreen() const override { return true; }
  void framebuffer_size(int* w, int* h) const override {
    *w = width_;
    *h = height_;
  }
  bool should_close() const override { return close_; }
  void request_close() override { close_ = true; }

  void imgui_init() override {
    ImGuiIO& io = ImGui::GetIO();
    io.BackendPlatformName = "circles_offscreen";
    io.DisplaySize = ImVec2(static_cast<float>(width_), static_cast<float>(height_));
    io.DisplayFramebufferScale = ImVec2(1.f, 1.f);
  }
  void imgui_new_frame(double dt) override {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width_), static_cast<float>(height_));
    io.DeltaTime = dt > 0 ? static_cast<float>(dt) : 1.f / 60.f;
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no mouse offscreen
  }
  void imgui_shutdown() override {}

  void bind_framebuffer() override {
    GL_CALL(glBindFramebuffer(GL_FRAMEBUFFER, fbo_.get()));
    GL_CALL(glReadBuffer(GL_COLOR_ATTACHMENT0));
  }
  void present() override {
    // Keep at most kInFlight frames queued, like a swap chain: wait for the fence of the frame
    // kInFlight frames ago (normally long done), then fence this one.
    GLsync& slot = fences_[next_];
    if (slot) {
      const GLenum r = glClientWaitSync(slot, GL_SYNC_FLUSH_COMMANDS_BIT, 10'000'000'000ull);
      GL_CHECK("glClientWaitSync");
      if (r == GL_WAIT_FAILED) throw GlError("glClientWaitSync failed");
      glDeleteSync(slot);
      slot = nullptr;
    }
    slot = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    GL_CHECK("glFenceSync");
    glFlush();
    next_ = (next_ + 1) % kInFlight;
  }

 private:
  static constexpr int kInFlight = 2;
  std::unique_ptr<EglContext> context_;  // first: destroyed last
  std::string description_;
  int width_, height_;
  GlFramebuffer fbo_;
  GlRenderbuffer color_;
  std::array<GLsync, kInFlight> fences_{};
  int next_ = 0;
  bool close_ = false;
};

}  // namespace

std::unique_ptr<GlSurface> open_offscreen(int w, int h) {
  const char* forced = std::getenv("CIRCLES_EGL_PLATFORM");
  const std::string only = forced ? forced : "";
  if (!only.empty() && only != "device" && only != "surfaceless")
    throw std::invalid_argument("CIRCLES_EGL_PLATFORM must be 'device' or 'surfaceless', not '" + only + "'");
  // EGL through GLAD without a display: the core functions and the client extensions (none when
  // the EGL library has no client extensions). Their flags are read now: loading EGL again for a
  // display (EglContext) replaces them with the display's extensions.
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw std::runtime_error("cannot create an offscreen OpenGL 3.3 context through EGL: cannot load libEGL.so.1 "
                             "(gladLoaderLoadEGL failed)");
  eglGetError();  // clear EGL_BAD_DISPLAY from an EGL without client extensions
  const bool platform_base = GLAD_EGL_EXT_platform_base && eglGetPlatformDisplayEXT;
  const bool platform_device = platform_base && GLAD_EGL_EXT_platform_device;
  const bool platform_surfaceless = platform_base && GLAD_EGL_MESA_platform_surfaceless;
  const bool can_enumerate = (GLAD_EGL_EXT_device_enumeration && GLAD_EGL_EXT_device_query) || GLAD_EGL_EXT_device_base;
  std::string tried;
  auto note = [&](const std::string& what) { tried += "\n  " + what; };

  if (only != "surfaceless") {
    if (!platform_device) {
      note("EGL device platform: EGL_EXT_platform_device not offered");
    } else {
      const std::vector<NvidiaDevice> devices = nvidia_devices(can_enumerate);
      if (devices.empty()) note("EGL device platform: no NVIDIA EGL device (EGL_NV_device_cuda)");
      for (const NvidiaDevice& d : devices) {
        const std::string name = "EGL device platform, device " + std::to_string(d.index) +
                                 (d.cuda >= 0 ? " (CUDA device " + std::to_string(d.cuda) + ")" : "");
        try {
          auto ctx = std::make_unique<EglContext>(eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d.device, nullptr));
          return std::make_unique<EglSurface>(std::move(ctx), "offscreen (" + name + ")", w, h);
        } catch (const std::exception& e) {
          note(name + ": " + e.what());
        }
      }
    }
  }
  if (only != "device") {
    if (!platform_surfaceless) {
      note("Mesa surfaceless platform: EGL_MESA_platform_surfaceless not offered");
    } else {
      try {
        auto ctx = std::make_unique<EglContext>(
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr));
        return std::make_unique<EglSurface>(std::move(ctx), "offscreen (Mesa surfaceless platform)", w, h);
      } catch (const std::exception& e) {
        note(std::string("Mesa surfaceless platform: ") + e.what());
      }
    }
  }
  throw std::runtime_error("cannot create an offscreen OpenGL 3.3 context through EGL; tried:" + tried);
}

}  // namespace circles
