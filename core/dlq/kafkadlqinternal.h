#pragma once

// Internal to core/dlq/kafkadlq*.cpp: what the import and the redrive of
// dead-letter topics share.

#include "core/dlq/dlqstore.h"
#include "core/kafka/kafkaclient.h"
#include "core/workspace/spec.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QVariant>

namespace rw::kafkadlq_detail {

// Kafka Connect's error headers start so.
inline const QByteArray kConnectPrefix = QByteArrayLiteral("__connect.errors.");
// The header a redriven or published record carries its DLQ id in.
inline constexpr const char *kDlqIdHeader = "rewind.dlq.id";

inline QVariant nullInt() {
    return QVariant(QMetaType::fromType<qint64>());
}
inline QVariant nullText() {
    return QVariant(QMetaType::fromType<QString>());
}

// One fetched dead-letter record as the DLQ's columns: its origin from
// Kafka Connect's error headers (or the topic it was read from), its event id
// by the stream's rule, key and payload kept byte for byte. `textPayloads`:
// the payload columns are TEXT (PostgreSQL): a value they cannot hold
// exactly goes, byte for byte, to kafka_value instead. Never throws.
dlqstore::ImportedRecord importRow(const StreamSpec &stream, const kafkaclient::RecordView &record,
                                   const QString &dlqTopic, bool textPayloads);

} // namespace rw::kafkadlq_detail
