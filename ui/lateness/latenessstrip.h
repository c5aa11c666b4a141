#pragma once

#include "ui/lateness/latenesssnapshot.h"

#include <QWidget>
#include <vector>

namespace rw {

// A heat strip: one cell per partition, its colour the share of the
// partition's events later than the slider's allowed lateness (pale: none,
// deep red: the worst partition's share); under each cell a tick in the partition's status colour.
// Hovering shows the figures; clicking emits partitionClicked.
class LatenessStrip : public QWidget {
    Q_OBJECT
public:
    explicit LatenessStrip(QWidget *parent = nullptr);

    void setRows(const std::vector<LagPartitionRow> &rows);
    void setWhatIf(int index, qint64 seconds);
    // The share of events later than the slider's value in cell `i`.
    double lateShare(int i) const;
    int cellCount() const { return int(m_rows.size()); }
    // The cell under a point, -1 for none.
    int cellAt(const QPoint &pos) const;
    // The colour of `share` on a scale whose darkest is `top` (the worst
    // partition's share at the slider's value).
    static QColor heat(double share, double top);
    double scaleTop() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void partitionClicked(int row);

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    QRectF cellRect(int i) const;

    std::vector<LagPartitionRow> m_rows;
    int m_whatIf = -1;
    qint64 m_seconds = 0;
};

} // namespace rw
