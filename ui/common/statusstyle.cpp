#include "ui/common/statusstyle.h"

#include <QHash>
#include <QPainter>
#include <QPixmap>

namespace rw {

namespace {

struct Look {
    QColor color;
    int severity;
    const char *description;
};

Look lookOf(const QString &status)
{
    static const QHash<QString, Look> looks{
        {QStringLiteral("unloaded"), {QColor(0x8a, 0x8f, 0x98), 3, "Never published"}},
        {QStringLiteral("loaded"), {QColor(0x2f, 0x6f, 0xd0), 1, "Published; no watermark configured"}},
        {QStringLiteral("provisional"), {QColor(0xd9, 0x9a, 0x06), 2, "Published; the watermark has not passed it yet"}},
        {QStringLiteral("final"), {QColor(0x2e, 0x9a, 0x4b), 0, "Finalized: the watermark has passed it"}},
        {QStringLiteral("stale"), {QColor(0xe8, 0x6a, 0x10), 4, "Source changed since its last publish: a backfill candidate"}},
        {QStringLiteral("failed"), {QColor(0xd0, 0x32, 0x32), 5, "Its last run failed"}},
    };
    return looks.value(status, Look{QColor(0x60, 0x60, 0x60), -1, "Unknown status"});
}

} // namespace

const QStringList &StatusStyle::statuses()
{
    static const QStringList all{QStringLiteral("unloaded"), QStringLiteral("loaded"),  QStringLiteral("provisional"),
                                 QStringLiteral("final"),    QStringLiteral("stale"),   QStringLiteral("failed")};
    return all;
}

QColor StatusStyle::color(const QString &status) { return lookOf(status).color; }

QColor StatusStyle::tint(const QString &status)
{
    // The status colour blended 18% over white: readable under black text.
    const QColor c = color(status);
    const auto blend = [](int v) { return 255 - (255 - v) * 18 / 100; };
    return QColor(blend(c.red()), blend(c.green()), blend(c.blue()));
}

QIcon StatusStyle::icon(const QString &status)
{
    static QHash<QString, QIcon> cache;
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

QString StatusStyle::description(const QString &status) { return QString::fromUtf8(lookOf(status).description); }

int StatusStyle::severity(const QString &status) { return lookOf(status).severity; }

bool StatusStyle::needsAttention(const QString &status)
{
    return status == QLatin1String("stale") || status == QLatin1String("failed");
}

} // namespace rw
