// The demo warehouse's data (demodata.h), built by set-based SQL.
//
// Every bulk row comes from a recursive CTE feeding an INSERT ... SELECT,
// on SQLite or PostgreSQL: the few spellings that differ (date formatting,
// hex, JSON validity) come from the dialect, and the rest is portable SQL.
// Pseudo-randomness is integer arithmetic inside the engine: each generator
// carries Park-Miller (MINSTD) streams, x(n+1) = x(n) * a mod (2^31 - 1),
// whose starting states are derived from the seed in C++. Intermediate values
// stay below 2^48, so SQLite never spills into REAL; every generator column
// starts as a BIGINT so PostgreSQL never computes them in 32-bit integers
// (which would overflow). Incident rows (duplicate
// versions, malformed events, ...) are picked with exact counts by a
// permutation of the row index: (i * m + offset) mod N is a bijection on
// [0, N) when m is coprime with N, and with m near N / phi (Fibonacci
// hashing) the rows with the smallest ranks are spread over the whole range.
// Amounts are integer cents divided by 100.0, which is already the double
// ROUND(x, 2) would give, without its per-row cost, and the same double on
// both engines (PostgreSQL divides exactly in numeric, then rounds once into
// the double column). The same seed and scale give the same rows on both.
#include "core/demo/demodata.h"

#include "core/batch/batchdialect.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionstate.h"
#include "core/batch/planstore.h"
#include "core/batch/runs.h"
#include "core/demo/demodialect.h"
#include "core/sql/database.h"
#include "core/sql/timejson.h"
#include "core/streams/offsetstore.h"
#include "core/workspace/spec.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QStringBuilder>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace rw::demo::data {

namespace {

constexpr qint64 kDay0 = 1746057600;         // 2025-05-01T00:00:00Z
constexpr qint64 kLateIngest = 1747267200;   // 2025-05-15T00:00:00Z
constexpr qint64 kPublishNight = 1748656800; // 2025-05-31T02:00:00Z: the nightly load
constexpr qint64 kJune1 = 1748736000;        // 2025-06-01T00:00:00Z
constexpr qint64 kOrdersStart = 1746511200;  // 2025-05-06T06:00:00Z
constexpr qint64 kOrdersSpan = 6 * 3600;     // the log covers 06:00..12:00
constexpr int kSalesDays = 30;
constexpr int kEventDays = 14;
constexpr int kMonths = 12;
constexpr int kOrderPartitions = 4;

// Sizes at a given scale. Minimums keep every incident visible at tiny scales.
struct Sizes {
    qint64 customers = 0;    // rows in customers
    qint64 salesPerDay = 0;  // distinct keys per raw_sales day
    qint64 eventsPerDay = 0; // raw_events rows per day
    qint64 usersForEvents = 0;
    qint64 ordersPerPartition = 0; // offsets per orders_log partition

