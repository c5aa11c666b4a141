#include "core/sql/trinodriver.h"

#include <QByteArray>
#include <QDate>
#include <QDateTime>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QMetaType>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QRandomGenerator>
#include <QSqlDriver>
#include <QSqlDriverCreator>
#include <QSqlError>
#include <QSqlField>
#include <QSqlRecord>
#include <QSqlResult>
#include <QStringBuilder>
#include <QThread>
#include <QTime>
#include <QTimeZone>
#include <QTimer>
#include <QUrl>
#include <QtSql/QSqlDatabase>
#include <cmath>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>

Q_LOGGING_CATEGORY(lcTrino, "rewind.trino", QtWarningMsg)

namespace rw {

namespace {

using Json = nlohmann::json;

thread_local QString t_lastQueryId;                    // lastTrinoQueryId()
thread_local const TrinoQueryWatch *t_watch = nullptr; // the innermost watch alive

QString str(const Json &j, const char *key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                            : QString();
}

// A column's Trino type ("bigint", "varchar(20)", "timestamp(6) with time
// zone", "decimal(12,2)") by the value type Qt reads it as.
QMetaType metaTypeOf(const QString &trinoType) {
    const QString t = trinoType.toLower();
    if (t == QLatin1String("boolean"))
        return QMetaType(QMetaType::Bool);
    if (t == QLatin1String("tinyint") || t == QLatin1String("smallint") ||
        t == QLatin1String("integer"))
        return QMetaType(QMetaType::Int);
    if (t == QLatin1String("bigint"))
        return QMetaType(QMetaType::LongLong);
    if (t == QLatin1String("double") || t == QLatin1String("real"))
        return QMetaType(QMetaType::Double);
    if (t == QLatin1String("date"))
        return QMetaType(QMetaType::QDate);
    if (t.startsWith(QLatin1String("timestamp")))
        return QMetaType(QMetaType::QDateTime);
    if (t.startsWith(QLatin1String("time")))
        return QMetaType(QMetaType::QTime);
    if (t == QLatin1String("varbinary"))
        return QMetaType(QMetaType::QByteArray);
    // decimal as its exact text, as Qt's PostgreSQL driver reads numeric.
    return QMetaType(QMetaType::QString);
}

// "2025-05-14 10:20:00.123456" (and "... UTC", "... +02:00", "... Europe/Paris")
// as an instant; a timestamp without a zone is read as UTC.
QDateTime timestampOf(const QString &text) {
    const qsizetype space = text.indexOf(u' ');
    if (space < 0)
        return {};
    const qsizetype zoneAt = text.indexOf(u' ', space + 1);
    const QString local = zoneAt < 0 ? text : text.left(zoneAt);
    const QString zone = zoneAt < 0 ? QString() : text.mid(zoneAt + 1);
    QString iso = local;
    iso[space] = u'T';
    // Qt reads at most milliseconds: the rest of a fraction is cut.
    if (const qsizetype dot = iso.indexOf(u'.'); dot >= 0 && iso.size() - dot > 4)
        iso.truncate(dot + 4);
    QDateTime at = QDateTime::fromString(iso, Qt::ISODateWithMs);
    if (!at.isValid())
        return {};
    if (zone.isEmpty() || zone == QLatin1String("UTC") || zone == QLatin1String("Z")) {
        at.setTimeZone(QTimeZone::utc());
    } else if (zone.startsWith(u'+') || zone.startsWith(u'-')) {
        at = QDateTime::fromString(iso % zone, Qt::ISODateWithMs);
    } else {
        at.setTimeZone(QTimeZone(zone.toUtf8()));
    }
    return at.toUTC();
}

QVariant valueOf(const Json &v, const QString &trinoType, QMetaType type) {
    if (v.is_null())
        return QVariant(type);
    const bool textual = type.id() == QMetaType::QDate || type.id() == QMetaType::QDateTime ||
                         type.id() == QMetaType::QTime || type.id() == QMetaType::QByteArray;
    if (textual && !v.is_string()) // not as Trino's protocol sends these: its JSON as text
        return QString::fromStdString(v.dump());
    switch (type.id()) {
    case QMetaType::Bool:
        return v.is_boolean() ? QVariant(v.get<bool>()) : QVariant(type);
    case QMetaType::Int:
        return v.is_number_integer() ? QVariant(int(v.get<qint64>())) : QVariant(type);
    case QMetaType::LongLong:
        return v.is_number_integer() ? QVariant(qlonglong(v.get<qint64>())) : QVariant(type);
    case QMetaType::Double:
        if (v.is_number())
            return v.get<double>();
        if (v.is_string()) { // "NaN", "Infinity", "-Infinity"
            const std::string s = v.get<std::string>();
            return s == "NaN" ? std::nan("") : s == "Infinity" ? HUGE_VAL : -HUGE_VAL;
        }
        return QVariant(type);
    case QMetaType::QDate:
        return QDate::fromString(QString::fromStdString(v.get<std::string>()), Qt::ISODate);
    case QMetaType::QDateTime:
        return timestampOf(QString::fromStdString(v.get<std::string>()));
    case QMetaType::QTime: {
        QString t = QString::fromStdString(v.get<std::string>());
        if (const qsizetype dot = t.indexOf(u'.'); dot >= 0 && t.size() - dot > 4)
            t.truncate(dot + 4);
        return QTime::fromString(t, Qt::ISODateWithMs);
    }
    case QMetaType::QByteArray:
        return QByteArray::fromBase64(QByteArray::fromStdString(v.get<std::string>()));
    default:
        break;
    }
    Q_UNUSED(trinoType);
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump()); // arrays, maps, rows: their JSON
}

class TrinoDriver;

// One statement: its columns, the rows of the pages read so far, and where
// the next page is.
class TrinoResult final : public QSqlResult {
public:
    explicit TrinoResult(const TrinoDriver *driver);
    ~TrinoResult() override { cancel(); }

protected:
    QVariant data(int i) override;
    bool isNull(int i) override;
    bool reset(const QString &query) override;
    bool fetch(int i) override;
    bool fetchNext() override { return fetch(at() + 1); }
    bool fetchFirst() override { return at() == QSql::BeforeFirstRow && fetch(0); }
    bool fetchLast() override;
    int size() override { return -1; }
    int numRowsAffected() override;
    QSqlRecord record() const override;
    void detachFromResultSet() override { cancel(); }

private:
    TrinoDriver *driver() const;
    // Reads the next page; false on an error (set as lastError()).
    bool readPage();
    void cancel();
    bool take(const Json &page);

