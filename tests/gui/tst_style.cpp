// The console's colours by role (ui/common/style): under the light and the
// dark palette of `rewind --palette`, every colour text is drawn in stays
// legible (WCAG AA, a contrast of 4.5:1) on the backgrounds it is drawn on.
#include "ui/common/statusstyle.h"
#include "ui/common/style.h"

#include <QApplication>
#include <QPalette>
#include <QTest>
#include <cmath>

using namespace rw;
using style::Colour;

namespace {

double luminance(const QColor &c) {
    const auto channel = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QString describe(const char *fg, const QColor &f, const char *bg, const QColor &b) {
    return QStringLiteral("%1 %2 on %3 %4: %5")
        .arg(QLatin1String(fg), f.name(), QLatin1String(bg), b.name())
        .arg(contrast(f, b), 0, 'f', 2);
}

} // namespace

class TestStyle : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { style::usePalette(false); }
    void cleanupTestCase() { style::usePalette(false); }

    void legible_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    // Text roles on the palette's window and view backgrounds.
    void legible() {
        QFETCH(bool, dark);
        style::usePalette(dark);
        QCOMPARE(style::dark(), dark);
        const QPalette p = QApplication::palette();
        const struct {
            const char *name;
            Colour role;
        } text[] = {{"Text", Colour::Text},
                    {"Muted", Colour::Muted},
                    {"Subtitle", Colour::Subtitle},
                    {"Strong", Colour::Strong},
                    {"Error", Colour::Error},
                    {"Ok", Colour::Ok},
                    {"Warning", Colour::Warning},
                    {"Accent", Colour::Accent},
                    {"Special", Colour::Special},
                    {"JsonString", Colour::JsonString},
                    {"JsonNumber", Colour::JsonNumber}};
        for (const auto &t : text)
            for (const auto &[name, bg] : {std::pair{"Base", p.color(QPalette::Base)},
                                           std::pair{"Window", p.color(QPalette::Window)}}) {
                const QColor fg = style::qcolor(t.role);
                QVERIFY2(contrast(fg, bg) >= 4.5, qPrintable(describe(t.name, fg, name, bg)));
            }
    }

    // Text on the tinted panels, banners and cells that set their own background.
    void legibleOnTints() {
        QFETCH(bool, dark);
        style::usePalette(dark);
        const struct {
            const char *fgName;
            Colour fg;
            const char *bgName;
            Colour bg;
        } pairs[] = {{"Text", Colour::Text, "ErrorTint", Colour::ErrorTint},
                     {"Text", Colour::Text, "WarningTint", Colour::WarningTint},
                     {"Text", Colour::Text, "InfoTint", Colour::InfoTint},
                     {"Text", Colour::Text, "NoteTint", Colour::NoteTint},
                     {"Text", Colour::Text, "Panel", Colour::Panel},
                     {"Text", Colour::Text, "Selection", Colour::Selection},
                     {"Muted", Colour::Muted, "Panel", Colour::Panel},
                     {"Subtitle", Colour::Subtitle, "InfoTint", Colour::InfoTint},
                     {"Error", Colour::Error, "ErrorTint", Colour::ErrorTint},
                     {"InsertedText", Colour::InsertedText, "InsertedTint", Colour::InsertedTint},
                     {"DeletedText", Colour::DeletedText, "DeletedTint", Colour::DeletedTint}};
        for (const auto &c : pairs) {
            const QColor fg = style::qcolor(c.fg), bg = style::qcolor(c.bg);
            QVERIFY2(contrast(fg, bg) >= 4.5, qPrintable(describe(c.fgName, fg, c.bgName, bg)));
        }
        // A partition's row is tinted by its status and written in the palette's text.
        const QColor text = QApplication::palette().color(QPalette::Text);
        for (const PartitionStatus s : StatusStyle::statuses()) {
            const QColor tint = StatusStyle::tint(s);
            QVERIFY2(contrast(text, tint) >= 4.5,
                     qPrintable(describe(enumName(s).toUtf8().constData(), text, "tint", tint)));
            QVERIFY(StatusStyle::color(s) != tint);
        }
    }
    void legibleOnTints_data() { legible_data(); }

    // The palette is what tells light from dark, not the option alone.
    void rolesFollowThePalette() {
        style::usePalette(false);
        const QString light = style::colour(Colour::Text);
        style::usePalette(true);
        QVERIFY(style::colour(Colour::Text) != light);
        QVERIFY(luminance(style::qcolor(Colour::Text)) >
                luminance(QApplication::palette().color(QPalette::Base)));
    }

    // Roles named in braces in translated rich text become their colours.
    void themedText() {
        const QString html = style::themed(QStringLiteral("<b style='color:{error}'>%1</b>"))
                                 .arg(QStringLiteral("{ok}"));
        QCOMPARE(html,
                 QStringLiteral("<b style='color:%1'>{ok}</b>").arg(style::colour(Colour::Error)));
    }
};

QTEST_MAIN(TestStyle)
#include "tst_style.moc"
