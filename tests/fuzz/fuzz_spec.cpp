// Fuzzes the spec path: parseSpec on arbitrary bytes, then validateSpec of
// whatever parses against a small catalog. Must hold for every input:
// - no crash, no sanitizer report, no exception escaping;
// - a refusal is a BadInput error with a message (never Internal);
// - validation only reads: the catalog and its rows are unchanged after it.
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "tests/fuzz/fuzzsupport.h"

#include <QByteArray>
#include <QDir>
#include <cstddef>
#include <cstdint>

using namespace rw;

namespace {

// Never destroyed: its connection must not outlive the QCoreApplication at exit.
Database *g_db = nullptr;

// Everything a hostile transform or identifier could change.
QString fingerprint() {
    auto s = g_db->scalar(QStringLiteral("SELECT (SELECT group_concat(type || name || "
                                         "COALESCE(sql, ''), ';') FROM sqlite_master) || "
                                         "(SELECT COUNT(*) FROM orders) || (SELECT COUNT(*) FROM "
                                         "customers) || (SELECT COUNT(*) FROM ev_log)"));
    if (!s)
        fuzzsupport::violated("cannot read the catalog", s.error().message);
    return s->toString();
}

QString g_fingerprint;

void checkRefusal(const Error &e, const char *where) {
    if (e.code != Error::Code::BadInput)
        fuzzsupport::violated(where, QStringLiteral("not a BadInput error: ") + e.message);
    if (e.message.trimmed().isEmpty())
        fuzzsupport::violated(where, QStringLiteral("an error without a message"));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzzsupport::init(argc, argv);
    auto db = Database::open(QDir(fuzzsupport::scratchDir()).filePath(QStringLiteral("catalog.db")),
                             Database::OpenMode::CreateIfMissing);
    if (!db)
        fuzzsupport::violated("cannot create the catalog", db.error().message);
    g_db = new Database(std::move(*db));
    if (auto s = g_db->execAll({
            QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL, day TEXT, "
                           "event_ts TEXT, ingest_ts TEXT, customer_id INTEGER)"),
            QStringLiteral("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)"),
            QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                           "event_id TEXT, record_ts TEXT, payload TEXT)"),
            QStringLiteral("CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 100"),
            QStringLiteral("INSERT INTO orders VALUES (1, 10, '2025-05-01', "
                           "'2025-05-01T10:00:00Z', '2025-05-01T10:01:00Z', 1)"),
            QStringLiteral("INSERT INTO customers VALUES (1, 'a')"),
            QStringLiteral("INSERT INTO ev_log VALUES (0, 0, 'e1', '2025-05-01T10:00:00Z', "
                           "'{\"order_id\": 1}')"),
        });
        !s)
        fuzzsupport::violated("cannot fill the catalog", s.error().message);
    g_fingerprint = fingerprint();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    auto spec = parseSpec(bytes, QStringLiteral("fuzz.json"));
    if (!spec) {
        checkRefusal(spec.error(), "parseSpec");
        return 0;
    }
    for (const auto &d : spec->datasets)
        (void)sourceSelect(d, *g_db);
    (void)spec->requireDataset(QStringLiteral("orders_daily"));
    (void)spec->requireStream(QStringLiteral("ev"));
    if (auto valid = validateSpec(*spec, *g_db); !valid)
        checkRefusal(valid.error(), "validateSpec");
    if (fingerprint() != g_fingerprint)
        fuzzsupport::violated("validateSpec changed the database");
    return 0;
}
