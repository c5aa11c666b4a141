#pragma once

// The warehouse the Trino write suites (tst_trino_writes, tst_trino_ops)
// build per case on the real server scripts/test starts: a source and a
// target Iceberg table partitioned by day, a spec with a dataset per write
// mode and a control store of its own; and the hand-written Trino SQL the
// suites compare Rewind's results with.
#include "core/sql/database.h"
#include "tests/testsupport.h"
#include "tests/trinosupport.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringBuilder>
#include <QStringList>
#include <QTemporaryDir>
#include <array>
#include <functional>
#include <optional>

namespace trinotest {

using rw::Database;

inline const QString kColumns = QStringLiteral(
    "(order_id BIGINT, dt DATE, amount DOUBLE, region VARCHAR, updated_at TIMESTAMP(6)) WITH "
    "(partitioning = ARRAY['dt'])");

// Four days of source rows (key 1 sent twice on the 14th; the 17th brings
// keys 20 to 24) and a target holding the 14th and the 15th, with key 4 on
// the 14th that the source no longer has and key 9 on the 15th.
inline QStringList warehouse(const QString &src, const QString &tgt) {
    return {
        QStringLiteral("CREATE TABLE %1 %2").arg(src, kColumns),
        QStringLiteral("CREATE TABLE %1 %2").arg(tgt, kColumns),
        QStringLiteral(
            "INSERT INTO %1 VALUES (1, DATE '2025-05-14', 20, 'EU', TIMESTAMP '2025-05-14 "
            "09:00:00'), (1, DATE '2025-05-14', 10, 'EU', TIMESTAMP '2025-05-14 12:00:00'), (2, "
            "DATE '2025-05-14', 5, 'US', TIMESTAMP '2025-05-14 10:00:00'), (3, DATE '2025-05-14', "
            "7, NULL, TIMESTAMP '2025-05-14 10:00:00'), (5, DATE '2025-05-15', 1, 'US', TIMESTAMP "
            "'2025-05-15 10:00:00'), (6, DATE '2025-05-16', 2, 'US', TIMESTAMP '2025-05-16 "
            "10:00:00'), (20, DATE '2025-05-17', 1, 'EU', TIMESTAMP '2025-05-17 01:00:00'), (21, "
            "DATE '2025-05-17', 2, 'EU', TIMESTAMP '2025-05-17 02:00:00'), (22, DATE "
            "'2025-05-17', 3, 'EU', TIMESTAMP '2025-05-17 03:00:00'), (23, DATE '2025-05-17', 4, "
            "'EU', TIMESTAMP '2025-05-17 04:00:00'), (24, DATE '2025-05-17', 5, 'EU', TIMESTAMP "
            "'2025-05-17 05:00:00')")
            .arg(src),
        QStringLiteral("INSERT INTO %1 VALUES (1, DATE '2025-05-14', 20, 'EU', TIMESTAMP "
                       "'2025-05-14 09:00:00'), (2, DATE '2025-05-14', 5, 'US', TIMESTAMP "
                       "'2025-05-14 10:00:00'), (4, DATE '2025-05-14', 3, 'US', TIMESTAMP "
                       "'2025-05-14 08:00:00'), (9, DATE '2025-05-15', 9, 'US', TIMESTAMP "
                       "'2025-05-15 08:00:00')")
            .arg(tgt)};
}

// The latest row per (day, key) of `src`, by hand.
inline QString latestPerKey(const QString &src) {
    return QStringLiteral("SELECT order_id, dt, amount, region, updated_at FROM (SELECT *, "
                          "ROW_NUMBER() OVER (PARTITION BY dt, order_id ORDER BY updated_at DESC) "
                          "AS rn FROM %1) WHERE rn = 1")
        .arg(src);
}

// What a merge of every day of `src` into `tgt` leaves, by hand.
inline QString handMerge(const QString &src, const QString &tgt) {
    return latestPerKey(src) %
           QStringLiteral(" UNION ALL SELECT t.* FROM %1 AS t WHERE NOT EXISTS (SELECT 1 FROM %2 "
                          "AS s WHERE s.dt = t.dt AND s.order_id = t.order_id)")
               .arg(tgt, src);
}

// What an overwrite of every day of `src` into `tgt` leaves, by hand.
inline QString handOverwrite(const QString &src, const QString &tgt) {
    return latestPerKey(src) %
           QStringLiteral(
               " UNION ALL SELECT t.* FROM %1 AS t WHERE t.dt NOT IN (SELECT dt FROM %2)")
               .arg(tgt, src);
}

// What an append of every row of `src` to `tgt` leaves, by hand.
inline QString handAppend(const QString &src, const QString &tgt) {
    return QStringLiteral("SELECT order_id, dt, amount, region, updated_at FROM %1 UNION ALL "
                          "SELECT order_id, dt, amount, region, updated_at FROM %2")
        .arg(tgt, src);
}

// What a delete_insert of every row of `src` into `tgt` leaves, by hand: the
// target's rows of each staged (day, key) replaced by every staged row of it.
inline QString handDeleteInsert(const QString &src, const QString &tgt) {
    return QStringLiteral("SELECT order_id, dt, amount, region, updated_at FROM %2 UNION ALL "
                          "SELECT t.* FROM %1 AS t WHERE NOT EXISTS (SELECT 1 FROM %2 AS s "
                          "WHERE s.dt = t.dt AND s.order_id = t.order_id)")
        .arg(tgt, src);
}

// Rows one side has and the other has not, both ways (0: equal multisets).
inline qint64 difference(const Database &db, const QString &a, const QString &b) {
    auto v = db.scalar(
        QStringLiteral("SELECT (SELECT count(*) FROM (SELECT * FROM (%1) EXCEPT ALL SELECT * FROM "
                       "(%2))) + (SELECT count(*) FROM (SELECT * FROM (%2) EXCEPT ALL SELECT * "
                       "FROM (%1)))")
            .arg(a, b));
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toLongLong();
}

inline QString all(const QString &table) {
    return QStringLiteral("SELECT order_id, dt, amount, region, updated_at FROM %1").arg(table);
}

inline qint64 scalarOf(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s: %s", qPrintable(sql), qPrintable(v.error().message));
    return v->toLongLong();
}

inline QJsonObject jsonOf(const QByteArray &out) {
    return QJsonDocument::fromJson(out).object();
}

// A workspace over two fresh Iceberg tables, a source and a target made by
// `statements(src, tgt)`, its spec `specJson(src, tgt)` (whose control
// store, control.db, is its own), dropped at the end.
struct IcebergWorkspace {
    using Make = std::function<QStringList(const QString &src, const QString &tgt)>;
    using Spec = std::function<QString(const QString &src, const QString &tgt)>;
    QTemporaryDir dir;
    QString src;
    QString tgt;
    QString spec;
    std::optional<Database> db;

