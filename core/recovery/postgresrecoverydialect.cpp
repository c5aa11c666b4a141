#include "core/recovery/recoverydialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

// One statement-level trigger for every kind of write, TRUNCATE included;
// rewind.refuse_frozen_write (the control schema's) lets Rewind's own
// writer through (SET LOCAL rewind.writer, SqlDialect::afterBeginWrite).
class PostgresRecoveryDialect final : public RecoveryDialect {
public:
    QStringList freezeTriggers(const Database &db, const QString &target,
                               const QString &message) const override {
        const QString table = db.quoteTable(target);
        return {
            QStringLiteral("DROP TRIGGER IF EXISTS rewind_freeze ON ") % table,
            QStringLiteral(
                "CREATE TRIGGER rewind_freeze BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON ") %
                table %
                QStringLiteral(
                    " FOR EACH STATEMENT EXECUTE FUNCTION rewind.refuse_frozen_write('") %
                message % QStringLiteral("')")};
    }
    QStringList thawTriggers(const Database &db, const QString &target) const override {
        return {QStringLiteral("DROP TRIGGER IF EXISTS rewind_freeze ON ") % db.quoteTable(target)};
    }
};

} // namespace

const RecoveryDialect &postgresRecoveryDialect() {
    static const PostgresRecoveryDialect dialect;
    return dialect;
}

} // namespace rw
