#pragma once

#include "core/dlq/dlq.h"

#include <QWidget>
#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace rw {

class JsonEditor;

// The JSON panel of the DLQ page: a record's original payload (as captured,
// read-only) beside its current one (editable, highlighted, validated as
// the operator types, the parse error's line and column shown live), with
// Save fix, and a set-by-JSON-path tool for the selected records.
//
// The panel writes nothing: it asks its page (saveRequested,
// setPathRequested), which runs core off the GUI thread.
class DlqPayloadPanel : public QWidget {
    Q_OBJECT
public:
    // Larger payloads are shown truncated and read-only (edit them with
    // rewindctl dlq fix --payload-file).
    static constexpr qint64 kMaxEditableBytes = 2 * 1024 * 1024;

    explicit DlqPayloadPanel(QWidget *parent = nullptr);

    void showRecord(const DlqDetail &detail);
    void clearRecord();
    // The record shown, 0 for none.
    qint64 recordId() const { return m_id; }
    // Unsaved edits of the current payload.
    bool isModified() const;
    bool canSave() const;
    // Number of records the path tool would apply to, for its button.
    void setSelectionSize(qint64 records);
    // While the page runs an operation: no save, no set.
    void setBusy(bool busy);
    // Why this role may not change records (empty: it may): Save fix and
    // Set on selection are disabled, saying so.
    void setRefusal(const QString &refusal);

    JsonEditor *originalEditor() const { return m_original; }
    JsonEditor *currentEditor() const { return m_current; }
    QLabel *validationLabel() const { return m_validation; }
    QPushButton *saveButton() const { return m_save; }
    QLineEdit *pathEdit() const { return m_path; }
    QLineEdit *valueEdit() const { return m_value; }
    QPushButton *setPathButton() const { return m_setPath; }

Q_SIGNALS:
    void saveRequested(qint64 id, const QByteArray &payload);
    void setPathRequested(const QString &path, const QString &value);

private:
    void updateState();

    qint64 m_id = 0;
    std::optional<DlqStatus> m_status;
    bool m_editable = false;
    qint64 m_selection = 0;
    bool m_busy = false;
    QString m_refusal;
    QLabel *m_header;
    QLabel *m_originalNote;
    JsonEditor *m_original;
    JsonEditor *m_current;
    QLabel *m_validation;
    QPushButton *m_format;
    QPushButton *m_revert;
    QPushButton *m_save;
    QLineEdit *m_path;
    QLineEdit *m_value;
    QPushButton *m_setPath;
    QString m_loadedText;
};

} // namespace rw
