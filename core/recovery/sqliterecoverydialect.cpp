#include "core/recovery/recoverydialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

// A trigger per statement kind, each passing while rewind_writer holds a row
// (Rewind's writers insert one in their transaction). SQLite has no TRUNCATE:
// DELETE without WHERE fires the DELETE trigger too.
class SqliteRecoveryDialect final : public RecoveryDialect {
public:
    QStringList freezeTriggers(const Database &db, const QString &target,
                               const QString &message) const override {
        QStringList out;
        for (const char *op : {"INSERT", "UPDATE", "DELETE"})
            out << QStringLiteral("CREATE TRIGGER IF NOT EXISTS ") %
                       triggerName(db, target, QString::fromLatin1(op).toLower()) %
                       QStringLiteral(" BEFORE ") % QLatin1String(op) % QStringLiteral(" ON ") %
                       db.quoteTable(target) %
                       QStringLiteral(" WHEN NOT EXISTS (SELECT 1 FROM rewind_writer) BEGIN SELECT "
                                      "RAISE(ABORT, '") %
                       message % QStringLiteral("'); END");
        return out;
    }
    QStringList thawTriggers(const Database &db, const QString &target) const override {
        QStringList out;
        for (const char *op : {"insert", "update", "delete"})
            out << QStringLiteral("DROP TRIGGER IF EXISTS ") %
                       triggerName(db, target, QLatin1String(op));
        return out;
    }
    Result<bool> frozenTriggersNeedOwner(const Database &, const QString &) const override {
        return false; // SQLite has no privileges
    }

private:
    static QString triggerName(const Database &db, const QString &target, const QString &op) {
        return db.quote(QStringLiteral("rewind_freeze_%1_%2").arg(target, op));
    }
};

} // namespace

const RecoveryDialect &sqliteRecoveryDialect() {
    static const SqliteRecoveryDialect dialect;
    return dialect;
}

} // namespace rw
