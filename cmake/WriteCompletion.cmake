# Saves a built tool's completion script for one shell, failing the build if
# the tool fails (a partial file is never left behind).
#   cmake -DTOOL=... -DSHELL_NAME=bash|zsh -DOUTPUT=... -P WriteCompletion.cmake
execute_process(COMMAND "${TOOL}" --generate-completion "${SHELL_NAME}"
                OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${TOOL} --generate-completion ${SHELL_NAME} failed (${rc})")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
