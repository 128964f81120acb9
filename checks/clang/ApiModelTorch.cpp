//===--- ApiModelTorch.cpp - streamlife -----------------------------------===//
//
// The PyTorch C++ (c10 / ATen) rows of the API model: which classes are
// streams, events, owned buffers and stream guards, and what their methods
// and the free functions around them do. Tensor operations themselves (every
// ATen function and at::Tensor method, on the current stream) are not rows:
// ApiModel::tensorOp recognises them, and the sets below only name the
// exceptions (views, metadata, host syncs).
//
// Names are the declarations' qualified names in the torch 2.11 headers
// (at::cuda::CUDAEvent and at::cuda::CUDAStreamGuard are aliases of the c10
// classes, so their rows are the c10 names).
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

namespace {

ApiSignature memberOp(OpKind Kind, Operand Stream, Operand Event = {}) {
  ApiSignature S{Kind};
  S.Stream = Stream;
  S.Event = Event;
  S.MissingStreamIsCurrent = true;
  return S;
}

} // namespace

void ApiModel::addTorchRows() {
  // --- Classes ---------------------------------------------------------------
  addClass("c10::cuda::CUDAStream", ClassKind::Stream);
  addClass("c10::Stream", ClassKind::Stream);
  addClass("c10::cuda::CUDAEvent", ClassKind::Event);
  addClass("c10::Event", ClassKind::Event);
  addClass("at::Tensor", ClassKind::OwnedBuffer);
  addClass("at::TensorBase", ClassKind::OwnedBuffer);
  for (llvm::StringRef Guard :
       {"c10::cuda::CUDAStreamGuard", "c10::cuda::OptionalCUDAStreamGuard",
        "c10::StreamGuard", "c10::OptionalStreamGuard",
        "c10::cuda::CUDAMultiStreamGuard",
        // Device guards switch to another device's current stream, named
        // after a device variable (`CUDAGuard g(dst)`: stream 'dst').
        "c10::cuda::CUDAGuard", "c10::cuda::OptionalCUDAGuard"})
    addClass(Guard, ClassKind::StreamGuard);

  // --- Current stream --------------------------------------------------------
  for (llvm::StringRef Guard :
       {"c10::cuda::CUDAStreamGuard", "c10::cuda::OptionalCUDAStreamGuard",
        "c10::StreamGuard", "c10::OptionalStreamGuard"}) {
    std::string Ctor = (Guard + "::" + Guard.rsplit("::").second).str();
    add(Ctor, memberOp(OpKind::PushCurrentStream, 0));
  }
  // Device guards: the current stream of the device they switch to (an
  // OptionalCUDAGuard made without a device keeps the current stream).
  for (llvm::StringRef Guard :
       {"c10::cuda::CUDAGuard", "c10::cuda::OptionalCUDAGuard"}) {
    std::string G = Guard.str();
    add(G + "::" + Guard.rsplit("::").second.str(),
        memberOp(OpKind::PushCurrentDevice, 0));
    for (llvm::StringRef Method : {"set_device", "reset_device", "set_index"})
      add(G + "::" + Method.str(), memberOp(OpKind::SetCurrentDevice, 0));
  }
  // An ArrayRef of streams (one per device): the current stream of this
  // device is one of them, which one is not known.
  ApiSignature Multi{OpKind::PushCurrentStream};
  add("c10::cuda::CUDAMultiStreamGuard::CUDAMultiStreamGuard", Multi);
  // A guard's reset_stream(s) inside a loop would grow the stack: the current
  // stream is taken as unknown from there (operations on it are skipped).
  for (llvm::StringRef Guard :
       {"c10::cuda::CUDAStreamGuard", "c10::cuda::OptionalCUDAStreamGuard",
        "c10::StreamGuard", "c10::OptionalStreamGuard"})
    add((Guard + "::reset_stream").str(), Multi);
  // Not scoped: the stream stays current until changed again.
  add("c10::cuda::setCurrentCUDAStream",
      memberOp(OpKind::SetCurrentStream, 0));
  StreamSources["c10::cuda::getCurrentCUDAStream"] = StreamSource::Current;
  StreamSources["c10::cuda::getDefaultCUDAStream"] = StreamSource::LegacyDefault;

  // --- Events ----------------------------------------------------------------
  for (llvm::StringRef Event : {"c10::cuda::CUDAEvent", "c10::Event"}) {
    std::string E = Event.str();
    // record() records on the current stream, record(s) on s.
    add(E + "::record",
        memberOp(OpKind::RecordEvent, 0, Operand::thisObject()));
    add(E + "::recordOnce",
        memberOp(OpKind::RecordEvent, 0, Operand::thisObject()));
    add(E + "::block",
        memberOp(OpKind::StreamWaitEvent, 0, Operand::thisObject()));
    add(E + "::synchronize",
        memberOp(OpKind::SyncEvent, {}, Operand::thisObject()));
  }

  // --- Streams and the device ------------------------------------------------
  add("c10::cuda::CUDAStream::synchronize",
      memberOp(OpKind::SyncStream, Operand::thisObject()));
  add("c10::Stream::synchronize",
      memberOp(OpKind::SyncStream, Operand::thisObject()));
  add("c10::cuda::device_synchronize", ApiSignature{OpKind::SyncDevice});

  // --- Tensors ---------------------------------------------------------------
  // (record_stream is at::Tensor's, a row of ApiModel.cpp: TensorBase has none.)
  insertAll(BufferAccessors, {"data_ptr", "mutable_data_ptr", "const_data_ptr",
                          "data", "element_ptr"});
  // Methods and functions that return a view of their operand's storage.
  insertAll(TensorViews, {"view", "view_as", "narrow", "select", "slice",
                      "expand", "expand_as", "as_strided", "t", "transpose",
                      "permute", "squeeze", "unsqueeze", "flatten",
                      "unflatten", "reshape", "reshape_as", "alias",
                      "detach", "diagonal", "unfold", "real", "imag",
                      "contiguous", "operator[]", "index_select_view",
                      "movedim", "swapaxes", "mT", "mH", "values",
                      "indices", "crow_indices", "col_indices", "T"});
  // No device work: sizes, types, pointers, identity, autograd metadata.
  insertAll(TensorMetadata,
      {"sizes", "size", "dim", "ndimension", "numel", "strides", "stride",
       "dtype", "scalar_type", "device", "get_device", "options", "layout",
       "defined", "data_ptr", "mutable_data_ptr", "const_data_ptr", "storage",
       "nbytes", "itemsize", "element_size", "reset", "use_count",
       "weak_use_count", "storage_offset", "has_storage", "key_set",
       "requires_grad", "set_requires_grad", "grad_fn", "name", "toString",
       "print", "unsafeGetTensorImpl", "unsafeReleaseTensorImpl",
       "getIntrusivePtr", "unsafeReleaseIntrusivePtr", "output_nr",
       "version", "suggest_memory_format", "type", "record_stream",
       "nbytes", "dim_order", "tensor_data", "variable_data", "data",
       "retain_grad", "retains_grad", "register_hook", "remove_hook",
       "names", "has_names", "opt_names", "qscheme", "get_named_tensor_meta",
       "mutable_grad", "grad", "_fw_grad", "_base", "const_data_ptr",
       "element_size", "empty_like_meta", "operator bool"});
  // The host waits for the current stream (a device-to-host read).
  insertAll(TensorSyncs, {"item", "cpu", "tolist", "equal", "is_nonzero",
                      "allclose"});
}

} // namespace streamlife
} // namespace tidy
} // namespace clang
