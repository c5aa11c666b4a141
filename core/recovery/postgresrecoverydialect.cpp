#include "core/recovery/recoverydialect.h"
#include "core/sql/privileges.h"

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
        QStringList out{
            QStringLiteral("DROP TRIGGER IF EXISTS rewind_freeze ON ") % table,
            QStringLiteral("DROP TRIGGER IF EXISTS rewind_freeze_rows ON ") % table,
            QStringLiteral(
                "CREATE TRIGGER rewind_freeze BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON ") %
                table %
                QStringLiteral(
                    " FOR EACH STATEMENT EXECUTE FUNCTION rewind.refuse_frozen_write('") %
                message % QStringLiteral("')")};
        // A partitioned table's statement trigger fires for statements on
        // the parent only; a loader writing into a leaf would pass. A row
        // trigger on the parent is cloned onto every leaf, those attached
        // later included (a swap's new leaf, a partman premake). TRUNCATE of
        // a leaf itself is not refused (docs/cli.md). Decided by the server
        // in the freeze's transaction, so a failure fails the freeze.
        QString literal = table;
        literal.replace(u'\'', QStringLiteral("''"));
        out << QStringLiteral("DO $rewind_freeze$ BEGIN IF (SELECT relkind FROM pg_class WHERE "
                              "oid = to_regclass('") %
                   literal %
                   QStringLiteral("')) = 'p' THEN CREATE TRIGGER rewind_freeze_rows BEFORE "
                                  "INSERT OR UPDATE OR DELETE ON ") %
                   table %
                   QStringLiteral(" FOR EACH ROW EXECUTE FUNCTION rewind.refuse_frozen_write('") %
                   message % QStringLiteral("'); END IF; END $rewind_freeze$");
        return out;
    }
    QStringList thawTriggers(const Database &db, const QString &target) const override {
        const QString table = db.quoteTable(target);
        return {QStringLiteral("DROP TRIGGER IF EXISTS rewind_freeze ON ") % table,
                QStringLiteral("DROP TRIGGER IF EXISTS rewind_freeze_rows ON ") % table};
    }
    Result<bool> frozenTriggersNeedOwner(const Database &db, const QString &target) const override {
        // Not looked up in a schema the role may not use (to_regclass would
        // raise): the privilege check names that schema.
        const QString schema = privileges::schemaOf(target);
        auto v = db.scalar(
            QStringLiteral("SELECT CASE WHEN NOT COALESCE(has_schema_privilege((SELECT oid FROM "
                           "pg_namespace WHERE nspname = ?), 'USAGE'), true) THEN false ELSE "
                           "EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(?) AND "
                           "tgname IN ('rewind_freeze', 'rewind_freeze_rows')) END"),
            {schema, db.quoteTable(target)});
        if (!v)
            return fail(v.error());
        return v->toBool();
    }
};

} // namespace

const RecoveryDialect &postgresRecoveryDialect() {
    static const PostgresRecoveryDialect dialect;
    return dialect;
}

} // namespace rw
