#pragma once

#include <QColor>
#include <QString>

class QLabel;
class QTableView;
class QVBoxLayout;
class QWidget;

// The console's palette and the widgets its pages build the same way: one
// place to change how the console looks. Partition statuses have their own
// colours in StatusStyle. GUI thread only.
namespace rw::style {

// The palette, as CSS colours for style sheets and rich text.
enum class Colour {
    Muted,     // captions, notes, the body of an empty state
    Subtitle,  // a page's line under its title
    Strong,    // emphasised plain text
    Error,     // errors, failures and destructive amounts
    ErrorTint, // the background of a cell that failed
    Ok,        // success, passed gates
    Warning,   // lag, late events, skipped offsets
    Accent,    // the console's blue: offsets read again, a neutral action
    Faint,     // zeros and blanks that recede
    Border,    // table frames
    Grid,      // table grid lines
};
QString colour(Colour c);
QColor qcolor(Colour c);
// "color: #...;" for a label's style sheet.
QString textColour(Colour c);
// `html` in a colour: <span style=...>, or <b style=...> when `bold`.
QString coloured(const QString &html, Colour c, bool bold = false);

// An empty state's rich text: a heading and a muted paragraph.
QString emptyState(const QString &heading, const QString &body, int level = 3);

// Bold and `scale` times the font size: a page's title (1.6), a heading.
QLabel *pageTitle(const QString &text, QWidget *parent);
void makeTitle(QLabel *label, qreal scale = 1.6);
// The grey line under a page's title; selectable.
void makeSubtitle(QLabel *label);
// A word-wrapped, selectable rich-text label (a wizard's explanations).
QLabel *richLabel(QWidget *parent, const QString &objectName = QString());
// A bold label above a section of a page.
QLabel *sectionLabel(const QString &text, QWidget *parent);
// The light frame and grid of a data table.
QString tableStyleSheet();
// A data table: row selection, alternating rows, no row numbers or word
// wrap, rows `rowPadding` pixels taller than the text, the last column
// stretched, the light frame and grid; header sections light up with the
// selection only when `highlightHeader`.
void setupTable(QTableView *view, int rowPadding = 8, bool highlightHeader = false);
// Fits the first `columns - 1` columns to their contents plus `padding`
// pixels; the last one stretches.
void fitColumns(QTableView *view, int columns, int padding = 24);
// A page's outer layout, with the margins and spacing every page uses.
QVBoxLayout *pageLayout(QWidget *page);

} // namespace rw::style
