// REQUIRES: checker, cuda-headers
// RUN: %check_streamlife %s streamlife-free-before-wait -- %cuda_args -std=c++17 -I%S/Inputs/rmm
//
// One probe per RMM row of checks/clang/ApiModelRmm.cpp that synchronizes a
// stream: each read of an element copies it to the host and waits for the
// stream it is given, so that a release after it is clean only through the
// row (scripts/row-mutants.py; checks/README.md, "API rows and their
// probes"). The buffer is read on 'compute' and released on 'ag' by its
// destructor at the end of the function.

#include <rmm/device_scalar.hpp>
#include <rmm/device_uvector.hpp>

__global__ void consume(const float *p) {}
__global__ void count(int *p) {}

void elementSynchronizes(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute, std::size_t n) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  float first = v.element(0, compute);
  (void)first;
}

// front_element and back_element take the stream as their only argument.
void frontElementSynchronizes(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute, std::size_t n) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  float first = v.front_element(compute);
  (void)first;
}

void backElementSynchronizes(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute, std::size_t n) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  float last = v.back_element(compute);
  (void)last;
}

// Read on the allocation stream, the element waits for nothing of 'compute'.
void elementOnTheAllocationStream(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute, std::size_t n) {
  rmm::device_uvector<float> v(n, ag);
  consume<<<1, 32, 0, compute>>>(v.data());
  float last = v.back_element(ag);
  (void)last;
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'v' is released on stream 'ag' while stream 'compute' may still use it

void scalarValueSynchronizes(rmm::cuda_stream_view ag, rmm::cuda_stream_view compute) {
  rmm::device_scalar<int> hits(ag);
  count<<<1, 32, 0, compute>>>(hits.data());
  int seen = hits.value(compute);
  (void)seen;
}
