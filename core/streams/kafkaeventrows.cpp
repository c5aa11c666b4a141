#include "core/streams/kafkaeventrows.h"

#include "core/util/timeutil.h"

#include <QByteArrayView>
#include <QString>
#include <cstring>
#include <librdkafka/rdkafka.h>

namespace rw {

using kafkaclient::headersJson;
using kafkaclient::RecordView;

namespace {

// Bytes TEXT holds as they are on both engines: UTF-8 without NUL.
bool cleanText(const void *data, size_t size) {
    return QByteArrayView(static_cast<const char *>(data), qsizetype(size)).isValidUtf8() &&
           !std::memchr(data, 0, size);
}

std::string_view view(const void *data, size_t size) {
    return {static_cast<const char *>(data), size};
}

std::string_view view(const QByteArray &bytes) {
    return {bytes.constData(), std::size_t(bytes.size())};
}

} // namespace

KafkaEventRows::KafkaEventRows(const QString &eventIdRule) {
    if (eventIdRule == QLatin1String("key")) {
        m_idFrom = IdFrom::Key;
    } else if (eventIdRule.startsWith(QLatin1String("header:"))) {
        m_idFrom = IdFrom::Header;
        m_header = eventIdRule.mid(7).toUtf8();
    }
}

const QStringList &KafkaEventRows::columns() {
    static const QStringList names{QStringLiteral("partition_id"), QStringLiteral("log_offset"),
                                   QStringLiteral("event_id"),     QStringLiteral("record_ts"),
                                   QStringLiteral("payload"),      QStringLiteral("key_bytes"),
                                   QStringLiteral("headers"),      QStringLiteral("raw_value")};
    return names;
}

std::span<const BulkValue> KafkaEventRows::row(const RecordView &r) {
    // Text as it came where it is clean, else decoded with its bad bytes
    // and NULs replaced (U+FFFD): no engine's TEXT holds a NUL.
    const auto asText = [](const void *data, size_t size, QByteArray &scratch) {
        if (cleanText(data, size))
            return BulkValue::text(view(data, size));
        scratch = QString::fromUtf8(static_cast<const char *>(data), qsizetype(size))
                      .replace(QChar(0), QChar::ReplacementCharacter)
                      .toUtf8();
        return BulkValue::text(view(scratch));
    };
    BulkValue id;
    if (m_idFrom == IdFrom::Key && r.key) {
        id = asText(r.key, r.keyLen, m_id);
    } else if (m_idFrom == IdFrom::Header && r.headers) {
        const void *value = nullptr;
        size_t size = 0;
        if (rd_kafka_header_get_last(r.headers, m_header.constData(), &value, &size) ==
                RD_KAFKA_RESP_ERR_NO_ERROR &&
            value)
            id = asText(value, size, m_id);
    }
    const bool clean = r.payload && cleanText(r.payload, r.len);
    if (r.headers)
        m_headers = headersJson(r.headers).toUtf8();
    m_row = {BulkValue::of(r.partition),
             BulkValue::of(r.offset),
             id,
             r.timestampMs < 0 ? BulkValue::null()
                               : BulkValue::text(timeutil::isoUtcMsUtf8(r.timestampMs, m_ts)),
             !r.payload ? BulkValue::null()
             : clean    ? BulkValue::text(view(r.payload, r.len))
                        : asText(r.payload, r.len, m_payload),
             r.key ? BulkValue::blob(view(r.key, r.keyLen)) : BulkValue::null(),
             r.headers ? BulkValue::text(view(m_headers)) : BulkValue::null(),
             r.payload && !clean ? BulkValue::blob(view(r.payload, r.len)) : BulkValue::null()};
    return m_row;
}

} // namespace rw
