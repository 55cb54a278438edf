#version 330 core
// A triangle that covers the whole viewport (the scene area), made from gl_VertexID alone: no
// vertex buffers. Vertices (-1,-1), (3,-1), (-1,3); the part outside the viewport is clipped.
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;
  gl_Position = vec4(p, 0.0, 1.0);
}
