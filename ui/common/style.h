#pragma once

#include <QColor>
#include <QString>
#include <Qt>
#include <initializer_list>
#include <utility>

class QChart;
class QLabel;
class QSplitter;
class QTableView;
class QVBoxLayout;
class QWidget;

// The console's palette and the widgets its pages build the same way: one
// place to change how the console looks. Partition statuses have their own
// colours in StatusStyle. GUI thread only.
namespace rw::style {

// The palette, by role, as CSS colours for style sheets and rich text. Each
// role has a light and a dark value, chosen by the application palette's
// window colour (dark()), so that text stays legible on either: no colour
// literal lives anywhere else in ui/.
enum class Colour {
    // Text
    Text,     // body text where a widget sets its own background (banners)
    Muted,    // captions, notes, the body of an empty state
    Subtitle, // a page's line under its title
    Strong,   // emphasised plain text
    Faint,    // zeros and blanks that recede
    // Meaning
    Error,   // errors, failures and destructive amounts
    Ok,      // success, passed gates
    Warning, // lag, late events, skipped offsets
    Accent,  // the console's blue: offsets read again, a neutral action
    Special, // the DLQ's fixed records, JSON keys
    // Surfaces: a tint behind text and the border around it
    Panel,         // a tile, a read-only payload, a step list
    Border,        // table frames, panel borders
    Grid,          // table grid lines
    Selection,     // a selected or hovered item drawn by hand
    ErrorTint,     // the background of a cell, field or banner that failed
    ErrorMark,     // the exact span of an error inside an ErrorTint line
    ErrorBorder,   // the border of an error banner or field
    WarningTint,   // a pending change, a warning banner
    WarningBorder, //
    InfoTint,      // progress panels, an information banner
    InfoBorder,    //
    NoteTint,      // the what-if box
    NoteBorder,    //
    // Row diffs (preview samples and the diff chart)
    Inserted,
    Updated,
    Deleted,
    Unchanged,
    Moved,        // the fifth series of the diff chart: rows that change partition
    InsertedTint, // an after cell that changed
    DeletedTint,  // a before cell that changed
    InsertedText,
    DeletedText,
    // JSON syntax (keys are Special, punctuation Muted)
    JsonString,
    JsonNumber,
    // Partition statuses (StatusStyle)
    StatusUnloaded,
    StatusLoaded,
    StatusProvisional,
    StatusFinal,
    StatusStale,
    StatusSchemaBehind,
    StatusFailed,
    StatusUnknown,
    // Charts
    Percentile90,
    Percentile99,
    Percentile999,
    Watermark,
    LogEnd,
    Lag,
    HeatCold, // the lateness strip: no late events, some, the worst partition
    HeatWarm,
    HeatHot,
};
// True when the application palette is dark (its window colour).
bool dark();
// The Fusion style with a light or dark palette of the console's own (rewind
// --palette): the same console whatever the desktop's theme. Before any
// window is made.
void usePalette(bool dark);
QString colour(Colour c);
QColor qcolor(Colour c);
// "color: #...;" for a label's style sheet.
QString textColour(Colour c);
// `html` in a colour: <span style=...>, or <b style=...> when `bold`.
QString coloured(const QString &html, Colour c, bool bold = false);
// Rich text with colour roles named in braces ({error}, {ok}, {warning},
// {muted}, {accent}) replaced by their colours: for translated strings that
// colour a word. Apply before .arg(), so that no value passed in is touched.
QString themed(QString html);
// "#NAME { background: ...; border: 1px solid ...; border-radius: Rpx; }":
// a tinted panel's style sheet.
QString panelStyleSheet(const QString &objectName, Colour background, Colour border,
                        int radius = 4);

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
// A chart's theme for the palette: Qt Charts' light theme, or its dark one
// under a dark palette. Call on a new chart, before its series are added;
// the series' own colours (set by role) are kept.
void themeChart(QChart *chart);
// A new chart, themed (themeChart), with no animation, narrow margins, square
// corners and its legend in a smaller font at `legend` (none: hidden). Its
// owner is the chart view it is set on.
QChart *newChart(Qt::Alignment legend = Qt::AlignBottom);
// A splitter of `parts`, each a widget and its stretch factor, none of which
// can be collapsed away.
QSplitter *splitter(Qt::Orientation orientation,
                    std::initializer_list<std::pair<QWidget *, int>> parts, QWidget *parent);
// A pane: a section label (sectionLabel) above `content`, which takes the rest.
QWidget *titledPane(const QString &title, QWidget *content, QWidget *parent);
// A page's outer layout, with the margins and spacing every page uses.
QVBoxLayout *pageLayout(QWidget *page);

} // namespace rw::style
