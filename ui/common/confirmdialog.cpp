#include "ui/common/confirmdialog.h"

#include "ui/common/style.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

namespace rw {

ConfirmDialog::ConfirmDialog(const QString &title, const QString &summaryHtml, const QString &word,
                             const QString &actionText, QWidget *parent)
    : QDialog(parent)
    , m_word(word)
    , m_layout(new QVBoxLayout(this))
    , m_summary(new QLabel(this))
    , m_state(new QLabel(this))
    , m_confirm(new QLineEdit(this))
    , m_action(nullptr)
    , m_buttons(new QDialogButtonBox(this)) {
    setObjectName(QStringLiteral("confirmDialog"));
    setWindowTitle(title);
    setMinimumWidth(560);

    m_summary->setObjectName(QStringLiteral("confirmSummary"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setText(summaryHtml);
    m_layout->addWidget(m_summary);

    auto *confirmLabel = new QLabel(this);
    confirmLabel->setWordWrap(true);
    confirmLabel->setTextFormat(Qt::RichText);
    confirmLabel->setText(
        tr("%1 To confirm, type <code>%2</code>:")
            .arg(style::coloured(tr("This changes data."), style::Colour::Error, true),
                 word.toHtmlEscaped()));
    m_confirm->setObjectName(QStringLiteral("confirmWord"));
    m_confirm->setPlaceholderText(word);
    m_layout->addWidget(confirmLabel);
    m_layout->addWidget(m_confirm);

    m_state->setObjectName(QStringLiteral("confirmState"));
    m_state->setWordWrap(true);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_state->hide();
    m_layout->addWidget(m_state);

    m_action = m_buttons->addButton(actionText, QDialogButtonBox::AcceptRole);
    m_action->setObjectName(QStringLiteral("confirmAction"));
    m_action->setAutoDefault(false);
    m_action->setDefault(false);
    m_buttons->addButton(QDialogButtonBox::Cancel);
    m_layout->addWidget(m_buttons);

    connect(m_confirm, &QLineEdit::textChanged, this, &ConfirmDialog::updateButtons);
    connect(m_action, &QPushButton::clicked, this, [this] {
        if (!canConfirm())
            return;
        m_waiting = true;
        m_state->setStyleSheet(QString());
        m_state->setText(tr("Working\u2026"));
        m_state->show();
        updateButtons();
        Q_EMIT confirmed();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateButtons();
}

void ConfirmDialog::addDetail(QWidget *widget) {
    widget->setParent(this);
    m_layout->insertWidget(m_detailAt++, widget);
}

bool ConfirmDialog::canConfirm() const {
    return !m_waiting && m_confirm->text().trimmed() == m_word;
}

void ConfirmDialog::updateButtons() {
    m_action->setEnabled(canConfirm());
}

QString ConfirmDialog::summaryText() const {
    QString plain = m_summary->text();
    plain.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    return plain;
}

QString ConfirmDialog::stateText() const {
    return m_state->isVisible() ? m_state->text() : QString();
}

void ConfirmDialog::finish() {
    m_waiting = false;
    accept();
}

void ConfirmDialog::showError(const QString &message) {
    m_waiting = false;
    m_state->setStyleSheet(style::textColour(style::Colour::Error));
    m_state->setText(message);
    m_state->show();
    updateButtons();
}

} // namespace rw
