#include "core/dlq/dlqdialect.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <QStringDecoder>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

class PostgresDlqDialect final : public DlqDialect {
public:
    // PostgreSQL 15 has no JSON validity test (pg_input_is_valid and IS JSON
    // came in 16) and no json_set that creates missing parents. They are
    // PL/pgSQL functions in the session's pg_temp, made per connection like
    // SQLite's registered functions: no control-schema change, nothing left
    // behind. Valid means "casts to jsonb", so anything valid is safe for the
    // jsonb functions (jsonb refuses \u0000 and lone surrogates, which
    // SQLite's json_valid accepts).
    QStringList sessionFunctions() const override {
        return {
            QStringLiteral(
                R"sql(CREATE OR REPLACE FUNCTION pg_temp.rewind_json_valid(doc text) RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
  IF doc IS NULL THEN RETURN NULL; END IF;
  PERFORM CAST(doc AS jsonb);
  RETURN true;
EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
  RETURN false;
END $f$)sql"),
            QStringLiteral(
                R"sql(CREATE OR REPLACE FUNCTION pg_temp.rewind_json_or_text(v text) RETURNS jsonb LANGUAGE plpgsql AS $f$
BEGIN
  RETURN CAST(v AS jsonb);
EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
  RETURN to_jsonb(v);
END $f$)sql"),
            // steps: ".key", "[N", "[#", "[#-N". As SQLite's json_set: a
            // missing object on the way is created before a .key step, a
            // missing array only before [0]; any other step through a
            // missing value or a scalar, or an index past the end, leaves
            // the document as it was (nothing half-created).
            QStringLiteral(
                R"sql(CREATE OR REPLACE FUNCTION pg_temp.rewind_json_set(doc jsonb, steps jsonb, val jsonb) RETURNS jsonb LANGUAGE plpgsql AS $f$
DECLARE
  n int := jsonb_array_length(steps);
  orig jsonb := doc;
  pth text[] := '{}';
  s text;
  cur jsonb;
  len int;
  idx int;
BEGIN
  IF doc IS NULL THEN RETURN NULL; END IF;
  IF n = 0 THEN RETURN val; END IF;
  FOR i IN 0 .. n - 1 LOOP
    s := steps ->> i;
    cur := doc #> pth;
    IF left(s, 1) = '.' THEN
      IF jsonb_typeof(cur) IS DISTINCT FROM 'object' THEN RETURN orig; END IF;
      pth := pth || substr(s, 2);
    ELSE
      IF jsonb_typeof(cur) IS DISTINCT FROM 'array' THEN RETURN orig; END IF;
      len := jsonb_array_length(cur);
      s := substr(s, 2);
      IF s = '#' THEN idx := len;
      ELSIF left(s, 1) = '#' THEN idx := len + CAST(substr(s, 2) AS int);
      ELSE idx := CAST(s AS int);
      END IF;
      IF idx < 0 OR idx > len THEN RETURN orig; END IF;
      pth := pth || CAST(idx AS text);
    END IF;
    IF i < n - 1 AND doc #> pth IS NULL THEN
      s := steps ->> (i + 1);
      IF left(s, 1) = '.' THEN doc := jsonb_set(doc, pth, jsonb '{}', true);
      ELSIF s = '[0' THEN doc := jsonb_set(doc, pth, jsonb '[]', true);
      ELSE RETURN orig;
      END IF;
    END IF;
  END LOOP;
  RETURN jsonb_set(doc, pth, val, true);
END $f$)sql")};
    }
    QString sessionFunctionsPresent() const override {
        return QStringLiteral(
            "SELECT COUNT(*) FROM pg_proc WHERE pronamespace = pg_my_temp_schema() "
            "AND proname IN ('rewind_json_valid', 'rewind_json_or_text', 'rewind_json_set', "
            "'rewind_fits')");
    }
    QString jsonArrayTexts(const QString &array) const override {
        return QStringLiteral("SELECT j.value FROM jsonb_array_elements_text(CAST(") % array %
               QStringLiteral(" AS jsonb)) AS j(value)");
    }
    QString jsonArrayIntegers(const QString &array) const override {
        return QStringLiteral(
                   "SELECT CAST(j.value AS BIGINT) AS value FROM jsonb_array_elements_text(CAST(") %
               array % QStringLiteral(" AS jsonb)) AS j(value)");
    }
    QString jsonEach(const QString &document) const override {
        return QStringLiteral("jsonb_each(CASE WHEN ") % jsonIsObject(document) %
               QStringLiteral(" THEN CAST(") % document % QStringLiteral(" AS jsonb) END)");
    }
    QString isValidJson(const QString &text) const override {
        return QStringLiteral("COALESCE(pg_temp.rewind_json_valid(CAST(") % text %
               QStringLiteral(" AS TEXT)), false)");
    }
    QString jsonIsObject(const QString &document) const override {
        return QStringLiteral("COALESCE(jsonb_typeof(CAST(") % document %
               QStringLiteral(" AS jsonb)) = 'object', false)");
    }
    QString jsonSet(const QString &document,
                    const std::vector<std::pair<QString, QString>> &pathValues,
                    QVariantList &binds) const override {
        QString expr = QStringLiteral("CAST(") % document % QStringLiteral(" AS jsonb)");
        for (const auto &[path, value] : pathValues) {
            expr =
                QStringLiteral("pg_temp.rewind_json_set(") % expr %
                QStringLiteral(", CAST(? AS jsonb), pg_temp.rewind_json_or_text(CAST(? AS TEXT)))");
            binds << jsonPathSteps(path) << value;
        }
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    QString stringAgg(const QString &expr, const QString &separatorLiteral) const override {
        return QStringLiteral("string_agg(") % expr % QStringLiteral(", ") % separatorLiteral %
               u')';
    }
    // As bytea: the driver hands text over decoded, dropping a leading BOM.
    QString payloadBytes(const QString &expr) const override {
        return QStringLiteral("convert_to(") % expr % QStringLiteral(", 'UTF8')");
    }
    QString payloadStored(const QString &expr) const override { return expr; }
    QString payloadLength(const QString &expr) const override {
        return QStringLiteral("octet_length(") % expr % u')';
    }
    QString nullSafeDistinct(const QString &a, const QString &b) const override {
        return a % QStringLiteral(" IS DISTINCT FROM ") % b;
    }
    QString jsonValuesDiffer(const QString &a, const QString &b) const override {
        return QStringLiteral("CAST(") % a % QStringLiteral(" AS jsonb) IS DISTINCT FROM CAST(") %
               b % QStringLiteral(" AS jsonb)");
    }
    // The bytes as they are: a leading UTF-8 BOM stays a character (which
    // jsonb then refuses, as SQLite does), where QString::fromUtf8 drops it.
    QVariant payloadValue(const QByteArray &bytes) const override {
        QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::ConvertInitialBom);
        return QString(decode(bytes));
    }
    QString workColumn(const QString &quotedName, const QString &type) const override {
        return quotedName % u' ' % type;
    }
    QString fromJsonText(const QString &expr, const QString &type) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS ") % type % u')';
    }

private:
    // A SQLite JSON path as rewind_json_set's steps: a JSON array of ".key",
    // "[N", "[#" and "[#-N". The caller has checked the path's syntax.
    static QString jsonPathSteps(const QString &path) {
        static const QRegularExpression step(
            QStringLiteral(R"re(\.(?:"([^"]*)"|([^.\[\]"]+))|\[(\d+|#(?:-\d+)?)\])re"));
        nlohmann::json steps = nlohmann::json::array();
        for (auto it = step.globalMatch(path, 1); it.hasNext();) {
            const auto m = it.next();
            const QString s =
                m.hasCaptured(3)
                    ? QString(u'[' % m.captured(3))
                    : QString(u'.' % (m.hasCaptured(1) ? m.captured(1) : m.captured(2)));
            steps.push_back(s.toStdString());
        }
        return QString::fromStdString(steps.dump());
    }
};

} // namespace

const DlqDialect &postgresDlqDialect() {
    static const PostgresDlqDialect dialect;
    return dialect;
}

} // namespace rw
