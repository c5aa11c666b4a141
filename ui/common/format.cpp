#include "ui/common/format.h"

#include <QDateTime>
#include <QLocale>

namespace rw::fmt {

QString number(qint64 n) {
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale.toString(n);
}

QString duration(double seconds) {
    if (seconds < 0)
        return QStringLiteral("\u2014");
    if (seconds < 10)
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
    const qint64 s = qint64(seconds + 0.5);
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString timestamp(const QString &iso) {
    QString t = iso;
    t.replace(u'T', u' ');
    if (t.endsWith(u'Z'))
        t.chop(1);
    if (const qsizetype dot = t.indexOf(u'.'); dot > 0)
        t.truncate(dot);
    return t;
}

double secondsBetween(const QString &fromIso, const QString &toIso) {
    if (fromIso.isEmpty() || toIso.isEmpty())
        return -1;
    QDateTime a = QDateTime::fromString(fromIso, Qt::ISODateWithMs);
    QDateTime b = QDateTime::fromString(toIso, Qt::ISODateWithMs);
    if (!a.isValid())
        a = QDateTime::fromString(fromIso, Qt::ISODate);
    if (!b.isValid())
        b = QDateTime::fromString(toIso, Qt::ISODate);
    if (!a.isValid() || !b.isValid())
        return -1;
    return a.msecsTo(b) / 1000.0;
}

} // namespace rw::fmt
