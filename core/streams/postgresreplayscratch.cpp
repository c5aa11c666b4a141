#include "core/streams/replayscratch.h"

#include <QStringBuilder>

namespace rw {

namespace {

const QString kBatchTable = QStringLiteral("rewind_replay_batch");

// Batch k is staged in schema rewind_replay_<pid>_<k>, pid the writer's
// backend: the stager creates it, fetches and stages into unlogged tables
// (no WAL) and commits; the writer reads them in its batch's transaction and
// drops the schema after. Both sessions name the tables unqualified, with the
// batch's schema first on the search path for that transaction only
// (set_config(..., true)): the statements are the same for every batch, and
// a writer's own temporary table of the same name (pg_temp, listed after it)
// is not the one read. A replay killed leaves its schemas; the next replay
// drops those whose backend is gone.
class PostgresReplayScratch final : public ReplayScratch {
public:
    PostgresReplayScratch(const Database &db, qint64 writerPid)
        : m_db(db)
        , m_pid(writerPid) {}
    ~PostgresReplayScratch() override { dropLeftovers(m_db, true); }

    QString stagedTable() const override { return m_db.quote(kBatchTable); }
    QString createTable() const override { return QStringLiteral("CREATE UNLOGGED TABLE"); }
    QString workSchema() const override { return {}; }

    // A transaction of its own, not a write transaction: that takes
    // Rewind's writer lock, which the writer holds while the stager works.
    Status stage(std::size_t k, const std::function<Status()> &body) override {
        if (auto r = m_db.exec(QStringLiteral("BEGIN")); !r)
            return fail(r.error());
        const Status s = [&]() -> Status {
            if (auto r = m_db.exec(QStringLiteral("CREATE SCHEMA ") % m_db.quote(schema(k))); !r)
                return fail(r.error());
            if (auto e = enter(k); !e)
                return e;
            return body();
        }();
        if (auto r = m_db.exec(s ? QStringLiteral("COMMIT") : QStringLiteral("ROLLBACK")); !r && s)
            return fail(r.error());
        return s;
    }
    Status attach(std::size_t) override { return {}; }
    Status enter(std::size_t k) override {
        auto r = m_db.exec(QStringLiteral("SELECT set_config('search_path', ? || ', pg_temp, ' || "
                                          "current_setting('search_path'), true)"),
                           {m_db.quote(schema(k))});
        if (!r)
            return fail(r.error());
        return {};
    }
    void release(std::size_t k) override {
        m_db.exec(QStringLiteral("DROP SCHEMA IF EXISTS ") % m_db.quote(schema(k)) %
                  QStringLiteral(" CASCADE"));
    }

    // The scratch schemas of this writer (`mine`), or of backends that are
    // gone, that the session's role may drop.
    static void dropLeftovers(const Database &db, bool mine) {
        auto names = db.exec(
            QStringLiteral(
                "SELECT nspname FROM pg_namespace WHERE nspname ~ '^rewind_replay_[0-9]+_[0-9]+$' "
                "AND pg_has_role(nspowner, 'USAGE') AND CAST(split_part(nspname, '_', 3) AS "
                "integer) ") %
            (mine ? QStringLiteral("= pg_backend_pid()")
                  : QStringLiteral("NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT "
                                   "NULL AND pid <> pg_backend_pid())")));
        if (!names)
            return;
        QStringList drops;
        while (names->next())
            drops << QStringLiteral("DROP SCHEMA IF EXISTS ") %
                         db.quote(names->value(0).toString()) % QStringLiteral(" CASCADE");
        names->finish();
        for (const QString &drop : std::as_const(drops))
            db.exec(drop);
    }

private:
    QString schema(std::size_t k) const {
        return QStringLiteral("rewind_replay_%1_%2").arg(m_pid).arg(k);
    }

    Database m_db;
    qint64 m_pid;
};

} // namespace

std::unique_ptr<ReplayScratch> postgresReplayScratch(const Database &db) {
    auto facts = db.exec(QStringLiteral(
        "SELECT has_database_privilege(current_database(), 'CREATE'), pg_backend_pid()"));
    if (!facts || !facts->next() || !facts->value(0).toBool())
        return nullptr; // staged in turn, in the session's temporary tables
    const qint64 pid = facts->value(1).toLongLong();
    facts->finish();
    // This backend's own leftovers too: a pid is reused once its backend is gone.
    PostgresReplayScratch::dropLeftovers(db, false);
    PostgresReplayScratch::dropLeftovers(db, true);
    return std::make_unique<PostgresReplayScratch>(db, pid);
}

} // namespace rw
