#include "ui/lateness/latenessstrip.h"

#include "ui/common/format.h"
#include "ui/common/statusstyle.h"
#include "ui/common/style.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

namespace rw {

namespace {

constexpr int kLeft = 8, kRight = 8, kTop = 4, kCell = 30, kTick = 5, kLabels = 18;

} // namespace

LatenessStrip::LatenessStrip(QWidget *parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("latenessStrip"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize LatenessStrip::sizeHint() const {
    return {600, kTop + kCell + 2 + kTick + kLabels};
}
QSize LatenessStrip::minimumSizeHint() const {
    return {200, sizeHint().height()};
}

void LatenessStrip::setRows(const std::vector<LagPartitionRow> &rows) {
    m_rows = rows;
    update();
}

void LatenessStrip::setWhatIf(int index, qint64 seconds) {
    m_whatIf = index;
    m_seconds = seconds;
    update();
}

double LatenessStrip::lateShare(int i) const {
    if (i < 0 || i >= cellCount() || m_whatIf < 0)
        return 0;
    const PartitionLateness &l = m_rows[std::size_t(i)].lateness;
    if (l.count <= 0 || std::size_t(m_whatIf) >= l.whatIfLate.size())
        return 0;
    return double(l.whatIfLate[std::size_t(m_whatIf)]) / double(l.count);
}

double LatenessStrip::scaleTop() const {
    double top = 0;
    for (int i = 0; i < cellCount(); ++i)
        top = std::max(top, lateShare(i));
    return top;
}

QColor LatenessStrip::heat(double share, double top) {
    // Relative to the worst partition, so differences show at any slider value.
    const double t = top > 0 ? std::clamp(share / top, 0.0, 1.0) : 0.0;
    const QColor cold = style::qcolor(style::Colour::HeatCold),
                 warm = style::qcolor(style::Colour::HeatWarm),
                 hot = style::qcolor(style::Colour::HeatHot);
    const auto mix = [](const QColor &a, const QColor &b, double u) {
        return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * u),
                                float(a.greenF() + (b.greenF() - a.greenF()) * u),
                                float(a.blueF() + (b.blueF() - a.blueF()) * u));
    };
    if (share <= 0)
        return cold;
    return t < 0.5 ? mix(cold, warm, 0.1 + t * 1.8) : mix(warm, hot, (t - 0.5) * 2.0);
}

QRectF LatenessStrip::cellRect(int i) const {
    const double w = double(width() - kLeft - kRight) / std::max(1, cellCount());
    return {kLeft + i * w, double(kTop), w, double(kCell)};
}

int LatenessStrip::cellAt(const QPoint &pos) const {
    for (int i = 0; i < cellCount(); ++i) {
        const QRectF r = cellRect(i);
        if (pos.x() >= r.left() && pos.x() < r.right() && pos.y() >= 0 &&
            pos.y() < kTop + kCell + kTick + 2)
            return i;
    }
    return -1;
}

void LatenessStrip::paintEvent(QPaintEvent *) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    if (m_rows.empty()) {
        p.setPen(palette().color(QPalette::Disabled, QPalette::Text));
        p.drawText(rect(), Qt::AlignCenter, tr("No partitions"));
        return;
    }
    const int n = cellCount();
    const QFontMetrics fm(font());
    const double top = scaleTop();
    for (int i = 0; i < n; ++i) {
        const QRectF r = cellRect(i);
        p.fillRect(r.adjusted(0, 0, -1, 0), heat(lateShare(i), top));
        const QRectF tick(r.left(), r.bottom() + 2, r.width() - 1, kTick);
        p.fillRect(tick, StatusStyle::color(m_rows[std::size_t(i)].status));
    }
    p.setPen(style::qcolor(style::Colour::Border));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(kLeft, kTop, width() - kLeft - kRight - 1, kCell));
    // Partition labels: as many as fit, evenly spaced, first and last always.
    p.setPen(palette().color(QPalette::Disabled, QPalette::Text));
    const double cellWidth = cellRect(0).width();
    const int labelWidth = fm.horizontalAdvance(partitionLabel(m_rows.front().partition)) + 12;
    const int every = std::max(1, int(std::ceil(labelWidth / std::max(1.0, cellWidth))));
    const double y = kTop + kCell + 2 + kTick;
    // The last label ends at the strip's right edge; others stop short of it.
    const double lastLeft = cellRect(n - 1).right() - labelWidth;
    for (int i = 0; i < (n > 1 ? n - 1 : n); i += every) {
        const QRectF r = cellRect(i);
        if (i != 0 && n > 1 && r.left() + labelWidth > lastLeft)
            break; // leave room for the last label
        p.drawText(QRectF(r.left(), y, labelWidth, kLabels), Qt::AlignLeft | Qt::AlignVCenter,
                   partitionLabel(m_rows[std::size_t(i)].partition));
    }
    if (n > 1) {
        const QRectF r = cellRect(n - 1);
        p.drawText(QRectF(r.right() - labelWidth, y, labelWidth, kLabels),
                   Qt::AlignRight | Qt::AlignVCenter, partitionLabel(m_rows.back().partition));
    }
}

bool LatenessStrip::event(QEvent *event) {
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int i = cellAt(help->pos());
        if (i < 0) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        const LagPartitionRow &r = m_rows[std::size_t(i)];
        const PartitionLateness &l = r.lateness;
        const auto ms = [](const std::optional<qint64> &v) {
            return v ? latenessText(*v) : QStringLiteral("\u2014");
        };
        QString text =
            tr("<b>%1</b> \u00b7 %2<br>%3 events \u00b7 p50 %4 \u00b7 p99 %5 \u00b7 max %6")
                .arg(partitionLabel(r.partition).toHtmlEscaped(), enumName(r.status),
                     fmt::number(l.count), ms(l.percentiles.p50), ms(l.percentiles.p99),
                     ms(l.percentiles.max));
        if (m_whatIf >= 0 && std::size_t(m_whatIf) < l.whatIfLate.size())
            text +=
                tr("<br>later than %1: %2 (%3)")
                    .arg(durationLabel(m_seconds), fmt::number(l.whatIfLate[std::size_t(m_whatIf)]),
                         percentText(lateShare(i)));
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void LatenessStrip::mouseReleaseEvent(QMouseEvent *event) {
    const int i = cellAt(event->position().toPoint());
    if (i >= 0)
        Q_EMIT partitionClicked(i);
}

} // namespace rw