    struct Column {
        QString name;
        QString type;
        QMetaType meta;
    };
    std::vector<Column> m_columns;
    std::deque<Json> m_rows; // read, not yet fetched
    Json m_row;              // the current row
    QString m_nextUri;
    qint64 m_updateCount = -1;
};

class TrinoDriver final : public QSqlDriver {
public:
    explicit TrinoDriver(QObject *parent = nullptr)
        : QSqlDriver(parent) {}

    bool hasFeature(DriverFeature f) const override {
        switch (f) {
        case Unicode:
        case BLOB:
        case LowPrecisionNumbers:
            return true;
        default:
            return false;
        }
    }

    bool open(const QString &db, const QString &user, const QString &password, const QString &host,
              int port, const QString &options) override {
        const QStringList path = db.split(u'/');
        m_catalog = path.value(0);
        m_schema = path.value(1);
        m_user = user;
        m_password = password;
        const bool tls = options.split(u';').contains(QStringLiteral("tls=1"));
        m_base.setScheme(tls ? QStringLiteral("https") : QStringLiteral("http"));
        m_base.setHost(host);
        m_base.setPort(port > 0 ? port : (tls ? 443 : 8080));
        // A password (the URL's, the prompt's or TRINO_PASSWORD) never
        // crosses plain HTTP.
        if (!password.isEmpty() && !tls) {
            setLastError(QSqlError(QStringLiteral("a password for %1 is sent over HTTPS only: "
                                                  "write trinos://")
                                       .arg(m_base.toString()),
                                   QString(), QSqlError::ConnectionError));
            setOpenError(true);
            return false;
        }
        m_nam = new QNetworkAccessManager(this);
        QByteArray body;
        int status = 0;
        QString why;
        if (!send("GET", m_base.resolved(QUrl(QStringLiteral("/v1/info"))), {}, body, status,
                  why)) {
            setLastError(QSqlError(why, QString(), QSqlError::ConnectionError));
            setOpenError(true);
            return false;
        }
        const Json info = Json::parse(body.constData(), nullptr, false);
        if (info.is_object() && info.value("starting", false)) {
            setLastError(QSqlError(
                QStringLiteral("the Trino server at %1 is still starting").arg(m_base.toString()),
                QString(), QSqlError::ConnectionError));
            setOpenError(true);
            return false;
        }
        setOpen(true);
        setOpenError(false);
        return true;
    }

