#include "ui/common/statusstyle.h"

#include <QMap>
#include <QPainter>
#include <QPixmap>

namespace rw {

namespace {

struct Look {
    QColor color;
    int severity;
    const char *description;
};

Look lookOf(PartitionStatus status) {
    switch (status) {
    case PartitionStatus::Unloaded:
        return {QColor(0x8a, 0x8f, 0x98), 3, "Never published"};
    case PartitionStatus::Loaded:
        return {QColor(0x2f, 0x6f, 0xd0), 1, "Published; no watermark configured"};
    case PartitionStatus::Provisional:
        return {QColor(0xd9, 0x9a, 0x06), 2, "Published; the watermark has not passed it yet"};
    case PartitionStatus::Final:
        return {QColor(0x2e, 0x9a, 0x4b), 0, "Finalized: the watermark has passed it"};
    case PartitionStatus::Stale:
        return {QColor(0xe8, 0x6a, 0x10), 4,
                "Source changed since its last publish: a backfill candidate"};
    case PartitionStatus::Failed:
        return {QColor(0xd0, 0x32, 0x32), 5, "Its last run failed"};
    }
    return {QColor(0x60, 0x60, 0x60), -1, "Unknown status"};
}

} // namespace

const QList<PartitionStatus> &StatusStyle::statuses() {
    static const QList<PartitionStatus> all{PartitionStatus::Unloaded,    PartitionStatus::Loaded,
                                            PartitionStatus::Provisional, PartitionStatus::Final,
                                            PartitionStatus::Stale,       PartitionStatus::Failed};
    return all;
}

QColor StatusStyle::color(PartitionStatus status) {
    return lookOf(status).color;
}

QColor StatusStyle::tint(PartitionStatus status) {
    // The status colour blended 18% over white: readable under black text.
    const QColor c = color(status);
    const auto blend = [](int v) { return 255 - (255 - v) * 18 / 100; };
    return QColor(blend(c.red()), blend(c.green()), blend(c.blue()));
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
    return status == PartitionStatus::Stale || status == PartitionStatus::Failed;
}

} // namespace rw
