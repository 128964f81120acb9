// REQUIRES: checker
// RUN: %check_streamlife %s streamlife-record-stream-in-loop -- -std=c++17
// RUN: %check_streamlife %s streamlife-record-stream-in-loop -expect-no-fixes -- -std=c++17
// RUN: %check_streamlife -check-suffixes=,OPT %s streamlife-record-stream-in-loop \
// RUN:   -config='{CheckOptions: {streamlife-record-stream-in-loop.RecordStreamFunctions: "mylib::handOff"}}' \
// RUN:   -- -std=c++17
//
// streamlife-record-stream-in-loop: record_stream / recordStream inside a
// loop body hands buffer reuse to the allocator's event polling; outside
// loops (a one-off hand-off) it is fine. Declarations mirror PyTorch's; the
// real headers are exercised by record-stream-in-loop-aten.cpp.

namespace c10 {
struct Stream {};
struct DataPtr {};
namespace cuda {
struct CUDAStream {
  operator c10::Stream() const { return {}; }
};
namespace CUDACachingAllocator {
void recordStream(const DataPtr &ptr, CUDAStream stream);
} // namespace CUDACachingAllocator
} // namespace cuda
} // namespace c10
namespace at {
using c10::Stream;
class Tensor {
public:
  void record_stream(Stream s) const;
  const c10::DataPtr &data_ptr_impl() const;
};
} // namespace at
namespace mylib {
void handOff(const at::Tensor &t, c10::Stream s);
}

void forLoop(at::Tensor *params, c10::cuda::CUDAStream compute, int n) {
  for (int i = 0; i < n; ++i) {
    params[i].record_stream(compute);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: record_stream on 'params[i]' inside a loop hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release [streamlife-record-stream-in-loop]
    // CHECK-NOTES: :[[@LINE-3]]:3: note: inside this loop
    // CHECK-NOTES: :[[@LINE-3]]:5: note: no automatic fix: instead, keep 'params[i]' with an event recorded on the consumer stream after its use in a keepalive queue, and drop it only after the allocation stream waited on that event
  }
}

void whileLoop(at::Tensor t, c10::Stream s, int n) {
  while (n--)
    t.record_stream(s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' inside a loop
}

void doWhileLoop(at::Tensor t, c10::Stream s, int n) {
  do {
    t.record_stream(s);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' inside a loop
  } while (--n > 0);
}

void rangeFor(at::Tensor (&tensors)[4], c10::Stream s) {
  for (const at::Tensor &t : tensors)
    t.record_stream(s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' inside a loop
}

// The allocator-level recordStream, matched by qualified name.
void allocatorRecordStream(at::Tensor t, c10::cuda::CUDAStream s, int n) {
  for (int i = 0; i < n; ++i)
    c10::cuda::CUDACachingAllocator::recordStream(t.data_ptr_impl(), s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't.data_ptr_impl()' inside a loop
}

// Nested loops: reported once, against the innermost loop.
void nested(at::Tensor t, c10::Stream s) {
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      t.record_stream(s);
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: record_stream on 't' inside a loop
  // CHECK-NOTES: :[[@LINE-3]]:5: note: inside this loop
}

// Outside a loop: a one-off hand-off in a cold path is fine.
void once(at::Tensor t, c10::Stream s) { t.record_stream(s); }

// A lambda written inside a loop is not run by the loop: its body is its own
// function.
void lambdaInLoop(at::Tensor t, c10::Stream s, int n) {
  for (int i = 0; i < n; ++i) {
    auto handOff = [&] { t.record_stream(s); };
    (void)handOff;
  }
}

// ... but a loop inside a lambda counts.
void loopInLambda(at::Tensor t, c10::Stream s) {
  auto handOffAll = [&](int n) {
    for (int i = 0; i < n; ++i)
      t.record_stream(s);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: record_stream on 't' inside a loop
  };
  handOffAll(3);
}

// The init statement of a for loop runs once.
void forInit(at::Tensor t, c10::Stream s) {
  for (t.record_stream(s);;)
    break;
}

// Other functions named record_stream are not PyTorch's.
struct Other {
  void record_stream(c10::Stream s);
};
void unrelated(Other o, c10::Stream s, int n) {
  for (int i = 0; i < n; ++i)
    o.record_stream(s);
}

// Extra functions via the RecordStreamFunctions option.
void userHandOff(at::Tensor t, c10::Stream s, int n) {
  for (int i = 0; i < n; ++i)
    mylib::handOff(t, s);
  // CHECK-MESSAGES-OPT: :[[@LINE-1]]:5: warning: record_stream on 't' inside a loop
}

// NOLINT works.
void silenced(at::Tensor t, c10::Stream s, int n) {
  for (int i = 0; i < n; ++i)
    t.record_stream(s); // NOLINT(streamlife-record-stream-in-loop)
}
