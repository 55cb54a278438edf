#include "app/gl/gl_present.h"

#include <cstddef>
#include <utility>

#include "viewer_shaders.h"  // generated from shaders/*.glsl by app/viewer.cmake

namespace circles {

Presenter::Presenter() {
  program_ = make_program(shaders::present_vert_glsl, shaders::present_frag_glsl,
                          "shaders/present.{vert,frag}.glsl");
  auto uniform = [&](const char* name) {
    const GLint loc = glGetUniformLocation(program_.get(), name);
    GL_CHECK("glGetUniformLocation");
    if (loc < 0) throw GlError(std::string("present shader has no uniform ") + name);
    return loc;
  };
  u_frame_ = uniform("u_frame");
  u_overlay_ = uniform("u_overlay");
  u_origin_ = uniform("u_origin");
  u_scale_ = uniform("u_scale");
  u_size_ = uniform("u_size");
  u_mode_ = uniform("u_overlay_mode");
  u_alpha_ = uniform("u_overlay_alpha");
  u_letterbox_ = uniform("u_letterbox");
  vao_ = make_vertex_array();
  GL_CALL(glUseProgram(program_.get()));
  GL_CALL(glUniform1i(u_frame_, 0));
  GL_CALL(glUniform1i(u_overlay_, 1));
  GL_CALL(glUseProgram(0));
}

void Presenter::define_texture(GLuint tex, int w, int h) {
  GL_CALL(glBindTexture(GL_TEXTURE_2D, tex));
  GL_CALL(glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr));
  // One level, no mipmaps: complete with these filters. Zoomed out, the shader's texture()
  // filters linearly; at 1:1 and zoomed in it uses texelFetch.
  GL_CALL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0));
  GL_CALL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR));
  GL_CALL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST));
  GL_CALL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
  GL_CALL(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
  GL_CALL(glBindTexture(GL_TEXTURE_2D, 0));
}

bool Presenter::ensure_size(int w, int h) {
  if (frame_ && w == width_ && h == height_) return false;
  // A new texture name per size: a texture registered with CUDA must not change under it.
  frame_ = make_texture();
  define_texture(frame_.get(), w, h);
  pixel_buffer_.reset();  // made again at the new size when the pbo path asks for it
  width_ = w;
  height_ = h;
  drop_overlay();
  return true;
}

std::uint8_t* Presenter::begin_frame_upload() {
  if (!frame_) throw GlError("Presenter::begin_frame_upload before ensure_size");
  const std::size_t bytes = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4;
  if (!upload_buffer_) {
    GLuint name = 0;
    GL_CALL(glGenBuffers(1, &name));
    upload_buffer_ = GlBuffer(name);
    upload_bytes_ = 0;
  }
  GL_CALL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, upload_buffer_.get()));
  // New storage every frame (orphaning): the upload still reading the last frame keeps its own.
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
  upload_bytes_ = bytes;
  void* p = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes),
                             GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT | GL_MAP_UNSYNCHRONIZED_BIT);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);  // unbound before the check: a failure leaves no state
  GL_CHECK("glMapBufferRange (frame upload)");
  if (!p) throw GlError("glMapBufferRange returned no memory for the frame upload");
  return static_cast<std::uint8_t*>(p);
}

void Presenter::end_frame_upload() {
  if (!upload_buffer_ || !upload_bytes_) throw GlError("Presenter::end_frame_upload without begin_frame_upload");
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, upload_buffer_.get());
  const GLboolean intact = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, frame_.get());
  if (intact) glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  upload_bytes_ = 0;
  GL_CHECK("frame upload");
  // The driver may lose a mapped buffer's contents (a mode switch); the texture keeps its last
  // frame then, and the next frame uploads again.
}

GLuint Presenter::pixel_buffer() {
  if (pixel_buffer_) return pixel_buffer_.get();
  if (!frame_) throw GlError("Presenter::pixel_buffer before ensure_size");
  GLuint name = 0;
  GL_CALL(glGenBuffers(1, &name));
  GlBuffer buffer(name);
  const auto bytes = static_cast<GLsizeiptr>(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4);
  GL_CALL(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer.get()));
  // Written by CUDA every frame, read once by the upload: stream / draw. No initial contents.
  glBufferData(GL_PIXEL_UNPACK_BUFFER, bytes, nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);  // unbound before the check: a failure leaves no state
  GL_CHECK("glBufferData (pixel buffer)");
  pixel_buffer_ = std::move(buffer);
  return pixel_buffer_.get();
}

void Presenter::upload_from_pixel_buffer() {
  if (!pixel_buffer_) throw GlError("Presenter::upload_from_pixel_buffer without a pixel buffer");
  upload_timer_.begin();
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixel_buffer_.get());
  glBindTexture(GL_TEXTURE_2D, frame_.get());
  // With a buffer bound to GL_PIXEL_UNPACK_BUFFER the pointer argument is an offset into it.
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindTexture(GL_TEXTURE_2D, 0);
  // Unbound again before anything can throw: a buffer left bound would turn the host-copy
  // path's pointers into offsets.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  try {
    GL_CHECK("pbo upload");  // one check per frame, as in draw()
  } catch (...) {
    upload_timer_.end();  // never leave a GL_TIME_ELAPSED query open: the next timer would fail
    throw;
  }
  upload_timer_.end();
}

void Presenter::upload_overlay(const std::uint8_t* rgba, int w, int h) {
  if (w != width_ || h != height_) {
    drop_overlay();
    return;
  }
  if (!overlay_) overlay_ = make_texture();
  if (overlay_w_ != w || overlay_h_ != h) define_texture(overlay_.get(), w, h);
  GL_CALL(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
  GL_CALL(glPixelStorei(GL_UNPACK_ROW_LENGTH, 0));
  GL_CALL(glBindTexture(GL_TEXTURE_2D, overlay_.get()));
  GL_CALL(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba));
  GL_CALL(glBindTexture(GL_TEXTURE_2D, 0));
  overlay_w_ = w;
  overlay_h_ = h;
}

void Presenter::draw(const PixelRect& area, const Placement& where, OverlayMode mode, float overlay_alpha) {
  if (!frame_) return;
  const bool overlay = mode != OverlayMode::None && has_overlay();
  timer_.begin();
  glViewport(area.x, area.y, area.w, area.h);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glUseProgram(program_.get());
  glUniform2f(u_origin_, static_cast<float>(where.origin_x), static_cast<float>(where.origin_y));
  glUniform1f(u_scale_, static_cast<float>(where.scale));
  glUniform2i(u_size_, width_, height_);
  glUniform1i(u_mode_, overlay ? static_cast<int>(mode) : 0);
  glUniform1f(u_alpha_, overlay_alpha);
  glUniform3f(u_letterbox_, kLetterbox[0], kLetterbox[1], kLetterbox[2]);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, frame_.get());
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, overlay ? overlay_.get() : frame_.get());
  glBindVertexArray(vao_.get());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glUseProgram(0);
  GL_CHECK("present draw");  // one check per frame: glGetError can cost a driver round trip
  timer_.end();
}

}  // namespace circles
