//===- EventTableTest.cpp - the event table's recent entries against a map ===//
//
// EventTable answers from a small direct-mapped set of the events recorded
// or found lately before its hash map. Random records, finds and destroys
// over more handles than entries (so entries are shared and replaced): every
// find must give the latest record of that handle, or nothing after a
// destroy or before any record. It fails when an entry answers for another
// handle of its slot, or outlives its destroyed event.
//
//===----------------------------------------------------------------------===//
#include "engine/EventTable.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

using namespace streamlife::rt;

TEST(EventTableTest, FindGivesTheLatestRecordThroughReplacementsAndDestroys) {
  std::mt19937_64 Rng(3);
  EventTable Table;
  std::unordered_map<Handle, ClockTime> Latest; // the reference: handle -> the record's time
  std::vector<Handle> Handles;
  for (Handle H = 0; H < 200; ++H) // over three times the entries
    Handles.push_back(H % 3 == 0 ? 0x7f0000000000 + 0x200 * H : 0xe0000 + 16 * H);
  VectorClock Stream;
  for (int Op = 0; Op < 20000; ++Op) {
    const Handle H = Handles[Rng() % Handles.size()];
    switch (Rng() % 5) {
    case 0:
    case 1: {
      const ClockTime T = Stream.tick(1);
      Table.record(H, Stream, Epoch{1, T});
      Latest[H] = T;
      break;
    }
    case 2:
      Table.destroy(H);
      Latest.erase(H);
      break;
    default: {
      const RecordedEvent *E = Table.find(H);
      auto It = Latest.find(H);
      if (It == Latest.end()) {
        ASSERT_EQ(E, nullptr) << "op " << Op << ", handle " << H;
      } else {
        ASSERT_NE(E, nullptr) << "op " << Op << ", handle " << H;
        ASSERT_EQ(E->At.Time, It->second);
        ASSERT_EQ(E->Snapshot.get(1), It->second);
      }
    }
    }
    ASSERT_EQ(Table.size(), Latest.size());
  }
}
