#include "core/workspace/spec.h"

#include "core/sql/controlschema.h"
#include "core/sql/database.h"
#include "core/util/timeutil.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw {

using Json = nlohmann::ordered_json;

namespace {

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

QString jsonTypeName(const Json &v) {
    if (v.is_string())
        return QStringLiteral("a string");
    if (v.is_boolean())
        return QStringLiteral("a boolean");
    if (v.is_number())
        return QStringLiteral("a number");
    if (v.is_array())
        return QStringLiteral("an array");
    if (v.is_object())
        return QStringLiteral("an object");
    return QStringLiteral("null");
}

// Reads the fields of one JSON object, recording an error for each field of
// the wrong type and for each field it does not know.
class Fields {
public:
    Fields(const Json &object, QString context, QStringList &errors)
        : m_object(object)
        , m_context(std::move(context))
        , m_errors(errors) {}

    void error(const QString &field, const QString &what) {
        m_errors << m_context % QStringLiteral(": \"") % field % QStringLiteral("\": ") % what;
    }
    void error(const QString &what) { m_errors << m_context % QStringLiteral(": ") % what; }

    bool has(const char *field) const { return m_object.contains(field); }

    QString string(const char *field, bool required = false) {
        const Json *value = typed(field, required, &Json::is_string, "a string");
        if (!value)
            return {};
        const QString text = qs(value->get<std::string>());
        if (text.trimmed().isEmpty())
            error(QLatin1String(field), QStringLiteral("must not be empty"));
        return text;
    }

    QStringList strings(const char *field, bool required = false) {
        const Json *array = typed(field, required, &Json::is_array, "an array of column names");
        if (!array)
            return {};
        QStringList out;
        for (const auto &item : *array) {
            if (!item.is_string() || item.get<std::string>().empty()) {
                error(QLatin1String(field),
                      QStringLiteral("must hold only non-empty strings, found ") %
                          jsonTypeName(item));
                return {};
            }
            const QString name = qs(item.get<std::string>());
            if (out.contains(name)) {
                error(QLatin1String(field),
                      QStringLiteral("names \"") % name % QStringLiteral("\" twice"));
                return {};
            }
            out << name;
        }
        if (out.isEmpty() && required)
            error(QLatin1String(field), QStringLiteral("must name at least one column"));
        return out;
    }

    std::optional<double> number(const char *field) {
        if (const Json *value = typed(field, false, &Json::is_number, "a number"))
            return value->get<double>();
        return std::nullopt;
    }

    const Json *object(const char *field) {
        return typed(field, false, &Json::is_object, "an object");
    }

    const Json *array(const char *field) {
        return typed(field, false, &Json::is_array, "an array");
    }

    void remember(const QString &field) {
        if (!m_known.contains(field))
            m_known << field;
    }

    // Reports every field that no accessor asked for: usually a typo.
    void rejectUnknown() {
        for (auto it = m_object.begin(); it != m_object.end(); ++it) {
            const QString key = qs(it.key());
            if (!m_known.contains(key))
                error(key,
                      QStringLiteral("is not a known field (known: ") % m_known.join(u", ") % u')');
        }
    }

private:
    // The field, when present and of the type `is` tests for (`what` names
    // it in the error); else null, with an error when it is of another type
    // or required and absent.
    const Json *typed(const char *field, bool required, bool (Json::*is)() const noexcept,
                      const char *what) {
        remember(QLatin1String(field));
        const auto it = m_object.find(field);
        if (it == m_object.end()) {
            if (required)
                error(QLatin1String(field), QStringLiteral("is required"));
            return nullptr;
        }
        if (!((*it).*is)()) {
            error(QLatin1String(field), QStringLiteral("must be ") % QLatin1String(what) %
                                            QStringLiteral(", not ") % jsonTypeName(*it));
            return nullptr;
        }
        return &*it;
    }

