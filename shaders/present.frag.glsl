#version 330 core
// Presents the finished frame texture in the scene area. Texel (i, j) covers framebuffer pixels
// [u_origin + (i, j) * u_scale, u_origin + (i + 1, j + 1) * u_scale); outside the frame the
// letterbox colour shows. At u_scale >= 1 each pixel fetches exactly one texel (nearest, so the
// default 1:1 view is bit-exact); zoomed out the frame is filtered linearly. Row 0 of the
// texture is the bottom row, as in the renderers' images and as in gl_FragCoord: no flip.
uniform sampler2D u_frame;
uniform sampler2D u_overlay;   // the difference image of the last check
uniform vec2 u_origin;         // framebuffer pixel of the frame's bottom-left corner
uniform float u_scale;         // framebuffer pixels per texel
uniform ivec2 u_size;          // frame size in texels
uniform int u_overlay_mode;    // 0: frame only, 1: overlay instead of the frame, 2: blended over it
uniform float u_overlay_alpha; // mode 2: the overlay's weight
uniform vec3 u_letterbox;
out vec4 o_color;

vec3 sample_frame(sampler2D tex, vec2 t) {
  if (u_scale >= 1.0) return texelFetch(tex, ivec2(floor(t)), 0).rgb;
  return texture(tex, t / vec2(u_size)).rgb;
}

void main() {
  vec2 t = (gl_FragCoord.xy - u_origin) / u_scale;  // position in texels
  if (any(lessThan(t, vec2(0.0))) || any(greaterThanEqual(t, vec2(u_size)))) {
    o_color = vec4(u_letterbox, 1.0);
    return;
  }
  vec3 c = sample_frame(u_frame, t);
  if (u_overlay_mode == 1) {
    c = sample_frame(u_overlay, t);
  } else if (u_overlay_mode == 2) {
    c = mix(c, sample_frame(u_overlay, t), u_overlay_alpha);
  }
  o_color = vec4(c, 1.0);
}
