// REQUIRES: checker, cuda-headers
// RUN: %clang_tidy -load %streamlife_plugin -checks='-*,streamlife-free-before-wait' \
// RUN:   -config='{CheckOptions: {streamlife-free-before-wait.ReleaseFunctions: "myFree:zero:1"}}' \
// RUN:   %s -- %cuda_args 2>&1 | %FileCheck %s
//
// A malformed API row in the options is reported, not ignored silently.

// CHECK: warning: invalid entry 'myFree:zero:1' in option 'ReleaseFunctions' of check 'streamlife-free-before-wait': expected 'name:buffer-argument:stream-argument' with integer argument positions [clang-tidy-config]

void nothing() {}
