#include "ui/common/style.h"

#include <QApplication>
#include <QChart>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QPalette>
#include <QSplitter>
#include <QStyleFactory>
#include <QTableView>
#include <QVBoxLayout>

namespace rw::style {

bool dark() {
    return QGuiApplication::palette().color(QPalette::Window).lightness() < 128;
}

namespace {

struct Shades {
    const char *light;
    const char *dark;
};

Shades shades(Colour c) {
    switch (c) {
    case Colour::Text:
        return {"#1d1f23", "#e6e8eb"};
    case Colour::Muted:
        return {"#5f6670", "#a3aab4"};
    case Colour::Subtitle:
        return {"#4a5059", "#b5bbc4"};
    case Colour::Strong:
        return {"#2f3640", "#eef0f3"};
    case Colour::Faint:
        return {"#9a9ea6", "#727882"};
    case Colour::Error:
        return {"#c01c1c", "#ff7b72"};
    case Colour::Ok:
        return {"#2b7530", "#6fd47a"};
    case Colour::Warning:
        return {"#b34a00", "#f0a050"};
    case Colour::Accent:
        return {"#2962c2", "#6ea8ff"};
    case Colour::Special:
        return {"#7a3fc0", "#c09af0"};
    case Colour::Panel:
        return {"#f6f7f9", "#2a2d32"};
    case Colour::Border:
        return {"#dfe2e7", "#464b53"};
    case Colour::Grid:
        return {"#eceef1", "#383c43"};
    case Colour::Selection:
        return {"#dde8f8", "#2c4466"};
    case Colour::ErrorTint:
        return {"#fde6e6", "#4a2323"};
    case Colour::ErrorMark:
        return {"#f6c4c4", "#7a2e2e"};
    case Colour::ErrorBorder:
        return {"#d03232", "#e06060"};
    case Colour::WarningTint:
        return {"#fff6de", "#43391f"};
    case Colour::WarningBorder:
        return {"#e6c35c", "#9c7a2a"};
    case Colour::InfoTint:
        return {"#f0f5fd", "#1f2b3d"};
    case Colour::InfoBorder:
        return {"#c9d9f2", "#3a5680"};
    case Colour::NoteTint:
        return {"#fbf7ef", "#332e25"};
    case Colour::NoteBorder:
        return {"#eadcc0", "#6b5d40"};
    case Colour::Inserted:
        return {"#2e9a4b", "#4cc26b"};
    case Colour::Updated:
        return {"#2f6fd0", "#5b9bf0"};
    case Colour::Deleted:
        return {"#d03232", "#ef5f5f"};
    case Colour::Unchanged:
        return {"#c4c9d1", "#5d636c"};
    case Colour::Moved:
        return {"#e89a10", "#f0b040"};
    case Colour::InsertedTint:
        return {"#d8f3dc", "#1f3d27"};
    case Colour::DeletedTint:
        return {"#fde2e2", "#4a2323"};
    case Colour::InsertedText:
        return {"#1b5e20", "#8ee69a"};
    case Colour::DeletedText:
        return {"#b71c1c", "#ff9a92"};
    case Colour::JsonString:
        return {"#1f7a3a", "#7fd68f"};
    case Colour::JsonNumber:
        return {"#1f5fbf", "#7fb2ff"};
    case Colour::StatusUnloaded:
        return {"#8a8f98", "#8d939c"};
    case Colour::StatusLoaded:
        return {"#2f6fd0", "#5b9bf0"};
    case Colour::StatusProvisional:
        return {"#d99a06", "#e8b230"};
    case Colour::StatusFinal:
        return {"#2e9a4b", "#4cc26b"};
    case Colour::StatusStale:
        return {"#e86a10", "#f08a40"};
    case Colour::StatusSchemaBehind:
        return {"#0f8a8a", "#3cc0c0"};
    case Colour::StatusFailed:
        return {"#d03232", "#ef5f5f"};
    case Colour::StatusUnknown:
        return {"#606060", "#9a9a9a"};
    case Colour::Percentile90:
        return {"#7a3fc0", "#b58af0"};
    case Colour::Percentile99:
        return {"#e89a10", "#f0b040"};
    case Colour::Percentile999:
        return {"#c03a8a", "#e874b8"};
    case Colour::Watermark:
        return {"#d03232", "#ef5f5f"};
    case Colour::LogEnd:
        return {"#a8b0bb", "#6b727c"};
    case Colour::Lag:
        return {"#e07b10", "#f09a40"};
    case Colour::HeatCold:
        return {"#f2f6f0", "#2b302a"};
    case Colour::HeatWarm:
        return {"#f0a030", "#c07820"};
    case Colour::HeatHot:
        return {"#b01212", "#ff5a4a"};
    }
    return {"#000000", "#ffffff"};
}

} // namespace

void usePalette(bool darkPalette) {
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    const auto set = [&p](QPalette::ColorRole role, const char *light, const char *dark,
                          bool isDark) {
        p.setColor(role, QColor(QLatin1String(isDark ? dark : light)));
    };
    const bool d = darkPalette;
    set(QPalette::Window, "#eff0f2", "#23262b", d);
    set(QPalette::WindowText, "#1d1f23", "#e6e8eb", d);
    set(QPalette::Base, "#ffffff", "#1b1d21", d);
    set(QPalette::AlternateBase, "#f6f7f9", "#23262b", d);
    set(QPalette::ToolTipBase, "#ffffe6", "#2f3338", d);
    set(QPalette::ToolTipText, "#1d1f23", "#e6e8eb", d);
    set(QPalette::PlaceholderText, "#8a8f98", "#7c828b", d);
    set(QPalette::Text, "#1d1f23", "#e6e8eb", d);
    set(QPalette::Button, "#e9eaed", "#2f3338", d);
    set(QPalette::ButtonText, "#1d1f23", "#e6e8eb", d);
    set(QPalette::BrightText, "#c01c1c", "#ff7b72", d);
    set(QPalette::Light, "#ffffff", "#3a3e45", d);
    set(QPalette::Midlight, "#e3e5e8", "#33373d", d);
    set(QPalette::Mid, "#b8bcc3", "#4a4f57", d);
    set(QPalette::Dark, "#8a8f98", "#15171a", d);
    set(QPalette::Shadow, "#5f6670", "#000000", d);
    set(QPalette::Highlight, "#2f6fd0", "#3d6fb8", d);
    set(QPalette::HighlightedText, "#ffffff", "#ffffff", d);
    set(QPalette::Link, "#2f6fd0", "#6ea8ff", d);
    set(QPalette::LinkVisited, "#7a3fc0", "#c09af0", d);
    for (const QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(QLatin1String(d ? "#6b717a" : "#9a9ea6")));
    QApplication::setPalette(p);
}

QString colour(Colour c) {
    const Shades s = shades(c);
    return QString::fromLatin1(dark() ? s.dark : s.light);
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

QString themed(QString html) {
    static const std::pair<const char *, Colour> roles[] = {{"{error}", Colour::Error},
                                                            {"{ok}", Colour::Ok},
                                                            {"{warning}", Colour::Warning},
                                                            {"{muted}", Colour::Muted},
                                                            {"{accent}", Colour::Accent}};
    for (const auto &[token, role] : roles)
        html.replace(QLatin1String(token), colour(role));
    return html;
}

QString panelStyleSheet(const QString &objectName, Colour background, Colour border, int radius) {
    return QStringLiteral("#%1 { background: %2; border: 1px solid %3; border-radius: %4px; }")
        .arg(objectName, colour(background), colour(border), QString::number(radius));
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

void themeChart(QChart *chart) {
    chart->setTheme(dark() ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    if (dark())
        chart->setBackgroundBrush(QGuiApplication::palette().color(QPalette::Base));
}

QChart *newChart(Qt::Alignment legend) {
    auto *chart = new QChart;
    themeChart(chart);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    if (!legend) {
        chart->legend()->hide();
        return chart;
    }
    chart->legend()->setAlignment(legend);
    QFont small = chart->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    chart->legend()->setFont(small);
    return chart;
}

QSplitter *splitter(Qt::Orientation orientation,
                    std::initializer_list<std::pair<QWidget *, int>> parts, QWidget *parent) {
    auto *split = new QSplitter(orientation, parent);
    for (const auto &[widget, stretch] : parts) {
        split->addWidget(widget);
        split->setStretchFactor(split->count() - 1, stretch);
    }
    split->setChildrenCollapsible(false);
    return split;
}

QWidget *titledPane(const QString &title, QWidget *content, QWidget *parent) {
    auto *pane = new QWidget(parent);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(sectionLabel(title, pane));
    layout->addWidget(content, 1);
    return pane;
}

QVBoxLayout *pageLayout(QWidget *page) {
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(16, 12, 16, 12);
    layout->setSpacing(8);
    return layout;
}

} // namespace rw::style