    explicit Sizes(double scale) {
        auto scaled = [scale](double base, qint64 minimum) {
            return std::max(minimum, qint64(std::llround(base * scale)));
        };
        customers = scaled(5000, 50);
        salesPerDay = scaled(10000, 50);
        eventsPerDay = scaled(12000, 50);
        usersForEvents = scaled(20000, 100);
        ordersPerPartition = scaled(25000, 50);
    }
};

// A multiplier m coprime with n, near n / phi: i -> (i * m) mod n is then a
// permutation of [0, n) that scatters neighbouring indexes.
qint64 spreadMultiplier(qint64 n) {
    qint64 m = std::max<qint64>(1, qint64(double(n) * 0.6180339887498949));
    while (std::gcd(m, n) != 1)
        ++m;
    return m;
}

qint64 atLeastOne(double value) {
    return std::max<qint64>(1, qint64(std::llround(value)));
}

// SplitMix64: turns (seed, salt) into well-spread 64-bit values in C++, once
// per generator (never per row).
quint64 splitMix(quint64 x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

class Seeds {
public:
    explicit Seeds(quint32 seed)
        : m_seed(seed) {}
    // A MINSTD state in [1, 2^31 - 2].
    qint64 stream(quint64 salt) const { return 1 + qint64(splitMix(mixKey(salt)) % 2147483646ULL); }
    // An offset below 2^32, for hashes and permutations.
    qint64 offset(quint64 salt) const { return qint64(splitMix(mixKey(salt)) % 4294967296ULL); }

private:
    quint64 mixKey(quint64 salt) const {
        return (quint64(m_seed) << 32) ^ (salt * 0x2545F4914F6CDD1DULL);
    }
    quint32 m_seed;
};

// Fills {NAME} tokens in a SQL template. Only numbers and fixed SQL fragments
// generated here are substituted: no user text reaches the statement.
using Subs = std::vector<std::pair<QString, QString>>;

std::pair<QString, QString> num(const char *name, qint64 value) {
    return {QLatin1String(name), QString::number(value)};
}
std::pair<QString, QString> text(const char *name, const QString &value) {
    return {QLatin1String(name), value};
}

QString fill(QString sql, const Subs &subs) {
    for (const auto &[name, value] : subs)
        sql.replace(QString(u'{' % name % u'}'), value);
    // Every {NAME} token is filled. Other braces are JSON literals in the SQL.
    Q_ASSERT(!sql.contains(QRegularExpression(QStringLiteral("\\{[A-Z][A-Z0-9_]*\\}"))));
    return sql;
}

// Prefixes a failed step's error with what the generator was doing.
Status step(const Database &db, const QString &what, const QString &sql,
            const QVariantList &binds = {}) {
    if (auto r = db.exec(sql, binds); !r)
        return internalError(QStringLiteral("demo: %1: %2").arg(what, r.error().message));
    return {};
}

// Partition states of loads that ran before Rewind, from `select`.
Status recordedState(const Database &db, const QString &what, const QString &select,
                     const QVariantList &binds) {
    if (auto s = partitionstate::recordHistory(db, select, binds); !s)
        return internalError(QStringLiteral("demo: %1: %2").arg(what, s.error().message));
    return {};
}

// The next MINSTD state of a column, as SQL.
QString next(const char *column, int multiplier) {
    return u'(' % QLatin1String(column) % u" * " % QString::number(multiplier) % u" % 2147483647)";
}

// The day text of the generator's next row, carried in the recursion so that
// it is formatted once per day rather than once per row. `perDay` is the
// number of rows per day.
QString nextDay(const SqlDialect &d, const char *perDay) {
    return QStringLiteral("CASE WHEN (n + 1) % ") % QLatin1String(perDay) %
           QStringLiteral(" = 0 THEN ") %
           TimeJson::of(d).dateTextOfEpoch(QStringLiteral("{DAY0} + (n + 1) / ") %
                                           QLatin1String(perDay) % QStringLiteral(" * 86400")) %
           QStringLiteral(" ELSE dt END");
}

// One of `values` (plain words, no quotes) picked by an integer expression
// in [0, values.size()).
QString pick(const QString &index, const QStringList &values) {
    QString sql = QStringLiteral("CASE ") % index;
    for (qsizetype i = 0; i < values.size(); ++i)
        sql += QStringLiteral(" WHEN ") % QString::number(i) % QStringLiteral(" THEN '") %
               values.at(i) % u'\'';
    return sql + QStringLiteral(" END");
}

// ---------------------------------------------------------------------------
// Bulk data

const QStringList kTables = {
    QStringLiteral("customers"),  QStringLiteral("raw_sales"),
    QStringLiteral("fact_sales"), QStringLiteral("raw_events"),
    QStringLiteral("events"),     QStringLiteral("customer_tier_monthly"),
    QStringLiteral("orders_log"), QStringLiteral("orders_events"),
};

// Integers are the dialect's 64-bit type (INTEGER on SQLite), amounts its
// double (REAL); days and times are ISO-8601 text on both engines.
QStringList schema(const SqlDialect &d) {
    const Subs types = {text("INT", d.bigintType()), text("REAL", d.doubleType())};
    const QString sales = QStringLiteral("(order_id {INT}, item_id {INT}, dt TEXT, customer_id "
                                         "{INT}, amount {REAL}, updated_at TEXT)");
    const QString events = QStringLiteral("(event_id TEXT, user_id {INT}, event_type TEXT, dt "
                                          "TEXT, event_ts TEXT, ingested_at TEXT, value {REAL})");
    QStringList statements = {
        QStringLiteral(
            "CREATE TABLE customers (customer_id {INT} PRIMARY KEY, name TEXT, region TEXT)"),
        QStringLiteral("CREATE TABLE raw_sales ") % sales,
        QStringLiteral("CREATE TABLE fact_sales ") % sales,
        QStringLiteral("CREATE TABLE raw_events ") % events,
        QStringLiteral("CREATE TABLE events ") % events,
        QStringLiteral("CREATE TABLE customer_tier_monthly (customer_id {INT}, month TEXT, "
                       "customer_tier TEXT, updated_at TEXT)"),
        QStringLiteral("CREATE TABLE orders_log (partition_id {INT}, log_offset {INT}, event_id "
                       "TEXT, record_ts TEXT, payload TEXT)"),
        QStringLiteral("CREATE TABLE orders_events (event_id TEXT PRIMARY KEY, order_id {INT}, "
                       "amount {REAL}, event_time TEXT)"),
    };
    for (QString &statement : statements)
        statement = fill(statement, types);
    return statements;
}

const QStringList kFirstNames = {
    QStringLiteral("Ada"),    QStringLiteral("Ben"),   QStringLiteral("Chloe"),
    QStringLiteral("Dmitri"), QStringLiteral("Elena"), QStringLiteral("Farid"),
    QStringLiteral("Grace"),  QStringLiteral("Hiro"),  QStringLiteral("Ines"),
    QStringLiteral("Jonas"),  QStringLiteral("Keiko"), QStringLiteral("Liam"),
    QStringLiteral("Maya"),   QStringLiteral("Nils"),  QStringLiteral("Olga"),
    QStringLiteral("Pedro"),  QStringLiteral("Quinn"), QStringLiteral("Rosa"),
    QStringLiteral("Sami"),   QStringLiteral("Tara"),  QStringLiteral("Umar"),
    QStringLiteral("Vera"),   QStringLiteral("Wen"),   QStringLiteral("Yusuf"),
};
const QStringList kLastNames = {
    QStringLiteral("Andersen"), QStringLiteral("Bauer"),    QStringLiteral("Costa"),
    QStringLiteral("Dubois"),   QStringLiteral("Evans"),    QStringLiteral("Fischer"),
    QStringLiteral("Garcia"),   QStringLiteral("Hansen"),   QStringLiteral("Ivanova"),
    QStringLiteral("Jensen"),   QStringLiteral("Kowalski"), QStringLiteral("Lopez"),
    QStringLiteral("Moreau"),   QStringLiteral("Novak"),    QStringLiteral("Okafor"),
    QStringLiteral("Petrov"),   QStringLiteral("Rossi"),    QStringLiteral("Silva"),
    QStringLiteral("Tanaka"),   QStringLiteral("Urban"),    QStringLiteral("Varga"),
    QStringLiteral("Weber"),    QStringLiteral("Yilmaz"),   QStringLiteral("Zhang"),
};

Status customers(const Database &db, const Sizes &sz, const Seeds &seeds) {
    static const QString sql = QStringLiteral(R"(
WITH RECURSIVE g(n, x, y) AS (
  SELECT CAST(1 AS BIGINT), CAST({X0} AS BIGINT), CAST({Y0} AS BIGINT)
  UNION ALL
  SELECT n + 1, {NX}, {NY} FROM g WHERE n < {C}
)
INSERT INTO customers (customer_id, name, region)
SELECT n, {FIRST} || ' ' || {LAST},
  CASE (x / 24) % 10 WHEN 0 THEN 'LATAM' WHEN 1 THEN 'APAC' WHEN 2 THEN 'APAC'
                     WHEN 3 THEN 'NA' WHEN 4 THEN 'NA' WHEN 5 THEN 'NA' ELSE 'EMEA' END
FROM g
)");
    return step(db, QStringLiteral("customers"),
                fill(sql, {text("FIRST", pick(QStringLiteral("x % 24"), kFirstNames)),
                           text("LAST", pick(QStringLiteral("y % 24"), kLastNames)),
                           num("X0", seeds.stream(11)), num("Y0", seeds.stream(12)),
                           text("NX", next("x", 48271)), text("NY", next("y", 69621)),
                           num("C", sz.customers)}));
}

// raw_sales: 30 days of keys; about 1% of keys get a second, later version
// with a corrected amount. fact_sales: the deduped days 01..28 with the
// incidents of the 14th (doubled, rows missing) and the 21st/22nd (retry storm).
Status sales(const Database &db, const Sizes &sz, const Seeds &seeds) {
    const SqlDialect &d = db.dialect();
    static const QString raw = QStringLiteral(R"(
WITH RECURSIVE g(n, x, y, z, dt) AS (
  SELECT CAST(0 AS BIGINT), CAST({X0} AS BIGINT), CAST({Y0} AS BIGINT), CAST({Z0} AS BIGINT), CAST('2025-05-01' AS TEXT)
  UNION ALL
  SELECT n + 1, {NX}, {NY}, {NZ}, {NEXTDAY} FROM g WHERE n + 1 < {ROWS}
),
r AS (
  SELECT n / {R} AS d, n % {R} AS i, x, y, z, dt,
         ((n % {R}) * {M} + (n / {R}) * 7919 + {PERM}) % {R} < {DUPS} AS dup
  FROM g
)
INSERT INTO raw_sales (order_id, item_id, dt, customer_id, amount, updated_at)
SELECT 10000000 + r.d * 1000000 + r.i / 3,
  r.i % 3 + 1,
  r.dt,
  1 + r.x % {C},
  CASE WHEN v.version = 0 THEN (500 + r.y % 49500) / 100.0
       ELSE ((500 + r.y % 49500) * (85 + r.z % 11 + (r.z / 11 % 2) * 20) + 50) / 100 / 100.0 END,
  {UPDATED}
FROM r CROSS JOIN (SELECT 0 AS version UNION ALL SELECT 1 AS version) AS v
WHERE v.version = 0 OR r.dup
)");
    const qint64 r = sz.salesPerDay;
    if (auto s = step(
            db, QStringLiteral("raw_sales"),
            fill(
                raw,
                {num("X0", seeds.stream(21)), num("Y0", seeds.stream(22)),
                 num("Z0", seeds.stream(23)), text("NX", next("x", 48271)),
                 text("NY", next("y", 69621)), text("NZ", next("z", 16807)),
                 text("NEXTDAY", nextDay(d, "{R}")), num("ROWS", r * kSalesDays),
                 num("M", spreadMultiplier(r)),
                 text(
                     "UPDATED",
                     TimeJson::of(d).isoTextOfEpoch(QStringLiteral(
                         "{DAY0} + r.d * 86400 + r.z % 86400 + v.version * (3600 + r.x % 82800)"))),
                 num("R", r), num("PERM", seeds.offset(24)), num("DUPS", atLeastOne(r * 0.01)),
                 num("C", sz.customers), num("DAY0", kDay0)}));
        !s)
        return s;
    if (auto s = step(db, QStringLiteral("raw_sales index"),
                      QStringLiteral("CREATE INDEX raw_sales_dt ON raw_sales (dt)"));
        !s)
        return s;

    // The published fact: latest version per key, days 01..28 (29 failed, 30 never ran).
    // The 14th was loaded by a buggy job that doubled amounts (in cents, see the top).
    static const QString fact = QStringLiteral(R"(
INSERT INTO fact_sales (order_id, item_id, dt, customer_id, amount, updated_at)
SELECT order_id, item_id, dt, customer_id,
       CASE WHEN dt = '2025-05-14' THEN CAST(ROUND(amount * 200) AS BIGINT) / 100.0 ELSE amount END, updated_at
FROM (SELECT order_id, item_id, dt, customer_id, amount, updated_at,
             ROW_NUMBER() OVER (PARTITION BY dt, order_id, item_id ORDER BY updated_at DESC) AS latest
      FROM raw_sales WHERE dt <= '2025-05-28') AS versions
WHERE latest = 1
)");
    if (auto s = step(db, QStringLiteral("fact_sales"), fact); !s)
        return s;
    if (auto s = step(db, QStringLiteral("fact_sales index"),
                      QStringLiteral("CREATE INDEX fact_sales_dt ON fact_sales (dt)"));
        !s)
        return s;

    // A deterministic shuffle of a day's keys.
    const QString keyHash =
        fill(QStringLiteral("((order_id * 4 + item_id) * 2654435761 + {H}) % 4294967296"),
             {num("H", seeds.offset(25))});
    // The buggy load of the 14th also lost about 5% of its rows.
    static const QString missing = QStringLiteral(R"(
DELETE FROM fact_sales WHERE {ROWID} IN (
  SELECT {ROWID} FROM fact_sales WHERE dt = '2025-05-14' ORDER BY {HASH}, order_id, item_id LIMIT {K})
)");
    if (auto s = step(db, QStringLiteral("fact_sales 2025-05-14"),
                      fill(missing, {text("ROWID", BatchDialect::of(d).rowIdentity(QString())),
                                     text("HASH", keyHash), num("K", atLeastOne(r * 0.05))}));
        !s)
        return s;
    // Retry storm: about 30% of the 21st's and 22nd's rows were written twice.
    static const QString storm = QStringLiteral(R"(
INSERT INTO fact_sales (order_id, item_id, dt, customer_id, amount, updated_at)
SELECT order_id, item_id, dt, customer_id, amount, updated_at
FROM (SELECT f.*, ROW_NUMBER() OVER (PARTITION BY dt ORDER BY {HASH}, order_id, item_id) AS rn
      FROM fact_sales AS f WHERE dt IN ('2025-05-21', '2025-05-22')) AS ranked
WHERE rn <= {K}
ORDER BY dt, order_id, item_id
)");
    return step(db, QStringLiteral("fact_sales retry storm"),
                fill(storm, {text("HASH", keyHash), num("K", atLeastOne(r * 0.30))}));
}

// The SELECT list of one raw_events row from a generator CTE with columns
// n, d (day index), x, y, z. Lateness: ~90% 0-120 s (skewed to small), ~8%
// 2-60 min, ~1.5% 1-2 h, ~0.5% 2 h to 3 days.
QString eventColumns(const SqlDialect &d) {
    // Filled here only partly: {EVH} and {U} are the caller's.
    QString sql = QStringLiteral(R"(
  'ev-' || {HEX},
  1 + (y / 1000) % {U},
  CASE WHEN (x / 86400) % 20 < 12 THEN 'page_view' WHEN (x / 86400) % 20 < 16 THEN 'click'
       WHEN (x / 86400) % 20 < 18 THEN 'add_to_cart' WHEN (x / 86400) % 20 < 19 THEN 'purchase' ELSE 'search' END,
  dt,
  {EVENT_TS},
  {INGESTED_AT},
  CASE WHEN (x / 86400) % 20 < 12 THEN (z / 7) % 3000 / 10.0
       WHEN (x / 86400) % 20 = 18 THEN (500 + (z / 1000) % 20000) / 100.0 ELSE 1.0 END
)");
    sql.replace(QLatin1String("{HEX}"),
                DemoDialect::of(d).hex8(QStringLiteral("(n * 2654435761 + {EVH}) % 4294967296")));
    sql.replace(QLatin1String("{EVENT_TS}"), TimeJson::of(d).isoTextOfEpoch(QStringLiteral("ts")));
    sql.replace(QLatin1String("{INGESTED_AT}"),
                TimeJson::of(d).isoTextOfEpoch(QStringLiteral("ts + lat")));
    return sql;
}

const QString kLateness = QStringLiteral(R"(
  CASE WHEN y % 1000 < 900 THEN (z % 121) * (z / 121 % 121) / 120
       WHEN y % 1000 < 980 THEN 121 + z % 3480
       WHEN y % 1000 < 995 THEN 3601 + z % 3600
       ELSE 7201 + (z % 1000) * (z % 1000) * 252000 / 1000000 END
)");

Status events(const Database &db, const Sizes &sz, const Seeds &seeds) {
    static const QString raw = QStringLiteral(R"(
WITH RECURSIVE g(n, x, y, z, dt) AS (
  SELECT CAST(0 AS BIGINT), CAST({X0} AS BIGINT), CAST({Y0} AS BIGINT), CAST({Z0} AS BIGINT), CAST('2025-05-01' AS TEXT)
  UNION ALL
  SELECT n + 1, {NX}, {NY}, {NZ}, {NEXTDAY} FROM g WHERE n + 1 < {ROWS}
),
e AS (SELECT n, x, y, z, dt, {DAY0} + (n / {E}) * 86400 + x % 86400 AS ts, {LAT} AS lat FROM g)
INSERT INTO raw_events (event_id, user_id, event_type, dt, event_ts, ingested_at, value)
SELECT {COLUMNS} FROM e
)");
    const qint64 rows = sz.eventsPerDay * kEventDays;
    if (auto s =
            step(db, QStringLiteral("raw_events"),
                 fill(raw, {text("COLUMNS", eventColumns(db.dialect())), text("LAT", kLateness),
                            num("X0", seeds.stream(31)), num("Y0", seeds.stream(32)),
                            num("Z0", seeds.stream(33)), text("NX", next("x", 48271)),
                            text("NY", next("y", 69621)), text("NZ", next("z", 16807)),
                            num("ROWS", rows), text("NEXTDAY", nextDay(db.dialect(), "{E}")),
                            num("E", sz.eventsPerDay), num("DAY0", kDay0),
                            num("EVH", seeds.offset(34)), num("U", sz.usersForEvents)}));
        !s)
        return s;
    if (auto s = step(db, QStringLiteral("raw_events index"),
                      QStringLiteral("CREATE INDEX raw_events_dt ON raw_events (dt)"));
        !s)
        return s;
    // Published as the source stood at publish time.
    if (auto s = step(db, QStringLiteral("events"),
                      QStringLiteral("INSERT INTO events SELECT * FROM raw_events"));
        !s)
        return s;
    return step(db, QStringLiteral("events index"),
                QStringLiteral("CREATE INDEX events_dt ON events (dt)"));
}

// After publish: late events for the 3rd and the 7th, ingested on the 15th
// and 16th, long after both days were finalized.
Status lateEvents(const Database &db, const Sizes &sz, const Seeds &seeds) {
    static const QString late = QStringLiteral(R"(
WITH RECURSIVE g(n, x, y, z) AS (
  SELECT CAST({N0} AS BIGINT), CAST({X0} AS BIGINT), CAST({Y0} AS BIGINT), CAST({Z0} AS BIGINT)
  UNION ALL
  SELECT n + 1, {NX}, {NY}, {NZ} FROM g WHERE n + 1 < {N0} + 2 * {L}
),
e AS (SELECT n, x, y, z, CASE WHEN n - {N0} < {L} THEN '2025-05-03' ELSE '2025-05-07' END AS dt,
             {DAY0} + (CASE WHEN n - {N0} < {L} THEN 2 ELSE 6 END) * 86400 + x % 86400 AS ts,
             {LATE} + y % 172800 - ({DAY0} + (CASE WHEN n - {N0} < {L} THEN 2 ELSE 6 END) * 86400 + x % 86400) AS lat
      FROM g)
INSERT INTO raw_events (event_id, user_id, event_type, dt, event_ts, ingested_at, value)
SELECT {COLUMNS} FROM e
)");
    return step(
        db, QStringLiteral("late raw_events"),
        fill(late,
             {text("COLUMNS", eventColumns(db.dialect())), num("N0", sz.eventsPerDay * kEventDays),
              num("L", std::max<qint64>(2, std::llround(sz.eventsPerDay * 0.005))),
              num("X0", seeds.stream(35)), num("Y0", seeds.stream(36)), num("Z0", seeds.stream(37)),
              text("NX", next("x", 48271)), text("NY", next("y", 69621)),
              text("NZ", next("z", 16807)), num("DAY0", kDay0), num("LATE", kLateIngest),
              num("EVH", seeds.offset(34)), num("U", sz.usersForEvents)}));
}

// After publish: about 2% of the 27th's keys corrected on June 1st.
Status correctSales(const Database &db, const Sizes &sz, const Seeds &seeds) {
    static const QString sql = QStringLiteral(R"(
UPDATE raw_sales
SET amount = (CAST(ROUND(amount * 100) AS BIGINT) * (85 + {HASH} % 11 + ({HASH} / 11 % 2) * 20) + 50) / 100 / 100.0,
    updated_at = {UPDATED}
WHERE {ROWID} IN (
  SELECT MIN({ROWID}) FROM raw_sales WHERE dt = '2025-05-27'
  GROUP BY order_id, item_id HAVING COUNT(*) = 1
  ORDER BY {HASH}, order_id, item_id LIMIT {K})
)");
    const QString hash =
        fill(QStringLiteral("((order_id * 4 + item_id) * 2654435761 + {H}) % 4294967296"),
             {num("H", seeds.offset(26))});
    const SqlDialect &d = db.dialect();
    return step(
        db, QStringLiteral("raw_sales corrections"),
        fill(sql, {text("UPDATED",
                        TimeJson::of(d).isoTextOfEpoch(QStringLiteral("{JUNE1} + {HASH} % 86400"))),
                   text("HASH", hash), text("ROWID", BatchDialect::of(d).rowIdentity(QString())),
                   num("JUNE1", kJune1), num("K", atLeastOne(sz.salesPerDay * 0.02))}));
}

Status tiers(const Database &db, const Seeds &seeds) {
    // One chain per customer; each month the tier moves one step with ~10% probability.
    static const QString sql = QStringLiteral(R"(
WITH RECURSIVE t(customer_id, m, tier, x) AS (
  SELECT customer_id, 0,
         CASE WHEN s % 100 < 50 THEN 0 WHEN s % 100 < 80 THEN 1 WHEN s % 100 < 95 THEN 2 ELSE 3 END, s
  FROM (SELECT customer_id, CAST(1 + (customer_id * 2654435761 + {H}) % 2147483646 AS BIGINT) AS s FROM customers) AS c
  UNION ALL
  SELECT customer_id, m + 1,
         CASE WHEN {NX} % 10 <> 0 THEN tier
              WHEN tier = 0 THEN 1 WHEN tier = 3 THEN 2
              WHEN {NX} / 10 % 2 = 0 THEN tier + 1 ELSE tier - 1 END,
         {NX}
  FROM t WHERE m + 1 < {MONTHS}
)
INSERT INTO customer_tier_monthly (customer_id, month, customer_tier, updated_at)
SELECT customer_id, {MONTH},
       CASE tier WHEN 0 THEN 'bronze' WHEN 1 THEN 'silver' WHEN 2 THEN 'gold' ELSE 'platinum' END,
       {UPDATED}
FROM t
ORDER BY customer_id, m
)");
    // The months' first days (text and epoch seconds), from C++: twelve
    // constants, the same on both engines.
    QString month = QStringLiteral("CASE m");
    QString monthStart = QStringLiteral("CASE m");
    for (int m = 0; m < kMonths; ++m) {
        const QDateTime first(QDate(2025, 1, 1).addMonths(m), QTime(0, 0), Qt::UTC);
        month += QStringLiteral(" WHEN ") % QString::number(m) % QStringLiteral(" THEN '") %
                 first.date().toString(Qt::ISODate) % u'\'';
        monthStart += QStringLiteral(" WHEN ") % QString::number(m) % QStringLiteral(" THEN ") %
                      QString::number(first.toSecsSinceEpoch());
    }
    month += QStringLiteral(" END");
    monthStart += QStringLiteral(" END");
    return step(db, QStringLiteral("customer_tier_monthly"),
                fill(sql, {text("MONTH", month),
                           text("UPDATED", TimeJson::of(db.dialect())
                                               .isoTextOfEpoch(u'(' % monthStart %
                                                               QStringLiteral(") + x % 172800"))),
                           num("H", seeds.offset(41)), text("NX", next("x", 48271)),
                           num("MONTHS", kMonths)}));
}

// The JSON payload of the order at generator row `n` with states x, y.
// Around 0.3% are malformed: half truncated text, half valid JSON without
// "amount".
//
// The JSON text is concatenated rather than built by the engine's JSON
// functions, so that it is the same text on both engines: it is exactly
// what SQLite's json_object() wrote (compact, keys in this order, the
// amount as SQLite prints a REAL: 150.0, 15.05, 1.1), where PostgreSQL's
// json_build_object() would add spaces and print numerics at full scale.
QString payloadExpr(const SqlDialect &d, const QString &n, const QString &x, const QString &y) {
    const QString o = u'(' % n % u" % {P})";
    const QString rank = u"((" % o % u" * {M} + (" % n % u" / {P}) * 7919 + {PERM}) % {P})";
    const QString eventTime = TimeJson::of(d).isoTextOfEpoch(
        u"{START} + " % o % u" * {SPAN} / {P} - (" % x % u" / 10) % 30");
    const QString orderId = u"CAST(30000000 + " % n % u" AS TEXT)";
    const QString cents = u"(100 + " % y % u" % 30000)";
    const QString amount = u"CAST(" % cents % u" / 100 AS TEXT) || '.' || CASE WHEN " % cents %
                           u" % 100 = 0 THEN '0' WHEN " % cents % u" % 10 = 0 THEN CAST(" % cents %
                           u" % 100 / 10 AS TEXT) WHEN " % cents %
                           u" % 100 < 10 THEN '0' || CAST(" % cents %
                           u" % 100 AS TEXT) ELSE CAST(" % cents % u" % 100 AS TEXT) END";
    const QString currency =
        u"CASE " % x %
        u" % 10 WHEN 7 THEN 'USD' WHEN 8 THEN 'USD' WHEN 9 THEN 'GBP' ELSE 'EUR' END";
    const QString full = u"('{\"order_id\":' || " % orderId % u" || ',\"amount\":' || " % amount %
                         u" || ',\"currency\":\"' || " % currency %
                         u" || '\",\"event_time\":\"' || " % eventTime % u" || '\"}')";
    const QString noAmount = u"('{\"order_id\":' || " % orderId % u" || ',\"currency\":\"' || " %
                             currency % u" || '\",\"event_time\":\"' || " % eventTime %
                             u" || '\"}')";
    return u"CASE WHEN " % rank % u" < {BAD1} THEN substr(" % full % u", 1, length(" % full %
           u") * 2 / 3)" % u" WHEN " % rank % u" < {BAD} THEN " % noAmount % u" ELSE " % full %
           u" END";
}

Status orders(const Database &db, const Sizes &sz, const Seeds &seeds) {
    // A producer retry re-sends the previous record: same event_id, same
    // payload, next offset. The recursive step sees the previous row, so the
    // copy is made there.
    static const QString sql = QStringLiteral(R"(
WITH RECURSIVE g(n, x, y, eid, payload) AS (
  SELECT CAST(0 AS BIGINT), CAST({X0} AS BIGINT), CAST({Y0} AS BIGINT), CAST({EID0} AS TEXT), CAST({PAYLOAD0} AS TEXT)
  UNION ALL
  SELECT n + 1, {NX}, {NY},
         CASE WHEN {RETRY} THEN eid ELSE {EID1} END,
         CASE WHEN {RETRY} THEN payload ELSE {PAYLOAD1} END
  FROM g WHERE n + 1 < {ROWS}
)
INSERT INTO orders_log (partition_id, log_offset, event_id, record_ts, payload)
SELECT n / {P}, n % {P}, eid, {RECORD_TS}, payload
FROM g
WHERE NOT (n / {P} = 2 AND n % {P} < {LOST})
)");
    const QString nx = next("x", 48271);
    const QString ny = next("y", 69621);
    const qint64 p = sz.ordersPerPartition;
    const qint64 bad1 = atLeastOne(p * 0.0015);
    const qint64 bad = bad1 + atLeastOne(p * 0.0015);
    const qint64 retries = std::max<qint64>(2, std::llround(p * 0.0005));
    const SqlDialect &d = db.dialect();
    const QString eid =
        u"'ord-' || " %
        DemoDialect::of(d).hex8(QStringLiteral("(({N}) * 2654435761 + {EH}) % 4294967296"));
    const QString retry = QStringLiteral(
        "((n + 1) % {P} > 0 AND ((n + 1) % {P} * {M} + ((n + 1) / {P}) * 7919 + {PERM}) % {P} "
        "BETWEEN {BAD} AND {BAD} + {RETRIES} - 1)");
    const QString statement =
        fill(sql, {text("EID0", QString(eid).replace(QLatin1String("{N}"), QLatin1String("0"))),
                   text("EID1", QString(eid).replace(QLatin1String("{N}"), QLatin1String("n + 1"))),
                   text("PAYLOAD0", payloadExpr(d, QStringLiteral("0"), QStringLiteral("{X0}"),
                                                QStringLiteral("{Y0}"))),
                   text("PAYLOAD1", payloadExpr(d, QStringLiteral("(n + 1)"), nx, ny)),
                   text("RETRY", retry),
                   text("RECORD_TS", TimeJson::of(d).isoTextOfEpoch(
                                         QStringLiteral("{START} + (n % {P}) * {SPAN} / {P}"))),
                   num("X0", seeds.stream(51)),
                   num("Y0", seeds.stream(52)),
                   text("NX", nx),
                   text("NY", ny),
                   num("EH", seeds.offset(53)),
                   num("PERM", seeds.offset(54) % p),
                   num("P", p),
                   num("ROWS", p * kOrderPartitions),
                   num("START", kOrdersStart),
                   num("SPAN", kOrdersSpan),
                   num("M", spreadMultiplier(p)),
                   num("BAD1", bad1),
                   num("BAD", bad),
                   num("RETRIES", retries),
                   num("LOST", atLeastOne(p * 0.10))});
    if (auto s = step(db, QStringLiteral("orders_log"), statement); !s)
        return s;
    if (auto s = step(
            db, QStringLiteral("orders_log index"),
            QStringLiteral(
                "CREATE UNIQUE INDEX orders_log_offset ON orders_log (partition_id, log_offset)"));
        !s)
        return s;
    // What the consumer wrote before it crashed at 10:20: every valid event
    // once (a retried event's copies carry the same payload).
    static const QString sink = QStringLiteral(R"(
INSERT INTO orders_events (event_id, order_id, amount, event_time)
SELECT event_id, CAST({ORDER_ID} AS {INT}), CAST({AMOUNT} AS {REAL}), {EVENT_TIME}
FROM (SELECT partition_id, log_offset, event_id, {DOC} AS doc
      FROM orders_log WHERE record_ts < '2025-05-06T10:20:00Z') AS l
WHERE {HAS_ORDER_ID} AND {HAS_AMOUNT}
ORDER BY partition_id, log_offset
{IGNORE}
)");
    auto path = [](const char *member) -> QString {
        return QStringLiteral("'$.") % QLatin1String(member) % u'\'';
    };
    const QString doc = QStringLiteral("doc");
    return step(
        db, QStringLiteral("orders_events"),
        fill(sink, {text("ORDER_ID", TimeJson::of(d).jsonExtract(doc, path("order_id"))),
                    text("AMOUNT", TimeJson::of(d).jsonExtract(doc, path("amount"))),
                    text("EVENT_TIME", TimeJson::of(d).jsonExtract(doc, path("event_time"))),
                    text("DOC", DemoDialect::of(d).jsonOrNull(QStringLiteral("payload"))),
                    text("HAS_ORDER_ID", DemoDialect::of(d).jsonHasPath(doc, path("order_id"))),
                    text("HAS_AMOUNT", DemoDialect::of(d).jsonHasPath(doc, path("amount"))),
                    text("INT", d.bigintType()), text("REAL", d.doubleType()),
                    text("IGNORE", d.upsertSet({QStringLiteral("event_id")}, {}))}));
}

// ---------------------------------------------------------------------------
// What Rewind knew at the end of the nightly load of 2025-05-31.

Status controlState(const Database &db, const Spec &spec) {
    const DatasetSpec *sales = spec.dataset(QStringLiteral("fact_sales"));
    const DatasetSpec *events = spec.dataset(QStringLiteral("events"));
    Q_ASSERT(sales && events);
    const SqlDialect &d = db.dialect();

    // The failed nightly run of 2025-05-29 kept its plan, so `rewindctl resume`
    // can finish it: the plan locks the day's source fingerprint.
    // The day's count and fingerprint are one aggregate row, stored through
    // the plan store as the planner stores a plan's.
    static const QString lock =
        QStringLiteral("SELECT COUNT(*), {SIG} FROM ({SOURCE}) AS src WHERE {PART} = '2025-05-29'");
    auto locked = db.exec(fill(lock, {text("PART", db.quote(sales->partitionColumn)),
                                      text("SIG", sourceSignatureExpr(db, *sales)),
                                      text("SOURCE", sourceSelect(*sales, db))}));
    if (!locked)
        return internalError(QStringLiteral("demo: rewind_plans: %1").arg(locked.error().message));
    if (!locked->next())
        return internalError(QStringLiteral("demo: rewind_plans: no fingerprint for 2025-05-29"));
    const QString day = QStringLiteral("2025-05-29");
    Plan plan;
    plan.id = QStringLiteral("plan-nightly-0529");
    plan.dataset = sales->name;
    plan.mode = WriteMode::Merge;
    plan.scope = {{QVariant(day), day}};
    plan.stats.insert(partitionKey(day),
                      {locked->value(0).toLongLong(), locked->value(1).toString()});
    if (auto s = storePlan(db, plan, QString(), QStringLiteral("2025-05-31T02:02:47Z")); !s)
        return internalError(QStringLiteral("demo: rewind_plans: %1").arg(s.error().message));
    runstore::NewRun run;
    run.dataset = sales->name;
    run.planId = plan.id;
    run.mode = plan.mode;
    run.status = RunStatus::Failed;
    run.startedAt = QStringLiteral("2025-05-31T02:02:48Z");
    run.finishedAt = QStringLiteral("2025-05-31T02:03:29Z");
    run.osUser = QStringLiteral("etl");
    run.thisProcess = false;
    run.scopeJson = scopeToJson(plan.scope);
    run.error = QStringLiteral("partition 2025-05-29: the connection to the warehouse was lost "
                               "while writing (server closed the connection unexpectedly); rolled "
                               "back, nothing published; the nightly load stopped before "
                               "2025-05-30");
    if (auto id = runstore::startRun(db, run); !id)
        return internalError(QStringLiteral("demo: rewind_runs: %1").arg(id.error().message));

    // Fingerprints are computed with the engine's own expression over the
    // dataset's own SELECT, so a listing right after this agrees exactly.
    const QString part = db.quote(sales->partitionColumn);
    static const QString salesState = QStringLiteral(R"(
SELECT ?, CAST({PART} AS TEXT), 0,
       CASE WHEN {PART} = '2025-05-29' THEN 'failed' ELSE 'published' END,
       COUNT(*), {SIG},
       CASE WHEN {PART} = '2025-05-29' THEN NULL
            ELSE {PUBLISHED} END,
       NULL,
       CASE WHEN {PART} = '2025-05-29' THEN (SELECT MAX(run_id) FROM rewind_runs WHERE status = 'failed') END
FROM ({SOURCE}) AS src
WHERE {PART} <= '2025-05-29'
GROUP BY {PART}
)");
    if (auto s = recordedState(
            db, QStringLiteral("fact_sales partition state"),
            fill(salesState,
                 {text("PUBLISHED",
                       TimeJson::of(d).isoTextOfEpoch(QStringLiteral(
                           "{NIGHT} + (CAST(substr({PART}, 9, 2) AS INTEGER) - 1) * 6"))),
                  text("PART", part), text("SIG", sourceSignatureExpr(db, *sales)),
                  text("SOURCE", sourceSelect(*sales, db)), num("NIGHT", kPublishNight)}),
            {sales->name});
        !s)
        return s;

    // Events: published half an hour after a day's last ingest; the days the
    // watermark has passed (all but the 14th) are final.
    const QString evPart = db.quote(events->partitionColumn);
    const QString ingest = db.quote(events->ingestTime);
    static const QString eventsState = QStringLiteral(R"(
SELECT ?, CAST({PART} AS TEXT), 0,
       CASE WHEN {PART} < '2025-05-14' THEN 'final' ELSE 'published' END,
       COUNT(*), {SIG},
       {PUBLISHED},
       CASE WHEN {PART} < '2025-05-14' THEN {PUBLISHED} END,
       NULL
FROM ({SOURCE}) AS src
GROUP BY {PART}
)");
    if (auto s = recordedState(
            db, QStringLiteral("events partition state"),
            fill(eventsState, {text("PUBLISHED", TimeJson::of(d).isoTextOfEpoch(
                                                     TimeJson::of(d).epochOfIsoText(
                                                         QStringLiteral("MAX({INGEST})")) %
                                                     QStringLiteral(" + 1800"))),
                               text("PART", evPart), text("INGEST", ingest),
                               text("SIG", sourceSignatureExpr(db, *events)),
                               text("SOURCE", sourceSelect(*events, db))}),
            {events->name});
        !s)
        return s;

    // The loader committed at 10:15 and crashed at 10:20; the audit consumer is at the log end.
    static const QString offsets = QStringLiteral(R"(
SELECT 'orders', 'orders-loader', partition_id, MIN(log_offset), '2025-05-06T10:15:02Z'
FROM orders_log WHERE record_ts >= '2025-05-06T10:15:00Z' GROUP BY partition_id
UNION ALL
SELECT 'orders', 'orders-audit', partition_id, MAX(log_offset) + 1, '2025-05-06T12:00:05Z'
FROM orders_log GROUP BY partition_id
)");
    if (auto s = offsetstore::recordHistory(db, offsets); !s)
        return internalError(QStringLiteral("demo: rewind_offsets: %1").arg(s.error().message));
    return {};
}

} // namespace

const QStringList &tables() {
    return kTables;
}

Status writeTables(const Database &db, double scale, quint32 seed) {
    const Sizes sz(scale);
    const Seeds seeds(seed);
    if (auto s = db.execAll(schema(db.dialect())); !s)
        return s;
    if (auto s = customers(db, sz, seeds); !s)
        return s;
    if (auto s = sales(db, sz, seeds); !s)
        return s;
    if (auto s = events(db, sz, seeds); !s)
        return s;
    if (auto s = tiers(db, seeds); !s)
        return s;
    return orders(db, sz, seeds);
}

Status writeControlState(const Database &db, const Spec &spec) {
    return controlState(db, spec);
}

Status changeSources(const Database &db, double scale, quint32 seed) {
    const Sizes sz(scale);
    const Seeds seeds(seed);
    if (auto s = lateEvents(db, sz, seeds); !s)
        return s;
    return correctSales(db, sz, seeds);
}

} // namespace rw::demo::data
