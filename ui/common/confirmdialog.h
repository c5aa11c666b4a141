#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QVBoxLayout;

namespace rw {

// The typed confirmation of a destructive action outside a batch plan
// (rollback, the recovery's re-run): what will happen, then "type NAME to
// confirm". Like LaunchDialog, it runs nothing itself: confirming emits
// confirmed() and waits for its owner to call finish() (closes it) or
// showError() (stays open, says why).
class ConfirmDialog : public QDialog {
    Q_OBJECT
public:
    // `summaryHtml` says what will happen; `word` must be typed exactly.
    ConfirmDialog(const QString &title, const QString &summaryHtml, const QString &word,
                  const QString &actionText, QWidget *parent = nullptr);

    // A widget shown between the summary and the confirmation (e.g. a table).
    void addDetail(QWidget *widget);
    bool canConfirm() const;

    QLineEdit *confirmEdit() const { return m_confirm; }
    QPushButton *actionButton() const { return m_action; }
    QString summaryText() const;
    QString stateText() const;

    void finish();
    void showError(const QString &message);

Q_SIGNALS:
    void confirmed();

private:
    void updateButtons();

    QString m_word;
    bool m_waiting = false;
    QVBoxLayout *m_layout;
    QLabel *m_summary;
    QLabel *m_state;
    QLineEdit *m_confirm;
    QPushButton *m_action;
    QDialogButtonBox *m_buttons;
    int m_detailAt = 1;
};

} // namespace rw
