//===- InterceptNccl.cpp - NCCL collectives as accesses on their stream ---===//
//
// Mechanism: symbol interposition (Interposition.h). libtorch_cuda.so lists
// libnccl.so.2 as a DT_NEEDED library (measured on the GPU machine, torch 2.11 + the
// nvidia-nccl wheel, NCCL 2.28.9), so its calls bind through the dynamic
// linker's global scope, where the preloaded validator comes first. Each
// definition below forwards to the real one (looked up once, see next())
// and, when the call succeeded, records its buffers (NcclCollectives.h) as
// accesses on the call's stream: NCCL's kernels carry no user pointers in
// their parameters, so the kernel launch alone would show none.
//
// Inside ncclGroupStart/ncclGroupEnd the calls are only enqueued by NCCL at
// the group's end: the accesses are kept per thread and recorded when the
// outermost ncclGroupEnd returns success.
//
// A process that never loads NCCL never reaches these; one whose NCCL is
// loaded with dlopen(RTLD_LOCAL) and called through dlsym on that handle is
// not seen (then collectives' buffers are simply not accesses).
//
//===----------------------------------------------------------------------===//
#include "intercept/Interposition.h"
#include "intercept/NcclCollectives.h"

#include <vector>

namespace streamlife {
namespace rt {

namespace {

using Result = int; // ncclResult_t; 0 is ncclSuccess
using Comm = void *;
using Stream = CUstream;

/// ncclInvalidUsage (nccl.h): what a call returns when no NCCL follows us.
constexpr Result NoNccl = 5;

struct Pending {
  Stream S;
  const char *Label; ///< the API's name, a literal
  NameId Name;
  NcclBuffers Buffers;
  std::vector<void *> Frames;
};

thread_local int GroupDepth = 0;
thread_local std::vector<Pending> Grouped;

/// The real NCCL function (Interposition.h says how it is found).
template <typename Fn> Fn next(const char *Name) { return nextFunction<Fn>(Name, {"libnccl.so.2"}); }

int ranksOf(Comm C) {
  static auto CommCount = next<Result (*)(Comm, int *)>("ncclCommCount");
  int N = 1;
  if (!CommCount || CommCount(C, &N) != 0 || N < 1)
    N = 1;
  return N;
}

void record(const Pending &P) {
  InterceptScope Scope(profileSlot(P.Label));
  if (!Scope)
    return;
  const InterceptContext &I = Scope.context();
  I.launched(I.stream(P.S), P.Buffers.Ranges, I.op(P.Name, P.Frames));
  I.countCollective(P.Label);
}

/// After a successful call: record it now, or at the group's end.
void collective(const char *Name, NcclCall Call, const void *Send, const void *Recv, std::size_t Count,
                int DataType, Comm C, Stream S) {
  ValidatorRuntime *R = runtime();
  if (!R)
    return;
  InterceptContext I(*R);
  Pending P{S, Name, I.name(Name), ncclBuffers(Call, Send, Recv, Count, DataType, ranksOf(C)),
            I.nativeStack()};
  if (GroupDepth > 0)
    Grouped.push_back(std::move(P));
  else
    record(P);
}

} // namespace

} // namespace rt
} // namespace streamlife

using namespace streamlife::rt;

#define STREAMLIFE_NCCL_EXPORT extern "C" __attribute__((visibility("default")))

STREAMLIFE_NCCL_EXPORT Result ncclAllReduce(const void *Send, void *Recv, std::size_t Count, int DataType, int Op,
                                            Comm C, Stream S) {
  static auto Real = next<Result (*)(const void *, void *, std::size_t, int, int, Comm, Stream)>("ncclAllReduce");
  Result Rc = Real ? Real(Send, Recv, Count, DataType, Op, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclAllReduce", NcclCall::AllReduce, Send, Recv, Count, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclAllGather(const void *Send, void *Recv, std::size_t SendCount, int DataType,
                                            Comm C, Stream S) {
  static auto Real = next<Result (*)(const void *, void *, std::size_t, int, Comm, Stream)>("ncclAllGather");
  Result Rc = Real ? Real(Send, Recv, SendCount, DataType, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclAllGather", NcclCall::AllGather, Send, Recv, SendCount, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclReduceScatter(const void *Send, void *Recv, std::size_t RecvCount, int DataType,
                                                int Op, Comm C, Stream S) {
  static auto Real =
      next<Result (*)(const void *, void *, std::size_t, int, int, Comm, Stream)>("ncclReduceScatter");
  Result Rc = Real ? Real(Send, Recv, RecvCount, DataType, Op, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclReduceScatter", NcclCall::ReduceScatter, Send, Recv, RecvCount, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclBroadcast(const void *Send, void *Recv, std::size_t Count, int DataType, int Root,
                                            Comm C, Stream S) {
  static auto Real = next<Result (*)(const void *, void *, std::size_t, int, int, Comm, Stream)>("ncclBroadcast");
  Result Rc = Real ? Real(Send, Recv, Count, DataType, Root, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclBroadcast", NcclCall::Broadcast, Send, Recv, Count, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclReduce(const void *Send, void *Recv, std::size_t Count, int DataType, int Op,
                                         int Root, Comm C, Stream S) {
  static auto Real =
      next<Result (*)(const void *, void *, std::size_t, int, int, int, Comm, Stream)>("ncclReduce");
  Result Rc = Real ? Real(Send, Recv, Count, DataType, Op, Root, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclReduce", NcclCall::Reduce, Send, Recv, Count, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclSend(const void *Send, std::size_t Count, int DataType, int Peer, Comm C,
                                       Stream S) {
  static auto Real = next<Result (*)(const void *, std::size_t, int, int, Comm, Stream)>("ncclSend");
  Result Rc = Real ? Real(Send, Count, DataType, Peer, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclSend", NcclCall::Send, Send, nullptr, Count, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclRecv(void *Recv, std::size_t Count, int DataType, int Peer, Comm C, Stream S) {
  static auto Real = next<Result (*)(void *, std::size_t, int, int, Comm, Stream)>("ncclRecv");
  Result Rc = Real ? Real(Recv, Count, DataType, Peer, C, S) : NoNccl;
  if (Rc == 0)
    collective("ncclRecv", NcclCall::Recv, nullptr, Recv, Count, DataType, C, S);
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclGroupStart() {
  static auto Real = next<Result (*)()>("ncclGroupStart");
  Result Rc = Real ? Real() : NoNccl;
  if (Rc == 0)
    ++GroupDepth;
  return Rc;
}

STREAMLIFE_NCCL_EXPORT Result ncclGroupEnd() {
  static auto Real = next<Result (*)()>("ncclGroupEnd");
  Result Rc = Real ? Real() : NoNccl;
  if (GroupDepth > 0 && --GroupDepth == 0) {
    std::vector<Pending> Done;
    Done.swap(Grouped);
    if (Rc == 0) // a failed group enqueued nothing
      for (const Pending &P : Done)
        record(P);
  }
  return Rc;
}
