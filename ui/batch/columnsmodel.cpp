#include "ui/batch/columnsmodel.h"

#include "ui/common/format.h"
#include "ui/common/style.h"

#include <QBrush>
#include <QLinearGradient>
#include <QStringBuilder>
#include <cmath>

namespace rw {

namespace {

double share(const ColumnChange &c) {
    return c.matched > 0 ? double(c.changed) / double(c.matched) : 0.0;
}

} // namespace

QString ColumnsModel::figure(const std::optional<double> &v) {
    if (!v)
        return QStringLiteral("\u2014");
    if (*v == std::trunc(*v) && std::fabs(*v) < 9e15)
        return fmt::number(qint64(*v));
    return QString::number(*v, 'g', 12);
}

QString ColumnsModel::details(const ColumnChange &c) {
    if (c.kind == ColumnKind::Skipped)
        return tr("%1 (%2): its values cannot be compared; skipped")
            .arg(c.column.toHtmlEscaped(), c.type.toHtmlEscaped());
    QString tip = tr("<b>%1</b> (%2): %3 of %4 matched rows changed, %5 of them alone; "
                     "%6 from NULL, %7 to NULL")
                      .arg(c.column.toHtmlEscaped(), c.type.toHtmlEscaped(), fmt::number(c.changed),
                           fmt::number(c.matched), fmt::number(c.onlyThisChanged),
                           fmt::number(c.fromNull), fmt::number(c.toNull));
    if (c.kind == ColumnKind::Number)
        tip +=
            tr("<br>sum %1 \u2192 %2: inserted %3, deleted %4, updated %5"
               "<br>min %6 \u2192 %7, max %8 \u2192 %9"
               "<br>%10 increases, %11 decreases, largest change %12")
                .arg(figure(c.sumBefore), figure(c.sumAfter), figure(c.sumInserted),
                     figure(-c.sumDeleted), figure(c.sumUpdated), figure(c.minBefore),
                     figure(c.minAfter), figure(c.maxBefore), figure(c.maxAfter))
                .arg(fmt::number(c.increases), fmt::number(c.decreases), figure(c.largestChange));
    const ColumnDetail &d = c.detail;
    if (d.distinctBefore && d.distinctAfter && c.changed > 0)
        tip += tr("<br>distinct values %1 \u2192 %2")
                   .arg(fmt::number(*d.distinctBefore), fmt::number(*d.distinctAfter));
    if (d.shift)
        tip += tr("<br>most common shift %1 s, on %2 rows")
                   .arg((*d.shift >= 0 ? QStringLiteral("+") : QString()) + figure(d.shift),
                        fmt::number(d.shiftRows));
    const auto text = [](const std::optional<QString> &v) {
        return v ? QString(u'\u201c' + v->toHtmlEscaped() + u'\u201d')
                 : QStringLiteral("<i>NULL</i>");
    };
    for (const ValuePair &p : d.pairs)
        tip += tr("<br>&nbsp;&nbsp;%1 \u2192 %2: %3 rows")
                   .arg(text(p.before), text(p.after), fmt::number(p.rows));
    QStringList keys;
    for (const auto &key : d.examples) {
        QStringList parts;
        for (const auto &[column, value] : key)
            parts << column + u'=' + value.toVariant().toString();
        keys << parts.join(QStringLiteral(", ")).toHtmlEscaped();
    }
    if (!keys.isEmpty())
        tip += tr("<br>for example the rows of %1").arg(keys.join(QStringLiteral("; ")));
    return tip;
}

ColumnsModel::ColumnsModel(QObject *parent)
    : SnapshotTableModel<ColumnChange>(
          {
              {tr("Column"), kAlignText, [](const ColumnChange &c) { return c.column; }},
              {tr("Changed"), kAlignNumber,
               [](const ColumnChange &c) -> QVariant {
                   if (c.kind == ColumnKind::Skipped)
                       return tr("not compared");
                   return QStringLiteral("%1  (%2%)")
                       .arg(fmt::number(c.changed), QString::number(c.changedPct(), 'f', 1));
               },
               [](const ColumnChange &c) { return share(c); },
               tr("Rows whose key the target holds and whose value in this column the re-run "
                  "changes; the bar is their share")},
              {tr("Only it"), kAlignNumber,
               [](const ColumnChange &c) -> QVariant {
                   return c.kind == ColumnKind::Skipped ? QString()
                                                        : fmt::number(c.onlyThisChanged);
               },
               [](const ColumnChange &c) { return c.onlyThisChanged; },
               tr("Changed rows in which no other column changed: what drives the updates")},
              {tr("NULLs before \u2192 after"), kAlignNumber,
               [](const ColumnChange &c) -> QVariant {
                   if (c.kind == ColumnKind::Skipped)
                       return QString();
                   return QString(fmt::number(c.nullsBefore) % QStringLiteral(" \u2192 ") %
                                  fmt::number(c.nullsAfter));
               },
               [](const ColumnChange &c) { return c.nullsAfter - c.nullsBefore; },
               tr("NULLs in the partitions' target rows before and after the write")},
              {tr("Sum before \u2192 after"), kAlignNumber,
               [](const ColumnChange &c) -> QVariant {
                   if (c.kind != ColumnKind::Number)
                       return QString();
                   return QString(figure(c.sumBefore) % QStringLiteral(" \u2192 ") %
                                  figure(c.sumAfter));
               },
               [](const ColumnChange &c) -> QVariant {
                   if (!c.sumBefore || !c.sumAfter)
                       return QVariant();
                   return *c.sumAfter - *c.sumBefore;
               },
               tr("The column's total in the partitions before and after the write")},
              {tr("Change"), kAlignText,
               [](const ColumnChange &c) -> QVariant {
                   if (const auto r = c.ratio(); r && c.changed > 0)
                       return QString(QStringLiteral("\u00d7") % figure(r));
                   return changeShape(c);
               },
               nullptr,
               tr("The one ratio (after / before) or offset (after \u2212 before) every change "
                  "shares, else a time's most common shift or the most common before \u2192 "
                  "after pair")},
          },
          parent) {}

QVariant ColumnsModel::cellData(const ColumnChange &c, int column, int role) const {
    switch (role) {
    case ShareRole:
        return share(c);
    case Qt::BackgroundRole: {
        if (column != ChangedColumn || c.changed == 0)
            return {};
        // The changed share as a bar behind the count, across the cell.
        QLinearGradient bar(0, 0, 1, 0);
        bar.setCoordinateMode(QGradient::ObjectMode);
        const double at = std::clamp(share(c), 0.0, 1.0);
        QColor fill = style::qcolor(style::Colour::Updated);
        fill.setAlpha(90);
        bar.setColorAt(0, fill);
        bar.setColorAt(at, fill);
        bar.setColorAt(std::min(1.0, at + 1e-6), Qt::transparent);
        bar.setColorAt(1, at >= 1.0 ? fill : QColor(Qt::transparent));
        return QBrush(bar);
    }
    case Qt::FontRole:
        return boldIf(column == NameColumn && c.changed > 0);
    case Qt::ForegroundRole:
        if (c.kind == ColumnKind::Skipped || (column != NameColumn && c.changed == 0 &&
                                              column != SumColumn && column != NullsColumn))
            return QBrush(style::qcolor(style::Colour::Faint));
        return {};
    case Qt::ToolTipRole:
        return details(c);
    default:
        return {};
    }
}

} // namespace rw
