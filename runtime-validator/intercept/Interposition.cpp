//===- Interposition.cpp - forwarding to the real library, recording ------===//
#include "intercept/Interposition.h"

#include <dlfcn.h>

namespace streamlife {
namespace rt {

void *nextDefinition(const char *Name, std::initializer_list<const char *> Sonames) {
  if (void *F = dlsym(RTLD_NEXT, Name))
    return F;
  for (const char *Soname : Sonames)
    if (void *Lib = dlopen(Soname, RTLD_LAZY | RTLD_NOLOAD)) {
      void *F = dlsym(Lib, Name);
      dlclose(Lib); // NOLOAD took a reference; the library stays loaded
      if (F)
        return F;
    }
  return nullptr;
}

NameId InterposedApi::name(const InterceptContext &I) {
  NameId Id = Name.load(std::memory_order_relaxed);
  if (!Id) {
    Id = I.name(Label);
    Name.store(Id, std::memory_order_relaxed);
  }
  return Id;
}

ProfileSlot InterposedApi::slot() {
  int S = Slot.load(std::memory_order_relaxed);
  if (S < 0) {
    S = profileSlot(Label);
    Slot.store(S, std::memory_order_relaxed);
  }
  return static_cast<ProfileSlot>(S);
}

void recordLibraryCall(InterposedApi &Api, CUstream S, const std::vector<Range> &Ranges) {
  // Its accesses are a launch's: they may go behind the queued events.
  InterceptScope Scope(Api.slot(), nullptr, false, /*Deferrable=*/true);
  if (!Scope)
    return;
  const InterceptContext &I = Scope.context();
  I.launched(I.stream(S), Ranges, I.op(Api.name(I)));
  I.countLibraryCall(Api.label());
}

} // namespace rt
} // namespace streamlife
