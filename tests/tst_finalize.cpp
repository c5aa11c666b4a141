// Watermark, finalization and partition statuses on a crafted warehouse whose
// answers are worked out by hand in the comments.
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/lateness/finalize.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace rw;
using Json = nlohmann::json;

namespace {

// Event times in every form: an epoch integer, ISO with Z, with offsets.
// The newest event is 2025-05-03T22:00:00-05:00 = 2025-05-04T03:00:00Z, in the
// 3rd's partition; a text MAX() would pick 2025-05-04T02:00:00Z instead.
// allowed_lateness 3h: watermark 2025-05-04T00:00:00Z, exactly the end of the
// 3rd: days 1..3 are final-eligible, the 4th is not.
// SQLite keeps the epoch integers integers in untyped columns; PostgreSQL
// holds every form as text, which reads the same way.
QStringList setup() {
    const bool pg = testsupport::onPostgres();
    const QString untyped = pg ? QStringLiteral("TEXT") : QString();
    auto epoch = [&](const char *n) {
        return pg ? u'\'' + QLatin1String(n) + u'\'' : QString(QLatin1String(n));
    };
    return {
        QStringLiteral(
            "CREATE TABLE src (id INTEGER, dt TEXT, region TEXT, ev %1, ing %1, v INTEGER)")
            .arg(untyped),
        QStringLiteral(
            "INSERT INTO src VALUES"
            " (1, '2025-05-01', 'eu', %1, '2025-05-01T00:05:00Z', 1),"
            " (2, '2025-05-01', 'us', '2025-05-01T12:00:00Z', '2025-05-01T12:00:30Z', 1),"
            " (3, '2025-05-02', 'eu', '2025-05-02T08:00:00+02:00', '2025-05-02T06:01:00Z', 1),"
            " (4, '2025-05-02', 'us', '2025-05-02T20:00:00Z', %2, 1),"
            " (5, '2025-05-03', 'us', '2025-05-03T22:00:00-05:00', '2025-05-04T03:00:10Z', 1),"
            " (6, '2025-05-03', 'eu', '2025-05-03T10:00:00Z', '2025-05-03T10:00:00Z', 1),"
            " (7, '2025-05-04', 'eu', '2025-05-04T02:00:00Z', '2025-05-04T02:00:05Z', 1)")
            .arg(epoch("1746057600"), epoch("1746216060")),
    };
}

const QByteArray kSpec = R"({"datasets": {
    "events": {"source": "src", "target": "out", "partition_column": "dt", "key": ["id"], "order_by": "ing",
               "event_time": "ev", "ingest_time": "ing", "allowed_lateness": "3h",
               "checks": [{"type": "not_null", "columns": ["v"]}]},
    "nowm": {"source": "src", "target": "out_nowm", "partition_column": "dt", "key": ["id"], "event_time": "ev", "ingest_time": "ing"},
    "regions": {"source": "src", "target": "out_regions", "partition_column": "region", "key": ["id"],
                "event_time": "ev", "allowed_lateness": "3h"},
    "untimed": {"source": "src", "target": "out_untimed", "partition_column": "dt", "key": ["id"]}}})";

struct Fixture : testsupport::WorkspaceFixture {
    Fixture()
        : WorkspaceFixture(setup(), kSpec, QStringLiteral("f.db"), QStringLiteral("s.json")) {}
    const DatasetSpec &dataset(const char *name) const {
        return *ws->spec.dataset(QString::fromLatin1(name));
    }

    testsupport::CliResult cli(const QString &command, const QStringList &more) const {
        return testsupport::runCli(QStringList{command} + args() + more);
    }

    QMap<QString, PartitionStatus> statuses(const char *name) const {
        QMap<QString, PartitionStatus> out;
        auto parts = listPartitions(db(), dataset(name));
        if (!parts)
            qFatal("%s", qPrintable(parts.error().message));
        for (const auto &p : *parts)
            out.insert(partitionLabel(p.partition), p.status);
        return out;
    }

    qint64 count(const QString &sql) const { return db().scalar(sql)->toLongLong(); }
};

QStringList strings(const Json &array) {
    QStringList out;
    for (const auto &v : array)
        out << QString::fromStdString(v.get<std::string>());
    return out;
}

