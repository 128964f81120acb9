# tree-sitter (runtime) and tree-sitter-python (grammar), built from the C
# sources their npm packages ship (both MIT; see README "Python front end").
# The sources are never committed: scripts/fetch-tree-sitter.sh brings them
# into third_party/ (git-ignored); configure runs it when they are missing.
#
# Defines streamlifeTreeSitter (static, C) and STREAMLIFE_HAVE_TREE_SITTER.
set(STREAMLIFE_TREE_SITTER_DIR "${PROJECT_SOURCE_DIR}/third_party" CACHE PATH
    "Where scripts/fetch-tree-sitter.sh unpacks the tree-sitter npm packages")
set(_ts_runtime "${STREAMLIFE_TREE_SITTER_DIR}/tree-sitter-0.25.0/vendor/tree-sitter/lib")
set(_ts_python "${STREAMLIFE_TREE_SITTER_DIR}/tree-sitter-python-0.25.0/src")

if(NOT EXISTS "${_ts_runtime}/src/lib.c" OR NOT EXISTS "${_ts_python}/parser.c")
  message(STATUS "streamlife: fetching tree-sitter sources from npm (scripts/fetch-tree-sitter.sh)")
  execute_process(COMMAND "${PROJECT_SOURCE_DIR}/scripts/fetch-tree-sitter.sh"
                          "${STREAMLIFE_TREE_SITTER_DIR}"
                  RESULT_VARIABLE _ts_fetch_status)
endif()

set(STREAMLIFE_HAVE_TREE_SITTER OFF)
if(EXISTS "${_ts_runtime}/src/lib.c" AND EXISTS "${_ts_python}/parser.c")
  # lib.c is the runtime's single-file ("amalgamation") build.
  add_library(streamlifeTreeSitter STATIC
    "${_ts_runtime}/src/lib.c"
    "${_ts_python}/parser.c"
    "${_ts_python}/scanner.c")
  set_target_properties(streamlifeTreeSitter PROPERTIES
    C_STANDARD 11 POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  target_include_directories(streamlifeTreeSitter PRIVATE "${_ts_runtime}/src" "${_ts_python}")
  target_include_directories(streamlifeTreeSitter SYSTEM PUBLIC "${_ts_runtime}/include")
  # Third-party C: its warnings are not ours to fix.
  target_compile_options(streamlifeTreeSitter PRIVATE -w)
  target_compile_definitions(streamlifeTreeSitter PRIVATE _POSIX_C_SOURCE=200112L _DEFAULT_SOURCE)
  set(STREAMLIFE_HAVE_TREE_SITTER ON)
else()
  message(STATUS "streamlife: no tree-sitter sources in ${STREAMLIFE_TREE_SITTER_DIR}")
endif()
