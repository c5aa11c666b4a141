#pragma once

#include "core/util/error.h"

#include <QString>
#include <vector>

namespace rw::demo {

struct Options {
    QString dbPath;   // SQLite file to create (must not exist unless overwrite)
    QString specPath; // JSON spec to write
    quint32 seed = 1;
    double scale = 1.0; // 1.0 is about a million rows
    bool overwrite = false;
};

struct TableCount {
    QString table;
    qint64 rows = 0;
};

struct Summary {
    std::vector<TableCount> tables;
    qint64 totalRows = 0;
};

// Writes a deterministic demo warehouse and its spec, staging the incidents
// an operator meets: a bad day and a retry storm in a sales fact, late events
// after a day was closed, a monthly customer-tier source for SCD2, and an
// orders stream whose consumer crashed part-way with malformed events.
// Every row is produced by set-based SQL. The same seed and scale give the
// same content.
Result<Summary> generate(const Options &options);

} // namespace rw::demo
