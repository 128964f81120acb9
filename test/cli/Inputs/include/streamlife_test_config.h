// Found only through the -I of needs-flags.cu's compile command.
#define STREAMLIFE_TEST_ELEMENTS 256
