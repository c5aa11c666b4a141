#include "core/batch/columnchange.h"

#include "core/sql/sqldialect.h"

#include <algorithm>
#include <cmath>

namespace rw {

ColumnKind columnKindOf(const QString &declaredType) {
    if (isNumberType(declaredType))
        return ColumnKind::Number;
    if (isBinaryType(declaredType))
        return ColumnKind::Skipped;
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
}

std::vector<ColumnChange> totalColumns(const std::vector<std::vector<ColumnChange>> &parts) {
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
    return out;
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
    case ColumnKind::Other:
        return "other";
    case ColumnKind::Skipped:
        return "skipped";
    }
    return "other";
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
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace rw
