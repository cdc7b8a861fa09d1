# Checks that a doc quotes a source file's region verbatim, so code shown in the docs is code
# that compiles and runs. The region is the text between the lines `// MARKER:begin` and
# `// MARKER:end` of SOURCE; the doc holds it in a fenced block between the lines
# `<!-- MARKER:begin -->` and `<!-- MARKER:end -->` (the fence lines themselves excluded).
#
#   cmake -DDOC=docs/x.md -DSOURCE=examples/y.cc -DMARKER=tutorial -P tests/doc_snippet.cmake
cmake_policy(SET CMP0007 NEW)  # keep empty lines in the lists below
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
  # Say where they part: the first line that differs.
  # Lines as lists: C++'s own semicolons are set aside first.
  string(REPLACE ";" "<semicolon>" code_lines "${code}")
  string(REPLACE ";" "<semicolon>" quoted_lines "${quoted}")
  string(REPLACE "\n" ";" code_lines "${code_lines}")
  string(REPLACE "\n" ";" quoted_lines "${quoted_lines}")
  list(LENGTH code_lines n)
  set(where "the end of the quote")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    list(GET code_lines ${i} a)
    list(LENGTH quoted_lines m)
    if(i GREATER_EQUAL m)
      break()
    endif()
    list(GET quoted_lines ${i} b)
    if(NOT a STREQUAL b)
      math(EXPR line "${i} + 1")
      string(REPLACE "<semicolon>" ";" a "${a}")
      string(REPLACE "<semicolon>" ";" b "${b}")
      set(where "line ${line} of the region: '${a}' (source) vs '${b}' (doc)")
      break()
    endif()
  endforeach()
  message(FATAL_ERROR "doc_snippet: ${DOC} does not quote ${SOURCE}'s '${MARKER}' region "
                      "verbatim; they differ at ${where}")
endif()
message(STATUS "doc_snippet: ${DOC} quotes ${SOURCE} (${MARKER}) verbatim")
