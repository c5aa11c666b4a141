#pragma once

// SQL text with its positional binds, built together so they stay in step:
// `Sql s; s << "x = " << Bind{v} << " AND y = " << other;`. Identifiers are
// quoted by the caller (Database::quote); values only ever go in as Bind.

#include <QString>
#include <QVariant>
#include <QVariantList>

namespace rw {

// A bound value in an Sql stream.
struct Bind {
    QVariant value;
};

struct Sql {
    QString text;
    QVariantList binds;

    Sql() = default;
    Sql(QString t, QVariantList b = {})
        : text(std::move(t))
        , binds(std::move(b)) {}

    Sql &operator<<(const QString &t) {
        text += t;
        return *this;
    }
    Sql &operator<<(const Bind &b) {
        text += u'?';
        binds << b.value;
        return *this;
    }
    Sql &operator<<(const Sql &other) {
        text += other.text;
        binds << other.binds;
        return *this;
    }
};

} // namespace rw
