#pragma once

#include <QDialog>

class QCheckBox;
class QLineEdit;

namespace rw {

// Asks for a database password the server wants and no other source gave
// (the URL, ~/.pgpass, PGPASSWORD, a service, the desktop keyring). The
// password is used for this session; "Remember" keeps it in the desktop
// keyring (ui/common/keyring.h), never in a file of Rewind's.
class PasswordDialog : public QDialog {
    Q_OBJECT
public:
    // `server`: the database without its password; `why`: what happened
    // (none found, or the one given refused).
    PasswordDialog(const QString &server, const QString &role, const QString &why,
                   QWidget *parent = nullptr);

    QString password() const;
    bool remember() const;
    QLineEdit *passwordEdit() const { return m_password; }
    QCheckBox *rememberBox() const { return m_remember; }

private:
    QLineEdit *m_password;
    QCheckBox *m_remember;
};

} // namespace rw
