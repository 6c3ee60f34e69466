# Embeds text files (plugline's own JS modules) into C++ as strings.
#
#   plugline_embed_text(<target> <symbol> <file>)
#
# generates <build>/embedded/<symbol>.cc defining
#   namespace plugline::embedded { extern const std::string_view <symbol>; }
# with the file's content, regenerated when the file changes, and adds it to <target>.
# Declare the symbol where it is used (see src/js/embedded.h).
function(plugline_embed_text target symbol file)
  set(_out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cc")
  add_custom_command(
    OUTPUT "${_out}"
    COMMAND "${CMAKE_COMMAND}" "-DINPUT=${file}" "-DOUTPUT=${_out}" "-DSYMBOL=${symbol}"
            -P "${PROJECT_SOURCE_DIR}/cmake/PluglineEmbedScript.cmake"
    DEPENDS "${file}" "${PROJECT_SOURCE_DIR}/cmake/PluglineEmbedScript.cmake"
    COMMENT "Embedding ${file}"
    VERBATIM)
  # The target may live in another directory, which cannot see this rule: a custom target here
  # runs it first, and the file is marked generated where the target is.
  add_custom_target(plugline_embed_${symbol} DEPENDS "${_out}")
  add_dependencies(${target} plugline_embed_${symbol})
  set_source_files_properties("${_out}" TARGET_DIRECTORY ${target} PROPERTIES GENERATED TRUE)
  target_sources(${target} PRIVATE "${_out}")
endfunction()