    void close() override {
        if (!m_scratch.isEmpty() && threadEnding()) {
            qCDebug(lcTrino).noquote() << "left the scratch schema" << m_scratch
                                       << "to a later session's sweep (its thread is ending)";
        } else if (!m_scratch.isEmpty()) {
            QString why;
            if (!runToEnd(QStringLiteral("DROP SCHEMA IF EXISTS ") %
                              escapeIdentifier(m_scratch, TableName) % QStringLiteral(" CASCADE"),
                          why))
                qCWarning(lcTrino).noquote()
                    << "could not drop the scratch schema" << m_scratch << ":" << why;
            m_scratch.clear();
        }
        setOpen(false);
        setOpenError(false);
    }

    // `sql` with kTrinoSessionSchema replaced by this connection's scratch
    // schema, made on first use; empty with `why` when it cannot be made.
    QString withScratch(const QString &sql, QString &why) const {
        const QString token = escapeIdentifier(QString::fromLatin1(kTrinoSessionSchema), TableName);
        if (!sql.contains(token))
            return sql;
        // The job's work tables are gone: their schema goes too (made again
        // on its next use), or nothing happens if it was never made.
        if (sql.startsWith(QLatin1String("DROP SCHEMA"))) {
            if (m_scratch.isEmpty())
                return QStringLiteral("SELECT 1 WHERE 1 = 0");
            QString out = sql;
            out.replace(token, escapeIdentifier(m_scratch, TableName));
            m_scratch.clear();
            return out;
        }
        if (m_scratch.isEmpty()) {
            const QString name =
                QStringLiteral("rewind_work_") %
                QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddHHmm")) % u'_' %
                QString::number(QRandomGenerator::global()->generate64() & 0xffffffffffULL, 16);
            if (!runToEnd(QStringLiteral("CREATE SCHEMA IF NOT EXISTS ") %
                              escapeIdentifier(name, TableName),
                          why)) {
                why = QStringLiteral(
                          "cannot make the scratch schema %1 for the session's work tables: %2")
                          .arg(name, why);
                return {};
            }
            m_scratch = name;
            sweepScratch();
        }
        QString out = sql;
        out.replace(token, escapeIdentifier(m_scratch, TableName));
        return out;
    }

    // The scratch schemas of sessions that ended without dropping theirs (a
    // process killed), made more than a day ago: no preview lasts that long.
    void sweepScratch() const {
        QString why;
        std::vector<Json> rows;
        if (!runToEnd(QStringLiteral("SELECT schema_name FROM information_schema.schemata WHERE "
                                     "schema_name LIKE 'rewind\\_work\\_%' ESCAPE '\\'"),
                      why, &rows))
            return;
        const QDateTime dayAgo = QDateTime::currentDateTimeUtc().addDays(-1);
        for (const Json &row : rows) {
            const QString name = row.is_array() && !row.empty() && row[0].is_string()
                                     ? QString::fromStdString(row[0].get<std::string>())
                                     : QString();
            QDateTime made =
                QDateTime::fromString(name.mid(12, 12), QStringLiteral("yyyyMMddHHmm"));
            made.setTimeZone(QTimeZone::utc());
            if (made.isValid() && made < dayAgo && name != m_scratch &&
                !runToEnd(QStringLiteral("DROP SCHEMA IF EXISTS ") %
                              escapeIdentifier(name, TableName) % QStringLiteral(" CASCADE"),
                          why))
                qCWarning(lcTrino).noquote()
                    << "could not drop the stale scratch schema" << name << ":" << why;
        }
    }

    // Runs a statement to its end, its rows into `rows` when given; false
    // with Trino's message in `why`.
    bool runToEnd(const QString &sql, QString &why, std::vector<Json> *rows = nullptr) const {
        QByteArray body;
        int status = 0;
        if (!send("POST", statementUrl(), sql.toUtf8(), body, status, why))
            return false;
        for (;;) {
            const Json page = Json::parse(body.constData(), nullptr, false);
            if (!page.is_object()) {
                why = QStringLiteral("Trino sent a reply that is not JSON");
                return false;
            }
            if (const auto e = page.find("error"); e != page.end() && e->is_object()) {
                why = str(*e, "message") % QStringLiteral(" (") % str(*e, "errorName") % u')';
                return false;
            }
            if (const auto d = page.find("data"); rows && d != page.end() && d->is_array())
                for (const Json &row : *d)
                    rows->push_back(row);
            const QString next = str(page, "nextUri");
            if (next.isEmpty())
                return true;
            if (!send("GET", QUrl(next), {}, body, status, why))
                return false;
        }
    }

