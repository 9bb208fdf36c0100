# Man pages (help2man, from each tool's --help and --version) and bash/zsh
# completions (each tool's hidden --generate-completion), generated at build
# time from the tools' own option definitions, and their installation.
# Included from tools/CMakeLists.txt after the tool targets.
include(GNUInstallDirs)

set(ETKIT_TOOLS et-run et-dump-decode et-record-inspect et-inspect et-compare et-graph et-fleet)
# The NAME line of each man page (the README's tool table).
set(summary_et-run "run ExecuTorch programs and bundled programs on the host")
set(summary_et-dump-decode "convert ExecuTorch programs, ETDumps and bundled programs to JSON and back")
set(summary_et-record-inspect "show what an ExecuTorch ETRecord holds")
set(summary_et-inspect "per-operator profiling tables and reports from an ExecuTorch ETDump")
set(summary_et-compare "compare the outputs, intermediates and timings of ExecuTorch runs")
set(summary_et-graph "draw the dataflow graph of an ExecuTorch program")
set(summary_et-fleet "tables, comparisons and regression gates over many ExecuTorch ETDumps")

install(TARGETS ${ETKIT_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(completion_dir ${PROJECT_BINARY_DIR}/completions)
set(completion_files)
foreach(tool IN LISTS ETKIT_TOOLS)
  foreach(shell bash zsh)
    if(shell STREQUAL "zsh")
      set(out ${completion_dir}/zsh/_${tool})
    else()
      set(out ${completion_dir}/bash/${tool})
    endif()
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${completion_dir}/${shell}
      COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:${tool}> -DSHELL_NAME=${shell}
              -DOUTPUT=${out} -P ${PROJECT_SOURCE_DIR}/cmake/WriteCompletion.cmake
      DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/cmake/WriteCompletion.cmake
      COMMENT "${shell} completion for ${tool}"
      VERBATIM)
    list(APPEND completion_files ${out})
  endforeach()
  install(FILES ${completion_dir}/bash/${tool} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${completion_dir}/zsh/_${tool} DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
endforeach()
add_custom_target(etkit_completions ALL DEPENDS ${completion_files})

find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(STATUS "help2man not found: no man pages (Debian package help2man; scripts/setup.sh installs it)")
  return()
endif()
set(man_dir ${PROJECT_BINARY_DIR}/man)
set(man_files)
foreach(tool IN LISTS ETKIT_TOOLS)
  set(out ${man_dir}/${tool}.1)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}
    COMMAND ${HELP2MAN} --no-info --section=1 --name=${summary_${tool}} --output=${out} $<TARGET_FILE:${tool}>
    DEPENDS ${tool}
    COMMENT "man page for ${tool} (help2man)"
    VERBATIM)
  list(APPEND man_files ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()
add_custom_target(etkit_man ALL DEPENDS ${man_files})
