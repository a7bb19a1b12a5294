# Writes OUT, a C++ file defining `std::string_view NAME()` with the text of IN (a page's script),
# so the script lives in a file of its own and the binary still holds the whole page.
#   cmake -DIN=file.js -DOUT=file.cpp -DNAME=function -P embed_text.cmake
file(READ "${IN}" text)
string(FIND "${text}" ")EMBEDDED\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} holds the raw string's delimiter )EMBEDDED\"")
endif()
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by harness/embed_text.cmake: edit that file, not this one.\n#include <string_view>\n\nnamespace harness {\n\nstd::string_view ${NAME}() {\n  static constexpr std::string_view text = R\"EMBEDDED(${text})EMBEDDED\";\n  return text;\n}\n\n}  // namespace harness\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
