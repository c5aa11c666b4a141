#include "ui/common/statusstyle.h"

#include "ui/common/style.h"

#include <QGuiApplication>
#include <QMap>
#include <QPainter>
#include <QPalette>
#include <QPixmap>

namespace rw {

namespace {

struct Look {
    style::Colour colour;
    int severity;
    const char *description;
};

Look lookOf(PartitionStatus status) {
    switch (status) {
    case PartitionStatus::Unloaded:
        return {style::Colour::StatusUnloaded, 3, "Never published"};
    case PartitionStatus::Loaded:
        return {style::Colour::StatusLoaded, 1, "Published; no watermark configured"};
    case PartitionStatus::Provisional:
        return {style::Colour::StatusProvisional, 2,
                "Published; the watermark has not passed it yet"};
    case PartitionStatus::Final:
        return {style::Colour::StatusFinal, 0, "Finalized: the watermark has passed it"};
    case PartitionStatus::Stale:
        return {style::Colour::StatusStale, 4,
                "Source changed since its last publish: a backfill candidate"};
    case PartitionStatus::SchemaBehind:
        return {style::Colour::StatusSchemaBehind, 4,
                "Published before a schema change: NULL in a column it added (run "
                "--schema-behind)"};
    case PartitionStatus::Failed:
        return {style::Colour::StatusFailed, 5, "Its last run failed"};
    }
    return {style::Colour::StatusUnknown, -1, "Unknown status"};
}

} // namespace

const QList<PartitionStatus> &StatusStyle::statuses() {
    static const QList<PartitionStatus> all{
        PartitionStatus::Unloaded, PartitionStatus::Loaded, PartitionStatus::Provisional,
        PartitionStatus::Final,    PartitionStatus::Stale,  PartitionStatus::SchemaBehind,
        PartitionStatus::Failed};
    return all;
}

QColor StatusStyle::color(PartitionStatus status) {
    return style::qcolor(lookOf(status).colour);
}

QColor StatusStyle::tint(PartitionStatus status) {
    // The status colour blended 18% (28% on a dark palette) over the base
    // colour of views: readable under the palette's text.
    const QColor c = color(status);
    const QColor base = QGuiApplication::palette().color(QPalette::Base);
    const int share = style::dark() ? 28 : 18;
    const auto blend = [share](int v, int b) { return b + (v - b) * share / 100; };
    return QColor(blend(c.red(), base.red()), blend(c.green(), base.green()),
                  blend(c.blue(), base.blue()));
}

QIcon StatusStyle::icon(PartitionStatus status) {
    static QMap<PartitionStatus, QIcon> cache;
    auto it = cache.constFind(status);
    if (it != cache.cend())
        return *it;
    QIcon icon;
    for (int size : {12, 16, 24, 32}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const QColor c = color(status);
        p.setPen(QPen(c.darker(130), size / 12.0 + 0.5));
        p.setBrush(c);
        const qreal margin = size * 0.2;
        p.drawEllipse(QRectF(margin, margin, size - 2 * margin, size - 2 * margin));
        p.end();
        icon.addPixmap(pm);
    }
    cache.insert(status, icon);
    return icon;
}

QString StatusStyle::description(PartitionStatus status) {
    return QString::fromUtf8(lookOf(status).description);
}

int StatusStyle::severity(PartitionStatus status) {
    return lookOf(status).severity;
}

bool StatusStyle::needsAttention(PartitionStatus status) {
    return status == PartitionStatus::Stale || status == PartitionStatus::SchemaBehind ||
           status == PartitionStatus::Failed;
}

} // namespace rw
