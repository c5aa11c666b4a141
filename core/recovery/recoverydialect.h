#pragma once

#include "core/sql/database.h"

#include <QString>
#include <QStringList>

namespace rw {

// What a recovery asks of an engine: the triggers that make a freeze hold
// against every writer but Rewind (recovery.h). One stateless instance per
// engine: RecoveryDialect::of(db.dialect()).
class RecoveryDialect {
public:
    virtual ~RecoveryDialect() = default;
    static const RecoveryDialect &of(const SqlDialect &dialect);

    // Statements that refuse every write to the table `target` with
    // `message` (an SQL string literal's contents, quotes already doubled)
    // unless Rewind's own writer is at work; run again, they change nothing.
    virtual QStringList freezeTriggers(const Database &db, const QString &target,
                                       const QString &message) const = 0;
    // Statements that drop what freezeTriggers() made.
    virtual QStringList thawTriggers(const Database &db, const QString &target) const = 0;
    // Whether the triggers freezeTriggers() makes are on `target` where
    // making them again asks more privilege than making them (PostgreSQL:
    // dropping a trigger is the table's owner's); false where it does not.
    virtual Result<bool> frozenTriggersNeedOwner(const Database &db,
                                                 const QString &target) const = 0;
};

// One per engine, in sqliterecoverydialect.cpp and postgresrecoverydialect.cpp.
const RecoveryDialect &sqliteRecoveryDialect();
const RecoveryDialect &postgresRecoveryDialect();

inline const RecoveryDialect &RecoveryDialect::of(const SqlDialect &dialect) {
    return dialect.kind() == SqlDialect::Kind::Postgres ? postgresRecoveryDialect()
                                                        : sqliteRecoveryDialect();
}

} // namespace rw
