#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLineEdit;

namespace rw {

// Asks for a database and a pipeline spec. Only collects paths: opening and
// validating them is the main window's job (off the GUI thread).
class OpenWorkspaceDialog : public QDialog {
    Q_OBJECT
public:
    explicit OpenWorkspaceDialog(QWidget *parent = nullptr);

    void setPaths(const QString &db, const QString &spec);
    void setBrowseDir(const QString &dir) { m_browseDir = dir; }
    QString databasePath() const;
    QString specPath() const;
    QString browseDir() const { return m_browseDir; }

private:
    void browseDatabase();
    void browseSpec();
    void updateOk();

    QLineEdit *m_db;
    QLineEdit *m_spec;
    QDialogButtonBox *m_buttons;
    QString m_browseDir;
};

} // namespace rw
