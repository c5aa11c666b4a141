#pragma once

// Helpers shared by partitionswap.cpp (the layout) and partitionswapsql.cpp
// (the swap's statements). Internal to core/batch.

#include "core/sql/database.h"

#include <QCryptographicHash>
#include <QStringBuilder>
#include <optional>

namespace rw::swapdetail {

// The CHECK a built table carries until it is attached.
inline constexpr char kCheckName[] = "rewind_swap_bound";

// A short name part, the same for the same value in every process.
inline QString tag(const std::optional<QString> &value) {
    return QString::fromLatin1(
        QCryptographicHash::hash((value ? u'v' % *value : QStringLiteral("null")).toUtf8(),
                                 QCryptographicHash::Md5)
            .toHex()
            .left(10));
}

inline QString qualified(const Database &db, const QString &schema, const QString &name) {
    return db.quote(schema) % u'.' % db.quote(name);
}

} // namespace rw::swapdetail
