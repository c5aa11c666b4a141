#pragma once

#include <QWidget>

class QCheckBox;
class QFrame;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace rw {

// The DLQ page's actions under its records: apply to all matching, validate,
// replay with batch size and velocity, discard with a reason; the replay's
// progress with Cancel; the set-by-path dry run waiting for Apply; and the
// last operation's outcome. Widgets only: the page wires them and runs the
// operations. GUI thread only.
class DlqActionBar : public QWidget {
    Q_OBJECT
public:
    explicit DlqActionBar(QWidget *parent = nullptr);

    QCheckBox *allMatching() const { return m_allMatching; }
    QPushButton *validateButton() const { return m_validate; }
    QSpinBox *batchSize() const { return m_batchSize; }
    QSpinBox *velocity() const { return m_velocity; }
    QPushButton *replayButton() const { return m_replay; }
    QPushButton *replayToTopicButton() const { return m_replayToTopic; }
    QLineEdit *reason() const { return m_reason; }
    QPushButton *discardButton() const { return m_discard; }
    QFrame *progressFrame() const { return m_progressFrame; }
    QProgressBar *progress() const { return m_progress; }
    QLabel *progressText() const { return m_progressText; }
    QPushButton *cancelButton() const { return m_cancel; }
    QFrame *pendingBar() const { return m_pendingBar; }
    QLabel *pendingText() const { return m_pendingText; }
    QPushButton *applySetButton() const { return m_applySet; }
    QPushButton *dropSetButton() const { return m_dropSet; }
    QLabel *result() const { return m_result; }

private:
    QCheckBox *m_allMatching;
    QPushButton *m_validate;
    QSpinBox *m_batchSize;
    QSpinBox *m_velocity;
    QPushButton *m_replay;
    QPushButton *m_replayToTopic;
    QLineEdit *m_reason;
    QPushButton *m_discard;
    QFrame *m_progressFrame;
    QProgressBar *m_progress;
    QLabel *m_progressText;
    QPushButton *m_cancel;
    QFrame *m_pendingBar;
    QLabel *m_pendingText;
    QPushButton *m_applySet;
    QPushButton *m_dropSet;
    QLabel *m_result;
};

} // namespace rw
