#pragma once

// The demo's data, internal to rw::demo::generate (demo.cpp): set-based SQL
// that writes the demo warehouse and Rewind's state into a database that
// holds neither yet, on SQLite or PostgreSQL. The same seed and scale give
// the same rows on both engines.
#include "core/util/error.h"

#include <QStringList>

namespace rw {
class Database;
struct Spec;
} // namespace rw

namespace rw::demo::data {

// The demo's own tables, in the order a summary lists them.
const QStringList &tables();

// Creates the tables and fills them as they stood at the nightly load of
// 2025-05-31. Runs inside the caller's write transaction.
Status writeTables(const Database &db, double scale, quint32 seed);

// What Rewind knew at the end of that load: partition states with source
// fingerprints, the failed run of the 29th and its plan, consumer offsets.
// `spec` is the demo's own spec.
Status writeControlState(const Database &db, const Spec &spec);

// The source changes after the publish that make partitions stale: late
// events for the 3rd and the 7th, corrections of the 27th.
Status changeSources(const Database &db, double scale, quint32 seed);

} // namespace rw::demo::data
