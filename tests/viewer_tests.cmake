# The viewer's tests: its pure parts in-process, and the real `circles` binary run offscreen
# (EGL; Mesa here), without a display, with bad flags, under Xvfb when xvfb-run exists, and on a
# GPU through CUDA-GL interop (skipped without one; failed instead with CIRCLES_REQUIRE_GPU=1).
# Every screenshot and export is compared with cpu-ref's `circles render`, byte for byte.
# Included by tests/CMakeLists.txt when the build has the viewer (CIRCLES_HAVE_GUI).
file(GLOB viewer_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/viewer/test_viewer*.cpp)
add_executable(circles_viewer_tests ${viewer_test_sources})
target_include_directories(circles_viewer_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(circles_viewer_tests PRIVATE circles_app GTest::gtest GTest::gtest_main)
target_compile_definitions(circles_viewer_tests PRIVATE CIRCLES_BIN="$<TARGET_FILE:circles>"
                           CIRCLES_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(circles_viewer_tests circles)
gtest_discover_tests(circles_viewer_tests TEST_PREFIX "viewer." DISCOVERY_TIMEOUT 60
                     PROPERTIES LABELS viewer TIMEOUT 120)

# The window under real X input events (xdotool + Xvfb). It reads the viewer's layout (where the
# view puts the frame after a drag and a zoom) from circles_app. Each step waits for the viewer's
# answer (60 s at most, against a hang), so a test that fails may take minutes: TIMEOUT 300.
file(GLOB viewer_input_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/viewer/input_*.cpp)
add_executable(circles_viewer_input_tests ${viewer_input_test_sources})
target_include_directories(circles_viewer_input_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(circles_viewer_input_tests PRIVATE circles_app GTest::gtest GTest::gtest_main)
target_compile_definitions(circles_viewer_input_tests PRIVATE CIRCLES_BIN="$<TARGET_FILE:circles>")
add_dependencies(circles_viewer_input_tests circles)
gtest_discover_tests(circles_viewer_input_tests TEST_PREFIX "viewer." DISCOVERY_TIMEOUT 60
                     PROPERTIES LABELS viewer TIMEOUT 300 RUN_SERIAL TRUE)