    QSqlResult *createResult() const override { return new TrinoResult(this); }

    QString escapeIdentifier(const QString &identifier, IdentifierType) const override {
        QString q = identifier;
        q.replace(u'"', QStringLiteral("\"\""));
        return u'"' % q % u'"';
    }

    QString formatValue(const QSqlField &field, bool trimStrings) const override {
        Q_UNUSED(trimStrings);
        const QVariant v = field.value();
        if (field.isNull() || v.isNull())
            return QStringLiteral("NULL");
        switch (v.metaType().id()) {
        case QMetaType::Bool:
            return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        case QMetaType::Int:
        case QMetaType::UInt:
        case QMetaType::Short:
        case QMetaType::UShort:
        case QMetaType::Long:
        case QMetaType::ULong:
        case QMetaType::LongLong:
        case QMetaType::ULongLong:
            return v.toString();
        case QMetaType::Double:
        case QMetaType::Float: {
            const double d = v.toDouble();
            if (std::isnan(d))
                return QStringLiteral("nan()");
            if (std::isinf(d))
                return d > 0 ? QStringLiteral("infinity()") : QStringLiteral("-infinity()");
            // An exponent makes it a DOUBLE literal (1.5 alone is a DECIMAL).
            QString text = QString::number(d, 'g', 17);
            if (!text.contains(u'e'))
                text += QStringLiteral("e0");
            return text;
        }
        case QMetaType::QDate:
            return QStringLiteral("DATE '") % v.toDate().toString(Qt::ISODate) % u'\'';
        case QMetaType::QDateTime:
            return QStringLiteral("TIMESTAMP '") %
                   v.toDateTime().toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) %
                   u'\'';
        case QMetaType::QTime:
            return QStringLiteral("TIME '") % v.toTime().toString(QStringLiteral("HH:mm:ss.zzz")) %
                   u'\'';
        case QMetaType::QByteArray:
            return QStringLiteral("X'") % QString::fromLatin1(v.toByteArray().toHex()) % u'\'';
        default:
            break;
        }
        QString text = v.toString();
        text.replace(u'\'', QStringLiteral("''"));
        return u'\'' % text % u'\'';
    }

    // One HTTP exchange, retried on 502, 503 and 504 (and a reply cut off
    // before its status) with backoff; false with `why` otherwise, or when
    // the server never answers.
    bool send(const QByteArray &verb, const QUrl &url, const QByteArray &payload, QByteArray &body,
              int &status, QString &why) const {
        for (int attempt = 0;; ++attempt) {
            QNetworkRequest request(url);
            request.setRawHeader("X-Trino-User", m_user.toUtf8());
            request.setRawHeader("X-Trino-Source", "rewind");
            // Every session in UTC, as Rewind's PostgreSQL sessions: a timestamp
            // without zone reads as UTC.
            request.setRawHeader("X-Trino-Time-Zone", "UTC");
            if (!m_catalog.isEmpty())
                request.setRawHeader("X-Trino-Catalog", m_catalog.toUtf8());
            if (!m_schema.isEmpty())
                request.setRawHeader("X-Trino-Schema", m_schema.toUtf8());
            if (!m_session.empty()) {
                QStringList pairs;
                for (const auto &[name, value] : m_session)
                    pairs << name % u'=' % value;
                request.setRawHeader("X-Trino-Session", pairs.join(u',').toUtf8());
            }
            if (!m_password.isEmpty())
                request.setRawHeader("Authorization",
                                     "Basic " + (m_user + u':' + m_password).toUtf8().toBase64());
            request.setHeader(QNetworkRequest::ContentTypeHeader,
                              QStringLiteral("text/plain; charset=utf-8"));
            request.setTransferTimeout(120000);
            QNetworkReply *reply = verb == "POST"     ? m_nam->post(request, payload)
                                   : verb == "DELETE" ? m_nam->deleteResource(request)
                                                      : m_nam->get(request);
            QEventLoop loop;
            QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
            if (!reply->isFinished())
                loop.exec(QEventLoop::ExcludeUserInputEvents);
            status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            body = reply->readAll();
            const QNetworkReply::NetworkError error = reply->error();
            const QString errorText = reply->errorString();
            if (status == 200) {
                takeHeaders(*reply);
                delete reply; // not inside one of its signals: deleted now
                return true;
            }
            delete reply; // not inside one of its signals: deleted now
            const bool transient = status == 502 || status == 503 || status == 504;
            if (transient && attempt < 8) {
                const int waitMs = std::min(100 << attempt, 3000);
                qCDebug(lcTrino) << "HTTP" << status << "from" << url.toString() << "; again in"
                                 << waitMs << "ms";
                QThread::msleep(waitMs);
                continue;
            }
            if (status == 0)
                why = QStringLiteral("cannot reach the Trino server at %1: %2")
                          .arg(m_base.toString(), errorText);
            else if (status == 401)
                why = QStringLiteral("the Trino server at %1 refused user %2 (HTTP 401%3)")
                          .arg(m_base.toString(), m_user,
                               m_password.isEmpty() ? QStringLiteral(": it wants a password")
                                                    : QStringLiteral(": wrong password"));
            else
                why = QStringLiteral("the Trino server at %1 answered HTTP %2: %3")
                          .arg(m_base.toString())
                          .arg(status)
                          .arg(QString::fromUtf8(body).trimmed().left(300));
            Q_UNUSED(error);
            return false;
        }
    }