    IcebergWorkspace(const char *srcStem, const char *tgtStem, const Make &statements,
                     const Spec &specJson)
        : src(uniqueTable(srcStem))
        , tgt(uniqueTable(tgtStem)) {
        auto opened = Database::open(trinoUrl());
        if (!opened)
            qFatal("%s", qPrintable(opened.error().message));
        db = *opened;
        for (const QString &statement : statements(src, tgt))
            if (auto r = db->exec(statement); !r)
                qFatal("%s", qPrintable(r.error().message));
        spec = writeFile(dir, QStringLiteral("w.json"), specJson(src, tgt));
    }
    ~IcebergWorkspace() {
        for (const QString &t : {src, tgt})
            (void)db->exec(QStringLiteral("DROP TABLE IF EXISTS %1").arg(t));
    }
    IcebergWorkspace(const IcebergWorkspace &) = delete;
    IcebergWorkspace &operator=(const IcebergWorkspace &) = delete;

    QStringList args() const {
        return {QStringLiteral("--db"), trinoUrl(), QStringLiteral("--spec"), spec};
    }
    QStringList json() const { return args() << QStringLiteral("--json"); }
    qint64 snapshots() const {
        return scalarOf(*db, QStringLiteral("SELECT count(*) FROM \"%1$snapshots\"").arg(tgt));
    }
    QString current() const {
        auto v = db->scalar(
            QStringLiteral("SELECT CAST(snapshot_id AS VARCHAR) FROM \"%1$refs\" WHERE name = "
                           "'main'")
                .arg(tgt));
        return v ? v->toString() : QString();
    }
    qint64 control(const QString &sql) const {
        auto c = Database::open(dir.filePath(QStringLiteral("control.db")));
        if (!c)
            qFatal("%s", qPrintable(c.error().message));
        return scalarOf(*c, sql);
    }
};

// A spec with a dataset per write mode, each of source `src` and target
// `tgt` by day, named `names` (merge, overwrite_partition, append,
// delete_insert), `gate` added to the merge; a control store of its own.
inline QString fourWritesSpec(const QString &src, const QString &tgt,
                              const std::array<const char *, 4> &names,
                              const QString &gate = QString()) {
    return QStringLiteral(R"({"control_db": "control.db", "datasets": {
        "%3": {"source": "%1", "target": "%2", "partition_column": "dt",
               "key": ["order_id"], "order_by": "updated_at", "write": "merge"%7},
        "%4": {"source": "%1", "target": "%2", "partition_column": "dt",
               "key": ["order_id"], "order_by": "updated_at", "write": "overwrite_partition"},
        "%5": {"source": "%1", "target": "%2", "partition_column": "dt", "write": "append"},
        "%6": {"source": "%1", "target": "%2", "partition_column": "dt",
               "key": ["order_id"], "write": "delete_insert"}}})")
        .arg(src, tgt, QLatin1String(names[0]), QLatin1String(names[1]), QLatin1String(names[2]),
             QLatin1String(names[3]), gate);
}

// The warehouse above (warehouse()) with `merge`, `overwrite_partition`,
// `append` and `delete_insert` datasets of the same source and target
// (sales, sales_days, more, redo), `gate` added to sales.
struct Warehouse : IcebergWorkspace {
    explicit Warehouse(const QString &gate = QString())
        : IcebergWorkspace("wsrc", "wtgt", warehouse, [&gate](const QString &s, const QString &t) {
            return fourWritesSpec(s, t, {"sales", "sales_days", "more", "redo"}, gate);
        }) {}
};

} // namespace trinotest
