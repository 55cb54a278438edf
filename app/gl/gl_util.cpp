#include "app/gl/gl_util.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace circles {

namespace {

// What gladLoadGL found on the current context: GLAD_MAKE_VERSION(major, minor), 0 before load_gl.
int g_gl_version = 0;
bool g_gl_es = false;  // "OpenGL ES ..." (GLAD's desktop loader reads its version all the same)

}  // namespace

void load_gl(GLADloadfunc load, const char* through) {
  g_gl_version = gladLoadGL(load);
  if (g_gl_version == 0)
    throw GlError(std::string("cannot load OpenGL through ") + through +
                  " (gladLoadGL failed: no glGetString, or no GL_VERSION from the current context)");
  const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  g_gl_es = version && std::strncmp(version, "OpenGL ES", 9) == 0;
}

const char* gl_error_name(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    default: return "unknown GL error";
  }
}

void gl_check(const char* what, const char* file, int line) {
  GLenum e = glGetError();
  if (e == GL_NO_ERROR) return;
  std::string errors;
  // Drain every pending flag (bounded: a lost context can report errors forever).
  for (int i = 0; i < 8 && e != GL_NO_ERROR; ++i, e = glGetError())
    errors += (errors.empty() ? "" : ", ") + std::string(gl_error_name(e));
  throw GlError(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " + errors);
}

namespace {

const char* debug_source(GLenum s) {
  switch (s) {
    case GL_DEBUG_SOURCE_API: return "api";
    case GL_DEBUG_SOURCE_WINDOW_SYSTEM: return "window system";
    case GL_DEBUG_SOURCE_SHADER_COMPILER: return "shader compiler";
    case GL_DEBUG_SOURCE_THIRD_PARTY: return "third party";
    case GL_DEBUG_SOURCE_APPLICATION: return "application";
    default: return "other";
  }
}

const char* debug_type(GLenum t) {
  switch (t) {
    case GL_DEBUG_TYPE_ERROR: return "error";
    case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR: return "deprecated";
    case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR: return "undefined behaviour";
    case GL_DEBUG_TYPE_PORTABILITY: return "portability";
    case GL_DEBUG_TYPE_PERFORMANCE: return "performance";
    default: return "other";
  }
}

void GLAPIENTRY on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                            const GLchar* message, const void*) {
  // Notifications ("buffer will use video memory") and low-severity hints are noise here;
  // errors always print.
  if (type != GL_DEBUG_TYPE_ERROR && (severity == GL_DEBUG_SEVERITY_NOTIFICATION || severity == GL_DEBUG_SEVERITY_LOW))
    return;
  const char* sev = severity == GL_DEBUG_SEVERITY_HIGH     ? "high"
                    : severity == GL_DEBUG_SEVERITY_MEDIUM ? "medium"
                                                           : "low";
  std::fprintf(stderr, "gl debug (%s, %s, %s, id %u): %.*s\n", debug_source(source), debug_type(type),
               sev, id, static_cast<int>(length < 0 ? 4096 : length), message);
}

}  // namespace

bool install_gl_debug_callback() {
  const bool have = GLAD_GL_VERSION_4_3 || GLAD_GL_KHR_debug;
  if (!have) return false;
  GL_CALL(glEnable(GL_DEBUG_OUTPUT));
  GL_CALL(glDebugMessageCallback(on_gl_debug, nullptr));
  // Notifications (e.g. "buffer will use video memory") are noise for this tool.
  GL_CALL(glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DEBUG_SEVERITY_NOTIFICATION, 0, nullptr,
                                GL_FALSE));
  return true;
}

std::string gl_description() {
  auto str = [](GLenum e) {
    const GLubyte* s = glGetString(e);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
  };
  std::string d = "OpenGL " + str(GL_VERSION) + ", " + str(GL_RENDERER) + ", " + str(GL_VENDOR);
  GL_CHECK("glGetString");
  return d;
}

void require_gl_33() {
  if (g_gl_version == 0) throw GlError("OpenGL is not loaded on this context (load_gl was not called)");
  const int major = GLAD_VERSION_MAJOR(g_gl_version), minor = GLAD_VERSION_MINOR(g_gl_version);
  if (major < 3 || (major == 3 && minor < 3) || g_gl_es)
    throw GlError("the viewer needs desktop OpenGL 3.3 or newer; this context has " +
                  std::string(g_gl_es ? "OpenGL ES " : "OpenGL ") + std::to_string(major) + "." +
                  std::to_string(minor));
}

