// Fuzzes the decoding of Kafka records: the replay's work-table row
// (KafkaEventRows, loaded into SQLite by BulkLoad) and a dead-letter topic's import row
// (importRow), for keys, values and headers that are anything: not UTF-8, NUL bytes, empty, absent,
// Kafka Connect error headers with odd numbers. The input is framed as
//   flags byte, then fields separated by 0xFF 0xFE: key, value, then header
//   name/value pairs (flags bit 0: no key, bit 1: no value, bit 2: the last
//   header's value is null).
// Must hold for every input:
// - no crash, no sanitizer report, no exception escaping;
// - key and value are kept byte for byte (as text where they are clean
//   UTF-8, else as bytes), and so is every header value (base64 in the JSON);
// - the headers JSON is valid JSON, one [name, value] per header, in order;
// - the rows load into SQLite and read back equal.
#include "core/dlq/kafkadlqinternal.h"
#include "core/sql/bulkload.h"
#include "core/sql/database.h"
#include "core/streams/kafkalog.h"
#include "tests/fuzz/fuzzsupport.h"

#include <QDir>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

using namespace rw;

namespace {

Database *g_db = nullptr;

struct Headers {
    rd_kafka_headers_t *h;
    ~Headers() { rd_kafka_headers_destroy(h); }
};

// The bytes a decoded column holds: text as UTF-8, bytes as they are.
QByteArray bytesOf(const QVariant &v) {
    if (v.isNull())
        return {};
    return v.metaType().id() == QMetaType::QByteArray ? v.toByteArray() : v.toString().toUtf8();
}

void checkHeaders(const QString &json, const QList<std::pair<QByteArray, QByteArray>> &given,
                  bool lastNull) {
    const auto doc = nlohmann::json::parse(json.toStdString(), nullptr, false);
    if (doc.is_discarded() || !doc.is_array() || doc.size() != std::size_t(given.size()))
        fuzzsupport::violated("headers JSON: not one entry per header", json);
    for (qsizetype i = 0; i < given.size(); ++i) {
        const auto &entry = doc[std::size_t(i)];
        const bool null = lastNull && i == given.size() - 1;
        if (null != entry[1].is_null())
            fuzzsupport::violated("headers JSON: a null value not kept", json);
        if (!null && QByteArray::fromBase64(
                         QByteArray::fromStdString(entry[1].get<std::string>())) != given[i].second)
            fuzzsupport::violated("headers JSON: a value changed", json);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzzsupport::init(argc, argv);
    auto db = Database::open(QDir(fuzzsupport::scratchDir()).filePath(QStringLiteral("kafka.db")),
                             Database::OpenMode::CreateIfMissing);
    if (!db)
        fuzzsupport::violated("cannot create the database", db.error().message);
    g_db = new Database(std::move(*db));
    if (auto s = g_db->execAll({QStringLiteral(
            "CREATE TABLE ev (partition_id INTEGER, log_offset INTEGER, event_id TEXT, record_ts "
            "TEXT, payload TEXT, key_bytes BLOB, headers TEXT, raw_value BLOB)")});
        !s)
        fuzzsupport::violated("cannot create the table", s.error().message);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0)
        return 0;
    const QByteArray input(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    const std::uint8_t flags = data[0];
    const QList<QByteArray> parts = input.split('\xff');
    // Fields are separated by 0xFF 0xFE: rejoin the 0xFF not followed by 0xFE.
    QList<QByteArray> fields{QByteArray()};
    for (qsizetype i = 0; i < parts.size(); ++i) {
        if (i > 0) {
            if (parts[i].startsWith('\xfe')) {
                fields.append(parts[i].mid(1));
                continue;
            }
            fields.last().append('\xff');
        }
        fields.last().append(parts[i]);
    }
    const bool noKey = flags & 1, noValue = flags & 2, lastNull = flags & 4;
    const QByteArray key = fields.value(0), value = fields.value(1);
    QList<std::pair<QByteArray, QByteArray>> given;
    Headers headers{rd_kafka_headers_new(8)};
    for (qsizetype i = 2; i + 1 < fields.size(); i += 2) {
        given.append({fields[i], fields[i + 1]});
        const bool null = lastNull && i + 3 >= fields.size();
        rd_kafka_header_add(headers.h, fields[i].constData(), fields[i].size(),
                            null ? nullptr : fields[i + 1].constData(),
                            null ? 0 : fields[i + 1].size());
    }
    kafkaclient::RecordView r;
    r.partition = flags >> 4;
    r.offset = qint64(size);
    r.timestampMs = flags & 8 ? -1 : qint64(size) * 1000;
    r.key = noKey ? nullptr : key.constData();
    r.keyLen = noKey ? 0 : size_t(key.size());
    r.payload = noValue ? nullptr : value.constData();
    r.len = noValue ? 0 : size_t(value.size());
    r.headers = given.isEmpty() && (flags & 8) ? nullptr : headers.h;

    for (const QString &rule :
         {QStringLiteral("key"), QStringLiteral("header:id"), QStringLiteral("$.id")}) {
        if (auto s = g_db->execAll({QStringLiteral("DELETE FROM ev")}); !s)
            fuzzsupport::violated("DELETE", s.error().message);
        {
            auto conn = g_db->connection();
            if (!conn)
                fuzzsupport::violated("no connection", conn.error().message);
            auto load = BulkLoad::open(*conn, QStringLiteral("ev"), KafkaEventRows::columns());
            if (!load)
                fuzzsupport::violated("BulkLoad::open", load.error().message);
            KafkaEventRows rows(rule);
            const auto row = rows.row(r);
            if (row.size() != 8)
                fuzzsupport::violated("KafkaEventRows: not 8 columns");
            if (auto a = (*load)->add(row); !a)
                fuzzsupport::violated("KafkaEventRows: the row does not load", a.error().message);
            if (auto f = (*load)->finish(); !f)
                fuzzsupport::violated("KafkaEventRows: the load does not finish",
                                      f.error().message);
        }
        auto back = g_db->exec(QStringLiteral(
            "SELECT key_bytes, raw_value, payload, headers, typeof(payload) FROM ev"));
        if (!back || !back->next())
            fuzzsupport::violated("the row does not read back");
        const QVariant rawValue = back->value(1), payload = back->value(2);
        if (!noKey && back->value(0).toByteArray() != key)
            fuzzsupport::violated("the key read back changed");
        const QByteArray kept = !rawValue.isNull() ? rawValue.toByteArray() : bytesOf(payload);
        if (!noValue && kept != value)
            fuzzsupport::violated("the value read back changed");
        if (!noValue && back->value(4).toString() != QLatin1String("text"))
            fuzzsupport::violated("the payload read back is not text");
        if (r.headers)
            checkHeaders(back->value(3).toString(), given, lastNull);

        StreamSpec stream;
        stream.name = QStringLiteral("ev");
        stream.eventId = rule;
        for (const bool textPayloads : {false, true}) {
            const dlqstore::ImportedRecord rec =
                kafkadlq_detail::importRow(stream, r, QStringLiteral("dlq"), textPayloads);
            if (!noKey && rec.kafkaKey.toByteArray() != key)
                fuzzsupport::violated("importRow: the key changed");
            const QByteArray kept =
                !rec.kafkaValue.isNull() ? rec.kafkaValue.toByteArray() : bytesOf(rec.payload);
            if (!noValue && kept != value)
                fuzzsupport::violated("importRow: the value changed");
            if (r.headers)
                checkHeaders(rec.kafkaHeaders.toString(), given, lastNull);
        }
    }
    return 0;
}
