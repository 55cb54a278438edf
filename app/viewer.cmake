# The interactive viewer (`circles view`): a GLFW window or an offscreen EGL context, OpenGL and
# EGL through a GLAD loader generated at configure time, Dear ImGui panels, and CUDA-GL interop
# when the build has CUDA. Included by the top-level CMakeLists.txt when CIRCLES_GUI is ON; sets
# CIRCLES_HAVE_GUI to 1 when it builds the viewer into circles_app, and otherwise warns and leaves
# it 0.
#
# Run as a script (cmake -DCIRCLES_EMBED_OUTPUT=... -DCIRCLES_SHADER_DIR=... -P app/viewer.cmake)
# it embeds shaders/*.glsl into a generated header: the .glsl files are the one source of truth.

# --- script mode: shaders/*.glsl -> viewer_shaders.h ------------------------------------------
if(DEFINED CIRCLES_EMBED_OUTPUT)
  file(GLOB _shaders "${CIRCLES_SHADER_DIR}/*.glsl")
  list(SORT _shaders)
  set(_text "// Generated from shaders/*.glsl by app/viewer.cmake at build time: do not edit.\n")
  string(APPEND _text "#pragma once\n\nnamespace circles::shaders {\n")
  foreach(_src IN LISTS _shaders)
    get_filename_component(_name "${_src}" NAME)
    string(REGEX REPLACE "[^A-Za-z0-9]" "_" _id "${_name}")
    file(READ "${_src}" _body)
    string(FIND "${_body}" ")glsl\"" _clash)
    if(NOT _clash EQUAL -1)
      message(FATAL_ERROR "${_src} contains the raw-string delimiter )glsl\"")
    endif()
    string(APPEND _text "\n// shaders/${_name}\ninline constexpr const char ${_id}[] = R\"glsl(${_body})glsl\";\n")
  endforeach()
  string(APPEND _text "\n}  // namespace circles::shaders\n")
  file(WRITE "${CIRCLES_EMBED_OUTPUT}.tmp" "${_text}")
  file(COPY_FILE "${CIRCLES_EMBED_OUTPUT}.tmp" "${CIRCLES_EMBED_OUTPUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${CIRCLES_EMBED_OUTPUT}.tmp")
  return()
endif()

# --- dependencies: Debian packages libglfw3-dev, python3-glad, libegl-dev, libimgui-dev --------
# (EGL is not linked: GLAD opens libEGL.so.1 at run time; pkg-config egl checks that it is there.)
set(_viewer_missing "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CIRCLES_GLFW QUIET IMPORTED_TARGET glfw3)
  pkg_check_modules(CIRCLES_EGL QUIET IMPORTED_TARGET egl)
  pkg_check_modules(CIRCLES_IMGUI QUIET IMPORTED_TARGET imgui)
  foreach(_dep GLFW EGL IMGUI)
    if(NOT CIRCLES_${_dep}_FOUND)
      list(APPEND _viewer_missing "${_dep} (pkg-config)")
    endif()
  endforeach()
else()
  list(APPEND _viewer_missing "pkg-config")
endif()

# Dear ImGui's GLFW and OpenGL3 backends ship as sources (possibly gzipped) with libimgui-dev.
set(CIRCLES_IMGUI_BACKEND_SRC_DIR "/usr/share/doc/libimgui-dev/examples/backends"
    CACHE PATH "Where the Dear ImGui backend sources (imgui_impl_glfw.cpp, imgui_impl_opengl3.cpp) are")
find_path(CIRCLES_IMGUI_BACKEND_INCLUDE_DIR imgui_impl_opengl3.h
          HINTS ${CIRCLES_IMGUI_INCLUDE_DIRS} PATH_SUFFIXES backends imgui/backends)
if(NOT CIRCLES_IMGUI_BACKEND_INCLUDE_DIR)
  list(APPEND _viewer_missing "imgui_impl_opengl3.h (libimgui-dev)")
endif()
set(_backend_sources "")
foreach(_backend imgui_impl_glfw imgui_impl_opengl3)
  set(_plain "${CIRCLES_IMGUI_BACKEND_SRC_DIR}/${_backend}.cpp")
  if(EXISTS "${_plain}")
    list(APPEND _backend_sources "${_plain}")
  elseif(EXISTS "${_plain}.gz")
    # Unpacked at configure time into the build tree (never into the repository); re-run when
    # the package updates the file.
    find_program(CIRCLES_GZIP gzip)
    set(_unpacked "${CMAKE_CURRENT_BINARY_DIR}/imgui_backends/${_backend}.cpp")
    file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/imgui_backends")
    execute_process(COMMAND "${CIRCLES_GZIP}" -dc "${_plain}.gz" OUTPUT_FILE "${_unpacked}"
                    RESULT_VARIABLE _gz_rc)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_plain}.gz")
    if(_gz_rc EQUAL 0)
      list(APPEND _backend_sources "${_unpacked}")
    else()
      list(APPEND _viewer_missing "${_plain}.gz (gzip -dc failed)")
    endif()
  else()
    list(APPEND _viewer_missing "${_plain} (libimgui-dev)")
  endif()
