#pragma once

#include "core/batch/batch.h"
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlRecord>
#include <QStringList>

// The recovery suites' small warehouse (tst_recovery, tst_rollback, tst_recoverypages):
// d2's target is a bad day (doubled amounts, a stray row, a retried row
// twice); `sub` holds a NULL key.
inline const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE src (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("INSERT INTO src VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 20, 'x', 't1'), (2, 'a', 'd1', "
                   "21, 'x', 't2'),"
                   "(1, 'a', 'd2', 30, 'x', 't1'), (2, 'a', 'd2', 40, 'x', 't1'), (3, NULL, 'd2', "
                   "50, 'x', 't1'),"
                   "(1, 'a', 'd3', 60, 'x', 't1'), (4, 'b', 'd3', 70, 'x', 't1')"),
    QStringLiteral("CREATE TABLE tgt (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("INSERT INTO tgt VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 21, 'x', 't2'),"
                   "(1, 'a', 'd2', 60, 'x', 't1'), (2, 'a', 'd2', 80, 'x', 't1'), (2, 'a', 'd2', "
                   "80, 'x', 't1'),"
                   "(2, 'a', 'd2', 40, 'x', 't1'), (9, 'z', 'd2', 1, 'x', 't0'),"
                   "(1, 'a', 'd3', 60, 'x', 't1')"),
};

// 4 days of orders with re-sent versions; the fact is the clean load, then a
// retry storm writes 30% of days 3 and 4 a second time.
inline QStringList retryStorm() {
    return {
        QStringLiteral("CREATE TABLE raw (order_id INTEGER, item_id INTEGER, dt TEXT, amount REAL, "
                       "qty BIGINT, updated_at TEXT)"),
        QStringLiteral(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999) "
            "INSERT INTO raw SELECT i / 2, i % 2 + 1, '2025-05-0' || (1 + i / 500), (i * 7919) % "
            "10000 / 100.0, 1 + i % 5, "
            "'2025-05-10T00:00:00Z' FROM n"),
        QStringLiteral("INSERT INTO raw SELECT order_id, item_id, dt, amount + 1.25, qty, "
                       "'2025-05-11T00:00:00Z' FROM raw WHERE order_id % 7 = 0"),
        QStringLiteral("CREATE TABLE fact (order_id INTEGER, item_id INTEGER, dt TEXT, amount "
                       "REAL, qty BIGINT, updated_at TEXT)"),
        QStringLiteral("INSERT INTO fact SELECT order_id, item_id, dt, amount, qty, updated_at "
                       "FROM (SELECT raw.*, ROW_NUMBER() OVER "
                       "(PARTITION BY order_id, item_id, dt ORDER BY updated_at DESC) AS rn FROM "
                       "raw) AS latest WHERE rn = 1"),
        QStringLiteral("CREATE TABLE clean AS SELECT * FROM fact"),
        QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt IN ('2025-05-03', "
                       "'2025-05-04') AND (order_id * 31 + item_id) % 10 < 3"),
    };
}

inline const QByteArray kStormSpec =
    R"({"datasets": {"sales": {"source": "raw", "target": "fact", "partition_column": "dt",
    "key": ["order_id", "item_id"], "order_by": "updated_at", "write": "merge"}}})";

// A table's rows as a sorted multiset: equal content compares equal.
inline QString digest(const rw::Database &db, const QString &table) {
    auto q = db.exec(QStringLiteral("SELECT * FROM ") + db.quote(table));
    if (!q)
        return QStringLiteral("error: ") + q.error().message;
    QStringList rows;
    while (q->next()) {
        QStringList cells;
        for (int i = 0; i < q->record().count(); ++i)
            cells << (q->value(i).isNull() ? QStringLiteral("<null>") : q->value(i).toString());
        rows << cells.join(u'|');
    }
    rows.sort();
    return QString::fromLatin1(
        QCryptographicHash::hash(rows.join(u'\n').toUtf8(), QCryptographicHash::Sha256).toHex());
}

inline qint64 count(const rw::Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    return v ? v->toLongLong() : -1;
}

// The suites' own helpers (tst_recovery, tst_rollback).
namespace recoverytest {

inline QByteArray spec(const QString &write) {
    return QStringLiteral(
               R"({"datasets": {"sales": {"source": "src", "target": "tgt", "partition_column": "dt",
        "key": ["id", "sub"], "order_by": "updated_at", "write": "%1"}}})")
        .arg(write)
        .toUtf8();
}

struct Fixture : testsupport::WorkspaceFixture {
    explicit Fixture(const QByteArray &specJson, const QStringList &warehouse = kWarehouse)
        : WorkspaceFixture(warehouse, specJson) {}
};

inline rw::BatchOptions execute(QStringList partitions = {}) {
    rw::BatchOptions o;
    o.execute = true;
    o.scope.partitions = std::move(partitions);
    return o;
}

inline qint64 runId(const rw::Result<rw::RunResult> &r) {
    return r->runId.toLongLong();
}

inline QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

} // namespace recoverytest
