#pragma once

#include <QLoggingCategory>
#include <QString>

// What kafkalog.cpp and kafkareader.cpp (KafkaLog's two halves) share.
namespace rw::kafkalog_detail {

Q_DECLARE_LOGGING_CATEGORY(lcKafka)

// The replay's work table: a temporary table of the reading connection.
inline QString eventsTable() {
    return QStringLiteral("rewind_kafka_events");
}

} // namespace rw::kafkalog_detail