endforeach()

# The GL and EGL loader: GLAD 2 (Debian: python3-glad) generates it at configure time into the
# build tree (never into the repository), from the Khronos specs it ships (--reproducible: no
# download). --loader adds gladLoaderLoadEGL/gladLoaderLoadGL, which dlopen libEGL.so.1/libGL.so.1
# at run time: nothing links against libEGL or libGL. Re-generated when the command changes (or
# glad does), or when an output has gone missing.
find_program(CIRCLES_GLAD glad)
set(CIRCLES_GLAD_DIR "${CMAKE_CURRENT_BINARY_DIR}/glad")
if(NOT CIRCLES_GLAD)
  list(APPEND _viewer_missing "glad (python3-glad, GLAD 2)")
else()
  set(_glad_api --quiet --reproducible --api "gl:core=4.5,egl=1.5")
  set(_glad_generator c --loader)
  set(_glad_command "${CIRCLES_GLAD}" ${_glad_api} --out-path "${CIRCLES_GLAD_DIR}" ${_glad_generator})
  set(_glad_outputs include/glad/gl.h include/glad/egl.h include/EGL/eglplatform.h
                    include/KHR/khrplatform.h src/gl.c src/egl.c)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CIRCLES_GLAD}")
  file(TIMESTAMP "${CIRCLES_GLAD}" _glad_time UTC)
  string(JOIN " " _glad_key ${_glad_command} "(glad ${_glad_time})")
  set(_glad_stamp "${CIRCLES_GLAD_DIR}/circles-glad-command.txt")
  set(_glad_previous "")
  if(EXISTS "${_glad_stamp}")
    file(READ "${_glad_stamp}" _glad_previous)
  endif()
  foreach(_out IN LISTS _glad_outputs)
    if(NOT EXISTS "${CIRCLES_GLAD_DIR}/${_out}")
      set(_glad_previous "")
    endif()
  endforeach()
  if(NOT _glad_previous STREQUAL _glad_key)
    # Into a scratch folder first; files whose text did not change keep their time stamps, so an
    # unchanged loader rebuilds nothing.
    message(STATUS "circles: generating the GL/EGL loader: ${_glad_key}")
    set(_glad_tmp "${CIRCLES_GLAD_DIR}.tmp")
    file(REMOVE_RECURSE "${_glad_tmp}")
    execute_process(COMMAND "${CIRCLES_GLAD}" ${_glad_api} --out-path "${_glad_tmp}" ${_glad_generator}
                    RESULT_VARIABLE _glad_rc
                    OUTPUT_VARIABLE _glad_log ERROR_VARIABLE _glad_log)
    foreach(_out IN LISTS _glad_outputs)
      if(_glad_rc EQUAL 0 AND NOT EXISTS "${_glad_tmp}/${_out}")
        set(_glad_rc "it wrote no ${_out}")
      endif()
    endforeach()
    if(_glad_rc EQUAL 0)
      foreach(_out IN LISTS _glad_outputs)
        get_filename_component(_out_dir "${CIRCLES_GLAD_DIR}/${_out}" DIRECTORY)
        file(MAKE_DIRECTORY "${_out_dir}")
        file(COPY_FILE "${_glad_tmp}/${_out}" "${CIRCLES_GLAD_DIR}/${_out}" ONLY_IF_DIFFERENT)
      endforeach()
      file(REMOVE_RECURSE "${_glad_tmp}")
      file(WRITE "${_glad_stamp}" "${_glad_key}")
    else()
      file(REMOVE_RECURSE "${CIRCLES_GLAD_DIR}" "${_glad_tmp}")
      string(STRIP "${_glad_log}" _glad_log)
      string(REGEX REPLACE ".*\n" "" _glad_log "${_glad_log}")  # its last line
      string(REPLACE ";" "," _glad_log "${_glad_log}")
      list(APPEND _viewer_missing
           "a GLAD loader (`${_glad_key}` failed (${_glad_rc}): ${_glad_log}: this needs GLAD 2, Debian's python3-glad)")
    endif()
  endif()
endif()

if(_viewer_missing)
  list(JOIN _viewer_missing ", " _missing_text)
  message(WARNING "circles: building without the viewer (`circles view`): missing ${_missing_text}. "
                  "Install libglfw3-dev python3-glad libegl-dev libimgui-dev, or pass -DCIRCLES_GUI=OFF.")
  return()
endif()

