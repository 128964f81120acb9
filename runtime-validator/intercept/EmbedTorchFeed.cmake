# Writes the PyTorch allocator feed's source and the annotation header as C++
# string literals (TorchFeed.cpp compiles them at run time against the
# installed torch). Usage: cmake -DFEED=... -DHEADER=... -DOUT=... -P this
file(READ ${FEED} FEED_TEXT)
file(READ ${HEADER} HEADER_TEXT)
file(WRITE ${OUT}.tmp
  "// Generated from ${FEED} and ${HEADER}; do not edit.\n"
  "static const char TorchAllocatorFeedSource[] = R\"streamlife(${FEED_TEXT})streamlife\";\n"
  "static const char AnnotationsHeaderSource[] = R\"streamlife(${HEADER_TEXT})streamlife\";\n")
file(RENAME ${OUT}.tmp ${OUT})
