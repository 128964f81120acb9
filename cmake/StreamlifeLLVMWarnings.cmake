# Warnings for targets that include LLVM/Clang headers.
#
# The headers are already on the -isystem path (the imported LLVM/Clang
# targets and our SYSTEM include directories), which silences what GCC
# diagnoses while parsing them. It does not silence GCC's middle-end
# -Wnonnull, which is issued after inlining and points into the header that
# was inlined: every TU including clang/ASTMatchers/ASTMatchers.h gets pages of
# "'this' pointer is null" from clang/AST/ExternalASTSource.h:428
# (LazyOffsetPtr::get through CXXRecordDecl::bases()). That one warning is
# turned off for these targets, for GCC only; everything else stays on, so
# the project's own warnings are visible. Targets without LLVM headers (the
# runtime validator) keep -Wnonnull.
function(streamlife_llvm_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
                         -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-nonnull)
  endif()
endfunction()