    const Json &m_object;
    QString m_context;
    QStringList &m_errors;
    QStringList m_known;
};

const QStringList kCheckTypes = {
    QStringLiteral("not_null"),    QStringLiteral("unique_key"), QStringLiteral("references"),
    QStringLiteral("row_count"),   QStringLiteral("total"),      QStringLiteral("sql"),
    QStringLiteral("max_changed"), QStringLiteral("unchanged"),  QStringLiteral("delta")};

CheckSpec parseCheck(const Json &value, const QString &context, const DatasetSpec &dataset,
                     QStringList &errors) {
    CheckSpec check;
    if (!value.is_object()) {
        errors << context % QStringLiteral(": must be an object, not ") % jsonTypeName(value);
        return check;
    }
    Fields f(value, context, errors);
    check.type = f.string("type", true);
    check.name = f.string("name");
    if (check.type.isEmpty())
        return check;
    if (!kCheckTypes.contains(check.type)) {
        f.error(QStringLiteral("type"), QStringLiteral("unknown check type \"") % check.type %
                                            QStringLiteral("\" (known: ") %
                                            kCheckTypes.join(u", ") % u')');
        return check;
    }
    const bool rowLevel =
        check.type == QLatin1String("not_null") || check.type == QLatin1String("references");
    if (rowLevel) {
        if (f.has("on_fail")) {
            check.onFail = f.string("on_fail");
            if (check.onFail != QLatin1String("fail") &&
                check.onFail != QLatin1String("quarantine"))
                f.error(QStringLiteral("on_fail"),
                        QStringLiteral("must be \"fail\" or \"quarantine\", not \"") %
                            check.onFail % u'"');
        }
    }
    if (check.type == QLatin1String("not_null")) {
        check.columns = f.strings("columns", true);
    } else if (check.type == QLatin1String("unique_key")) {
        if (dataset.key.isEmpty())
            f.error(QStringLiteral("a unique_key check needs the dataset's \"key\""));
    } else if (check.type == QLatin1String("references")) {
        check.column = f.string("column", true);
        check.refTable = f.string("table", true);
        check.refColumn = f.string("to", true);
    } else if (check.type == QLatin1String("row_count")) {
        check.min = f.number("min");
        check.max = f.number("max");
        if (!check.min && !check.max && !f.has("min") && !f.has("max"))
            f.error(QStringLiteral("a row_count check needs \"min\" or \"max\""));
        if (check.min && check.max && *check.min > *check.max)
            f.error(QStringLiteral("min"), QStringLiteral("is greater than \"max\""));
    } else if (check.type == QLatin1String("total")) {
        check.column = f.string("column", true);
        const auto tolerance = f.number("tolerance_pct");
        if (tolerance) {
            if (*tolerance < 0)
                f.error(QStringLiteral("tolerance_pct"), QStringLiteral("must not be negative"));
            check.tolerancePct = *tolerance;
        }
    } else if (check.type == QLatin1String("max_changed") || check.type == QLatin1String("delta") ||
               check.type == QLatin1String("unchanged")) {
        // The size of a change: rows matched by key against the target.
        if (dataset.write != WriteMode::Merge && dataset.write != WriteMode::OverwritePartition)
            f.error(QStringLiteral("type"),
                    QStringLiteral("\"") % check.type %
                        QStringLiteral("\" compares staged rows with the target's by key: only "
                                       "for write \"merge\" or \"overwrite_partition\""));
        else if (dataset.key.isEmpty())
            f.error(QStringLiteral("type"), QStringLiteral("\"") % check.type %
                                                QStringLiteral("\" needs the dataset's \"key\" "
                                                               "to match staged rows with the "
                                                               "target's"));
        if (check.type == QLatin1String("unchanged")) {
            check.columns = f.strings("columns", true);
            if (f.has("columns") && check.columns.isEmpty())
                f.error(QStringLiteral("columns"), QStringLiteral("must name at least one column"));
        } else {
            check.column = f.string("column", true);
            const auto pct = f.number("max_pct");
            if (!pct && !f.has("max_pct"))
                f.error(QStringLiteral("max_pct"), QStringLiteral("is required"));
            else if (pct && *pct < 0)
                f.error(QStringLiteral("max_pct"), QStringLiteral("must not be negative"));
            else if (pct && check.type == QLatin1String("max_changed") && *pct > 100)
                f.error(QStringLiteral("max_pct"),
                        QStringLiteral("is a share of the matched rows: at most 100"));
            check.maxPct = pct.value_or(0);
        }
    } else if (check.type == QLatin1String("sql")) {
        check.query = f.string("query", true);
        check.min = f.number("min");
        check.max = f.number("max");
        if (!f.has("name"))
            f.error(QStringLiteral("name"), QStringLiteral("is required for an sql check"));
        if (!check.min && !check.max && !f.has("min") && !f.has("max"))
            f.error(QStringLiteral("an sql check needs \"min\" or \"max\" for its single value"));
    }
    f.rejectUnknown();
    if (check.name.isEmpty())
        check.name = check.column.isEmpty() ? check.type : check.type % u':' % check.column;
    return check;
}

// "on_schema_change" (a dataset's or a stream's): fail when absent; an
// unknown value is an error naming the known ones.
SchemaChangePolicy schemaChangePolicy(Fields &f) {
    if (!f.has("on_schema_change"))
        return SchemaChangePolicy::Fail;
    const QString policy = f.string("on_schema_change");
    if (const auto known = enumFromName<SchemaChangePolicy>(policy))
        return *known;
    f.error(QStringLiteral("on_schema_change"), QStringLiteral("unknown value \"") % policy %
                                                    QStringLiteral("\" (known: ") %
                                                    enumNames<SchemaChangePolicy>() % u')');
    return SchemaChangePolicy::Fail;
}

DatasetSpec parseDataset(const QString &name, const Json &value, QStringList &errors) {
    DatasetSpec d;
    d.name = name;
    const QString context = QStringLiteral("dataset \"") % name % u'"';
    if (!value.is_object()) {
        errors << context % QStringLiteral(": must be an object, not ") % jsonTypeName(value);
        return d;
    }
    Fields f(value, context, errors);
    d.source = f.string("source");
    d.transform = f.string("transform");
    d.target = f.string("target", true);
    d.partitionColumn = f.string("partition_column");
    d.partitionGranularity = f.string("partition_granularity");
    if (!d.partitionGranularity.isEmpty()) {
        static const QStringList grains{QStringLiteral("hour"), QStringLiteral("day"),
                                        QStringLiteral("month")};
        if (!grains.contains(d.partitionGranularity))
            f.error(QStringLiteral("partition_granularity"),
                    QStringLiteral("is \"") % d.partitionGranularity %
                        QStringLiteral("\"; it is one of hour, day, month"));
        else if (d.partitionColumn.isEmpty())
            f.error(QStringLiteral("partition_granularity"),
                    QStringLiteral("needs \"partition_column\": the timestamp it takes the ") %
                        d.partitionGranularity % QStringLiteral(" of"));
    }
    d.key = f.strings("key");
    d.fedBy = f.strings("fed_by");
    d.orderBy = f.string("order_by");
    d.mergeUpdateColumns = f.strings("merge_update_columns");
    d.mergeExcludeColumns = f.strings("merge_exclude_columns");
    const QString write = f.has("write") ? f.string("write") : enumName(d.write);
    if (const auto mode = enumFromName<WriteMode>(write))
        d.write = *mode;
    d.onSchemaChange = schemaChangePolicy(f);
    d.eventTime = f.string("event_time");
    d.ingestTime = f.string("ingest_time");
    const QString lateness = f.string("allowed_lateness");
    const Json *scd2 = f.object("scd2");
    const Json *checks = f.array("checks");
    if (const Json *dbt = f.object("dbt")) {
        Fields df(*dbt, context % QStringLiteral(": \"dbt\""), errors);
        DatasetSpec::DbtOrigin origin;
        origin.uniqueId = df.string("unique_id", true);
        origin.checksum = df.string("checksum");
        df.rejectUnknown();
        d.dbt = origin;
    }

    if (d.source.isEmpty() && d.transform.isEmpty() && !f.has("source") && !f.has("transform"))
        f.error(QStringLiteral("needs a \"source\" table or a \"transform\" SELECT"));
    if (!d.target.isEmpty() && d.target == d.source)
        f.error(QStringLiteral("target"),
                QStringLiteral("must differ from \"source\" (both are \"") % d.source %
                    QStringLiteral("\")"));
    const bool knownWrite = enumFromName<WriteMode>(write).has_value();
    if (!knownWrite)
        f.error(QStringLiteral("write"), QStringLiteral("unknown write mode \"") % write %
                                             QStringLiteral("\" (known: ") %
                                             enumNames<WriteMode>() % u')');
    if (knownWrite && d.write != WriteMode::OverwritePartition && d.write != WriteMode::Append &&
        d.key.isEmpty() && !f.has("key"))
        f.error(QStringLiteral("key"), QStringLiteral("is required for write \"") % write % u'"');
    for (const char *field : {"merge_update_columns", "merge_exclude_columns"})
        if (knownWrite && f.has(field) && d.write != WriteMode::Merge)
            f.error(QLatin1String(field),
                    QStringLiteral("is only used with \"write\": \"merge\" (write is \"") % write %
                        QStringLiteral("\")"));
    if (!d.mergeUpdateColumns.isEmpty() && !d.mergeExcludeColumns.isEmpty())
        f.error(QStringLiteral("merge_exclude_columns"),
                QStringLiteral("cannot be given with \"merge_update_columns\": one names the "
                               "columns a match updates, the other those it does not"));
    if (knownWrite && d.keepsEveryRow() && !d.orderBy.isEmpty())
        f.error(QStringLiteral("order_by"),
                QStringLiteral("picks the latest row of a key, but write \"") % write %
                    QStringLiteral("\" keeps every staged row"));
    if (f.has("key") && d.key.isEmpty() && value["key"].is_array())
        f.error(QStringLiteral("key"), QStringLiteral("must name at least one column"));
    if (!lateness.isEmpty()) {
        auto seconds = timeutil::parseDuration(lateness);
        if (!seconds)
            f.error(QStringLiteral("allowed_lateness"), seconds.error().message);
        else
            d.allowedLatenessSeconds = *seconds;
        if (d.eventTime.isEmpty() && !f.has("event_time"))
            f.error(QStringLiteral("allowed_lateness"),
                    QStringLiteral("needs \"event_time\" to set a watermark"));
    }
    if (!d.ingestTime.isEmpty() && d.eventTime.isEmpty() && !f.has("event_time"))
        f.error(QStringLiteral("ingest_time"),
                QStringLiteral("needs \"event_time\" to measure lateness"));
    if (scd2) {
        Scd2Spec s;
        Fields sf(*scd2, context % QStringLiteral(": \"scd2\""), errors);
        if (const auto all = scd2->find("tracked");
            all != scd2->end() && all->is_string() && all->get<std::string>() == "all") {
            s.trackAll = true;
            sf.remember(QStringLiteral("tracked"));
        } else {
            s.tracked = sf.strings("tracked", true);
        }
        s.validFrom = sf.string("valid_from", true);
        s.validTo = sf.string("valid_to", true);
        s.current = sf.string("current");
        s.notTracked = sf.strings("not_tracked");
        if (!s.notTracked.isEmpty() && !s.trackAll)
            sf.error(QStringLiteral("not_tracked"),
                     QStringLiteral("is only used with \"tracked\": \"all\""));
        const QString hardDeletes = sf.string("hard_deletes");
        if (hardDeletes == QLatin1String("invalidate"))
            s.invalidateHardDeletes = true;
        else if (!hardDeletes.isEmpty() && hardDeletes != QLatin1String("ignore"))
            sf.error(QStringLiteral("hard_deletes"),
                     QStringLiteral("must be \"ignore\" or \"invalidate\" (not \"%1\")")
                         .arg(hardDeletes));
        sf.rejectUnknown();
        const QStringList names = s.versionColumns();
        if (QSet<QString>(names.begin(), names.end()).size() != names.size() &&
            !s.validFrom.isEmpty() && !s.validTo.isEmpty())
            sf.error(QStringLiteral("valid_from, valid_to and current must be different columns"));
        d.scd2 = s;
        if (!knownWrite || d.write != WriteMode::Scd2)
            f.error(QStringLiteral("scd2"),
                    QStringLiteral("is only used with \"write\": \"scd2\" (write is \"") % write %
                        QStringLiteral("\")"));
    } else if (knownWrite && d.write == WriteMode::Scd2) {
        f.error(QStringLiteral("scd2"), QStringLiteral("is required for write \"scd2\" (tracked, "
                                                       "valid_from, valid_to, optional current)"));
    }
    if (d.transform.contains(QLatin1String("{snapshot_time}")) &&
        (!knownWrite || d.write != WriteMode::Scd2))
        f.error(QStringLiteral("transform"),
                QStringLiteral("says {snapshot_time}, which dates the versions of a \"write\": "
                               "\"scd2\" dataset by its run"));
    if (d.scd2 && d.scd2->invalidateHardDeletes && !d.datedByRun())
        f.error(QStringLiteral("scd2"),
                QStringLiteral("\"hard_deletes\": \"invalidate\" needs the source to be the whole "
                               "dimension at each run: a transform dated by {snapshot_time}"));
    if (knownWrite && d.write == WriteMode::Scd2 && !d.partitionGranularity.isEmpty())
        f.error(QStringLiteral("partition_granularity"),
                QStringLiteral("does not apply to write \"scd2\": its partition is the effective "
                               "date itself, which becomes valid_from"));
    if (knownWrite && d.write == WriteMode::Scd2 && d.partitionColumn.isEmpty() &&
        !f.has("partition_column"))
        f.error(QStringLiteral("partition_column"),
                QStringLiteral("is required for write \"scd2\" (it holds the effective date)"));
    if (checks) {
        int index = 0;
        for (const auto &c : *checks) {
            d.checks.push_back(
                parseCheck(c, context % QStringLiteral(": checks[") % QString::number(index) % u']',
                           d, errors));
            ++index;
        }
    }
    f.rejectUnknown();
    return d;
}

StreamSpec parseStream(const QString &name, const Json &value, QStringList &errors) {
    StreamSpec s;
    s.name = name;
    const QString context = QStringLiteral("stream \"") % name % u'"';
    if (!value.is_object()) {
        errors << context % QStringLiteral(": must be an object, not ") % jsonTypeName(value);
        return s;
    }
    Fields f(value, context, errors);
    if (const Json *kafka = f.object("kafka")) {
        KafkaSpec k;
        Fields kf(*kafka, context % QStringLiteral(": \"kafka\""), errors);
        k.bootstrap = kf.string("bootstrap", true);
        k.topic = kf.string("topic", true);
        if (const Json *config = kf.object("config")) {
            for (auto it = config->begin(); it != config->end(); ++it) {
                // Values are named in messages by their property only: they may be secrets.
                if (!it->is_string())
                    kf.error(QStringLiteral("config"),
                             QStringLiteral("\"") % qs(it.key()) %
                                 QStringLiteral("\" must map to a string, not ") %
                                 jsonTypeName(*it));
                else
                    k.config.emplace_back(qs(it.key()), qs(it->get<std::string>()));
            }
        }
        k.groups = kf.strings("groups");
        k.dlqTopic = kf.has("dlq_topic") ? kf.string("dlq_topic") : QString();
        kf.rejectUnknown();
        s.kafka = std::move(k);
        if (f.has("log") && (f.string("log"), true))
            f.error(QStringLiteral("log"),
                    QStringLiteral("and \"kafka\" are exclusive: a stream reads a log table or a "
                                   "Kafka topic, not both"));
        if (f.has("log_columns") && (f.object("log_columns"), true))
            f.error(QStringLiteral("log_columns"),
                    QStringLiteral("is for a log table; a Kafka stream has no columns to name"));
        if (f.has("event_id")) {
            const QString id = f.string("event_id");
            static const QRegularExpression path(
                QStringLiteral(R"re(^\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])+$)re"));
            if (id == QLatin1String("key") || path.match(id).hasMatch() ||
                (id.startsWith(QLatin1String("header:")) && id.size() > 7))
                s.eventId = id;
            else if (!id.isEmpty())
                f.error(
                    QStringLiteral("event_id"),
                    QStringLiteral("\"") % id %
                        QStringLiteral("\": expected \"key\" (the record key), a JSON path such as "
                                       "\"$.id\", or \"header:NAME\""));
        }
    } else {
        s.log = f.string("log", true);
        if (f.has("event_id") && (f.string("event_id"), true))
            f.error(
                QStringLiteral("event_id"),
                QStringLiteral(
                    "is for a Kafka stream; a log table's event ids are its \"event_id\" column"));
    }
    s.sink = f.string("sink", true);
    s.onSchemaChange = schemaChangePolicy(f);
    if (const Json *cols = s.kafka ? nullptr : f.object("log_columns")) {
        Fields cf(*cols, context % QStringLiteral(": \"log_columns\""), errors);
        auto take = [&](const char *field, QString &slot) {
            const QString v = cf.string(field);
            if (!v.isEmpty())
                slot = v;
        };
        take("partition_id", s.logColumns.partitionId);
        take("log_offset", s.logColumns.logOffset);
        take("event_id", s.logColumns.eventId);
        take("record_ts", s.logColumns.recordTs);
        take("payload", s.logColumns.payload);
        cf.rejectUnknown();
    }
    if (const Json *fields = f.object("fields")) {
        for (auto it = fields->begin(); it != fields->end(); ++it) {
            const QString column = qs(it.key());
            if (!it->is_string()) {
                f.error(QStringLiteral("fields"),
                        QStringLiteral("\"") % column %
                            QStringLiteral("\" must map to a JSONPath string such as \"$.") %
                            column % QStringLiteral("\", not ") % jsonTypeName(*it));
                continue;
            }
            const QString path = qs(it->get<std::string>());
            // The steps SQLite's json_extract and PostgreSQL's jsonpath read
            // alike: a bare name as an identifier, any other key quoted (no
            // quote or backslash in it: their escapes differ), an index.
            static const QRegularExpression sharedPath(QStringLiteral(
                R"re(^\$(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|"[^"\\]*")|\[[0-9]+\])*$)re"));
            if (!path.startsWith(u'$'))
                f.error(QStringLiteral("fields"), QStringLiteral("\"") % column %
                                                      QStringLiteral("\": JSONPath \"") % path %
                                                      QStringLiteral("\" must start with \"$\""));
            else if (!sharedPath.match(path).hasMatch())
                f.error(QStringLiteral("fields"),
                        QStringLiteral("\"") % column % QStringLiteral("\": JSONPath \"") % path %
                            QStringLiteral(
                                "\" is not one every engine reads alike: use $ then .name "
                                "(letters, digits, _), "
                                ".\"any other key\" or [N] steps, like $.items[0].\"unit-price\""));
            if (column == QLatin1String("event_id"))
                f.error(QStringLiteral("fields"),
                        QStringLiteral(
                            "\"event_id\" is written by Rewind from the log; do not map it"));
            s.fields.emplace_back(column, path);
        }
    } else if (!f.has("fields")) {
        f.error(QStringLiteral("fields"),
                QStringLiteral("is required (sink column -> JSONPath into the payload)"));
    }
    s.required = f.strings("required");
    for (const QString &r : s.required) {
        const bool known = std::any_of(s.fields.begin(), s.fields.end(),
                                       [&](const auto &p) { return p.first == r; });
        if (!known)
            f.error(QStringLiteral("required"),
                    QStringLiteral("names \"") % r %
                        QStringLiteral("\", which is not one of \"fields\""));
    }
    if (!s.log.isEmpty() && s.log == s.sink)
        f.error(QStringLiteral("sink"), QStringLiteral("must differ from \"log\" (both are \"") %
                                            s.log % QStringLiteral("\")"));
    f.rejectUnknown();
    return s;
}

QString lineAndColumn(const QByteArray &json, std::size_t byte) {
    int line = 1, column = 1;
    const qsizetype end = std::min<qsizetype>(qsizetype(byte > 0 ? byte - 1 : 0), json.size());
    for (qsizetype i = 0; i < end; ++i) {
        if (json.at(i) == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

} // namespace

const DatasetSpec *Spec::dataset(const QString &name) const {
    for (const auto &d : datasets)
        if (d.name == name)
            return &d;
    return nullptr;
}

const StreamSpec *Spec::stream(const QString &name) const {
    for (const auto &s : streams)
        if (s.name == name)
            return &s;
    return nullptr;
}

QString Spec::brokenHint() const {
    if (broken.size() < qsizetype(datasets.size() + streams.size()))
        return QStringLiteral("its other datasets and streams work");
    return QStringLiteral(
        "none of its datasets and streams resolves: is this the database the spec is for?");
}

Result<const DatasetSpec *> Spec::requireDataset(const QString &name) const {
    if (const auto *d = dataset(name)) {
        if (const QString why = brokenReason(QStringLiteral("dataset"), name); !why.isEmpty())
            return badInput(QStringLiteral("dataset \"%1\" cannot be used: %2 (spec %3; %4)")
                                .arg(name, why, path, brokenHint()));
        return d;
    }
    QStringList names;
    for (const auto &d : datasets)
        names << d.name;
    return badInput(QStringLiteral("unknown dataset \"%1\" (the spec has: %2)")
                        .arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(u", ")));
}

Result<const StreamSpec *> Spec::requireStream(const QString &name) const {
    if (const auto *s = stream(name)) {
        if (const QString why = brokenReason(QStringLiteral("stream"), name); !why.isEmpty())
            return badInput(QStringLiteral("stream \"%1\" cannot be used: %2 (spec %3; %4)")
                                .arg(name, why, path, brokenHint()));
        return s;
    }
    QStringList names;
    for (const auto &s : streams)
        names << s.name;
    return badInput(QStringLiteral("unknown stream \"%1\" (the spec has: %2)")
                        .arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(u", ")));
}

namespace {

// Each dataset's feeding streams: those its "fed_by" names (each must be a
// stream of the spec), then any other whose sink is its source or is read
// by its transform (the sink's name as a word of the SQL).
void resolveFeeds(Spec &spec, QStringList &errors) {
    for (DatasetSpec &d : spec.datasets) {
        d.feeds.clear();
        for (const QString &name : std::as_const(d.fedBy)) {
            if (const StreamSpec *stream = spec.stream(name)) {
                d.feeds.push_back(*stream);
                continue;
            }
            QStringList names;
            for (const StreamSpec &st : spec.streams)
                names << st.name;
            errors << QStringLiteral("dataset \"%1\": \"fed_by\": no stream named \"%2\" (the "
                                     "spec has: %3)")
                          .arg(d.name, name,
                               names.isEmpty() ? QStringLiteral("none") : names.join(u", "));
        }
        for (const StreamSpec &st : spec.streams) {
            if (d.fedBy.contains(st.name) || st.sink.isEmpty())
                continue;
            const QRegularExpression word(QStringLiteral("(?<![\\w.\"])\"?%1\"?(?![\\w\"])")
                                              .arg(QRegularExpression::escape(st.sink)),
                                          QRegularExpression::CaseInsensitiveOption);
            if (d.source.compare(st.sink, Qt::CaseInsensitive) == 0 ||
                (!d.transform.isEmpty() && word.match(d.transform).hasMatch()))
                d.feeds.push_back(st);
        }
    }
}

} // namespace

Result<Spec> parseSpec(const QByteArray &json, const QString &origin) {
    Json root;
    try {
        root = Json::parse(json.constData(), json.constData() + json.size());
    } catch (const Json::parse_error &e) {
        QString what = QString::fromUtf8(e.what());
        // nlohmann's text starts with "[json.exception.parse_error.101] parse error at line L,
        // column C: ..."
        const qsizetype colon =
            what.indexOf(QLatin1String(": "), what.indexOf(QLatin1String("column")));
        const QString detail = colon >= 0 ? what.mid(colon + 2) : what;
        return badInput(QStringLiteral("spec %1: invalid JSON at %2: %3")
                            .arg(origin, lineAndColumn(json, e.byte), detail));
    } catch (const Json::exception &e) {
        // Valid syntax the parser still refuses: a number out of double's range (1e400).
        QString what = QString::fromUtf8(e.what());
        what.remove(QRegularExpression(QStringLiteral("^\\[[^\\]]*\\] ")));
        return badInput(QStringLiteral("spec %1: invalid JSON: %2").arg(origin, what));
    }
    QStringList errors;
    Spec spec;
    spec.path = origin;
    if (!root.is_object())
        return badInput(QStringLiteral("spec %1: the top level must be an object with \"datasets\" "
                                       "and/or \"streams\", not %2")
                            .arg(origin, jsonTypeName(root)));
    Fields top(root, QStringLiteral("spec"), errors);
    const Json *datasets = top.object("datasets");
    const Json *streams = top.object("streams");
    top.string("description");
    if (const QString manifest = top.string("dbt_manifest"); !manifest.isEmpty())
        spec.dbtManifest = QFileInfo(manifest).isAbsolute()
                               ? manifest
                               : QFileInfo(origin).dir().filePath(manifest);
    // "control_db": where a Trino warehouse's workspace keeps its control
    // tables (a SQLite path, resolved against the spec's folder, or a
    // PostgreSQL URL); openWorkspace checks it against --db.
    if (const QString control = top.string("control_db"); !control.isEmpty()) {
        const bool url = control.contains(QLatin1String("://")) ||
                         control.startsWith(QLatin1String("sqlite:")) || control.contains(u'=');
        spec.controlDb = url || QFileInfo(control).isAbsolute()
                             ? control
                             : QFileInfo(origin).dir().filePath(control);
    }
    top.rejectUnknown();
    if (!datasets && !streams && errors.isEmpty())
        errors << QStringLiteral("spec: defines no \"datasets\" and no \"streams\"");
    if (datasets)
        for (auto it = datasets->begin(); it != datasets->end(); ++it)
            spec.datasets.push_back(parseDataset(qs(it.key()), it.value(), errors));
    if (streams)
        for (auto it = streams->begin(); it != streams->end(); ++it)
            spec.streams.push_back(parseStream(qs(it.key()), it.value(), errors));
    resolveFeeds(spec, errors);
    if (!errors.isEmpty()) {
        QStringList lines;
        for (const QString &e : errors)
            lines << QStringLiteral("spec ") % origin % QStringLiteral(": ") %
                         (e.startsWith(QLatin1String("spec: ")) ? e.mid(6) : e);
        return badInput(lines.join(u'\n'));
    }
    return spec;
}

Result<Spec> loadSpec(const QString &path) {
    QFile file(path);
    if (!file.exists())
        return badInput(QStringLiteral("--spec %1: no such file").arg(path));
    if (!file.open(QIODevice::ReadOnly))
        return badInput(QStringLiteral("--spec %1: cannot read: %2").arg(path, file.errorString()));
    return parseSpec(file.readAll(), path);
}

QString sourceSelect(const DatasetSpec &dataset, const Database &db) {
    if (dataset.datedByRun()) {
        const QString at = !dataset.snapshotTime.isEmpty()
                               ? dataset.snapshotTime
                               : snapshotTimeText(QDateTime::currentDateTimeUtc());
        QString select = dataset.transform;
        return select.replace(QLatin1String("{snapshot_time}"), u'\'' % at % u'\'');
    }
    if (!dataset.transform.isEmpty())
        return dataset.transform;
    return QStringLiteral("SELECT * FROM ") % db.quoteTable(dataset.source);
}

QString snapshotTimeText(const QDateTime &at) {
    return at.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"));
}

QString sourceRelation(const DatasetSpec &dataset, const Database &db, const QString &alias) {
    return u'(' % sourceSelect(dataset, db) % QStringLiteral(") AS ") % alias;
}

} // namespace rw
