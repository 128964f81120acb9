# cmake -DSTREAMLIFE=<built streamlife> -DPAGES="streamlife;streamlife-check;..."
#       -DOUT=<build>/share -P GenerateCommandDocs.cmake
#
# Writes the man pages (gzip -9n: compressed as Debian installs them, without
# a timestamp, so that builds are reproducible) and the bash and zsh
# completions, each rendered by `streamlife --print-man-page` /
# `--print-completion` from the option tables behind --help.
find_program(GZIP gzip REQUIRED)

function(run_streamlife output)
  get_filename_component(dir "${output}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${STREAMLIFE}" ${ARGN} OUTPUT_FILE "${output}.tmp"
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    file(REMOVE "${output}.tmp")
    message(FATAL_ERROR "streamlife ${ARGN} failed (${status})")
  endif()
  file(RENAME "${output}.tmp" "${output}")
endfunction()

foreach(page IN LISTS PAGES)
  set(man "${OUT}/man/man1/${page}.1")
  run_streamlife("${man}" --print-man-page "${page}")
  execute_process(COMMAND "${GZIP}" -9nf "${man}" RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "gzip ${man} failed (${status})")
  endif()
endforeach()
run_streamlife("${OUT}/bash-completion/completions/streamlife" --print-completion bash)
run_streamlife("${OUT}/zsh/vendor-completions/_streamlife" --print-completion zsh)
