// rw::demo::generate: a deterministic demo warehouse and its spec, into a
// new SQLite file or an existing PostgreSQL database. The data itself comes
// from demodata.cpp.
#include "core/demo/demo.h"

#include "core/demo/demodata.h"
#include "core/demo/demodialect.h"
#include "core/sql/controlschema.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "core/workspace/workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringBuilder>
#include <cmath>
#include <nlohmann/json.hpp>

namespace rw::demo {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kMaxScale = 50.0;

// ---------------------------------------------------------------------------
// The spec

Json buildSpec() {
    Json salesChecks = Json::array({
        {{"type", "not_null"}, {"columns", {"order_id", "item_id", "amount"}}},
        {{"type", "unique_key"}},
        {{"type", "references"},
         {"column", "customer_id"},
         {"table", "customers"},
         {"to", "customer_id"}},
        {{"type", "row_count"}, {"min", 1}},
        {{"type", "total"}, {"column", "amount"}, {"tolerance_pct", 0.5}},
        {{"type", "sql"},
         {"name", "no_negative"},
         {"query", "SELECT COUNT(*) FROM {staged} WHERE amount < 0"},
         {"max", 0}},
        // The bad day's fix halves amounts and nothing else: a re-run that
        // rewrote whose sale it was is refused before it publishes.
        {{"type", "unchanged"}, {"columns", {"customer_id"}}},
    });
    Json factSales = {
        {"source", "raw_sales"},
        {"transform",
         "SELECT order_id, item_id, dt, customer_id, amount, updated_at FROM raw_sales"},
        {"target", "fact_sales"},
        {"partition_column", "dt"},
        {"key", {"order_id", "item_id"}},
        {"order_by", "updated_at"},
        {"write", "merge"},
        {"checks", salesChecks},
    };
    Json events = {
        {"source", "raw_events"},
        {"target", "events"},
        {"partition_column", "dt"},
        {"key", {"event_id"}},
        {"order_by", "ingested_at"},
        {"write", "merge"},
        {"event_time", "event_ts"},
        {"ingest_time", "ingested_at"},
        {"allowed_lateness", "2h"},
        {"checks", Json::array({{{"type", "not_null"}, {"columns", {"event_id"}}},
                                {{"type", "unique_key"}}})},
    };
    Json tiers = {
        {"source", "customer_tier_monthly"},
        {"target", "dim_customer_tier"},
        {"partition_column", "month"},
        {"key", {"customer_id"}},
        {"order_by", "updated_at"},
        {"write", "scd2"},
        {"scd2",
         {{"tracked", {"customer_tier"}},
          {"valid_from", "effective_from"},
          {"valid_to", "effective_to"},
          {"current", "is_current"}}},
    };
    Json orders = {
        {"log", "orders_log"},
        {"sink", "orders_events"},
        {"fields",
         {{"order_id", "$.order_id"}, {"amount", "$.amount"}, {"event_time", "$.event_time"}}},
        {"required", {"order_id", "amount"}},
    };
    Json spec;
    spec["datasets"]["fact_sales"] = factSales;
    spec["datasets"]["events"] = events;
    spec["datasets"]["customer_tiers"] = tiers;
    spec["streams"]["orders"] = orders;
    return spec;
}

Status writeSpecFile(const QString &path, const QByteArray &content) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return badInput(
            QStringLiteral("demo: cannot write the spec %1: %2").arg(path, file.errorString()));
    file.write(content);
    if (!file.commit())
        return badInput(
            QStringLiteral("demo: cannot write the spec %1: %2").arg(path, file.errorString()));
    return {};
}

Status checkTarget(const QString &path, const QString &what, bool overwrite) {
    if (path.isEmpty())
        return badInput(QStringLiteral("demo: no %1 path given").arg(what));
    const QFileInfo info(path);
    if (info.isDir())
        return badInput(QStringLiteral("demo: %1 %2 is a directory").arg(what, path));
    if (!info.absoluteDir().exists())
        return badInput(QStringLiteral("demo: %1 %2: directory %3 does not exist")
                            .arg(what, path, info.absolutePath()));
    if (info.exists() && !overwrite && what == QLatin1String("database"))
        return badInput(
            QStringLiteral("demo: database %1 already exists; remove it or allow overwriting")
                .arg(path));
    return {};
}

