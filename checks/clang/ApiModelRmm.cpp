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
  // Element reads copy to the host and synchronize the given stream:
  // element(i, stream), front_element(stream), back_element(stream).
  ApiSignature Sync{OpKind::SyncStream};
  Sync.Stream = 1;
  add("rmm::device_uvector::element", Sync);
  ApiSignature EndSync{OpKind::SyncStream};
  EndSync.Stream = 0;
  add("rmm::device_uvector::front_element", EndSync);
  add("rmm::device_uvector::back_element", EndSync);
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

  // libcudf's vector factories (cudf/detail/utilities/vector_factories.hpp)
  // return a device_uvector allocated on their stream parameter, filled
  // there from a host or device source, or zeroed.
  for (llvm::StringRef Factory :
       {"cudf::detail::make_device_uvector_async",
        "cudf::detail::make_device_uvector",
        "cudf::detail::make_zeroed_device_uvector_async",
        "cudf::detail::make_zeroed_device_uvector"}) {
    ApiSignature Make{OpKind::Allocate};
    Make.Buffer = Operand::returnValue();
    Make.Stream = 1;
    add(Factory, Make);
  }

  // libcudf columns own rmm buffers: a factory allocates them on its stream
  // (the declaration's stream parameter), the column releases them there
  // unless rebind_stream moved the release to another stream.
  addClass("cudf::column", ClassKind::OwnedBuffer);
  for (llvm::StringRef Factory :
       {"cudf::make_numeric_column", "cudf::make_fixed_width_column",
        "cudf::make_timestamp_column", "cudf::make_duration_column",
        "cudf::make_fixed_point_column"}) {
    ApiSignature Make{OpKind::Allocate};
    Make.Buffer = Operand::returnValue();
    Make.Stream = 0; // the data_type: bind() takes the one stream parameter
    add(Factory, Make);
  }
  ApiSignature Rebind{OpKind::RebindStream};
  Rebind.Buffer = 0;
  Rebind.Stream = 1;
  add("cudf::rebind_stream", Rebind);

  // Fork/join helpers over stream pools, as "streams wait on streams" rows
  // (more through the StreamForkFunctions and StreamWaitFunctions options).
  ApiSignature Fork{OpKind::ForkStreams};
  Fork.Stream = Operand::returnValue(); // the pool streams returned ...
  Fork.Stream2 = 0;                     // ... wait on the forked stream
  add("cudf::detail::fork_streams", Fork);
  ApiSignature Join{OpKind::StreamWaitStreams};
  Join.Stream = 1;  // the joined stream ...
  Join.Stream2 = 0; // ... waits on every stream of the span
  add("cudf::detail::join_streams", Join);
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
