# The Python module `import circles` (docs/PYTHON.md), included by the top-level CMakeLists.txt
# after the target circles_api exists. It builds the pybind11 extension circles._circles into
# ${CMAKE_BINARY_DIR}/python/circles/ beside a copy of the package's Python files, so that
# PYTHONPATH=build/python python3 -c "import circles" works from the build tree, and registers the
# pytest suite (tests/python) as the ctest test python_tests. Where Python (with NumPy) or pybind11
# is missing it says why and builds nothing; CIRCLES_HAVE_PYTHON says which (1 or 0).
#
# Which Python: -DCIRCLES_PYTHON=/path/to/python3, by default /usr/bin/python3 where it exists
# (Debian's, the one python3-pybind11 and python3-numpy belong to; a pyenv or conda python3 found
# first on PATH may lack them). An explicit -DPython3_EXECUTABLE wins over both. pybind11 comes from
# its CMake package: Debian's pybind11-dev, or pip's, found with -Dpybind11_DIR=$(python3 -m pybind11
# --cmakedir) or, without it, by asking the chosen Python for that directory.

set(CIRCLES_HAVE_PYTHON 0)

# Under the sanitizers the module would need their runtime preloaded into Python; the plain build
# builds and tests it.
if(CIRCLES_SANITIZE)
  message(STATUS "The Python module is not built with CIRCLES_SANITIZE (the plain build tests it)")
  return()
endif()

if(EXISTS /usr/bin/python3)
  set(circles_default_python /usr/bin/python3)
else()
  set(circles_default_python "")
endif()
set(CIRCLES_PYTHON "${circles_default_python}" CACHE FILEPATH
    "The Python interpreter the module is built for (empty: let FindPython choose)")
if(CIRCLES_PYTHON AND NOT Python3_EXECUTABLE)
  set(Python3_EXECUTABLE "${CIRCLES_PYTHON}")
endif()

find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
if(NOT Python3_FOUND)
  set(circles_missing "")
  foreach(component Interpreter Development.Module NumPy)
    if(NOT Python3_${component}_FOUND)
      list(APPEND circles_missing ${component})
    endif()
  endforeach()
  string(REPLACE ";" ", " circles_missing "${circles_missing}")
  message(WARNING "The Python module is not built: Python 3 (${Python3_EXECUTABLE}) lacks "
          "${circles_missing} (Debian: apt-get install python3-dev python3-numpy; or pass "
          "-DCIRCLES_PYTHON=/path/to/python3)")
  return()
endif()

find_package(pybind11 CONFIG QUIET)
if(NOT pybind11_FOUND)
  # pip's pybind11 knows where its CMake package is.
  execute_process(COMMAND "${Python3_EXECUTABLE}" -m pybind11 --cmakedir
                  OUTPUT_VARIABLE circles_pybind11_dir RESULT_VARIABLE circles_pybind11_rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(circles_pybind11_rc EQUAL 0 AND IS_DIRECTORY "${circles_pybind11_dir}")
    find_package(pybind11 CONFIG QUIET PATHS "${circles_pybind11_dir}" NO_DEFAULT_PATH)
  endif()
endif()
if(NOT pybind11_FOUND)
  message(WARNING "The Python module is not built: pybind11's CMake package was not found "
          "(Debian: apt-get install pybind11-dev python3-pybind11; pip: pass "
          "-Dpybind11_DIR=$(python3 -m pybind11 --cmakedir))")
  return()
endif()

message(STATUS "Python module: ${Python3_EXECUTABLE} (Python ${Python3_VERSION}, NumPy "
        "${Python3_NumPy_VERSION}), pybind11 ${pybind11_VERSION}")

set(circles_python_dir ${CMAKE_BINARY_DIR}/python/circles)

# The package's Python files, copied beside the extension whenever they change.
file(GLOB circles_python_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/circles/*.py)
set(circles_python_copies "")
foreach(source ${circles_python_sources})
  get_filename_component(name ${source} NAME)
  add_custom_command(OUTPUT ${circles_python_dir}/${name}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${circles_python_dir}
                     COMMAND ${CMAKE_COMMAND} -E copy_if_different ${source} ${circles_python_dir}/${name}
                     DEPENDS ${source}
                     COMMENT "Copying python/circles/${name}")
  list(APPEND circles_python_copies ${circles_python_dir}/${name})
endforeach()
add_custom_target(circles_python_files ALL DEPENDS ${circles_python_copies})

pybind11_add_module(circles_python python/circles_module.cpp)
target_link_libraries(circles_python PRIVATE circles_api)
# The generator expression keeps multi-config generators from adding a Debug/ or Release/ level.
set_target_properties(circles_python PROPERTIES OUTPUT_NAME _circles
                      LIBRARY_OUTPUT_DIRECTORY "${circles_python_dir}$<0:>")
add_dependencies(circles_python circles_python_files)

set(CIRCLES_HAVE_PYTHON 1)

# The pytest suite, against the module in the build tree and the command line beside it (the CLI
# comparisons). Registered where the chosen Python has pytest.
if(CIRCLES_TESTS)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import pytest"
                  RESULT_VARIABLE circles_pytest_rc OUTPUT_QUIET ERROR_QUIET)
  if(circles_pytest_rc EQUAL 0)
    add_test(NAME python_tests
             COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/tests/python)
    set_tests_properties(python_tests PROPERTIES
                         ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python;CIRCLES_BIN=$<TARGET_FILE:circles>"
                         LABELS cpu TIMEOUT 600)
  else()
    message(WARNING "The Python tests (tests/python) are not registered: ${Python3_EXECUTABLE} has no "
            "pytest (Debian: apt-get install python3-pytest)")
  endif()
endif()
