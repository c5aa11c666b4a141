#pragma once

#include <QFrame>

class QLabel;
class QProgressBar;
class QPushButton;

namespace rw {

struct LiveRun;

// One run in progress: partitions done of total, the current partition's
// step, rows per second, ETA and a Cancel button.
class LiveRunWidget : public QFrame {
    Q_OBJECT
public:
    explicit LiveRunWidget(int liveRunId, QWidget *parent = nullptr);

    int liveRunId() const { return m_id; }
    void update(const LiveRun &run);
    QProgressBar *overallBar() const { return m_overall; }
    QPushButton *cancelButton() const { return m_cancel; }
    QString detailText() const;

Q_SIGNALS:
    void cancelRequested(int liveRunId);

private:
    int m_id;
    QLabel *m_title;
    QLabel *m_detail;
    QProgressBar *m_overall;
    QProgressBar *m_partition;
    QPushButton *m_cancel;
};

} // namespace rw
