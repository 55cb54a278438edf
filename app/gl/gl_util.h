// OpenGL helpers for the viewer (app/ only: render/ and kernels/ know nothing of GL): error
// checks, the debug callback, small RAII owners of GL objects, shader programs and
// non-blocking GPU timers. Functions come from GLAD (generated at configure time by
// app/viewer.cmake), loaded by load_gl once a context is current.
#pragma once
#include <glad/gl.h>

#include <array>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace circles {

class GlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws GlError naming `what` and file:line if glGetError reports anything (all pending
// errors are drained and listed).
void gl_check(const char* what, const char* file, int line);
const char* gl_error_name(GLenum e);

}  // namespace circles

// GL_CHECK("what just happened"): checks glGetError after a step.
#define GL_CHECK(what) ::circles::gl_check(what, __FILE__, __LINE__)
// GL_CALL(glFoo(...)): makes the call, then checks it.
#define GL_CALL(expr)                                  \
  do {                                                 \
    expr;                                              \
    ::circles::gl_check(#expr, __FILE__, __LINE__);    \
  } while (0)

namespace circles {

// Loads the OpenGL functions of the context current on this thread through GLAD, with `load`
// (glfwGetProcAddress, or eglGetProcAddress wrapped) named `through` in errors; throws GlError
// when GLAD cannot. Call after making the context current, before any other GL call.
void load_gl(GLADloadfunc load, const char* through);
// Installs a debug message callback (GL 4.3 or KHR_debug) that prints errors and warnings to
// stderr; returns false when the context offers none.
bool install_gl_debug_callback();
// "4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits), Mesa"
std::string gl_description();
// Throws unless the current context is OpenGL >= 3.3.
void require_gl_33();

// A move-only owner of one GL object name; Deleter(name) frees it.
template <class Deleter>
class GlName {
 public:
  GlName() = default;
  explicit GlName(GLuint name) : name_(name) {}
  ~GlName() { reset(); }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;
  GlName(GlName&& o) noexcept : name_(std::exchange(o.name_, 0)) {}
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      reset();
      name_ = std::exchange(o.name_, 0);
    }
    return *this;
  }
  void reset() {
    if (name_) Deleter{}(name_);
    name_ = 0;
  }
  GLuint get() const { return name_; }
  explicit operator bool() const { return name_ != 0; }

 private:
  GLuint name_ = 0;
};

struct GlTextureDeleter { void operator()(GLuint n) const { glDeleteTextures(1, &n); } };
struct GlVertexArrayDeleter { void operator()(GLuint n) const { glDeleteVertexArrays(1, &n); } };
struct GlFramebufferDeleter { void operator()(GLuint n) const { glDeleteFramebuffers(1, &n); } };
struct GlRenderbufferDeleter { void operator()(GLuint n) const { glDeleteRenderbuffers(1, &n); } };
struct GlQueryDeleter { void operator()(GLuint n) const { glDeleteQueries(1, &n); } };
struct GlShaderDeleter { void operator()(GLuint n) const { glDeleteShader(n); } };
struct GlProgramDeleter { void operator()(GLuint n) const { glDeleteProgram(n); } };

using GlTexture = GlName<GlTextureDeleter>;
using GlVertexArray = GlName<GlVertexArrayDeleter>;
using GlFramebuffer = GlName<GlFramebufferDeleter>;
using GlRenderbuffer = GlName<GlRenderbufferDeleter>;
using GlQuery = GlName<GlQueryDeleter>;
using GlShader = GlName<GlShaderDeleter>;
using GlProgram = GlName<GlProgramDeleter>;

GlTexture make_texture();
GlVertexArray make_vertex_array();
GlFramebuffer make_framebuffer();
GlRenderbuffer make_renderbuffer();
GlQuery make_query();

// Compiles and links a program; throws GlError with the info log (and `name`) on failure.
GlProgram make_program(const char* vertex_src, const char* fragment_src, const std::string& name);

// GPU time of a span of GL commands, read back a few frames later without stalling: begin()/end()
// around the commands each frame put a GL_TIMESTAMP query on each side (glQueryCounter); take()
// returns the durations that have arrived since the last call (usually one per frame, two or three
// frames late), take_spans() the same intervals as GL timestamps (ms of the GPU's clock), for the
// viewer's timeline. Each keeps its own results: call either or both.
class GlTimer {
 public:
  GlTimer();
  void begin();
  void end();
  std::vector<double> take();
  std::vector<std::pair<double, double>> take_spans();

 private:
  // Collects finished queries without blocking.
  void poll();
  static constexpr int kSlots = 4;
  std::array<GlQuery, 2 * kSlots> queries_;  // a slot's start and end
  std::array<bool, kSlots> pending_{};
  int next_ = 0;
  bool active_ = false;
  std::vector<double> results_ms_;
  std::vector<std::pair<double, double>> spans_ms_;
};

}  // namespace circles
