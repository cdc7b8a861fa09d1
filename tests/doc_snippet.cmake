# Checks that a doc quotes a source file's region verbatim, so code shown in the docs is code
# that compiles and runs. The region is the text between the lines `// MARKER:begin` and
# `// MARKER:end` of SOURCE; the doc holds it in a fenced block between the lines
# `<!-- MARKER:begin -->` and `<!-- MARKER:end -->` (the fence lines themselves excluded).
#
#   cmake -DDOC=docs/x.md -DSOURCE=examples/y.cc -DMARKER=tutorial -P tests/doc_snippet.cmake
foreach(var DOC SOURCE MARKER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "doc_snippet: -D${var}=... is required")
  endif()
endforeach()

# The text strictly between the line holding `begin` and the line holding `end`.
function(region file begin end out)
  file(READ ${file} text)
  string(FIND "${text}" "${begin}" b)
  string(FIND "${text}" "${end}" e)
  if(b EQUAL -1 OR e EQUAL -1 OR e LESS b)
    message(FATAL_ERROR "doc_snippet: ${file} has no '${begin}' ... '${end}' region")
  endif()
  string(SUBSTRING "${text}" ${b} -1 rest)
  string(FIND "${rest}" "\n" nl)
  math(EXPR start "${b} + ${nl} + 1")
  string(SUBSTRING "${text}" 0 ${e} upto)
  string(FIND "${upto}" "\n" last_nl REVERSE)
  math(EXPR length "${last_nl} + 1 - ${start}")
  string(SUBSTRING "${text}" ${start} ${length} inner)
  set(${out} "${inner}" PARENT_SCOPE)
endfunction()

region(${SOURCE} "// ${MARKER}:begin" "// ${MARKER}:end" code)
region(${DOC} "<!-- ${MARKER}:begin -->" "<!-- ${MARKER}:end -->" quoted)
# Drop the fence lines of the quote (```cpp and ```).
string(REGEX REPLACE "^```[a-z+]*\n" "" quoted "${quoted}")
string(REGEX REPLACE "```\n$" "" quoted "${quoted}")
if(NOT code STREQUAL quoted)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/doc_snippet.code "${code}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/doc_snippet.quoted "${quoted}")
  message(FATAL_ERROR "doc_snippet: ${DOC} does not quote ${SOURCE}'s '${MARKER}' region "
                      "verbatim (diff ${CMAKE_CURRENT_BINARY_DIR}/doc_snippet.code "
                      "${CMAKE_CURRENT_BINARY_DIR}/doc_snippet.quoted)")
endif()
message(STATUS "doc_snippet: ${DOC} quotes ${SOURCE} (${MARKER}) verbatim")
