#pragma once

#include "core/sql/sqldialect.h"

#include <QString>
#include <QVariantList>
#include <vector>

namespace rw {

// A field written to a typed column: stream replay and DLQ replay check its
// value with SqlDialect::valueFitsType before writing, and dead-letter the
// event (error class bad_value) when it does not fit, instead of letting the
// engine's cast fail the whole batch.
struct FieldValue {
    QString field;       // the spec's field (or column) name
    QString path;        // its JSON path
    QString type;        // the column's declared type, as listColumns reports it
    QString value;       // the SQL expression of its value: a column, evaluated more than once
    bool strict = false; // the column is a SQLite STRICT table's
};

// A predicate: every field's value fits its column ("(1 = 1)" when none needs a check).
QString valuesFit(const SqlDialect &dialect, const std::vector<FieldValue> &fields);

// The bad_value message: each field whose value does not fit, as
// `field amount ($.amount) is not a valid numeric(12,2): "abc"` (the value cut
// at kBadValueShown characters), joined by "; ". Appends its binds.
QString badValueMessage(const SqlDialect &dialect, const std::vector<FieldValue> &fields,
                        QVariantList &binds);

inline constexpr int kBadValueShown = 60;

} // namespace rw
