#pragma once

#include "core/batch/batch.h"

#include <QDialog>
#include <QPointer>
#include <functional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace rw {

// Confirms a locked plan before anything is written. Shows the plan
// (dataset, scope, mode, counts, gates) and says nothing is written until
// the operator confirms. A destructive plan (deletes, overwrite mode) is
// confirmed only by typing the dataset name.
//
// The dialog does not run anything: confirming emits confirmed() and waits
// for its owner to call runStarted() (closes it), showStale() (the source
// changed: offers "Preview again") or showError().
class LaunchDialog : public QDialog {
    Q_OBJECT
public:
    LaunchDialog(const RunResult &plan, QWidget *parent = nullptr);

    static bool isDestructive(const RunResult &plan);
    bool destructive() const { return m_destructive; }
    bool canConfirm() const;

    QLineEdit *confirmEdit() const { return m_confirm; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *previewAgainButton() const { return m_previewAgain; }
    QString summaryText() const;
    QString stateText() const;

    // Re-labels the dialog for another purpose than a plain re-run (finalize,
    // backfill): its heading, a note above the plan, and the Run button; the
    // plan is then confirmed only by typing the dataset name, whatever it does.
    void setPurpose(const QString &heading, const QString &note, const QString &runLabel);

    void runStarted();
    void showStale(const QString &message);
    void showError(const QString &message);

Q_SIGNALS:
    void confirmed();
    void previewAgainRequested();

private:
    void updateButtons();

    QString m_dataset;
    bool m_destructive = false;
    bool m_waiting = false;
    bool m_stale = false;
    QLabel *m_summary;
    QLabel *m_confirmLabel = nullptr;
    QLabel *m_state;
    QLineEdit *m_confirm;
    QPushButton *m_run;
    QPushButton *m_previewAgain;
    QDialogButtonBox *m_buttons;
};

class RunManager;

// Follows run `id` of `runs` once it was launched from `dialog`: when it
// starts (or finishes first), the dialog closes as launched and `onLaunched`
// runs; a run that fails before starting shows its error (or the stale plan)
// in the dialog instead. The connections live as long as `context` and are
// dropped after the first answer; the dialog may be gone by then.
void followLaunch(RunManager *runs, int id, QObject *context, QPointer<LaunchDialog> dialog,
                  std::function<void()> onLaunched = {});

} // namespace rw
