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
    // The password just tried is never tried again. The server's answer: no password at all, or one
    // it refused (the URL's, libpq's from ~/.pgpass or PGPASSWORD, the keyring's, the one typed).
    const bool refused = error.message.contains(QLatin1String("refused the one given"));
    credentials::forget(*url);
    if (step == PasswordStep::Given) {
        // The desktop keyring next, if the operator asked it to remember one.
        m_opening = true;
        setBusy(true, tr("Looking in the desktop keyring\u2026"));
        const QString why =
            refused ? tr("The server refused the password given (in the URL, ~/.pgpass or "
                         "PGPASSWORD).")
                    : tr("No password was found in ~/.pgpass (or PGPASSFILE), PGPASSWORD or a "
                         "service file.");
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
    if (step == PasswordStep::FromKeyring) // a stale one: never tried again
        keyring::remove(credentials::loginOf(*url), this, [](Status) {});
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
                // Kept in the keyring only once the server has taken it.
                m_keyringPending =
                    dialog->remember() ? std::optional<QString>(password) : std::nullopt;
                openWith(db, spec, initial, PasswordStep::Typed);
            });
    dialog->open();
}

void MainWindow::keepInKeyring(const QString &db) {
    if (!m_keyringPending)
        return;
    const QString password = *std::exchange(m_keyringPending, std::nullopt);
    auto url = DatabaseUrl::parse(db);
    if (!url)
        return;
    keyring::write(credentials::loginOf(*url), password, this, [this](Status saved) {
        if (!saved)
            m_banner->showMessage(
                ErrorBanner::Level::Warning,
                tr("The password is used for this session only: %1").arg(saved.error().message));
    });
}

} // namespace rw