// Writes the whole demo into a database that holds none of it yet.
Result<Summary> build(const Database &db, const Options &options, const Spec &spec) {
    if (auto s = controlschema::migrate(db); !s)
        return fail(s.error());
    // Bulk loading into a brand-new SQLite file: a bigger page cache for the
    // sorts and index builds, and an in-memory rollback journal instead of
    // writing every page twice through the WAL. WAL is restored at the end.
    if (auto s = db.execAll(DemoDialect::of(db.dialect()).loadBegin()); !s)
        return internalError(QStringLiteral("demo: set-up: %1").arg(s.error().message));

    Status built = db.writeTransaction(
        [&]() -> Status { return data::writeTables(db, options.scale, options.seed); });
    if (!built)
        return fail(built.error());

    Status recorded =
        db.writeTransaction([&]() -> Status { return data::writeControlState(db, spec); });
    if (!recorded)
        return fail(recorded.error());

    // Source changes after the publish: these partitions become stale.
    Status changed = db.writeTransaction([&]() -> Status {
        if (auto s = data::changeSources(db, options.scale, options.seed); !s)
            return s;
        const Json detail = {{"seed", options.seed}, {"scale", options.scale}};
        return writeAudit(db, QStringLiteral("demo"), QString(), QString(), QVariant(),
                          QString::fromStdString(detail.dump()));
    });
    if (!changed)
        return fail(changed.error());

    QStringList quotedTables;
    for (const QString &table : data::tables())
        quotedTables << db.quote(table);
    if (auto s = db.execAll(DemoDialect::of(db.dialect()).loadEnd(quotedTables)); !s)
        return internalError(QStringLiteral("demo: finishing: %1").arg(s.error().message));

    Summary summary;
    QStringList counts;
    for (const QString &table : data::tables())
        counts << QStringLiteral("SELECT ") % QString::number(counts.size()) %
                      QStringLiteral(", COUNT(*) FROM ") % db.quote(table);
    auto rows = db.exec(counts.join(QStringLiteral(" UNION ALL ")) % QStringLiteral(" ORDER BY 1"));
    if (!rows)
        return fail(rows.error());
    while (rows->next()) {
        const qint64 n = rows->value(1).toLongLong();
        summary.tables.push_back({data::tables().at(rows->value(0).toInt()), n});
        summary.totalRows += n;
    }

    // The spec must hold against what was just written.
    if (auto s = validateSpec(spec, db); !s)
        return internalError(QStringLiteral("demo: the generated spec does not validate: %1")
                                 .arg(s.error().message));
    return summary;
}

const QStringList kSqliteSuffixes = {QString(), QStringLiteral("-wal"), QStringLiteral("-shm"),
                                     QStringLiteral("-journal")};

// A new SQLite file. The handle (and this thread's connection) is gone when
// it returns, so the caller may delete the file on failure.
Result<Summary> buildFile(const QString &dbPath, const Options &options, const Spec &spec) {
    auto opened = Database::open(dbPath, Database::OpenMode::CreateIfMissing);
    if (!opened)
        return fail(opened.error());
    return build(*opened, options, spec);
}

// The tables of a demo workspace in a database, by the names the demo and
// its commands give them: the demo's own, each dataset's target and SCD2
// images, each stream's log and sink. A PostgreSQL database holds one demo
// at a time, as a SQLite file does.
QStringList demoTables(const Spec &spec) {
    QStringList names = data::tables();
    for (const auto &dataset : spec.datasets)
        names << dataset.source << dataset.target
              << QStringLiteral("rewind_images_") + dataset.name;
    for (const auto &stream : spec.streams)
        names << stream.log << stream.sink;
    names.removeDuplicates();
    return names;
}

// Drops the demo's tables and the control schema: on PostgreSQL what
// overwriting replaces, and what a failed build leaves.
Status dropDemo(const Database &db, const Spec &spec) {
    return db.writeTransaction([&]() -> Status {
        QStringList statements;
        for (const QString &table : demoTables(spec))
            statements << QStringLiteral("DROP TABLE IF EXISTS ") % db.quote(table);
        statements << DemoDialect::of(db.dialect()).dropControlSchema();
        if (auto s = db.execAll(statements); !s)
            return badInput(QStringLiteral("demo: cannot drop the demo's tables in %1: %2")
                                .arg(db.url().display(), s.error().message));
        return {};
    });
}

