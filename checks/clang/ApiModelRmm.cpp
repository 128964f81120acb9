//===--- ApiModelRmm.cpp - streamlife -------------------------------------===//
//
// The RMM rows of the API model (rapidsai/rmm's cpp/include/rmm): owned
// stream-ordered buffers allocated and released on their stream, the stream
// views, and the fork/join helpers libraries build over rmm stream pools
// (cudf::detail::fork_streams / join_streams) as stream-waits-on-streams rows.
//
//===----------------------------------------------------------------------===//

#include "ApiModel.h"

namespace clang {
namespace tidy {
namespace streamlife {

namespace {
void insertAll(llvm::StringSet<> &Set,
               std::initializer_list<llvm::StringRef> Names) {
  for (llvm::StringRef Name : Names)
    Set.insert(Name);
}
} // namespace

void ApiModel::addRmmRows() {
  addClass("rmm::cuda_stream_view", ClassKind::Stream);
  addClass("rmm::cuda_stream", ClassKind::Stream);
  for (llvm::StringRef Buffer :
       {"rmm::device_buffer", "rmm::device_uvector", "rmm::device_scalar"}) {
    addClass(Buffer, ClassKind::OwnedBuffer);
    std::string B = Buffer.str();
    // The constructors that take a stream allocate on it (the stream's
    // position differs between overloads: the declaration's stream
    // parameter is used). The object is released on its stream.
    ApiSignature Alloc{OpKind::Allocate};
    Alloc.Buffer = Operand::thisObject();
    Alloc.Stream = 1;
    add(B + "::" + Buffer.rsplit("::").second.str(), Alloc);
    ApiSignature SetStream{OpKind::SetReleaseStream};
    SetStream.Buffer = Operand::thisObject();
    SetStream.Stream = 0;
    add(B + "::set_stream", SetStream);
  }
  // Element reads copy to the host and synchronize the given stream.
  ApiSignature Sync{OpKind::SyncStream};
  Sync.Stream = 1;
  add("rmm::device_uvector::element", Sync);
  add("rmm::device_uvector::front_element", Sync);
  add("rmm::device_uvector::back_element", Sync);
  ApiSignature ScalarSync{OpKind::SyncStream};
  ScalarSync.Stream = 0;
  add("rmm::device_scalar::value", ScalarSync);
  for (llvm::StringRef Stream : {"rmm::cuda_stream_view", "rmm::cuda_stream"})
    for (llvm::StringRef Method : {"synchronize", "synchronize_no_throw"}) {
      ApiSignature S{OpKind::SyncStream};
      S.Stream = Operand::thisObject();
      add((Stream + "::" + Method).str(), S);
    }
  insertAll(BufferAccessors, {"data", "begin", "element_ptr"});

  // Fork/join helpers over stream pools, as "stream waits on streams" rows
  // (more through the StreamWaitFunctions option).
  ApiSignature Join{OpKind::StreamWaitStreams};
  Join.Stream = 1;  // the joined stream ...
  Join.Stream2 = 0; // ... waits on every stream of the span
  add("cudf::detail::join_streams", Join);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
