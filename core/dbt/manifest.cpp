#include "core/dbt/manifest.h"

#include <QFile>
#include <QRegularExpression>
#include <QStringBuilder>

namespace rw::dbt {

namespace {

using Json = nlohmann::json;

QString text(const Json &object, const char *key) {
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return {};
    return QString::fromStdString(it->get<std::string>());
}

const Json &member(const Json &object, const char *key) {
    static const Json none;
    if (!object.is_object())
        return none;
    const auto it = object.find(key);
    return it == object.end() ? none : *it;
}

// A string or a list of strings (unique_key, check_cols); `what` names the
// field in the error.
Result<QStringList> stringOrList(const Json &value, const QString &node, const QString &what) {
    if (value.is_null())
        return QStringList();
    if (value.is_string())
        return QStringList{QString::fromStdString(value.get<std::string>())};
    if (value.is_array()) {
        QStringList out;
        for (const Json &v : value) {
            if (!v.is_string())
                return badInput(QStringLiteral("node %1: %2 holds %3, not a column name")
                                    .arg(node, what, QString::fromStdString(v.dump())));
            out << QString::fromStdString(v.get<std::string>());
        }
        return out;
    }
    return badInput(QStringLiteral("node %1: %2 is %3, neither a string nor a list of strings")
                        .arg(node, what, QString::fromStdString(value.dump())));
}

Result<Node> readNode(const std::string &key, const Json &n) {
    const QString id = QString::fromStdString(key);
    if (!n.is_object())
        return badInput(QStringLiteral("node %1 is not an object").arg(id));
    Node node;
    node.uniqueId = text(n, "unique_id");
    if (node.uniqueId.isEmpty())
        return badInput(QStringLiteral("node %1 has no unique_id").arg(id));
    node.resourceType = text(n, "resource_type");
    node.name = text(n, "name");
    node.alias = text(n, "alias");
    node.database = text(n, "database");
    node.schema = text(n, "schema");
    node.relationName = text(n, "relation_name");
    node.packageName = text(n, "package_name");
    const auto versionText = [](const Json &v) {
        return v.is_string()           ? QString::fromStdString(v.get<std::string>())
               : v.is_number_integer() ? QString::number(v.get<qint64>())
               : v.is_number()         ? QString::number(v.get<double>())
                                       : QString();
    };
    node.version = versionText(member(n, "version"));
    node.latestVersion = versionText(member(n, "latest_version"));
    node.checksum = text(member(n, "checksum"), "checksum");
    node.rawCode = text(n, "raw_code");
    if (node.rawCode.isEmpty())
        node.rawCode = text(n, "raw_sql"); // before v7; kept for manifests rewritten by hand
    node.compiledCode = text(n, "compiled_code");
    node.compiled = member(n, "compiled").is_boolean() && member(n, "compiled").get<bool>() &&
                    !node.compiledCode.isEmpty();
    for (const Json &d : member(member(n, "depends_on"), "nodes"))
        if (d.is_string())
            node.dependsOn << QString::fromStdString(d.get<std::string>());

    const Json &config = member(n, "config");
    node.materialized = text(config, "materialized");
    node.incrementalStrategy = text(config, "incremental_strategy");
    node.onSchemaChange = text(config, "on_schema_change");
    auto uniqueKey = stringOrList(member(config, "unique_key"), node.uniqueId,
                                  QStringLiteral("config.unique_key"));
    if (!uniqueKey)
        return fail(uniqueKey.error());
    node.uniqueKey = *uniqueKey;
    for (const auto &[field, list] :
         {std::pair{"merge_update_columns", &node.mergeUpdateColumns},
          std::pair{"merge_exclude_columns", &node.mergeExcludeColumns},
          std::pair{"incremental_predicates", &node.incrementalPredicates}}) {
        auto values = stringOrList(member(config, field), node.uniqueId,
                                   QStringLiteral("config.") % QLatin1String(field));
        if (!values)
            return fail(values.error());
        *list = *values;
    }
    node.eventTime = text(config, "event_time");
    node.batchSize = text(config, "batch_size");
    node.begin = text(config, "begin");
    const Json &partition = member(config, "partition_by");
    if (partition.is_object()) {
        PartitionBy p;
        p.field = text(partition, "field");
        p.dataType = text(partition, "data_type").toLower();
        p.granularity = text(partition, "granularity").toLower();
        if (p.field.isEmpty())
            return badInput(
                QStringLiteral("node %1: config.partition_by has no field").arg(node.uniqueId));
        node.partitionBy = p;
    } else if (partition.is_string()) {
        // Older adapters and Spark: the column (or columns) as text.
        node.partitionBy =
            PartitionBy{QString::fromStdString(partition.get<std::string>()), {}, {}};
    }

    node.snapshotStrategy = text(config, "strategy");
    node.updatedAt = text(config, "updated_at");
    const Json &check = member(config, "check_cols");
    if (check.is_string() && check.get<std::string>() == "all") {
        node.checkAll = true;
    } else {
        auto cols = stringOrList(check, node.uniqueId, QStringLiteral("config.check_cols"));
        if (!cols)
            return fail(cols.error());
        node.checkCols = *cols;
    }
    const Json &meta = member(config, "snapshot_meta_column_names");
    if (const QString from = text(meta, "dbt_valid_from"); !from.isEmpty())
        node.validFromColumn = from;
    if (const QString to = text(meta, "dbt_valid_to"); !to.isEmpty())
        node.validToColumn = to;
    if (const QString id = text(meta, "dbt_scd_id"); !id.isEmpty())
        node.scdIdColumn = id;
    if (const QString at = text(meta, "dbt_updated_at"); !at.isEmpty())
        node.updatedAtColumn = at;
    node.hardDeletes = text(config, "hard_deletes");
    if (node.hardDeletes.isEmpty() && member(config, "invalidate_hard_deletes").is_boolean() &&
        member(config, "invalidate_hard_deletes").get<bool>())
        node.hardDeletes = QStringLiteral("invalidate");
    node.validToCurrent = text(config, "dbt_valid_to_current");
    return node;
}

} // namespace

Result<Manifest> parseManifest(const QByteArray &bytes, const QString &path) {
    Json j;
    try {
        j = Json::parse(bytes.constData(), bytes.constData() + bytes.size());
    } catch (const Json::parse_error &e) {
        return badInput(
            QStringLiteral("%1 is not JSON: %2").arg(path, QString::fromUtf8(e.what())));
    }
    if (!j.is_object())
        return badInput(QStringLiteral("%1 is not a dbt manifest: not a JSON object").arg(path));
    const Json &metadata = member(j, "metadata");
    const QString schemaUrl = text(metadata, "dbt_schema_version");
    if (schemaUrl.isEmpty())
        return badInput(
            QStringLiteral("%1 is not a dbt manifest: metadata.dbt_schema_version is missing")
                .arg(path));
    static const QRegularExpression version(QStringLiteral("/manifest/(v\\d+)\\.json$"));
    const auto m = version.match(schemaUrl);
    if (!m.hasMatch())
        return badInput(QStringLiteral("%1: metadata.dbt_schema_version \"%2\" is not a manifest "
                                       "schema")
                            .arg(path, schemaUrl));
    Manifest out;
    out.schemaVersion = m.captured(1);
    if (!kSchemaVersions.contains(out.schemaVersion))
        return badInput(QStringLiteral("%1: manifest schema %2 (%3); Rewind reads %4 (dbt 1.6 "
                                       "and later): run the project's dbt once more to write one")
                            .arg(path, out.schemaVersion, schemaUrl,
                                 kSchemaVersions.join(QStringLiteral(", "))));
    out.dbtVersion = text(metadata, "dbt_version");
    out.adapter = text(metadata, "adapter_type");
    out.projectName = text(metadata, "project_name");

    const Json &nodes = member(j, "nodes");
    if (!nodes.is_object())
        return badInput(QStringLiteral("%1: \"nodes\" is missing or not an object").arg(path));
    std::vector<Test> tests;
    QStringList attachedTo;
    for (const auto &[key, n] : nodes.items()) {
        const QString type = text(n, "resource_type");
        if (type == QLatin1String("test")) {
            const Json &meta = member(n, "test_metadata");
            if (!meta.is_object())
                continue; // a singular test: SQL of its own, not a gate Rewind maps
            Test t;
            t.uniqueId = text(n, "unique_id");
            t.name = text(meta, "name");
            t.nameSpace = text(meta, "namespace");
            t.column = text(n, "column_name");
            if (member(meta, "kwargs").is_object())
                t.kwargs = member(meta, "kwargs");
            const Json &config = member(n, "config");
            t.severity = text(config, "severity").toLower();
            t.where = text(config, "where");
            t.errorIf = text(config, "error_if").simplified();
            QString attached = text(n, "attached_node");
            if (attached.isEmpty()) // not recorded: the first model or snapshot it depends on
                for (const Json &d : member(member(n, "depends_on"), "nodes"))
                    if (d.is_string() && (d.get<std::string>().starts_with("model.") ||
                                          d.get<std::string>().starts_with("snapshot."))) {
                        attached = QString::fromStdString(d.get<std::string>());
                        break;
                    }
            tests.push_back(std::move(t));
            attachedTo << attached;
            continue;
        }
        if (type != QLatin1String("model") && type != QLatin1String("snapshot") &&
            type != QLatin1String("seed"))
            continue;
        auto node = readNode(key, n);
        if (!node)
            return badInput(QStringLiteral("%1: %2").arg(path, node.error().message));
        out.nodes.push_back(std::move(*node));
    }
    std::sort(out.nodes.begin(), out.nodes.end(),
              [](const Node &a, const Node &b) { return a.uniqueId < b.uniqueId; });
    for (const auto &[key, s] : member(j, "sources").items()) {
        if (!s.is_object())
            continue;
        Source source;
        source.uniqueId = text(s, "unique_id");
        if (source.uniqueId.isEmpty())
            source.uniqueId = QString::fromStdString(key);
        source.sourceName = text(s, "source_name");
        source.name = text(s, "name");
        source.relationName = text(s, "relation_name");
        source.packageName = text(s, "package_name");
        out.sources.push_back(std::move(source));
    }
    std::sort(out.sources.begin(), out.sources.end(),
              [](const Source &a, const Source &b) { return a.uniqueId < b.uniqueId; });
    for (std::size_t i = 0; i < tests.size(); ++i) {
        const auto node = std::find_if(out.nodes.begin(), out.nodes.end(), [&](const Node &n) {
            return n.uniqueId == attachedTo[qsizetype(i)];
        });
        if (node != out.nodes.end())
            node->tests.push_back(std::move(tests[i]));
    }
    for (Node &n : out.nodes)
        std::sort(n.tests.begin(), n.tests.end(),
                  [](const Test &a, const Test &b) { return a.uniqueId < b.uniqueId; });
    return out;
}

Result<Manifest> loadManifest(const QString &path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return badInput(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    return parseManifest(f.readAll(), path);
}

} // namespace rw::dbt
