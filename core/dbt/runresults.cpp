#include "core/dbt/runresults.h"

#include "core/util/timeutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw::dbt {

namespace {

using Json = nlohmann::json;

QString text(const Json &object, const char *field) {
    const auto it = object.find(field);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                 : QString();
}

Error bad(const QString &path, const QString &what) {
    return Error::badInput(QStringLiteral("dbt run results %1: %2").arg(path, what));
}

// A partition's span in time: a label of the dataset's grain (hour, day,
// month), a date (a day), or a timestamp value (one instant); nullopt for a
// label that is no time.
std::optional<std::pair<QDateTime, QDateTime>> spanOf(const DatasetSpec &dataset,
                                                      const QString &label) {
    const QString &grain = dataset.partitionGranularity;
    const bool dateOnly = label.size() == 10;
    auto at = timeutil::parseTimestamp(dateOnly ? label % QStringLiteral("T00:00:00Z") : label);
    if (!at)
        return std::nullopt;
    const QDateTime start = at->toUTC();
    if (grain == QLatin1String("hour"))
        return std::pair{start, start.addSecs(3600)};
    if (grain == QLatin1String("month"))
        return std::pair{start, start.addMonths(1)};
    if (grain == QLatin1String("day") || dateOnly)
        return std::pair{start, start.addDays(1)};
    return std::pair{start, start.addMSecs(1)};
}

} // namespace

Result<RunResults> parseRunResults(const QByteArray &json, const QString &path,
                                   const Manifest *manifest) {
    const Json doc = Json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
        return fail(bad(path, QStringLiteral("is not JSON")));
    const auto meta = doc.find("metadata");
    const QString schema =
        meta != doc.end() && meta->is_object() ? text(*meta, "dbt_schema_version") : QString();
    if (!schema.contains(QLatin1String("/run-results/")))
        return fail(bad(path, schema.isEmpty()
                                  ? QStringLiteral("has no metadata.dbt_schema_version: not a dbt "
                                                   "run_results.json")
                                  : QStringLiteral("is a %1 file, not run results").arg(schema)));
    RunResults out;
    out.path = path;
    out.dbtVersion = text(*meta, "dbt_version");
    out.generatedAt = text(*meta, "generated_at");
    QHash<QString, QString> testOwner;
    if (manifest)
        for (const Node &n : manifest->nodes)
            for (const Test &t : n.tests)
                testOwner.insert(t.uniqueId, n.uniqueId);
    const auto results = doc.find("results");
    if (results == doc.end() || !results->is_array())
        return fail(bad(path, QStringLiteral("has no \"results\" list")));
    int index = 0;
    for (const Json &r : *results) {
        const QString where = QStringLiteral("results[%1]").arg(index++);
        if (!r.is_object() || text(r, "unique_id").isEmpty())
            return fail(bad(path, where % QStringLiteral(" has no unique_id")));
        const QString id = text(r, "unique_id");
        const QString status = text(r, "status");
        const QString message = text(r, "message");
        if (id.startsWith(QLatin1String("test."))) {
            if (status != QLatin1String("fail") && status != QLatin1String("error"))
                continue;
            const QString owner = testOwner.value(id);
            const QString line = id % QStringLiteral(": ") % message;
            if (owner.isEmpty()) {
                out.unattributedTests << line;
                continue;
            }
            NodeFailure &f = out.byNode[owner];
            f.uniqueId = owner;
            if (f.status.isEmpty())
                f.status = QStringLiteral("success");
            f.whole = true;
            f.failedTests << line;
            continue;
        }
        if (status == QLatin1String("success") || status == QLatin1String("pass") ||
            status.isEmpty())
            continue;
        NodeFailure &f = out.byNode[id];
        f.uniqueId = id;
        f.status = status;
        f.message = message;
        const auto batches = r.find("batch_results");
        const Json *failed = nullptr;
        if (batches != r.end() && batches->is_object())
            if (const auto it = batches->find("failed"); it != batches->end() && it->is_array())
                failed = &*it;
        for (std::size_t i = 0; failed && i < failed->size(); ++i) {
            const Json &b = (*failed)[i];
            const QString at = where % QStringLiteral(".batch_results.failed[%1]").arg(i);
            if (!b.is_array() || b.size() != 2 || !b[0].is_string() || !b[1].is_string())
                return fail(bad(path, at % QStringLiteral(" is not [start, end]")));
            auto start = timeutil::parseTimestamp(QString::fromStdString(b[0].get<std::string>()));
            auto end = timeutil::parseTimestamp(QString::fromStdString(b[1].get<std::string>()));
            if (!start || !end)
                return fail(bad(path, at % QStringLiteral(": ") %
                                          (!start ? start.error() : end.error()).message));
            f.failedBatches.emplace_back(start->toUTC(), end->toUTC());
        }
        // A model that errored or was skipped without batches to name
        // is to redo whole.
        if (f.failedBatches.empty())
            f.whole = true;
    }
    return out;
}

Result<RunResults> loadRunResults(const QString &path, const QString &fallbackManifest) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(bad(path, QStringLiteral("cannot be read: ") % file.errorString()));
    const QByteArray json = file.readAll();
    const QString beside = QFileInfo(path).dir().filePath(QStringLiteral("manifest.json"));
    const QString manifestPath = QFileInfo::exists(beside) ? beside : fallbackManifest;
    std::optional<Manifest> manifest;
    if (!manifestPath.isEmpty()) {
        auto m = loadManifest(manifestPath);
        if (!m)
            return fail(m.error());
        manifest = std::move(*m);
    }
    return parseRunResults(json, path, manifest ? &*manifest : nullptr);
}

std::optional<QString> failureOf(const RunResults &results, const DatasetSpec &dataset,
                                 const std::optional<QString> &partition) {
    if (!dataset.dbt)
        return std::nullopt;
    const auto it = results.byNode.constFind(dataset.dbt->uniqueId);
    if (it == results.byNode.cend())
        return std::nullopt;
    const NodeFailure &f = *it;
    if (f.whole) {
        if (!f.failedTests.isEmpty() && f.status == QLatin1String("success"))
            return QStringLiteral("dbt test failed: ") % f.failedTests.join(QStringLiteral("; "));
        QString why = QStringLiteral("dbt %1: %2").arg(f.status, f.message);
        if (!f.failedTests.isEmpty())
            why += QStringLiteral("; test failed: ") % f.failedTests.join(QStringLiteral("; "));
        return why;
    }
    const auto span = partition ? spanOf(dataset, *partition) : std::nullopt;
    if (!span)
        return std::nullopt;
    for (const auto &[start, end] : f.failedBatches)
        if (span->first < end && start < span->second)
            return QStringLiteral("dbt's batch %1 to %2 failed (the model: %3)")
                .arg(start.toString(Qt::ISODate), end.toString(Qt::ISODate), f.message);
    return std::nullopt;
}

} // namespace rw::dbt