# --- the generated GLAD loader (C), one static library: one set of GL/EGL function pointers -----
enable_language(C)
add_library(circles_glad STATIC "${CIRCLES_GLAD_DIR}/src/gl.c" "${CIRCLES_GLAD_DIR}/src/egl.c")
# SYSTEM: no warnings from generated headers. Its EGL/ and KHR/ headers come before the system's.
target_include_directories(circles_glad SYSTEM PUBLIC "${CIRCLES_GLAD_DIR}/include")
target_compile_options(circles_glad PRIVATE -w)
target_link_libraries(circles_glad PUBLIC ${CMAKE_DL_LIBS})

# --- the ImGui backends: third-party code, compiled as shipped, using GLAD as the GL loader ------
add_library(circles_imgui_backends OBJECT ${_backend_sources})
target_include_directories(circles_imgui_backends PRIVATE "${CIRCLES_IMGUI_BACKEND_INCLUDE_DIR}")
target_compile_definitions(circles_imgui_backends PRIVATE IMGUI_IMPL_OPENGL_LOADER_CUSTOM GLFW_INCLUDE_NONE)
# -w: warnings in code we do not own are not ours to fix.
target_compile_options(circles_imgui_backends PRIVATE "SHELL:-include glad/gl.h" -w)
target_link_libraries(circles_imgui_backends PUBLIC
  PkgConfig::CIRCLES_IMGUI PkgConfig::CIRCLES_GLFW circles_glad)

# --- shaders/*.glsl embedded into a generated header, rebuilt when a shader changes ------------
file(GLOB _viewer_shaders CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/shaders/*.glsl")
set(_viewer_gen_dir "${CMAKE_CURRENT_BINARY_DIR}/generated")
set(_viewer_shaders_h "${_viewer_gen_dir}/viewer_shaders.h")
add_custom_command(
  OUTPUT "${_viewer_shaders_h}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${_viewer_gen_dir}"
  COMMAND "${CMAKE_COMMAND}" "-DCIRCLES_EMBED_OUTPUT=${_viewer_shaders_h}"
          "-DCIRCLES_SHADER_DIR=${PROJECT_SOURCE_DIR}/shaders" -P "${CMAKE_CURRENT_LIST_FILE}"
  DEPENDS ${_viewer_shaders} "${CMAKE_CURRENT_LIST_FILE}"
  COMMENT "Embedding shaders/*.glsl into viewer_shaders.h"
  VERBATIM)

# --- the viewer itself, in circles_app (GL only in app/) ---------------------------------------
target_sources(circles_app PRIVATE
  app/viewer/viewer.cpp app/viewer/viewer_present.cpp app/viewer/viewer_timings.cpp app/viewer/viewer_output.cpp
  app/viewer/viewer_layout.cpp app/viewer/viewer_options.cpp app/viewer/timeline.cpp
  app/viewer/tools/live_lab.cpp app/viewer/tools/frame_stats_tool.cpp app/viewer/tools/heat_tool.cpp
  app/viewer/tools/kernels_tool.cpp app/viewer/tools/counters_tool.cpp
  app/viewer/panels/column.cpp app/viewer/panels/widgets.cpp app/viewer/panels/scene_panel.cpp
  app/viewer/panels/renderer_panel.cpp app/viewer/panels/animation_panel.cpp app/viewer/panels/timings_panel.cpp
  app/viewer/panels/export_panel.cpp app/viewer/panels/check_panel.cpp app/viewer/panels/view_panel.cpp
  app/viewer/panels/inspector_panel.cpp app/viewer/panels/frame_stats_panel.cpp app/viewer/panels/kernels_panel.cpp
  app/viewer/panels/counters_panel.cpp app/viewer/panels/heat_panel.cpp
  app/gl/gl_util.cpp app/gl/gl_present.cpp app/gl/gl_window.cpp app/gl/gl_offscreen.cpp
  "${_viewer_shaders_h}")
target_include_directories(circles_app PRIVATE "${_viewer_gen_dir}")
target_link_libraries(circles_app PUBLIC circles_imgui_backends
  PkgConfig::CIRCLES_IMGUI PkgConfig::CIRCLES_GLFW circles_glad)
if(CIRCLES_HAVE_CUDA)
  # CUDA-GL interop: register the texture, map it on the renderer's stream, write it from a kernel;
  # or (interop_external.cpp) write memory CUDA exports and GL imports once, no per-frame map.
  target_sources(circles_app PRIVATE app/gl/interop_cuda.cpp app/gl/interop_external.cpp app/gl/interop_present.cu)
  set_source_files_properties(app/gl/interop_present.cu PROPERTIES COMPILE_OPTIONS
    "--fmad=false;-Xcompiler=-ffp-contract=off;--Werror=all-warnings")
endif()

set(CIRCLES_HAVE_GUI 1)
