// A library of our own that locks and unlocks a pthread mutex through its
// imports, as the CUDA driver does around its calls: ImportBindingTest binds
// those imports and watches where its calls go. Built twice: with its import
// slots read-only after relocation (-z now -z relro) and with lazy, writable
// ones (-z lazy -z norelro).
#include <pthread.h>

extern "C" __attribute__((visibility("default"))) int lockAndUnlock(pthread_mutex_t *M) {
  int Locked = pthread_mutex_lock(M);
  if (Locked != 0)
    return Locked;
  return pthread_mutex_unlock(M);
}
