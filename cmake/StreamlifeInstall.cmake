# Install layout and the Debian package.
#
#   <prefix>/bin/streamlife
#   <prefix>/bin/streamlife-clang-tidy                      clang-tidy-22 with the plugin
#   <prefix>/<libdir>/streamlife/StreamlifeTidyModule.so   clang-tidy-22 --load
#   <prefix>/<libdir>/streamlife/libstreamlife_rt.so       streamlife run / LD_PRELOAD
#   <prefix>/share/doc/streamlife/                          README, docs/ (checks, CI, editors)
#   <prefix>/share/streamlife/python/sitecustomize.py       streamlife run's Python call sites
#   <prefix>/share/man/man1/streamlife{,-check,-compdb,-run,-timeline,-clang-tidy}.1.gz
#   <prefix>/share/bash-completion/completions/streamlife   bash-completion loads it on demand
#   <prefix>/share/zsh/vendor-completions/_streamlife       on Debian's default $fpath
#   <prefix>/share/doc/streamlife/{copyright,changelog.gz}  as Debian policy places them
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
# Man pages and completions, generated from the option tables (tool/
# CMakeLists.txt); only the pages of the commands this build has.
foreach(page IN LISTS STREAMLIFE_MAN_PAGES)
  install(FILES ${STREAMLIFE_GENERATED_SHARE}/man/man1/${page}.1.gz
          DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT streamlife)
endforeach()
install(FILES ${STREAMLIFE_GENERATED_SHARE}/bash-completion/completions/streamlife
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT streamlife)
set(STREAMLIFE_INSTALL_ZSH_COMPLETION_DIR "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions"
    CACHE STRING "Where _streamlife goes (zsh's own default is share/zsh/site-functions)")
install(FILES ${STREAMLIFE_GENERATED_SHARE}/zsh/vendor-completions/_streamlife
        DESTINATION ${STREAMLIFE_INSTALL_ZSH_COMPLETION_DIR} COMPONENT streamlife)

# The copyright and the changelog, where Debian policy puts them (lintian
# requires both; a native package's changelog is changelog.gz, gzip -9n).
find_program(STREAMLIFE_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/share/doc/changelog.gz
  COMMAND ${STREAMLIFE_GZIP} -9nc ${PROJECT_SOURCE_DIR}/cmake/debian/changelog
          > ${PROJECT_BINARY_DIR}/share/doc/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/cmake/debian/changelog)
add_custom_target(streamlife-changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/share/doc/changelog.gz)
install(FILES cmake/debian/copyright ${PROJECT_BINARY_DIR}/share/doc/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT streamlife)
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
# The control file's extended description (CPack indents it and marks its
# empty lines with " .").
set(CPACK_PACKAGE_DESCRIPTION [=[
A caching or stream-ordered allocator only knows the stream a block was
allocated on and hands a freed block to the next allocation on that stream.
When another CUDA stream still reads the block as the host releases it, the
next allocation overwrites it during the read: silent, timing-dependent
corruption.

streamlife finds these bugs in two ways:
 * streamlife check: a static checker for C++, CUDA and Python (PyTorch)
   source, for CI (text, JSON and SARIF reports, baselines, fix-its), and
   a clang-tidy 22 plugin for editors (streamlife-clang-tidy);
 * streamlife run: a runtime validator preloaded into unmodified CUDA and
   Python programs (PyTorch's caching allocator, cudaMallocAsync pools,
   NCCL, annotated custom allocators), which reports an unsafe release in
   every run, not only when the GPU corrupted data.

Man pages: streamlife(1), streamlife-check(1), streamlife-compdb(1),
streamlife-run(1), streamlife-timeline(1), streamlife-clang-tidy(1).]=])
set(CPACK_PACKAGE_HOMEPAGE_URL "${STREAMLIFE_PROJECT_URL}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo objects would make it ten times larger
set(CPACK_DEBIAN_COMPRESSION_TYPE "gzip")
# dpkg-shlibdeps derives the linked libraries' packages (libc6, libstdc++6,
# libllvm22, libclang-cpp22) from the ELF files; listed by hand is what is used
# in other ways: the checker parses with clang 22's resource headers, and the
# plugin loads into clang-tidy 22 only. (CPack adds an ldconfig call to
# postinst/postrm for any .so under /usr/lib, private or not: lintian's two
# maintscript-calls-ldconfig warnings come from that.)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(_streamlife_depends "")
if(STREAMLIFE_BUILD_CHECKER)
  set(_streamlife_depends "libclang-common-22-dev")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-22")
endif()
# Without dpkg-shlibdeps (dpkg-dev) CPack would silently drop the libraries'
# packages, libc6 included: list them unversioned instead.
find_program(STREAMLIFE_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(NOT STREAMLIFE_DPKG_SHLIBDEPS)
  message(STATUS "streamlife: no dpkg-shlibdeps (dpkg-dev): the .deb's library dependencies "
                 "are listed without versions")
  list(APPEND _streamlife_depends libc6 libstdc++6 libgcc-s1)
  if(STREAMLIFE_BUILD_CHECKER)
    list(APPEND _streamlife_depends libllvm22 libclang-cpp22)
  endif()
endif()
list(JOIN _streamlife_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
include(CPack)
