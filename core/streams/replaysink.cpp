#include "core/sql/audit.h"
#include "core/streams/replayer.h"

#include <QStringBuilder>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace rw::replay_detail {

namespace {

// Events whose field values decide a new sink's column types (PostgreSQL).
constexpr qint64 kTypeSample = 10000;

} // namespace

Status Replayer::ensureSink() {
    auto exists = m_db.hasRelation(m_stream.sink);
    if (!exists)
        return fail(exists.error());
    const QString sink = m_db.quoteTable(m_stream.sink);
    if (!*exists) {
        auto types = fieldTypes();
        if (!types)
            return fail(types.error());
        QStringList cols{QStringLiteral("\"event_id\" TEXT PRIMARY KEY")};
        for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
            cols << (types->at(i).isEmpty()
                         ? m_db.quote(m_stream.fields[i].first)
                         : QString(m_db.quote(m_stream.fields[i].first) % u' ' % types->at(i)));
        if (auto r = m_db.exec(QStringLiteral("CREATE TABLE ") % sink % QStringLiteral(" (") %
                               cols.join(QStringLiteral(", ")) % u')');
            !r)
            return fail(r.error());
        m_result.sinkCreated = true;
        return {};
    }
    if (auto s = addSinkColumns(); !s)
        return s;
    auto unique = relationIndexColumns(m_db, m_sd.listUniqueIndexColumns(), m_stream.sink);
    if (!unique)
        return fail(unique.error());
    for (const QStringList &columns : *unique)
        if (columns == QStringList{QStringLiteral("event_id")})
            return {};
    auto r = m_db.exec(
        QStringLiteral("CREATE UNIQUE INDEX ") %
        m_db.quote(QStringLiteral("rewind_uq_") % m_stream.sink % QStringLiteral("_event_id")) %
        QStringLiteral(" ON ") % sink % QStringLiteral(" (\"event_id\")"));
    if (!r)
        return fail(Error::badInput(QStringLiteral("sink \"%1\" of stream \"%2\" has no unique "
                                                   "index on event_id and one cannot be added "
                                                   "(duplicate event_ids already in it?): %3")
                                        .arg(m_stream.sink, m_stream.name, r.error().message)));
    return {};
}

Result<QList<qsizetype>> Replayer::fieldsWithoutColumn() {
    auto columns = m_db.columns(m_stream.sink);
    if (!columns)
        return fail(columns.error());
    QList<qsizetype> out;
    for (qsizetype i = 0; i < qsizetype(m_stream.fields.size()); ++i)
        if (std::none_of(columns->begin(), columns->end(), [&](const ColumnInfo &c) {
                return c.name == m_stream.fields[std::size_t(i)].first;
            }))
            out << i;
    return out;
}

// Fields of the spec the existing sink has no column for: added, typed as a
// new sink would type them, with an audit row, in the transaction before the
// first batch (on_schema_change append_new_columns; the spec check refuses
// them under fail).
Status Replayer::addSinkColumns() {
    auto missing = fieldsWithoutColumn();
    if (!missing)
        return fail(missing.error());
    if (missing->isEmpty())
        return {};
    if (m_stream.onSchemaChange == SchemaChangePolicy::Fail)
        return badInput(QStringLiteral("sink \"%1\" of stream \"%2\" has no column for field "
                                       "\"%3\"; \"on_schema_change\": \"append_new_columns\" "
                                       "would add it")
                            .arg(m_stream.sink, m_stream.name,
                                 m_stream.fields[std::size_t(missing->front())].first));
    auto types = fieldTypes();
    if (!types)
        return fail(types.error());
    QStringList statements;
    nlohmann::ordered_json added = nlohmann::ordered_json::array();
    for (const qsizetype i : *missing) {
        const QString &field = m_stream.fields[std::size_t(i)].first;
        statements << QStringLiteral("ALTER TABLE ") % m_db.quoteTable(m_stream.sink) %
                          QStringLiteral(" ADD COLUMN ") % m_db.quote(field) %
                          (types->at(i).isEmpty() ? QString() : QString(u' ' % types->at(i)));
        added.push_back({{"column", field.toStdString()}, {"type", types->at(i).toStdString()}});
        m_result.sinkColumnsAdded << field;
    }
    if (auto s = m_db.execAll(statements); !s)
        return s;
    return writeAudit(m_db, QStringLiteral("sink schema change"), QString(), m_stream.name,
                      QVariant(),
                      QString::fromStdString(nlohmann::ordered_json{
                          {"sink", m_stream.sink.toStdString()},
                          {"added", added}}.dump()));
}

// The declared type of each field's sink column, from the JSON types its
// values have in the first kTypeSample events of the first batch (the
// dialect decides; SQLite declares none).
Result<QStringList> Replayer::fieldTypes() {
    QStringList out;
    const bool typed = !m_sd.sinkColumnType({}).isEmpty();
    if (typed && !m_batches.empty()) {
        if (auto s = fillSlices(m_batches.front()); !s)
            return fail(s.error());
        // Only the sample's events are read: the first kTypeSample offsets
        // of the first batch, in its order (what LIMIT below reads first).
        Batch sample;
        qint64 left = kTypeSample;
        for (const Slice &sl : m_batches.front()) {
            if (left <= 0)
                break;
            const qint64 take = std::min(left, sl.to - sl.from);
            sample.push_back({sl.partition, sl.from, sl.from + take});
            left -= take;
        }
        if (auto s = m_log->readRange(sample); !s)
            return fail(s.error());
    }
    for (const auto &[name, path] : m_stream.fields) {
        QStringList seen;
        if (typed && !m_batches.empty()) {
            auto q = m_db.exec(QStringLiteral("SELECT DISTINCT t FROM (SELECT ") %
                                   m_sd.jsonTypeAt(m_payload, QStringLiteral("?")) %
                                   QStringLiteral(" AS t") % m_from % QStringLiteral(" LIMIT ") %
                                   QString::number(kTypeSample) % QStringLiteral(") AS v"),
                               {path});
            if (!q)
                return fail(q.error());
            while (q->next())
                if (!q->value(0).isNull())
                    seen << q->value(0).toString();
        }
        out << m_sd.sinkColumnType(seen);
    }
    return out;
}

// The sink's columns and their declared types (PostgreSQL casts the extracted text to them).
Status Replayer::readSinkColumns() {
    auto columns = m_db.columns(m_stream.sink);
    if (!columns)
        return fail(columns.error());
    m_sinkColumns.clear();
    for (const ColumnInfo &c : *columns)
        m_sinkColumns.insert(c.name, c);
    return {};
}

} // namespace rw::replay_detail