GlTexture make_texture() {
  GLuint n = 0;
  GL_CALL(glGenTextures(1, &n));
  return GlTexture(n);
}
GlVertexArray make_vertex_array() {
  GLuint n = 0;
  GL_CALL(glGenVertexArrays(1, &n));
  return GlVertexArray(n);
}
GlFramebuffer make_framebuffer() {
  GLuint n = 0;
  GL_CALL(glGenFramebuffers(1, &n));
  return GlFramebuffer(n);
}
GlRenderbuffer make_renderbuffer() {
  GLuint n = 0;
  GL_CALL(glGenRenderbuffers(1, &n));
  return GlRenderbuffer(n);
}
GlQuery make_query() {
  GLuint n = 0;
  GL_CALL(glGenQueries(1, &n));
  return GlQuery(n);
}

namespace {

GlShader compile_shader(GLenum kind, const char* src, const std::string& name) {
  GlShader s(glCreateShader(kind));
  GL_CHECK("glCreateShader");
  if (!s) throw GlError("glCreateShader failed for " + name);
  GL_CALL(glShaderSource(s.get(), 1, &src, nullptr));
  GL_CALL(glCompileShader(s.get()));
  GLint ok = 0, len = 0;
  GL_CALL(glGetShaderiv(s.get(), GL_COMPILE_STATUS, &ok));
  if (!ok) {
    GL_CALL(glGetShaderiv(s.get(), GL_INFO_LOG_LENGTH, &len));
    std::vector<char> log(static_cast<std::size_t>(len > 1 ? len : 1), '\0');
    glGetShaderInfoLog(s.get(), static_cast<GLsizei>(log.size()), nullptr, log.data());
    throw GlError("cannot compile " + name + (kind == GL_VERTEX_SHADER ? " (vertex)" : " (fragment)") +
                  ":\n" + log.data());
  }
  return s;
}

}  // namespace

GlProgram make_program(const char* vertex_src, const char* fragment_src, const std::string& name) {
  GlShader vs = compile_shader(GL_VERTEX_SHADER, vertex_src, name);
  GlShader fs = compile_shader(GL_FRAGMENT_SHADER, fragment_src, name);
  GlProgram p(glCreateProgram());
  GL_CHECK("glCreateProgram");
  GL_CALL(glAttachShader(p.get(), vs.get()));
  GL_CALL(glAttachShader(p.get(), fs.get()));
  GL_CALL(glLinkProgram(p.get()));
  GLint ok = 0, len = 0;
  GL_CALL(glGetProgramiv(p.get(), GL_LINK_STATUS, &ok));
  if (!ok) {
    GL_CALL(glGetProgramiv(p.get(), GL_INFO_LOG_LENGTH, &len));
    std::vector<char> log(static_cast<std::size_t>(len > 1 ? len : 1), '\0');
    glGetProgramInfoLog(p.get(), static_cast<GLsizei>(log.size()), nullptr, log.data());
    throw GlError("cannot link " + name + ":\n" + log.data());
  }
  GL_CALL(glDetachShader(p.get(), vs.get()));
  GL_CALL(glDetachShader(p.get(), fs.get()));
  return p;
}

GlTimer::GlTimer() {
  for (GlQuery& q : queries_) q = make_query();
}

void GlTimer::begin() {
  poll();
  // A slot whose result has not arrived yet is reused anyway (that sample is lost) rather than
  // waited for: the timer must never stall the frame.
  pending_[next_] = false;
  GL_CALL(glQueryCounter(queries_[2 * next_].get(), GL_TIMESTAMP));
  active_ = true;
}

void GlTimer::end() {
  if (!active_) return;
  GL_CALL(glQueryCounter(queries_[2 * next_ + 1].get(), GL_TIMESTAMP));
  pending_[next_] = true;
  next_ = (next_ + 1) % kSlots;
  active_ = false;
}

void GlTimer::poll() {
  // Oldest first, so results come out in frame order.
  for (int k = 0; k < kSlots; ++k) {
    const int i = (next_ + k) % kSlots;
    if (!pending_[i]) continue;
    GLint available = 0;  // the end's result arrives after the start's
    GL_CALL(glGetQueryObjectiv(queries_[2 * i + 1].get(), GL_QUERY_RESULT_AVAILABLE, &available));
    if (!available) continue;
    GLuint64 t0 = 0, t1 = 0;
    GL_CALL(glGetQueryObjectui64v(queries_[2 * i].get(), GL_QUERY_RESULT, &t0));
    GL_CALL(glGetQueryObjectui64v(queries_[2 * i + 1].get(), GL_QUERY_RESULT, &t1));
    results_ms_.push_back(static_cast<double>(t1 - t0) * 1e-6);
    spans_ms_.push_back({static_cast<double>(t0) * 1e-6, static_cast<double>(t1) * 1e-6});
    if (spans_ms_.size() > 64) spans_ms_.erase(spans_ms_.begin());  // nobody takes them: keep a few
    pending_[i] = false;
  }
}

std::vector<double> GlTimer::take() {
  poll();
  return std::exchange(results_ms_, {});
}

std::vector<std::pair<double, double>> GlTimer::take_spans() {
  poll();
  return std::exchange(spans_ms_, {});
}

}  // namespace circles
