#pragma once

#include "core/kafka/kafkaclient.h"
#include "core/sql/bulkload.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <array>
#include <span>

namespace rw {

// Fetched records as rows of the replay's work table (rewind_kafka_events,
// columns()): partition, offset, event id (from the key or a header by
// `eventIdRule`; null for a JSON path, which SQL reads from the payload),
// timestamp (ISO-8601 UTC, ms), payload as text (exactly its bytes where they
// are UTF-8 without NUL, else with bad bytes and NULs replaced), key bytes, headers
// JSON, and the payload's bytes where they are not such text. Made without a
// QVariant or QString per record: a replay makes a million a minute.
class KafkaEventRows {
public:
    explicit KafkaEventRows(const QString &eventIdRule);
    static const QStringList &columns();
    // The record's row. Its values borrow from the record and from this
    // object: valid until the next call.
    std::span<const BulkValue> row(const kafkaclient::RecordView &record);

private:
    enum class IdFrom { Key, Header, Sql };
    IdFrom m_idFrom = IdFrom::Sql;
    QByteArray m_header;
    std::array<char, 48> m_ts{};
    QByteArray m_id, m_payload, m_headers;
    std::array<BulkValue, 8> m_row;
};

} // namespace rw
