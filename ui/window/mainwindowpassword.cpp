// MainWindow: the database password a server wants and no source gave.
#include "core/sql/credentials.h"
#include "ui/common/errorbanner.h"
#include "ui/common/keyring.h"
#include "ui/window/mainwindow.h"
#include "ui/window/passworddialog.h"

#include <QLabel>

namespace rw {

void MainWindow::findPassword(const QString &db, const QString &spec, const Selection &initial,
                              PasswordStep step, const Error &error) {
    auto url = DatabaseUrl::parse(db);
    if (!url)
        return failOpen(error);
    // The password just tried (the URL's, the keyring's, the one typed) was
    // refused or there was none: never tried again.
    const bool hadOne = !credentials::lookup(*url).isEmpty();
    credentials::forget(*url);
    if (step == PasswordStep::Given) {
        // The desktop keyring next, if the operator asked it to remember one.
        m_opening = true;
        setBusy(true, tr("Looking in the desktop keyring\u2026"));
        const QString why = hadOne ? tr("The server refused the password given with the database.")
                                   : tr("No password was found in ~/.pgpass (or PGPASSFILE), "
                                        "PGPASSWORD or a service file.");
        keyring::read(credentials::loginOf(*url), this,
                      [this, db, spec, initial, error, why, url = *url](Result<QString> stored) {
                          m_opening = false;
                          setBusy(false, QString());
                          if (stored && !stored->isEmpty()) {
                              credentials::remember(url, *stored);
                              return openWith(db, spec, initial, PasswordStep::FromKeyring);
                          }
                          askPassword(db, spec, initial, why, error);
                      });
        return;
    }
    askPassword(db, spec, initial,
                step == PasswordStep::FromKeyring
                    ? tr("The server refused the password remembered in the desktop keyring.")
                    : tr("The server refused that password."),
                error);
}

void MainWindow::askPassword(const QString &db, const QString &spec, const Selection &initial,
                             const QString &why, const Error &error) {
    auto url = DatabaseUrl::parse(db);
    if (!url || !m_passwordPrompts)
        return failOpen(error);
    auto *dialog = new PasswordDialog(
        url->display(), url->user.isEmpty() ? tr("(your login)") : url->user, why, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_statusText->setText(tr("Waiting for the database password"));
    connect(dialog, &QDialog::finished, this,
            [this, dialog, db, spec, initial, error, url = *url](int result) {
                if (result != QDialog::Accepted)
                    return failOpen(error);
                const QString password = dialog->password();
                credentials::remember(url, password);
                if (!dialog->remember())
                    return openWith(db, spec, initial, PasswordStep::Typed);
                // Kept in the keyring first, then the open; a keyring that
                // cannot keep it is said once the workspace is open.
                m_opening = true;
                setBusy(true, tr("Saving the password in the desktop keyring\u2026"));
                keyring::write(credentials::loginOf(url), password, this,
                               [this, db, spec, initial](Status saved) {
                                   m_opening = false;
                                   if (!saved)
                                       m_keyringNotice =
                                           tr("The password is used for this session only: "
                                              "%1")
                                               .arg(saved.error().message);
                                   openWith(db, spec, initial, PasswordStep::Typed);
                               });
            });
    dialog->open();
}

} // namespace rw
