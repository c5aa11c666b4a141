#include "ui/window/passworddialog.h"

#include "ui/common/style.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace rw {

PasswordDialog::PasswordDialog(const QString &server, const QString &role, const QString &why,
                               QWidget *parent)
    : QDialog(parent)
    , m_password(new QLineEdit(this))
    , m_remember(new QCheckBox(tr("&Remember it in the desktop keyring"), this)) {
    setWindowTitle(tr("Database password"));
    setObjectName(QStringLiteral("passwordDialog"));
    auto *heading = new QLabel(tr("<b>%1</b> wants the password of role <b>%2</b>.")
                                   .arg(server.toHtmlEscaped(), role.toHtmlEscaped()),
                               this);
    heading->setWordWrap(true);
    auto *reason = new QLabel(why, this);
    reason->setObjectName(QStringLiteral("passwordReason"));
    reason->setWordWrap(true);
    reason->setStyleSheet(style::textColour(style::Colour::Muted));

    m_password->setObjectName(QStringLiteral("password"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setMinimumWidth(320);
    m_remember->setObjectName(QStringLiteral("rememberPassword"));
    m_remember->setToolTip(
        tr("Kept by the desktop's Secret Service (GNOME Keyring, KWallet, KeePassXC), never "
           "in Rewind's settings. Unticked, the password lasts until the console closes."));

    auto *form = new QFormLayout;
    form->addRow(tr("&Password:"), m_password);
    form->addRow(QString(), m_remember);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(reason);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

QString PasswordDialog::password() const {
    return m_password->text();
}

bool PasswordDialog::remember() const {
    return m_remember->isChecked();
}

} // namespace rw
