#include "ui/common/style.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace rw::style {

QString colour(Colour c) {
    switch (c) {
    case Colour::Muted:
        return QStringLiteral("#5f6670");
    case Colour::Subtitle:
        return QStringLiteral("#4a5059");
    case Colour::Strong:
        return QStringLiteral("#2f3640");
    case Colour::Error:
        return QStringLiteral("#c01c1c");
    case Colour::ErrorTint:
        return QStringLiteral("#fde6e6");
    case Colour::Ok:
        return QStringLiteral("#2e7d32");
    case Colour::Warning:
        return QStringLiteral("#b34a00");
    case Colour::Accent:
        return QStringLiteral("#2f6fd0");
    case Colour::Faint:
        return QStringLiteral("#9a9ea6");
    case Colour::Border:
        return QStringLiteral("#dfe2e7");
    case Colour::Grid:
        return QStringLiteral("#eceef1");
    }
    return QString();
}

QColor qcolor(Colour c) {
    return QColor(colour(c));
}

QString textColour(Colour c) {
    return QStringLiteral("color: %1;").arg(colour(c));
}

QString coloured(const QString &html, Colour c, bool bold) {
    return bold ? QStringLiteral("<b style='color:%1'>%2</b>").arg(colour(c), html)
                : QStringLiteral("<span style='color:%1'>%2</span>").arg(colour(c), html);
}

QString emptyState(const QString &heading, const QString &body, int level) {
    return QStringLiteral("<h%1>%2</h%1><p style='color:%3'>%4</p>")
        .arg(QString::number(level), heading, colour(Colour::Muted), body);
}

QLabel *pageTitle(const QString &text, QWidget *parent) {
    auto *label = new QLabel(text, parent);
    makeTitle(label);
    return label;
}

void makeTitle(QLabel *label, qreal scale) {
    QFont f = label->font();
    f.setPointSizeF(f.pointSizeF() * scale);
    f.setBold(true);
    label->setFont(f);
}

void makeSubtitle(QLabel *label) {
    label->setStyleSheet(textColour(Colour::Subtitle));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

QLabel *richLabel(QWidget *parent, const QString &objectName) {
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (!objectName.isEmpty())
        label->setObjectName(objectName);
    return label;
}

QLabel *sectionLabel(const QString &text, QWidget *parent) {
    auto *label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    label->setFont(f);
    return label;
}

QString tableStyleSheet() {
    return QStringLiteral("QTableView { border: 1px solid %1; gridline-color: %2; }")
        .arg(colour(Colour::Border), colour(Colour::Grid));
}

void setupTable(QTableView *view, int rowPadding, bool highlightHeader) {
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + rowPadding);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setHighlightSections(highlightHeader);
    view->setStyleSheet(tableStyleSheet());
}

void fitColumns(QTableView *view, int columns, int padding) {
    view->resizeColumnsToContents();
    for (int c = 0; c < columns - 1; ++c)
        view->setColumnWidth(c, view->columnWidth(c) + padding);
}

QVBoxLayout *pageLayout(QWidget *page) {
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(16, 12, 16, 12);
    layout->setSpacing(8);
    return layout;
}

} // namespace rw::style
