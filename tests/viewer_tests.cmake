# The viewer's tests: its pure parts in-process, and the real `circles` binary run offscreen
# (EGL; Mesa here), without a display, with bad flags, under Xvfb when xvfb-run exists, and on a
# GPU through CUDA-GL interop (skipped without one; failed instead with CIRCLES_REQUIRE_GPU=1).
# Included by tests/CMakeLists.txt when the build has the viewer (CIRCLES_HAVE_GUI).
add_executable(circles_viewer_tests test_viewer.cpp)
target_link_libraries(circles_viewer_tests PRIVATE circles_app GTest::gtest GTest::gtest_main)
target_compile_definitions(circles_viewer_tests PRIVATE CIRCLES_BIN="$<TARGET_FILE:circles>")
add_dependencies(circles_viewer_tests circles)
gtest_discover_tests(circles_viewer_tests TEST_PREFIX "viewer." DISCOVERY_TIMEOUT 60
                     PROPERTIES LABELS viewer TIMEOUT 120)

# The window under real X input events (xdotool + Xvfb).
add_executable(circles_viewer_input_tests test_viewer_input.cpp)
target_link_libraries(circles_viewer_input_tests PRIVATE circles_render GTest::gtest GTest::gtest_main)
target_compile_definitions(circles_viewer_input_tests PRIVATE CIRCLES_BIN="$<TARGET_FILE:circles>")
add_dependencies(circles_viewer_input_tests circles)
gtest_discover_tests(circles_viewer_input_tests TEST_PREFIX "viewer." DISCOVERY_TIMEOUT 60
                     PROPERTIES LABELS viewer TIMEOUT 120 RUN_SERIAL TRUE)
