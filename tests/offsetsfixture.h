#pragma once

// Consumer offsets and Kafka-style resets (rewindctl offsets, offsets-reset)
// on a log built here: retention (a log start above 0), record timestamps in
// ISO-8601 with and without zones, zone offsets, and epoch seconds.
//
// Shared by tst_offsets.cpp and tst_consumergroups.cpp.
#include "core/sql/database.h"
#include "core/streams/lag.h"
#include "tests/testsupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSysInfo>
#include <QTest>

using testsupport::runCli;

namespace offsets_fixture {

inline QJsonObject json(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

// "0:3,1:5,2:7": partition:offset pairs of a result's "partitions", by `field` (a flag as 0 or 1).
inline QString offsetsOf(const QJsonObject &o, const char *field) {
    QStringList out;
    for (const auto &v : o.value(QStringLiteral("partitions")).toArray()) {
        const QJsonObject p = v.toObject();
        const QJsonValue value = p.value(QLatin1String(field));
        out << QString::number(p.value(QStringLiteral("partition")).toInteger()) + u':' +
                   QString::number(value.isBool() ? int(value.toBool()) : value.toInteger());
    }
    return out.join(u',');
}

} // namespace offsets_fixture

using namespace offsets_fixture;

// The fixture the suites share: a warehouse and how to drive it.
class OffsetsFixture : public QObject {
protected:
    QTemporaryDir m_dir;
    QString m_spec;
    int m_dbs = 0;

    // Three partitions, 10 minutes of records each from 2025-05-06T10:00Z:
    //  0: offsets 0..9 at 10:00 + i min, ISO text with Z, without zone, with fractions;
    //  1: offsets 5..9 (retention removed 0..4) at 10:00 + (i - 4) min, written with zone offsets;
    //  2: offsets 0..9 at 10:00 + i min as epoch seconds: INTEGER, REAL and numeric text.
    // Group "g" committed 3 in partition 0 and 7 in partition 2, nothing in 1.
    // On SQLite record_ts has no declared type (each value keeps its own); on
    // PostgreSQL it is TEXT, the epoch numbers written as their text.
    QString freshDb() {
        const QString name = QStringLiteral("offsets-%1.db").arg(++m_dbs);
        QStringList sql{
            QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                           "event_id TEXT, record_ts%1, payload TEXT)")
                .arg(testsupport::onPostgres() ? QStringLiteral(" TEXT") : QString()),
            QStringLiteral(
                "CREATE UNIQUE INDEX ev_log_offsets ON ev_log (partition_id, log_offset)"),
        };
        const QStringList p0{
            QStringLiteral("'2025-05-06T10:00:00Z'"), QStringLiteral("'2025-05-06 10:01:00'"),
            QStringLiteral("'2025-05-06T10:02:00Z'"), QStringLiteral("'2025-05-06T10:03:00.000Z'"),
            QStringLiteral("'2025-05-06T10:04:00Z'"), QStringLiteral("'2025-05-06 10:05:00.25'"),
            QStringLiteral("'2025-05-06T10:06:00Z'"), QStringLiteral("'2025-05-06T10:07:00'"),
            QStringLiteral("'2025-05-06T10:08:00Z'"), QStringLiteral("'2025-05-06 10:09:00'")};
        const QStringList p1{QStringLiteral("'2025-05-06T12:01:00+02:00'"),
                             QStringLiteral("'2025-05-06T07:32:00-02:30'"),
                             QStringLiteral("'2025-05-06T12:03:00+0200'"),
                             QStringLiteral("'2025-05-06 12:04:00.000 +02'"),
                             QStringLiteral("'2025-05-06T05:05:00-05:00'")};
        for (int i = 0; i < 10; ++i) {
            sql << QStringLiteral("INSERT INTO ev_log VALUES (0, %1, 'e0-%1', %2, '{\"v\": %1}')")
                       .arg(i)
                       .arg(p0[i]);
            const qint64 epoch = 1746525600 + i * 60; // 2025-05-06T10:00:00Z + i min
            const QString ts = i % 3 == 0 ? QString::number(epoch)
                               : i % 3 == 1
                                   ? QString(QString::number(epoch) + QStringLiteral(".25"))
                                   : QString(u'\'' + QString::number(epoch) + u'\'');
            sql << QStringLiteral("INSERT INTO ev_log VALUES (2, %1, 'e2-%1', %2, '{\"v\": %1}')")
                       .arg(i)
                       .arg(ts);
        }
        for (int i = 5; i < 10; ++i)
            sql << QStringLiteral("INSERT INTO ev_log VALUES (1, %1, 'e1-%1', %2, '{\"v\": %1}')")
                       .arg(i)
                       .arg(p1[i - 5]);
        const QString path = testsupport::makeDatabase(m_dir, name, sql).url().text;
        // Creates the control schema, then the group's commits.
        const auto r = runCli({QStringLiteral("streams"), QStringLiteral("--db"), path,
                               QStringLiteral("--spec"), m_spec});
        if (r.exitCode != 0)
            qFatal("%s", qPrintable(r.err));
        auto db = rw::Database::open(path);
        db->exec(QStringLiteral(
            "INSERT INTO rewind_offsets VALUES ('ev', 'g', 0, 3, '2025-05-06T10:30:00Z'), "
            "('ev', 'g', 2, 7, '2025-05-06T10:30:00Z')"));
        return path;
    }

    QStringList args(const QString &db, const QString &command) const {
        return {command,
                QStringLiteral("--db"),
                db,
                QStringLiteral("--spec"),
                m_spec,
                QStringLiteral("--stream"),
                QStringLiteral("ev"),
                QStringLiteral("--group"),
                QStringLiteral("g"),
                QStringLiteral("--json")};
    }

    static QString committed(const QString &db) {
        auto d = rw::Database::open(db);
        auto q = d->exec(QStringLiteral("SELECT partition_id, committed_offset FROM rewind_offsets "
                                        "WHERE stream = 'ev' AND group_id = 'g' "
                                        "ORDER BY partition_id"));
        QStringList pairs;
        while (q->next())
            pairs << q->value(0).toString() + u':' + q->value(1).toString();
        return pairs.join(u',');
    }

    static qint64 scalar(const QString &db, const QString &sql) {
        auto d = rw::Database::open(db);
        return d->scalar(sql)->toLongLong();
    }

    // The suites' specs, written once per suite (initTestCase).
    void writeSpecs() {
        QVERIFY(m_dir.isValid());
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("ev.json"), R"({"streams": {"ev": {
            "log": "ev_log", "sink": "ev_sink", "fields": {"v": "$.v"}, "required": ["v"]}}})");
    }
};
