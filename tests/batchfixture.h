// The batch suites' warehouse and helpers (tst_batch, tst_batchfailures):
// three partitions, d2 "the bad day", a spec per write mode, and digests of
// what a table holds.
#pragma once

#include "core/batch/batch.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QStringList>
#include <optional>

namespace batchtest {

using namespace rw;

// 3 partitions; d2's target is "the bad day": doubled amounts, a row the
// source no longer has, and a retried row present twice.
inline const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE src (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("CREATE INDEX src_dt ON src (dt)"),
    QStringLiteral("CREATE TABLE ref (id INTEGER PRIMARY KEY)"),
    QStringLiteral("INSERT INTO ref VALUES (1), (2), (3), (4), (5)"),
    QStringLiteral("INSERT INTO src VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 20, 'x', 't1'), (2, 'a', 'd1', "
                   "21, 'x', 't2'),"
                   "(1, 'a', 'd2', 30, 'x', 't1'), (2, 'a', 'd2', 40, 'x', 't1'), (3, NULL, 'd2', "
                   "50, 'x', 't1'),"
                   "(3, NULL, 'd2', 55, 'x', 't3'),"
                   "(1, 'a', 'd3', 60, 'x', 't1'), (4, 'b', 'd3', 70, 'x', 't1')"),
    QStringLiteral("CREATE TABLE tgt (id INTEGER, sub TEXT, dt TEXT, amount REAL, note TEXT, "
                   "updated_at TEXT)"),
    QStringLiteral("INSERT INTO tgt VALUES "
                   "(1, 'a', 'd1', 10, 'x', 't1'), (2, 'a', 'd1', 21, 'x', 't2'),"
                   "(1, 'a', 'd2', 60, 'x', 't1'), (2, 'a', 'd2', 80, 'x', 't1'), (2, 'a', 'd2', "
                   "80, 'x', 't1'),"
                   "(9, 'z', 'd2', 1, 'x', 't0'),"
                   "(1, 'a', 'd3', 60, 'x', 't1'), (4, 'b', 'd3', 70, 'x', 't1')"),
};

inline QByteArray spec(const QString &write, const QString &checks = QStringLiteral("[]")) {
    return QStringLiteral(
               R"({"datasets": {"sales": {"source": "src", "target": "tgt", "partition_column": "dt",
        "key": ["id", "sub"], "order_by": "updated_at", "write": "%1", "checks": %2}}})")
        .arg(write, checks)
        .toUtf8();
}

// Content of a table (or one partition), independent of row order.
inline QString digest(const Database &db, const QString &table,
                      const QString &where = QStringLiteral("1 = 1")) {
    auto q = db.exec(QStringLiteral("SELECT id, sub, dt, amount, note, updated_at FROM ") +
                     db.quote(table) + QStringLiteral(" WHERE ") + where +
                     QStringLiteral(" ORDER BY dt, id, sub, amount, note, updated_at"));
    QCryptographicHash h(QCryptographicHash::Sha256);
    while (q->next())
        for (int i = 0; i < 6; ++i)
            h.addData(QByteArray(
                (q->value(i).isNull() ? QStringLiteral("<null>") : q->value(i).toString())
                    .toUtf8() +
                '\x1f'));
    return QString::fromLatin1(h.result().toHex());
}

inline qint64 count(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    return v ? v->toLongLong() : -1;
}

struct Fixture : testsupport::WorkspaceFixture {
    explicit Fixture(const QByteArray &specJson, const QStringList &extra = {})
        : WorkspaceFixture(kWarehouse + extra, specJson) {}
};

inline BatchOptions execute(QStringList partitions = {}) {
    BatchOptions o;
    o.execute = true;
    o.scope.partitions = std::move(partitions);
    return o;
}

inline const PartitionResult &part(const RunResult &r, const QString &label) {
    for (const auto &p : r.partitions)
        if (p.partition == label)
            return p;
    qFatal("no partition %s", qPrintable(label));
}

// Where two results' partitions count differently (partition, source and
// staged rows, duplicates, the diff), one line each; empty when they agree.
inline QString countsDiffer(const RunResult &a, const RunResult &b) {
    if (a.partitions.size() != b.partitions.size())
        return QStringLiteral("%1 partitions against %2")
            .arg(a.partitions.size())
            .arg(b.partitions.size());
    QStringList out;
    for (std::size_t i = 0; i < a.partitions.size(); ++i) {
        const PartitionResult &x = a.partitions[i], &y = b.partitions[i];
        const auto fields = [](const PartitionResult &r) {
            return QStringLiteral("%1: source %2, staged %3, dropped %4, inserted %5, updated %6, "
                                  "unchanged %7, deleted %8")
                .arg(r.partition.value_or(QStringLiteral("NULL")))
                .arg(r.sourceRows)
                .arg(r.stagedRows)
                .arg(r.duplicatesDropped)
                .arg(r.inserted)
                .arg(r.updated)
                .arg(r.unchanged)
                .arg(r.deleted);
        };
        if (fields(x) != fields(y))
            out << fields(x) + QStringLiteral(" | ") + fields(y);
    }
    return out.join(u'\n');
}

} // namespace batchtest
