#include "core/sql/badvalue.h"

#include <QStringBuilder>
#include <QStringList>

namespace rw {

QString valuesFit(const SqlDialect &dialect, const std::vector<FieldValue> &fields) {
    QStringList terms;
    for (const FieldValue &f : fields)
        if (QString fits = dialect.valueFitsType(f.value, f.type, f.strict); !fits.isEmpty())
            terms << fits;
    return terms.isEmpty() ? QStringLiteral("(1 = 1)")
                           : QString(u'(' % terms.join(QStringLiteral(" AND ")) % u')');
}

QString badValueMessage(const SqlDialect &dialect, const std::vector<FieldValue> &fields,
                        QVariantList &binds) {
    // The parts are concatenated, each ending in '"; '; rtrim strips the
    // characters ';' and ' ' from the end, which drops the last separator
    // and stops at its quote. (SQLite 3.40 has no concat_ws to join them.)
    QString message = QStringLiteral("rtrim(''");
    for (const FieldValue &f : fields) {
        const QString fits = dialect.valueFitsType(f.value, f.type, f.strict);
        if (fits.isEmpty())
            continue;
        const QString text = QStringLiteral("CAST(") % f.value % QStringLiteral(" AS TEXT)");
        message += QStringLiteral(" || CASE WHEN NOT ") % fits %
                   QStringLiteral(" THEN ? || substr(") % text % QStringLiteral(", 1, ") %
                   QString::number(kBadValueShown) % QStringLiteral(") || CASE WHEN length(") %
                   text % QStringLiteral(") > ") % QString::number(kBadValueShown) %
                   QStringLiteral(" THEN '...\"; ' ELSE '\"; ' END ELSE '' END");
        binds << QString(QStringLiteral("field ") % f.field % QStringLiteral(" (") % f.path %
                         QStringLiteral(") is not a valid ") % f.type % QStringLiteral(": \""));
    }
    return message % QStringLiteral(", '; ')");
}

} // namespace rw
