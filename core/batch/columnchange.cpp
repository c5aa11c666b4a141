#include "core/batch/columnchange.h"

#include "core/sql/sqldialect.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <algorithm>
#include <cmath>

namespace rw {

ColumnKind columnKindOf(const QString &declaredType) {
    if (isNumberType(declaredType))
        return ColumnKind::Number;
    if (isBinaryType(declaredType))
        return ColumnKind::Skipped;
    if (isTimeType(declaredType))
        return ColumnKind::Time;
    return ColumnKind::Other;
}

namespace {

// Equal to within the last digits a double keeps of a ratio or an offset
// computed by the engine (0.5 as 0.49999999999999994, say).
bool same(double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

void addOptional(std::optional<double> &sum, const std::optional<double> &part) {
    if (part)
        sum = sum.value_or(0) + *part;
}

template <class Pick>
void pick(std::optional<double> &into, const std::optional<double> &other, Pick better) {
    if (other && (!into || better(*other, *into)))
        into = other;
}

} // namespace

std::optional<double> ColumnChange::ratio() const {
    if (changed == 0 || ratioUndefined > 0 || !ratioMin || !ratioMax || !same(*ratioMin, *ratioMax))
        return std::nullopt;
    return *ratioMin;
}

std::optional<double> ColumnChange::offset() const {
    if (changed == 0 || fromNull + toNull > 0 || !offsetMin || !offsetMax ||
        !same(*offsetMin, *offsetMax))
        return std::nullopt;
    return *offsetMin;
}

void ColumnChange::add(const ColumnChange &o) {
    matched += o.matched;
    changed += o.changed;
    onlyThisChanged += o.onlyThisChanged;
    fromNull += o.fromNull;
    toNull += o.toNull;
    nullsBefore += o.nullsBefore;
    nullsAfter += o.nullsAfter;
    addOptional(sumBefore, o.sumBefore);
    addOptional(sumAfter, o.sumAfter);
    const auto less = [](double a, double b) { return a < b; };
    const auto greater = [](double a, double b) { return a > b; };
    pick(minBefore, o.minBefore, less);
    pick(minAfter, o.minAfter, less);
    pick(maxBefore, o.maxBefore, greater);
    pick(maxAfter, o.maxAfter, greater);
    sumInserted += o.sumInserted;
    sumDeleted += o.sumDeleted;
    sumUpdated += o.sumUpdated;
    increases += o.increases;
    decreases += o.decreases;
    pick(largestChange, o.largestChange, greater);
    pick(ratioMin, o.ratioMin, less);
    pick(ratioMax, o.ratioMax, greater);
    pick(offsetMin, o.offsetMin, less);
    pick(offsetMax, o.offsetMax, greater);
    ratioUndefined += o.ratioUndefined;
    detail = ColumnDetail{};
}

std::vector<ColumnChange> totalColumns(const std::vector<std::vector<ColumnChange>> &parts,
                                       const std::vector<ColumnDetail> &details) {
    std::vector<ColumnChange> out;
    for (const auto &columns : parts) {
        if (columns.empty())
            continue;
        if (out.empty()) {
            out = columns;
            continue;
        }
        for (std::size_t i = 0; i < columns.size() && i < out.size(); ++i)
            out[i].add(columns[i]);
    }
    for (std::size_t i = 0; i < details.size() && i < out.size(); ++i)
        out[i].detail = details[i];
    return out;
}

namespace {

QString grouped(qint64 v) {
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(v);
}

// A number as a person reads it: whole ones grouped, others to twelve digits.
QString shown(double v) {
    if (v == std::trunc(v) && std::fabs(v) < 9e15)
        return grouped(qint64(v));
    return QString::number(v, 'g', 12);
}

QString signedShown(double v) {
    return (v >= 0 ? QStringLiteral("+") : QString()) + shown(v);
}

} // namespace

QString figureText(const std::optional<double> &value) {
    return value ? shown(*value) : QStringLiteral("-");
}

QString changeShape(const ColumnChange &c) {
    if (c.kind == ColumnKind::Skipped || c.changed == 0)
        return QString();
    if (const auto ratio = c.ratio())
        return QStringLiteral("x") + shown(*ratio);
    if (const auto offset = c.offset())
        return signedShown(*offset);
    const ColumnDetail &d = c.detail;
    const auto on = [&](qint64 rows) {
        return rows == c.changed ? QStringLiteral(" on every row")
                                 : QStringLiteral(" on %1 rows").arg(grouped(rows));
    };
    if (d.shift)
        return signedShown(*d.shift) + QStringLiteral(" s") + on(d.shiftRows);
    if (!d.pairs.empty()) {
        const ValuePair &p = d.pairs.front();
        const auto text = [](const std::optional<QString> &v) {
            return v ? *v : QStringLiteral("NULL");
        };
        return text(p.before) + QStringLiteral(" -> ") + text(p.after) + on(p.rows);
    }
    return QString();
}

QString columnsInBrief(const std::vector<ColumnChange> &columns) {
    QStringList out;
    for (const ColumnChange &c : columns) {
        if (c.changed == 0)
            continue;
        const QString shape = changeShape(c);
        out << c.column + u' ' + grouped(c.changed) +
                   (shape.isEmpty() ? QString() : QStringLiteral(" (") + shape + u')');
    }
    return out.isEmpty() ? QStringLiteral("no value of a kept row changes")
                         : out.join(QStringLiteral(", "));
}

namespace {

using Json = nlohmann::ordered_json;

// A whole number as an integer (a sum of an integer column), else a double.
Json number(double v) {
    if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9007199254740992.0)
        return Json(qint64(v));
    return Json(v);
}

Json optionalNumber(const std::optional<double> &v) {
    return v ? number(*v) : Json(nullptr);
}

std::optional<double> readNumber(const Json &j, const char *name) {
    const auto it = j.find(name);
    if (it == j.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

const char *kindName(ColumnKind kind) {
    switch (kind) {
    case ColumnKind::Number:
        return "number";
    case ColumnKind::Time:
        return "time";
    case ColumnKind::Other:
        return "other";
    case ColumnKind::Skipped:
        return "skipped";
    }
    return "other";
}

Json textOrNull(const std::optional<QString> &v) {
    return v ? Json(v->toStdString()) : Json(nullptr);
}

std::optional<QString> readText(const Json &j, const char *name) {
    const auto it = j.find(name);
    if (it == j.end() || !it->is_string())
        return std::nullopt;
    return QString::fromStdString(it->get<std::string>());
}

void detailJson(const ColumnChange &c, Json &j) {
    const ColumnDetail &d = c.detail;
    if (c.kind != ColumnKind::Number) {
        if (d.distinctBefore)
            j["distinct_before"] = *d.distinctBefore;
        if (d.distinctAfter)
            j["distinct_after"] = *d.distinctAfter;
        Json pairs = Json::array();
        for (const ValuePair &p : d.pairs)
            pairs.push_back({{"before", textOrNull(p.before)},
                             {"after", textOrNull(p.after)},
                             {"rows", p.rows}});
        j["top_changes"] = std::move(pairs);
    }
    if (c.kind == ColumnKind::Time) {
        j["common_shift_seconds"] = optionalNumber(d.shift);
        j["common_shift_rows"] = d.shiftRows;
    }
    Json examples = Json::array();
    for (const auto &key : d.examples) {
        Json o = Json::object();
        for (const auto &[column, value] : key)
            o[column.toStdString()] = Json::parse(
                QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact).toStdString())[0];
        examples.push_back(std::move(o));
    }
    j["example_keys"] = std::move(examples);
}

void detailFromJson(const Json &j, ColumnDetail &d) {
    if (const auto it = j.find("distinct_before"); it != j.end() && it->is_number())
        d.distinctBefore = it->get<qint64>();
    if (const auto it = j.find("distinct_after"); it != j.end() && it->is_number())
        d.distinctAfter = it->get<qint64>();
    if (const auto it = j.find("top_changes"); it != j.end() && it->is_array())
        for (const Json &p : *it)
            if (p.is_object())
                d.pairs.push_back(
                    {readText(p, "before"), readText(p, "after"), p.value("rows", qint64(0))});
    d.shift = readNumber(j, "common_shift_seconds");
    d.shiftRows = j.value("common_shift_rows", qint64(0));
    if (const auto it = j.find("example_keys"); it != j.end() && it->is_array())
        for (const Json &k : *it)
            if (k.is_object()) {
                std::vector<std::pair<QString, QJsonValue>> key;
                for (const auto &[column, value] : k.items())
                    key.emplace_back(QString::fromStdString(column),
                                     QJsonDocument::fromJson(
                                         QByteArray::fromStdString(Json::array({value}).dump()))
                                         .array()
                                         .at(0));
                d.examples.push_back(std::move(key));
            }
}

} // namespace

Json columnsJson(const std::vector<ColumnChange> &columns) {
    Json out = Json::array();
    for (const ColumnChange &c : columns) {
        Json j{{"column", c.column.toStdString()},
               {"type", c.type.toStdString()},
               {"kind", kindName(c.kind)}};
        if (c.kind == ColumnKind::Skipped) {
            j["skipped"] = "its values cannot be compared";
            out.push_back(std::move(j));
            continue;
        }
        j["matched"] = c.matched;
        j["changed"] = c.changed;
        j["changed_pct"] = std::round(c.changedPct() * 100.0) / 100.0;
        j["only_this_changed"] = c.onlyThisChanged;
        j["nulls_before"] = c.nullsBefore;
        j["nulls_after"] = c.nullsAfter;
        j["from_null"] = c.fromNull;
        j["to_null"] = c.toNull;
        if (c.kind == ColumnKind::Number) {
            j["sum_before"] = optionalNumber(c.sumBefore);
            j["sum_after"] = optionalNumber(c.sumAfter);
            j["sum_change"] = {{"inserted", number(c.sumInserted)},
                               {"deleted", number(c.sumDeleted)},
                               {"updated", number(c.sumUpdated)}};
            j["min_before"] = optionalNumber(c.minBefore);
            j["min_after"] = optionalNumber(c.minAfter);
            j["max_before"] = optionalNumber(c.maxBefore);
            j["max_after"] = optionalNumber(c.maxAfter);
            j["increases"] = c.increases;
            j["decreases"] = c.decreases;
            j["largest_change"] = optionalNumber(c.largestChange);
            j["ratio"] = optionalNumber(c.ratio());
            j["offset"] = optionalNumber(c.offset());
        }
        detailJson(c, j);
        out.push_back(std::move(j));
    }
    return out;
}

std::vector<ColumnChange> columnsFromJson(const Json &json) {
    std::vector<ColumnChange> out;
    if (!json.is_array())
        return out;
    for (const Json &j : json) {
        if (!j.is_object())
            continue;
        ColumnChange c;
        c.column = QString::fromStdString(j.value("column", std::string()));
        c.type = QString::fromStdString(j.value("type", std::string()));
        const std::string kind = j.value("kind", std::string());
        c.kind = kind == "number"    ? ColumnKind::Number
                 : kind == "time"    ? ColumnKind::Time
                 : kind == "skipped" ? ColumnKind::Skipped
                                     : ColumnKind::Other;
        c.matched = j.value("matched", 0LL);
        c.changed = j.value("changed", 0LL);
        c.onlyThisChanged = j.value("only_this_changed", 0LL);
        c.nullsBefore = j.value("nulls_before", 0LL);
        c.nullsAfter = j.value("nulls_after", 0LL);
        c.fromNull = j.value("from_null", 0LL);
        c.toNull = j.value("to_null", 0LL);
        c.sumBefore = readNumber(j, "sum_before");
        c.sumAfter = readNumber(j, "sum_after");
        if (const auto it = j.find("sum_change"); it != j.end() && it->is_object()) {
            c.sumInserted = readNumber(*it, "inserted").value_or(0);
            c.sumDeleted = readNumber(*it, "deleted").value_or(0);
            c.sumUpdated = readNumber(*it, "updated").value_or(0);
        }
        c.minBefore = readNumber(j, "min_before");
        c.minAfter = readNumber(j, "min_after");
        c.maxBefore = readNumber(j, "max_before");
        c.maxAfter = readNumber(j, "max_after");
        c.increases = j.value("increases", 0LL);
        c.decreases = j.value("decreases", 0LL);
        c.largestChange = readNumber(j, "largest_change");
        // A stored summary keeps the one ratio or offset, not the extremes.
        c.ratioMin = c.ratioMax = readNumber(j, "ratio");
        c.offsetMin = c.offsetMax = readNumber(j, "offset");
        if (!c.ratioMin && c.changed > 0)
            c.ratioUndefined = 1;
        detailFromJson(j, c.detail);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace rw