// The demo into an existing PostgreSQL database: refused when it already
// holds the demo's tables or a Rewind control schema, unless overwriting,
// which first drops them (as overwriting a SQLite file replaces it). A
// failed build drops what it made.
Result<Summary> generatePostgres(const Options &options, const Spec &spec,
                                 const QByteArray &specJson) {
    auto opened = Database::open(options.dbPath);
    if (!opened)
        return badInput(
            QStringLiteral(
                "demo: the demo fills an existing PostgreSQL database (create it first, e.g. with "
                "createdb): %1")
                .arg(opened.error().message));
    const Database &db = *opened;
    auto relations = db.relations();
    if (!relations)
        return fail(relations.error());
    QStringList held;
    const QStringList names = demoTables(spec);
    for (const QString &name : names)
        if (relations->contains(name))
            held << name;
    // The schema rewind is the control schema's, and what overwriting or
    // cleaning up drops: one that exists, even holding other tables, is
    // held too.
    auto controlSchema = db.scalar(DemoDialect::of(db.dialect()).controlSchemaExists());
    if (!controlSchema)
        return fail(controlSchema.error());
    if (controlSchema->toLongLong() > 0)
        held << QStringLiteral("the schema rewind");
    if (!held.isEmpty() && !options.overwrite)
        return badInput(
            QStringLiteral(
                "demo: database %1 already holds %2; drop them or allow overwriting "
                "(rewindctl demo --force), which drops the demo's tables and the schema rewind")
                .arg(db.url().display(), held.join(QStringLiteral(", "))));
    if (!held.isEmpty()) {
        if (auto s = dropDemo(db, spec); !s)
            return fail(s.error());
    }
    auto summary = build(db, options, spec);
    if (summary) {
        if (auto s = writeSpecFile(options.specPath, specJson); !s)
            summary = fail(s.error());
    }
    if (!summary) {
        if (auto s = dropDemo(db, spec); !s)
            return internalError(summary.error().message %
                                 QStringLiteral("; cleaning up failed too: ") % s.error().message);
    }
    return summary;
}

} // namespace

Result<Summary> generate(const Options &options) {
    if (!(options.scale > 0) || options.scale > kMaxScale || !std::isfinite(options.scale))
        return badInput(QStringLiteral("demo: scale must be greater than 0 and at most %1 (1 is "
                                       "about a million rows), not %2")
                            .arg(kMaxScale)
                            .arg(options.scale));
    auto url = DatabaseUrl::parse(options.dbPath);
    if (!url)
        return fail(url.error());
    const bool sqlite = url->kind == SqlDialect::Kind::Sqlite;
    const QString dbPath = url->path;
    if (sqlite) {
        if (auto s = checkTarget(dbPath, QStringLiteral("database"), options.overwrite); !s)
            return fail(s.error());
    }
    if (auto s = checkTarget(options.specPath, QStringLiteral("spec"), true); !s)
        return fail(s.error());
    if (sqlite &&
        QFileInfo(dbPath).absoluteFilePath() == QFileInfo(options.specPath).absoluteFilePath())
        return badInput(
            QStringLiteral("demo: the database and the spec are the same file: %1").arg(dbPath));

    // The spec comes first: its DatasetSpecs drive the fingerprints.
    const QByteArray specJson = QByteArray::fromStdString(buildSpec().dump(2)) + '\n';
    auto spec = parseSpec(specJson, options.specPath);
    if (!spec)
        return internalError(QStringLiteral("demo: the generated spec does not parse: %1")
                                 .arg(spec.error().message));
    if (!sqlite)
        return generatePostgres(options, *spec, specJson);

    if (options.overwrite) {
        for (const QString &suffix : kSqliteSuffixes) {
            const QString file = dbPath + suffix;
            if (QFileInfo::exists(file) && !QFile::remove(file))
                return badInput(QStringLiteral("demo: cannot remove %1 to overwrite it").arg(file));
        }
    }

    // Nothing half-made is left behind: a failed build removes its file.
    auto removeDatabase = [&dbPath] {
        for (const QString &suffix : kSqliteSuffixes)
            QFile::remove(dbPath + suffix);
    };
    auto summary = buildFile(dbPath, options, *spec);
    if (!summary) {
        removeDatabase();
        return summary;
    }
    if (auto s = writeSpecFile(options.specPath, specJson); !s) {
        removeDatabase();
        return fail(s.error());
    }
    return summary;
}

} // namespace rw::demo