    QUrl statementUrl() const { return m_base.resolved(QUrl(QStringLiteral("/v1/statement"))); }

private:
    // The session changes a statement made (SET SESSION, USE): sent with
    // every later one, as Trino's own clients do.
    void takeHeaders(const QNetworkReply &reply) const {
        for (const auto &[name, value] : reply.rawHeaderPairs()) {
            const QByteArray n = name.toLower();
            const QString text = QString::fromUtf8(value);
            if (n == "x-trino-set-catalog") {
                m_catalog = text;
            } else if (n == "x-trino-set-schema") {
                m_schema = text;
            } else if (n == "x-trino-set-session") {
                const qsizetype eq = text.indexOf(u'=');
                if (eq > 0)
                    m_session[text.left(eq).trimmed()] = text.mid(eq + 1).trimmed();
            } else if (n == "x-trino-clear-session") {
                m_session.erase(text.trimmed());
            }
        }
    }

    mutable QString m_scratch; // this connection's scratch schema, once made
    QNetworkAccessManager *m_nam = nullptr;
    QUrl m_base;
    QString m_user, m_password;
    mutable QString m_catalog, m_schema;
    mutable std::map<QString, QString> m_session;
};

TrinoResult::TrinoResult(const TrinoDriver *driver)
    : QSqlResult(driver) {}

TrinoDriver *TrinoResult::driver() const {
    return static_cast<TrinoDriver *>(const_cast<QSqlDriver *>(QSqlResult::driver()));
}

void TrinoResult::cancel() {
    // (A thread that is ending can make no round trip: the server ends
    // an abandoned statement itself.)
    if (m_nextUri.isEmpty() || !driver() || threadEnding())
        return;
    QByteArray body;
    int status = 0;
    QString why;
    driver()->send("DELETE", QUrl(m_nextUri), {}, body, status, why);
    m_nextUri.clear();
}

bool TrinoResult::take(const Json &page) {
    if (!page.is_object()) {
        setLastError(QSqlError(QStringLiteral("Trino sent a reply that is not JSON"), QString(),
                               QSqlError::StatementError));
        return false;
    }
    if (const auto e = page.find("error"); e != page.end() && e->is_object()) {
        const QString name = str(*e, "errorName");
        QString message = str(*e, "message");
        if (!name.isEmpty())
            message += QStringLiteral(" (") % name % u')';
        setLastError(QSqlError(QStringLiteral("Trino"), message, QSqlError::StatementError, name));
        m_nextUri.clear();
        return false;
    }
    if (const QString id = str(page, "id"); !id.isEmpty())
        t_lastQueryId = id;
    if (m_columns.empty())
        if (const auto c = page.find("columns"); c != page.end() && c->is_array())
            for (const Json &column : *c) {
                const QString type = str(column, "type");
                m_columns.push_back({str(column, "name"), type, metaTypeOf(type)});
            }
    if (const auto d = page.find("data"); d != page.end() && d->is_array())
        for (const Json &row : *d)
            m_rows.push_back(row);
    if (const auto n = page.find("updateCount"); n != page.end() && n->is_number_integer())
        m_updateCount = n->get<qint64>();
    m_nextUri = str(page, "nextUri");
    return true;
}

