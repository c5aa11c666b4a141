#pragma once

// What the partition-swap suites share (tst_partitionswap,
// tst_partitionswapleaves): the source, a day-partitioned PostgreSQL target,
// the standard workspace, and what the tests read back.
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QThread>
#include <atomic>
#include <set>

namespace swaptest {

using namespace rw;

using Proc = testsupport::ChildResult;

// Four days of 300 orders; a tenth re-sent later with another amount.
inline const QStringList kSource{
    QStringLiteral("CREATE TABLE raw (dt DATE NOT NULL, id BIGINT NOT NULL, amount DOUBLE "
                   "PRECISION, updated_at BIGINT NOT NULL)"),
    QStringLiteral("INSERT INTO raw SELECT DATE '2025-05-01' + (g % 4), g, g * 1.5, 1 FROM "
                   "generate_series(1, 1200) AS g"),
    QStringLiteral("INSERT INTO raw SELECT dt, id, amount + 100, 2 FROM raw WHERE id % 10 = 0"),
};

// The partition of each day as a run must leave it, by hand.
inline const char *const kByHand =
    "SELECT DISTINCT ON (dt, id) dt, id, amount, updated_at FROM raw "
    "ORDER BY dt, id, updated_at DESC";

// A fact table partitioned by day, loaded from an earlier source (every
// amount doubled), with a primary key and two indexes (one partial, with an
// included column); `leaves` extra DDL.
inline QStringList partitionedTarget(const QStringList &leaves) {
    QStringList out{
        QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT NULL, amount DOUBLE "
                       "PRECISION, updated_at BIGINT, loaded_at TIMESTAMPTZ DEFAULT now(), "
                       "PRIMARY KEY (dt, id)) PARTITION BY RANGE (dt)"),
        QStringLiteral("CREATE INDEX fact_amount ON fact (amount)"),
        QStringLiteral("CREATE INDEX fact_resent ON fact (updated_at) INCLUDE (amount) WHERE "
                       "updated_at > 1")};
    out << leaves;
    return out;
}

inline QStringList dailyLeaves(int days) {
    QStringList out;
    for (int d = 1; d <= days; ++d)
        out << QStringLiteral("CREATE TABLE fact_p2025_05_%1 PARTITION OF fact FOR VALUES FROM "
                              "('2025-05-%1') TO ('2025-05-%2')")
                   .arg(d, 2, 10, QLatin1Char('0'))
                   .arg(d + 1, 2, 10, QLatin1Char('0'));
    return out;
}

inline const QString kLoad = QStringLiteral(
    "INSERT INTO fact (dt, id, amount, updated_at) SELECT dt, id, amount * 2, updated_at FROM "
    "(SELECT DISTINCT ON (dt, id) * FROM raw ORDER BY dt, id, updated_at DESC) AS r WHERE dt < "
    "'2025-05-04'");

inline const QByteArray kSpec = R"({"datasets": {"fact": {"source": "raw", "target": "fact",
    "partition_column": "dt", "key": ["id"], "order_by": "updated_at",
    "write": "overwrite_partition"}}})";

inline QJsonObject json(const Proc &p) {
    return QJsonDocument::fromJson(p.out).object();
}

inline qint64 scalar(const QString &db, const QString &sql) {
    return testsupport::scalarAt(db, sql);
}

// The leaf holding `day`, as a regclass's OID (0 when none).
inline qint64 leafOid(const QString &db, const QString &leaf) {
    return scalar(
        db,
        QStringLiteral("SELECT COALESCE((SELECT to_regclass('%1')::oid::bigint), 0)").arg(leaf));
}

// The index names of `table`, sorted, joined.
inline QString indexNames(const QString &db, const QString &table) {
    auto handle = Database::open(db);
    if (!handle)
        return QStringLiteral("(no database)");
    auto q = handle->exec(QStringLiteral("SELECT string_agg(c.relname, ',' ORDER BY c.relname) "
                                         "FROM pg_index AS x JOIN pg_class AS c ON c.oid = "
                                         "x.indexrelid WHERE x.indrelid = to_regclass(?)"),
                          {table});
    if (!q || !q->next())
        return QStringLiteral("(no answer)");
    return q->value(0).toString();
}

// Tables Rewind's swaps left: built ones not swapped in, and saved leaves
// no rewind_swaps row names.
inline QString leftovers(const QString &db) {
    const qint64 built =
        scalar(db, QStringLiteral("SELECT count(*) FROM pg_tables WHERE tablename LIKE "
                                  "'rewind\\_swap\\_%'"));
    const qint64 saved =
        scalar(db, QStringLiteral("SELECT count(*) FROM pg_tables WHERE schemaname = 'rewind' "
                                  "AND tablename LIKE 'rewind\\_saved\\_%'"));
    const qint64 recorded = scalar(db, QStringLiteral("SELECT count(*) FROM rewind_swaps WHERE "
                                                      "saved_table IS NOT NULL"));
    if (built == 0 && saved == recorded)
        return QString();
    return QStringLiteral("%1 built tables, %2 saved leaves for %3 recorded swaps")
        .arg(built)
        .arg(saved)
        .arg(recorded);
}

// A suite's workspaces: each made fresh, named in turn, in the suite's folder.
class SwapFixture {
protected:
    QTemporaryDir m_dir;
    int m_n = 0;

    struct Ws {
        QString db, spec;
        QStringList args() const {
            return {QStringLiteral("--db"), db, QStringLiteral("--spec"), spec};
        }
    };
    Ws make(const QStringList &statements, const QByteArray &spec = kSpec) {
        const QString name = QStringLiteral("swap%1").arg(++m_n);
        auto db = testsupport::makeDatabase(m_dir, name + QStringLiteral(".db"), statements);
        Ws ws{db.url().text, testsupport::writeFile(m_dir, name + QStringLiteral(".json"), spec)};
        return ws;
    }
    static Proc ctl(const Ws &ws, const QStringList &args) {
        return testsupport::runRewindctl(args + ws.args());
    }
    // `run --execute` of one day of the dataset "fact".
    static Proc runDay(const Ws &ws, const QString &day) {
        return ctl(ws, {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                        QStringLiteral("--partition"), day, QStringLiteral("--execute"),
                        QStringLiteral("--json")});
    }
    // How a run's first partition published ("swap" or "rows").
    static QString publishOf(const Proc &run) {
        return json(run)[QStringLiteral("partitions")]
            .toArray()[0]
            .toObject()[QStringLiteral("publish")]
            .toString();
    }
    static QString fact(const QString &db) {
        return testsupport::digest(db,
                                   QStringLiteral("SELECT dt, id, amount, updated_at FROM fact"));
    }
    static QString expected(const QString &db) {
        return testsupport::digest(db, QString::fromLatin1(kByHand));
    }
    // The standard workspace: days 1-4 with leaves, days 1-3 loaded, day 5
    // in the source with no leaf.
    Ws standard() {
        QStringList s = kSource;
        s << QStringLiteral("INSERT INTO raw VALUES ('2025-05-05', 1, 1.0, 1), ('2025-05-05', 2, "
                            "2.0, 1)");
        s << partitionedTarget(dailyLeaves(4)) << kLoad;
        return make(s);
    }
    static bool needsPostgres() { return testsupport::onPostgres(); }
};

} // namespace swaptest
