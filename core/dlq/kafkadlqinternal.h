#pragma once

// Internal to core/dlq/kafkadlq*.cpp: what the import and the redrive of
// dead-letter topics share.

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

} // namespace rw::kafkadlq_detail