bool TrinoResult::readPage() {
    QByteArray body;
    int status = 0;
    QString why;
    if (!driver()->send("GET", QUrl(m_nextUri), {}, body, status, why)) {
        m_nextUri.clear();
        setLastError(QSqlError(why, QString(), QSqlError::ConnectionError));
        return false;
    }
    return take(Json::parse(body.constData(), nullptr, false));
}

bool TrinoResult::reset(const QString &query) {
    cancel();
    m_columns.clear();
    m_rows.clear();
    m_row = Json();
    m_updateCount = -1;
    setActive(false);
    setAt(QSql::BeforeFirstRow);
    if (!driver() || !driver()->isOpen())
        return false;
    QByteArray body;
    int status = 0;
    QString why;
    const QString text = driver()->withScratch(query, why);
    if (text.isEmpty()) {
        setLastError(QSqlError(QStringLiteral("Trino"), why, QSqlError::StatementError));
        return false;
    }
    t_lastQueryId.clear(); // this statement's, or none: never an earlier one's
    if (!driver()->send("POST", driver()->statementUrl(), text.toUtf8(), body, status, why)) {
        setLastError(QSqlError(why, QString(), QSqlError::ConnectionError));
        return false;
    }
    if (!take(Json::parse(body.constData(), nullptr, false)))
        return false;
    // Registered, not yet submitted (that waits for the first nextUri): a
    // watch learns its id now, before it can run.
    if (t_watch && query.startsWith(t_watch->prefix()) && !t_lastQueryId.isEmpty())
        if (const QString why = t_watch->started(t_lastQueryId); !why.isEmpty()) {
            cancel();
            setLastError(QSqlError(QStringLiteral("Trino"), why, QSqlError::StatementError));
            return false;
        }
    // Until its first rows or its end: an error, a statement that writes
    // (its count comes last), or DDL runs to completion here.
    while (m_rows.empty() && !m_nextUri.isEmpty())
        if (!readPage())
            return false;
    setSelect(!m_columns.empty() && m_updateCount < 0);
    setActive(true);
    return true;
}

bool TrinoResult::fetch(int i) {
    if (i != at() + 1)
        return false; // forward only
    while (m_rows.empty() && !m_nextUri.isEmpty())
        if (!readPage())
            return false;
    if (m_rows.empty()) {
        setAt(QSql::AfterLastRow);
        return false;
    }
    m_row = std::move(m_rows.front());
    m_rows.pop_front();
    setAt(i);
    return true;
}

bool TrinoResult::fetchLast() {
    bool any = false;
    while (fetch(at() < 0 ? 0 : at() + 1))
        any = true;
    return any;
}

int TrinoResult::numRowsAffected() {
    while (!m_nextUri.isEmpty())
        if (!readPage())
            return -1;
    return int(m_updateCount);
}

QVariant TrinoResult::data(int i) {
    if (!m_row.is_array() || i < 0 || std::size_t(i) >= m_row.size() ||
        std::size_t(i) >= m_columns.size())
        return {};
    return valueOf(m_row[std::size_t(i)], m_columns[std::size_t(i)].type,
                   m_columns[std::size_t(i)].meta);
}

bool TrinoResult::isNull(int i) {
    return !m_row.is_array() || i < 0 || std::size_t(i) >= m_row.size() ||
           m_row[std::size_t(i)].is_null();
}

QSqlRecord TrinoResult::record() const {
    QSqlRecord r;
    for (const Column &c : m_columns) {
        QSqlField f(c.name, c.meta);
        r.append(f);
    }
    return r;
}

} // namespace

QString lastTrinoQueryId() {
    return t_lastQueryId;
}

TrinoQueryWatch::TrinoQueryWatch(QString prefix, std::function<QString(const QString &)> started)
    : m_prefix(std::move(prefix))
    , m_started(std::move(started))
    , m_outer(t_watch) {
    t_watch = this;
}

TrinoQueryWatch::~TrinoQueryWatch() {
    t_watch = m_outer;
}

QString TrinoQueryWatch::started(const QString &queryId) const {
    return m_started ? m_started(queryId) : QString();
}

void registerTrinoDriver() {
    static QMutex mutex;
    static bool done = false;
    QMutexLocker lock(&mutex);
    if (done)
        return;
    QSqlDatabase::registerSqlDriver(QString::fromLatin1(kTrinoDriver),
                                    new QSqlDriverCreator<TrinoDriver>);
    done = true;
}

} // namespace rw
