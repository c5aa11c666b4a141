#pragma once

#include "core/streams/replay.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QSpinBox;

namespace rw {

// Confirms a replay after its dry run: what the group would consume from
// which offsets, and how much of it would be inserted, skipped as
// duplicates or dead-lettered. Sets the batch size and an optional cap.
// Confirming emits confirmed(); the page runs the replay.
class ReplayDialog : public QDialog {
    Q_OBJECT
public:
    ReplayDialog(const ReplayResult &dryRun, const QString &sink, QWidget *parent = nullptr);

    // 0: no cap.
    qint64 maxEvents() const;
    qint64 batchSize() const;
    void setMaxEvents(qint64 n);
    void setBatchSize(qint64 n);
    QString summaryText() const;
    QPushButton *replayButton() const { return m_replay; }
    void confirm();

Q_SIGNALS:
    void confirmed(qint64 maxEvents, qint64 batchSize);

private:
    QLabel *m_summary;
    QSpinBox *m_max;
    QSpinBox *m_batch;
    QPushButton *m_replay;
};

} // namespace rw