const QString d1 = QStringLiteral("2025-05-01"), d2 = QStringLiteral("2025-05-02"),
              d3 = QStringLiteral("2025-05-03"), d4 = QStringLiteral("2025-05-04"),
              d5 = QStringLiteral("2025-05-05");

} // namespace

class TestFinalize : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void dryRunChangesNothingExecuteFinalizes() {
        Fixture f;
        const qint64 audit = f.count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        auto dry =
            f.cli(QStringLiteral("finalize"), {QStringLiteral("--dataset"),
                                               QStringLiteral("events"), QStringLiteral("--json")});
        QCOMPARE(dry.exitCode, 0);
        const Json j = Json::parse(dry.out.toStdString());
        QCOMPARE(QString::fromStdString(j["dataset"].get<std::string>()), QStringLiteral("events"));
        QCOMPARE(QString::fromStdString(j["watermark"].get<std::string>()),
                 QStringLiteral("2025-05-04T00:00:00Z"));
        QCOMPARE(strings(j["finalized"]), (QStringList{d1, d2, d3}));
        QCOMPARE(strings(j["provisional"]), QStringList{d4});
        QCOMPARE(strings(j["stale"]), QStringList{});
        QCOMPARE(j["executed"].get<bool>(), false);
        // Nothing written: no target, no partition state, no audit row.
        QVERIFY(!*f.db().hasRelation(QStringLiteral("out")));
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state")), 0);
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audit);

        auto run = f.cli(QStringLiteral("finalize"),
                         {QStringLiteral("--dataset"), QStringLiteral("events"),
                          QStringLiteral("--execute"), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const Json e = Json::parse(run.out.toStdString());
        QCOMPARE(e["executed"].get<bool>(), true);
        QCOMPARE(strings(e["finalized"]), (QStringList{d1, d2, d3}));
        QVERIFY(e["run_id"].is_number());
        // Published through the batch core, and marked final.
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM out")), 6);
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state WHERE status "
                                        "= 'final' AND finalized_at IS NOT NULL")),
                 3);
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                        "'finalize' AND dataset = 'events'")),
                 1);
        QCOMPARE(f.statuses("events"),
                 (QMap<QString, PartitionStatus>{{d1, PartitionStatus::Final},
                                                 {d2, PartitionStatus::Final},
                                                 {d3, PartitionStatus::Final},
                                                 {d4, PartitionStatus::Unloaded}}));

        // Again: nothing left to finalize.
        auto again = finalize(f.db(), f.dataset("events"), {});
        QVERIFY(again);
        QVERIFY(again->finalized.isEmpty());
        QCOMPARE(again->alreadyFinal, (QStringList{d1, d2, d3}));
        QCOMPARE(again->provisional, QStringList{d4});
    }

    // An event stamped far in the future (a producer's clock, a wrong time
    // zone) does not move the watermark: it would finalize every day up to
    // 2099, including days still receiving events. It is counted instead.
    void eventTimeInTheFutureIsIgnoredAndCounted() {
        Fixture f;
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO src VALUES (8, '2025-05-04', 'eu', "
                                           "'2099-01-01T00:00:00Z', '2025-05-04T02:10:00Z', 1)")));
        auto dry =
            f.cli(QStringLiteral("finalize"), {QStringLiteral("--dataset"),
                                               QStringLiteral("events"), QStringLiteral("--json")});
        QCOMPARE(dry.exitCode, 0);
        const Json j = Json::parse(dry.out.toStdString());
        QCOMPARE(QString::fromStdString(j["watermark"].get<std::string>()),
                 QStringLiteral("2025-05-04T00:00:00Z"));
        QCOMPARE(QString::fromStdString(j["max_event_time"].get<std::string>()),
                 QStringLiteral("2025-05-04T03:00:00Z"));
        QCOMPARE(j["future_events"].get<qint64>(), 1);
        QCOMPARE(strings(j["finalized"]), (QStringList{d1, d2, d3}));
        QCOMPARE(strings(j["provisional"]), QStringList{d4});
        auto text = f.cli(QStringLiteral("finalize"),
                          {QStringLiteral("--dataset"), QStringLiteral("events")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(QStringLiteral("1 event has its event time after now")),
                 qPrintable(text.out));
        // Executed, the future event's day stays provisional.
        auto run = f.cli(QStringLiteral("finalize"),
                         {QStringLiteral("--dataset"), QStringLiteral("events"),
                          QStringLiteral("--execute"), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(f.statuses("events").value(d4), PartitionStatus::Unloaded);
        QCOMPARE(f.count(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_partition_state WHERE status = 'final'")),
                 3);
    }

    void lateEventAfterFinalizationIsStaleThenBackfilledFinal() {
        Fixture f;
        FinalizeOptions execute;
        execute.execute = true;
        auto done = finalize(f.db(), f.dataset("events"), execute);
        QVERIFY2(done, qPrintable(done ? QString() : done.error().message));
        QCOMPARE(done->finalized, (QStringList{d1, d2, d3}));

        // A late event for the 2nd, ingested long after it was finalized.
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO src VALUES (8, '2025-05-02', 'eu', "
                                           "'2025-05-02T23:59:00Z', '2025-05-04T05:00:00Z', 1)")));
        QCOMPARE(f.statuses("events").value(d2), PartitionStatus::Stale);
        auto dry = finalize(f.db(), f.dataset("events"), {});
        QVERIFY(dry);
        QCOMPARE(dry->stale, QStringList{d2});
        QVERIFY(dry->finalized.isEmpty());
        QCOMPARE(dry->watermarkMs.value_or(0),
                 qint64(1746316800000)); // unchanged: 2025-05-04T00:00:00Z

        // run --stale --execute backfills it; it is final again.
        BatchOptions backfill;
        backfill.scope.stale = true;
        backfill.execute = true;
        auto r = rw::run(f.db(), f.dataset("events"), backfill);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(r->partitions.size(), std::size_t(1));
        QCOMPARE(r->partitions.front().inserted, 1);
        QCOMPARE(f.statuses("events").value(d2), PartitionStatus::Final);
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM out WHERE id = 8")), 1);
    }

    void everyStatusOnACraftedWarehouse() {
        Fixture f;
        FinalizeOptions execute;
        execute.execute = true;
        QVERIFY(finalize(f.db(), f.dataset("events"), execute)); // 1st..3rd final

        BatchOptions one;
        one.execute = true;
        one.scope.partitions = {d4};
        QVERIFY(rw::run(f.db(), f.dataset("events"),
                        one)); // the 4th published, watermark not past it: provisional
        // A late event for the 2nd: stale.
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO src VALUES (8, '2025-05-02', 'eu', "
                                           "'2025-05-02T23:59:00Z', '2025-05-04T05:00:00Z', 1)")));
        // The 3rd re-run fails its not_null gate: failed.
        QVERIFY(f.db().exec(QStringLiteral("UPDATE src SET v = NULL WHERE dt = '2025-05-03'")));
        one.scope.partitions = {d3};
        auto failed = rw::run(f.db(), f.dataset("events"), one);
        QVERIFY(failed);
        QCOMPARE(failed->status, RunStatus::CheckFailed);
        // A new day never published: unloaded.
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO src VALUES (9, '2025-05-05', 'eu', "
                                           "'2025-05-05T01:00:00Z', '2025-05-05T01:00:01Z', 1)")));

        QCOMPARE(f.statuses("events"),
                 (QMap<QString, PartitionStatus>{{d1, PartitionStatus::Final},
                                                 {d2, PartitionStatus::Stale},
                                                 {d3, PartitionStatus::Failed},
                                                 {d4, PartitionStatus::Provisional},
                                                 {d5, PartitionStatus::Unloaded}}));
        // No watermark configured: published partitions are "loaded".
        BatchOptions all;
        all.execute = true;
        QVERIFY(rw::run(f.db(), f.dataset("nowm"), all));
        for (const PartitionStatus status : f.statuses("nowm"))
            QCOMPARE(status, PartitionStatus::Loaded);

        // The CLI agrees.
        auto listed = f.cli(
            QStringLiteral("partitions"),
            {QStringLiteral("--dataset"), QStringLiteral("events"), QStringLiteral("--json")});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        const Json listing = Json::parse(listed.out.toStdString());
        QStringList cliStatuses;
        for (const auto &p : listing["partitions"])
            cliStatuses << QString::fromStdString(p["status"].get<std::string>());
        QCOMPARE(cliStatuses, (QStringList{QStringLiteral("final"), QStringLiteral("stale"),
                                           QStringLiteral("failed"), QStringLiteral("provisional"),
                                           QStringLiteral("unloaded")}));

        // What finalize makes of it: the new max event (the 5th, 01:00Z) moves
        // the watermark to 2025-05-04T22:00:00Z; the failed 3rd is eligible
        // again, the stale final 2nd is for a backfill.
        auto plan = finalize(f.db(), f.dataset("events"), {});
        QVERIFY(plan);
        QCOMPARE(plan->finalized, QStringList{d3});
        QCOMPARE(plan->stale, QStringList{d2});
        QCOMPARE(plan->provisional, (QStringList{d4, d5}));
        QCOMPARE(plan->alreadyFinal, QStringList{d1});
    }

    // The console's flow: preview the eligible days, confirm, execute that
    // locked plan. A plan beyond the eligible days or with a changed source is refused.
    void executesAPreviewedPlan() {
        Fixture f;
        auto dry = finalize(f.db(), f.dataset("events"), {});
        QVERIFY(dry);
        QCOMPARE(dry->finalized, (QStringList{d1, d2, d3}));

        BatchOptions wide;
        wide.scope.partitions = {d3, d4};
        auto tooWide = rw::preview(f.db(), f.dataset("events"), wide);
        QVERIFY(tooWide);
        FinalizeOptions execute;
        execute.execute = true;
        execute.planId = tooWide->planId;
        auto refused = finalize(f.db(), f.dataset("events"), execute);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, Error::Code::BadInput);
        QVERIFY2(refused.error().message.contains(d4), qPrintable(refused.error().message));
        QVERIFY(!*f.db().hasRelation(QStringLiteral("out")));

        BatchOptions eligible;
        eligible.scope.partitions = dry->finalized;
        auto plan = rw::preview(f.db(), f.dataset("events"), eligible);
        QVERIFY(plan);
        // The source of the 2nd changes after the preview: the plan is stale.
        QVERIFY(f.db().exec(QStringLiteral("UPDATE src SET v = 2 WHERE id = 3")));
        execute.planId = plan->planId;
        auto stale = finalize(f.db(), f.dataset("events"), execute);
        QVERIFY(!stale);
        QCOMPARE(stale.error().code, Error::Code::StalePlan);
        QCOMPARE(f.count(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_partition_state WHERE status = 'final'")),
                 0);

        plan = rw::preview(f.db(), f.dataset("events"), eligible);
        QVERIFY(plan);
        auto cli =
            f.cli(QStringLiteral("finalize"),
                  {QStringLiteral("--dataset"), QStringLiteral("events"), QStringLiteral("--plan"),
                   plan->planId, QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        const Json j = Json::parse(cli.out.toStdString());
        QCOMPARE(strings(j["finalized"]), (QStringList{d1, d2, d3}));
        QCOMPARE(QString::fromStdString(j["run"]["plan_id"].get<std::string>()), plan->planId);
        QCOMPARE(f.statuses("events").value(d1), PartitionStatus::Final);
        QCOMPARE(f.statuses("events").value(d3), PartitionStatus::Final);
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM out")), 6);

        // Nothing is eligible now: the same plan (its days final already) and
        // an unknown plan are still refused, not passed over.
        for (const QString &id : {plan->planId, QStringLiteral("plan-000000000000")}) {
            const auto again = f.cli(QStringLiteral("finalize"),
                                     {QStringLiteral("--dataset"), QStringLiteral("events"),
                                      QStringLiteral("--plan"), id, QStringLiteral("--execute")});
            QCOMPARE(again.exitCode, 2);
            QVERIFY2(again.err.contains(id), qPrintable(again.err));
        }
        QCOMPARE(f.count(QStringLiteral("SELECT COUNT(*) FROM out")), 6);
    }

    void executeMarksOnlyWhatItPublished() {
        Fixture f;
        QVERIFY(f.db().exec(QStringLiteral("UPDATE src SET v = NULL WHERE id = 3")));
        auto r = f.cli(QStringLiteral("finalize"),
                       {QStringLiteral("--dataset"), QStringLiteral("events"),
                        QStringLiteral("--execute"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 3);
        const Json j = Json::parse(r.out.toStdString());
        QCOMPARE(strings(j["finalized"]), (QStringList{d1, d3}));
        QCOMPARE(strings(j["failed"]), QStringList{d2});
        QCOMPARE(f.statuses("events").value(d2), PartitionStatus::Failed);
        QCOMPARE(f.statuses("events").value(d3), PartitionStatus::Final);
    }

    void undatedPartitionsAndBadInput() {
        Fixture f;
        auto regions = finalize(f.db(), f.dataset("regions"), {});
        QVERIFY(regions);
        QCOMPARE(regions->undated.size(),
                 2); // 'eu', 'us': not days, never finalized by the watermark
        QVERIFY(regions->finalized.isEmpty());

        struct Bad {
            QString dataset;
            QString culprit;
        };
        for (const Bad &b : {Bad{QStringLiteral("nope"), QStringLiteral("nope")},
                             Bad{QStringLiteral("nowm"), QStringLiteral("allowed_lateness")},
                             Bad{QStringLiteral("untimed"), QStringLiteral("event_time")}}) {
            auto r = f.cli(QStringLiteral("finalize"),
                           {QStringLiteral("--dataset"), b.dataset, QStringLiteral("--execute")});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(b.culprit), qPrintable(r.err));
        }
        QVERIFY(!*f.db().hasRelation(QStringLiteral("out_nowm")));
    }

    // The grain read from the values: hours in any of their spellings,
    // days, months; values that name no window stay undated; two grains
    // mixed are refused naming the dataset and the field.
    void grainsFromValues() {
        DatasetSpec d;
        d.name = QStringLiteral("w");
        d.partitionColumn = QStringLiteral("p");
        const auto grain = [&](const QStringList &values) {
            QList<std::optional<QString>> v;
            for (const QString &s : values)
                v << s;
            v << std::nullopt << QStringLiteral("eu"); // no window: ignored
            return windowGrain(d, v);
        };
        QCOMPARE(grain({QStringLiteral("2025-05-06T05:00:00Z"), QStringLiteral("2025-05-06T06"),
                        QStringLiteral("2025-05-06 07:00")})
                     .value_or(std::nullopt),
                 WindowGrain::Hour);
        QCOMPARE(grain({QStringLiteral("2025-05-04")}).value_or(std::nullopt), WindowGrain::Day);
        QCOMPARE(
            grain({QStringLiteral("2025-05"), QStringLiteral("2025-06")}).value_or(std::nullopt),
            WindowGrain::Month);
        QVERIFY(grain({}).has_value() && !grain({})->has_value());
        const auto mixed = grain({QStringLiteral("2025-05-04"), QStringLiteral("2025-05-04T05")});
        QVERIFY(!mixed);
        QVERIFY2(mixed.error().message.contains(QStringLiteral("dataset \"w\"")) &&
                     mixed.error().message.contains(QStringLiteral("partition_column")) &&
                     mixed.error().message.contains(QStringLiteral("mixed shapes")),
                 qPrintable(mixed.error().message));

        QCOMPARE(partitionWindowMs(WindowGrain::Day, QStringLiteral("2025-05-04"))->first,
                 qint64(1746316800000));
        QCOMPARE(
            partitionWindowMs(WindowGrain::Hour, QStringLiteral("2025-05-06 07:00"))->first,
            partitionWindowMs(WindowGrain::Hour, QStringLiteral("2025-05-06T07:00:00Z"))->first);
        QCOMPARE(isoUtc(partitionWindowMs(WindowGrain::Month, QStringLiteral("2025-12"))->second),
                 QStringLiteral("2026-01-01T00:00:00Z"));
        QVERIFY(!partitionWindowMs(WindowGrain::Day, QStringLiteral("2025-02-30")));
        QVERIFY(!partitionWindowMs(WindowGrain::Day, QStringLiteral("20250504")));
        QVERIFY(!partitionWindowMs(WindowGrain::Hour, QStringLiteral("2025-05-06T24")));
        QVERIFY(!partitionWindowMs(WindowGrain::Hour, QStringLiteral("2025-05-06T05:30")));
    }
};

QTEST_GUILESS_MAIN(TestFinalize)
#include "tst_finalize.moc"
