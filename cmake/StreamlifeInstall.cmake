# Install layout and the Debian package.
#
#   <prefix>/bin/streamlife
#   <prefix>/bin/streamlife-clang-tidy                      clang-tidy-22 with the plugin
#   <prefix>/<libdir>/streamlife/StreamlifeTidyModule.so   clang-tidy-22 --load
#   <prefix>/<libdir>/streamlife/libstreamlife_rt.so       streamlife run / LD_PRELOAD
#   <prefix>/share/doc/streamlife/                          README, docs/ (checks, CI, editors)
#   <prefix>/share/streamlife/python/sitecustomize.py       streamlife run's Python call sites
#
# The plugin and the runtime library are private to streamlife (nothing links
# against them), hence their own directory; `streamlife --print-plugin-path`
# and `streamlife run` find them relative to the executable (tool/
# InstallLayout.h), so the tree can be moved to any prefix.
set(STREAMLIFE_PKGLIBDIR "${CMAKE_INSTALL_LIBDIR}/streamlife")

if(TARGET streamlife)
  install(TARGETS streamlife RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT streamlife)
endif()
if(EXISTS ${PROJECT_BINARY_DIR}/bin/streamlife-clang-tidy)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/bin/streamlife-clang-tidy
          DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT streamlife)
endif()
if(TARGET StreamlifeTidyModule)
  install(TARGETS StreamlifeTidyModule LIBRARY DESTINATION ${STREAMLIFE_PKGLIBDIR}
          COMPONENT streamlife)
endif()
if(TARGET streamlife_rt)
  install(TARGETS streamlife_rt LIBRARY DESTINATION ${STREAMLIFE_PKGLIBDIR}
          COMPONENT streamlife)
endif()
# streamlife run puts <prefix>/share/streamlife/python first on PYTHONPATH
# (Python call sites in reports).
if(STREAMLIFE_BUILD_RUNTIME AND EXISTS ${PROJECT_SOURCE_DIR}/runtime-validator/python/sitecustomize.py)
  install(FILES runtime-validator/python/sitecustomize.py
          DESTINATION ${CMAKE_INSTALL_DATADIR}/streamlife/python COMPONENT streamlife)
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT streamlife)
# The pre-commit hook keeps its execute bit (install(DIRECTORY) would drop
# it), so that the installed copy works when linked or copied into .git/hooks.
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT streamlife
        PATTERN "pre-commit-hook"
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                    WORLD_READ WORLD_EXECUTE)

# cpack -G DEB (in the build directory) builds streamlife_<version>_<arch>.deb.
set(CPACK_PACKAGE_NAME "streamlife")
set(CPACK_PACKAGE_VENDOR "streamlife")
set(CPACK_PACKAGE_CONTACT "streamlife maintainers <streamlife@users.noreply.github.com>"
    CACHE STRING "Maintainer of the Debian package")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds cross-CUDA-stream buffer-lifetime bugs, statically and at run time")
set(CPACK_PACKAGE_HOMEPAGE_URL "${STREAMLIFE_PROJECT_URL}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo objects would make it ten times larger
set(CPACK_DEBIAN_COMPRESSION_TYPE "gzip")
# The checker links libLLVM/libclang-cpp 22 and parses with clang 22's
# resource headers; the plugin loads into clang-tidy 22 only.
if(STREAMLIFE_BUILD_CHECKER)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libllvm22, libclang-cpp22, libclang-common-22-dev")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-22")
endif()
include(CPack)
